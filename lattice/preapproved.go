package lattice

import "sync"

// preapprovedHosts are the hosts Claude Code's WebFetch fetches from with
// no rule: its built-in list of documentation sites (the entries of that
// list without a path; the ones with a path, such as github.com/anthropics
// or go.dev/doc, are preapproved only under that path, and a WebFetch call
// here is a host, so they are not taken). Measured on 2.1.328: a fetch of
// docs.python.org and modelcontextprotocol.io ran with no rule, in the
// default mode and in dontAsk too, while a deny or an ask rule of the host
// still denied or asked (deny and ask come first); github.com and
// docs.anthropic.com asked. The list is the binary's own:
// internal/conformance's TestPreapprovedHostsInBinary reads it from the
// pinned binary and fails on any difference.
var preapprovedHosts = map[string]bool{
	"agentskills.io":            true,
	"angular.io":                true,
	"asp.net":                   true,
	"blazor.net":                true,
	"bun.sh":                    true,
	"claude.dev":                true,
	"cloud.google.com":          true,
	"code.claude.com":           true,
	"cypress.io":                true,
	"d3js.org":                  true,
	"dev.mysql.com":             true,
	"devcenter.heroku.com":      true,
	"developer.android.com":     true,
	"developer.apple.com":       true,
	"developer.mozilla.org":     true,
	"doc.rust-lang.org":         true,
	"docs.aws.amazon.com":       true,
	"docs.djangoproject.com":    true,
	"docs.flutter.dev":          true,
	"docs.getdbt.com":           true,
	"docs.netlify.com":          true,
	"docs.oracle.com":           true,
	"docs.python.org":           true,
	"docs.spring.io":            true,
	"docs.stripe.com":           true,
	"docs.swift.org":            true,
	"docs.unity.com":            true,
	"docs.unrealengine.com":     true,
	"dotnet.microsoft.com":      true,
	"en.cppreference.com":       true,
	"expressjs.com":             true,
	"fastapi.tiangolo.com":      true,
	"flask.palletsprojects.com": true,
	"getbootstrap.com":          true,
	"git-scm.com":               true,
	"gradle.org":                true,
	"graphql.org":               true,
	"hibernate.org":             true,
	"httpd.apache.org":          true,
	"jestjs.io":                 true,
	"jquery.com":                true,
	"jupyter.org":               true,
	"keras.io":                  true,
	"kotlinlang.org":            true,
	"kubernetes.io":             true,
	"laravel.com":               true,
	"learn.microsoft.com":       true,
	"matplotlib.org":            true,
	"maven.apache.org":          true,
	"modelcontextprotocol.io":   true,
	"nextjs.org":                true,
	"nginx.org":                 true,
	"nodejs.org":                true,
	"numpy.org":                 true,
	"pandas.pydata.org":         true,
	"platform.claude.com":       true,
	"prisma.io":                 true,
	"pytorch.org":               true,
	"react.dev":                 true,
	"reactnative.dev":           true,
	"reactrouter.com":           true,
	"redis.io":                  true,
	"redux.js.org":              true,
	"requests.readthedocs.io":   true,
	"ruby-doc.org":              true,
	"scikit-learn.org":          true,
	"selenium.dev":              true,
	"spark.apache.org":          true,
	"symfony.com":               true,
	"tailwindcss.com":           true,
	"threejs.org":               true,
	"tomcat.apache.org":         true,
	"vuejs.org":                 true,
	"webpack.js.org":            true,
	"www.ansible.com":           true,
	"www.claude.dev":            true,
	"www.docker.com":            true,
	"www.mongodb.com":           true,
	"www.php.net":               true,
	"www.postgresql.org":        true,
	"www.sqlite.org":            true,
	"www.tensorflow.org":        true,
	"www.terraform.io":          true,
	"www.typescriptlang.org":    true,
}

// PreapprovedHosts returns the hosts of preapprovedHosts, for the test
// that holds them to the binary.
func PreapprovedHosts() []string {
	out := make([]string, 0, len(preapprovedHosts))
	for h := range preapprovedHosts {
		out = append(out, h)
	}
	return out
}

// preapprovedRules are preapprovedHosts as allow rules, for ImplicitAllows,
// built on first use (parsing 84 rules at init cost every command a
// third of a megabyte: TestPackageInitIsCheap).
var preapprovedRules = sync.OnceValue(func() []Rule {
	out := make([]Rule, 0, len(preapprovedHosts))
	for h := range preapprovedHosts {
		r := ParseIn(Allow, "WebFetch(domain:"+h+")")
		r.Note = "Claude Code " + ClaudeCodeVersion + " fetches from " + h + " with no rule (its built-in list of documentation hosts)"
		out = append(out, r)
	}
	return out
})
