# Shipgate developer targets. `make test` is what CI runs (see .ci/run).
GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 20s
# New inputs are minimised for at most this long (Go's default, 60 s, can
# spend a short run's whole budget minimising one input).
FUZZMINIMIZE ?= 2s
BENCHTIME ?= 1s

.PHONY: all build test lint tools bench fuzz cover clean conformance sandbox-tools claude-code claude-code-version bun bun-version codex codex-version gemini gemini-version opencode opencode-version copilot copilot-version conformance-opencode conformance-copilot conformance-codex-run conformance-gemini-run surfaces

all: lint test build

build:
	$(GO) build -o bin/shipgate ./cmd/shipgate

# -timeout bounds one package's test binary: internal/conformance took 17 min
# under -race at a load average of 14-31 on 2 cores, and the tests' waits end
# only at this deadline (internal/testwait), so it is the one figure of wall
# time in the suite.
test:
	$(GO) test -race -timeout 45m $(PKGS)

# Linters at pinned versions (.ci/run installs them with `make tools`).
GOBIN_DIR         := $(shell $(GO) env GOPATH)/bin
STATICCHECK_PKG   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE_PKG      := golang.org/x/tools/cmd/deadcode@v0.52.0
STATICCHECK       ?= $(GOBIN_DIR)/staticcheck
DEADCODE          ?= $(GOBIN_DIR)/deadcode

tools:
	GOFLAGS= $(GO) install $(STATICCHECK_PKG)
	GOFLAGS= $(GO) install $(DEADCODE_PKG)

# gofmt, go vet, staticcheck, and deadcode (functions no main package or
# test reaches; .deadcode-allow lists the exported API kept on purpose).
lint:
	@unformatted=$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@test -x $(STATICCHECK) && test -x $(DEADCODE) || { echo "staticcheck or deadcode missing: run make tools"; exit 1; }
	$(STATICCHECK) $(PKGS)
	@out=$$($(DEADCODE) -test $(PKGS) | sed -E 's/:[0-9]+:[0-9]+: /: /' | grep -vxF -f .deadcode-allow || true); \
	if [ -n "$$out" ]; then echo "deadcode: unreachable code (delete it, or list it in .deadcode-allow with why):"; echo "$$out"; exit 1; fi

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

# The Claude Code conformance harness (docs/conformance.md). `make
# conformance` installs the pinned @anthropic-ai/claude-code (its version is
# lattice/version.go) into a cache outside the
# repository, generates a corpus of about N decisions from SEED, asks Claude
# Code and Shipgate, prints the agreement per class and every disagreement,
# and fails on any disagreement internal/conformance/known.txt does not list.
CLAUDE_CODE_VERSION := $(shell sed -n 's/^const ClaudeCodeVersion = "\(.*\)"/\1/p' lattice/version.go)
SHIPGATE_CLAUDE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/claude-code/$(CLAUDE_CODE_VERSION)
export SHIPGATE_CLAUDE_CACHE
SEED    ?= 1
N       ?= 24000
WORKERS ?= 2

claude-code-version:
	@echo $(CLAUDE_CODE_VERSION)

claude-code:
	@bin=$(SHIPGATE_CLAUDE_CACHE)/node_modules/@anthropic-ai/claude-code-linux-x64/claude; \
	if [ -x "$$bin" ] && [ "$$($$bin --version 2>/dev/null | cut -d' ' -f1)" = "$(CLAUDE_CODE_VERSION)" ]; then \
	  echo "Claude Code $(CLAUDE_CODE_VERSION) is installed at $$bin"; \
	else \
	  mkdir -p $(SHIPGATE_CLAUDE_CACHE) && \
	  npm install --prefix $(SHIPGATE_CLAUDE_CACHE) --no-audit --no-fund --loglevel=error \
	    @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION) && \
	  "$$bin" --version; \
	fi

