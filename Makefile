# Shipgate developer targets. `make test` is what CI runs (see .ci/run).
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 20s
# New inputs are minimised for at most this long (Go's default, 60 s, can
# spend a short run's whole budget minimising one input).
FUZZMINIMIZE ?= 2s
BENCHTIME ?= 1s

.PHONY: all build test lint bench fuzz cover clean

all: lint test build

build:
	$(GO) build -o bin/shipgate ./cmd/shipgate

test:
	$(GO) test -race $(PKGS)

lint:
	@unformatted=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) $(PKGS)

# A short run of every fuzz target (go test -fuzz takes one target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run='^$$' -fuzz="^$$t\$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZE) $$pkg; \
	  done; \
	done

cover:
	$(GO) test -coverprofile=cover.out $(PKGS) && $(GO) tool cover -func=cover.out | tail -1

clean:
	rm -rf bin cover.out
