package main

import (
	_ "github.com/bradleyfalzon/ghinstallation/v2"
	_ "github.com/go-chi/chi/v5"
	_ "github.com/golang-jwt/jwt/v4"
	_ "github.com/google/go-github/v62/github"
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/invopop/jsonschema"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/syntax"
)

func main() {}