# Bun, the runtime Claude Code is built on (agentfiles/claude.BunVersion,
# which TestBunVersionIsClaudeCodes reads off the Claude Code binary): its
# YAML parser is the oracle TestRetryFlowListsAgainstBun holds Shipgate's
# reading of frontmatter lists to. The pinned npm package, outside the
# repository.
BUN_VERSION := $(shell sed -n 's/^const BunVersion = "\(.*\)"/\1/p' agentfiles/claude/fmretry.go)
SHIPGATE_BUN_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/bun/$(BUN_VERSION)
export SHIPGATE_BUN_CACHE

bun-version:
	@echo $(BUN_VERSION)

bun:
	@bin=$(SHIPGATE_BUN_CACHE)/node_modules/@oven/bun-linux-x64/bin/bun; \
	if [ -x "$$bin" ] && [ "$$($$bin --version 2>/dev/null)" = "$(BUN_VERSION)" ]; then \
	  echo "Bun $(BUN_VERSION) is installed at $$bin"; \
	else \
	  mkdir -p $(SHIPGATE_BUN_CACHE) && \
	  npm install --prefix $(SHIPGATE_BUN_CACHE) --no-audit --no-fund --loglevel=error @oven/bun-linux-x64@$(BUN_VERSION) && \
	  "$$bin" --version; \
	fi

# Claude Code's sandbox needs bubblewrap and socat (Debian packages; .ci/run
# installs them): without them it turns the sandbox off without a word.
sandbox-tools:
	@command -v bwrap >/dev/null && command -v socat >/dev/null || \
	  { echo "the sandbox class needs bubblewrap and socat: apt-get install bubblewrap socat"; exit 1; }

conformance: claude-code sandbox-tools
	$(GO) run ./cmd/conformance -seed $(SEED) -n $(N) -workers $(WORKERS)

# The Codex CLI and Gemini CLI oracles (docs/conformance.md): the pinned
# npm packages, installed outside the repository like Claude Code. Their
# versions are agentfiles/codex.Version and gemini.Version.
CODEX_VERSION  := $(shell sed -n 's/^const Version = "\(.*\)"/\1/p' agentfiles/codex/rules.go)
GEMINI_VERSION := $(shell sed -n 's/^const Version = "\(.*\)"/\1/p' agentfiles/gemini/settings.go)
SHIPGATE_CODEX_CACHE  ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/codex/$(CODEX_VERSION)
SHIPGATE_GEMINI_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/gemini-cli/$(GEMINI_VERSION)
export SHIPGATE_CODEX_CACHE SHIPGATE_GEMINI_CACHE

codex-version:
	@echo $(CODEX_VERSION)

gemini-version:
	@echo $(GEMINI_VERSION)

codex:
	@bin=$(SHIPGATE_CODEX_CACHE)/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex; \
	if [ -x "$$bin" ] && [ "$$($$bin --version 2>/dev/null)" = "codex-cli $(CODEX_VERSION)" ]; then \
	  echo "Codex CLI $(CODEX_VERSION) is installed at $$bin"; \
	else \
	  mkdir -p $(SHIPGATE_CODEX_CACHE) && \
	  npm install --prefix $(SHIPGATE_CODEX_CACHE) --no-audit --no-fund --loglevel=error @openai/codex@$(CODEX_VERSION) && \
	  "$$bin" --version; \
	fi

gemini:
	@pkg=$(SHIPGATE_GEMINI_CACHE)/node_modules/@google/gemini-cli; \
	if [ -f "$$pkg/package.json" ] && grep -q '"version": "$(GEMINI_VERSION)"' "$$pkg/package.json"; then \
	  echo "Gemini CLI $(GEMINI_VERSION) is installed at $$pkg"; \
	else \
	  mkdir -p $(SHIPGATE_GEMINI_CACHE) && \
	  npm install --prefix $(SHIPGATE_GEMINI_CACHE) --no-audit --no-fund --loglevel=error --omit=optional @google/gemini-cli@$(GEMINI_VERSION) && \
	  grep '"version"' "$$pkg/package.json"; \
	fi

# The OpenCode and Copilot CLI oracles (docs/conformance.md): pinned npm
# binaries, installed outside the repository. Their versions are
# internal/conformance.OpenCodeVersion and CopilotVersion. make test runs a
# fixed-seed subset of each; the targets below run the full corpora.
OPENCODE_VERSION := $(shell sed -n 's/^const OpenCodeVersion = "\(.*\)"/\1/p' internal/conformance/opencode.go)
COPILOT_VERSION  := $(shell sed -n 's/^const CopilotVersion = "\(.*\)"/\1/p' internal/conformance/copilot.go)
SHIPGATE_OPENCODE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/opencode/$(OPENCODE_VERSION)
SHIPGATE_COPILOT_CACHE  ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/shipgate/copilot-cli/$(COPILOT_VERSION)
export SHIPGATE_OPENCODE_CACHE SHIPGATE_COPILOT_CACHE
ORACLE_N ?= 200
# Runtime sessions (a real tool call each, against a fake model): slower.
ORACLE_RUN_N ?= 40

opencode-version:
	@echo $(OPENCODE_VERSION)

copilot-version:
	@echo $(COPILOT_VERSION)

opencode:
	@bin=$(SHIPGATE_OPENCODE_CACHE)/node_modules/opencode-linux-x64/bin/opencode; \
	if [ -x "$$bin" ] && [ "$$($$bin --version 2>/dev/null)" = "$(OPENCODE_VERSION)" ]; then \
	  echo "OpenCode $(OPENCODE_VERSION) is installed at $$bin"; \
	else \
	  mkdir -p $(SHIPGATE_OPENCODE_CACHE) && \
	  npm install --prefix $(SHIPGATE_OPENCODE_CACHE) --no-audit --no-fund --loglevel=error opencode-ai@$(OPENCODE_VERSION) && \
	  "$$bin" --version; \
	fi

copilot:
	@bin=$(SHIPGATE_COPILOT_CACHE)/node_modules/@github/copilot-linux-x64/copilot; \
	if [ -x "$$bin" ] && "$$bin" --version 2>/dev/null | grep -q "CLI $(COPILOT_VERSION)\."; then \
	  echo "Copilot CLI $(COPILOT_VERSION) is installed at $$bin"; \
	else \
	  mkdir -p $(SHIPGATE_COPILOT_CACHE) && \
	  npm install --prefix $(SHIPGATE_COPILOT_CACHE) --no-audit --no-fund --loglevel=error @github/copilot@$(COPILOT_VERSION) && \
	  "$$bin" --version; \
	fi

conformance-opencode: opencode
	SHIPGATE_OPENCODE_N=$(ORACLE_N) SHIPGATE_OPENCODE_RUN_N=$(ORACLE_RUN_N) SHIPGATE_REQUIRE_OPENCODE=1 $(GO) test -count=1 -timeout 120m -run 'TestOpenCodeConformance|TestOpenCodeRuntime' -v ./internal/conformance/

# Codex's sandbox at run time (a real shell call a config, fake model).
conformance-codex-run: codex
	SHIPGATE_CODEX_RUN_N=$(ORACLE_RUN_N) SHIPGATE_REQUIRE_CODEX=1 $(GO) test -count=1 -timeout 120m -run 'TestCodexRuntime' -v ./internal/conformance/

# Gemini CLI at run time (real tool calls under generated settings, fake model).
conformance-gemini-run: gemini
	SHIPGATE_GEMINI_RUN_N=$(ORACLE_RUN_N) SHIPGATE_REQUIRE_GEMINI=1 $(GO) test -count=1 -timeout 120m -run 'TestGeminiRuntime' -v ./internal/conformance/

conformance-copilot: copilot
	SHIPGATE_COPILOT_N=$(ORACLE_N) SHIPGATE_COPILOT_RUN_N=$(ORACLE_RUN_N) SHIPGATE_REQUIRE_COPILOT=1 $(GO) test -count=1 -timeout 120m -run 'TestCopilotConformance|TestCopilotRuntime' -v ./internal/conformance/

# Record again which repository paths each agent binary touches
# (judge/testdata/surface; strace from Debian). SURFACE=1 compares instead.
SURFACE ?= update
surfaces: opencode copilot codex gemini claude-code
	SHIPGATE_TRACE_SURFACE=$(SURFACE) $(GO) test -count=1 -timeout 30m -run 'TestTraceSurfaces' -v ./internal/conformance/

clean:
	rm -rf bin cover.out
