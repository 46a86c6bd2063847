GO      ?= go
BIN     ?= bin/rubichan
PKGS    ?= ./...
# e.g. make bench PKGS=./run/ BENCHTIME=3x for a quick look
BENCHTIME ?= 1s
# urfave_cli_no_docs leaves out urfave/cli's markdown and man page
# generation, which rubichan does not use; its markdown library's
# initialisers cost every start 1.5 ms (line mode's target is 20 ms).
TAGS    ?= urfave_cli_no_docs

.PHONY: build test vet race bench install demo fmt clean mods

# The first build on a fresh machine downloads the modules (about 9 s) and
# compiles them (minutes on a small machine): say so, and show each download.
mods:
	@$(GO) mod download -x 2>&1 | awk '/^# get .*\.zip$$/ { \
	  if (!n++) print "downloading Go modules (once: about 10 s; the first build then compiles them, minutes on 2 cores)"; \
	  sub(/^# get https:\/\/[^\/]*\//, ""); sub(/\/@v\//, " "); sub(/\.zip$$/, ""); print "  " $$0 }'
	@$(GO) mod download

# The program is built static (CGO_ENABLED=0): it runs in any container,
# whatever its libc, and maps no libc (about 3 MB less resident memory).
# Only the race detector of `make test` needs cgo.
build: mods
	CGO_ENABLED=0 $(GO) build -buildvcs=true -tags $(TAGS) -o $(BIN) .

# staticcheck with its default checks, test files included; pinned to the
# newest release the module proxy served when it was added (v0.8.2, that is
# staticcheck 2026.2.2); go run builds it once into the build cache.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet: mods
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) -tags $(TAGS) $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

# The real MCP servers the end-to-end tests start (testdata/mcp), pinned by
# its package-lock.json; installed again when the lock file changes.
MCP_MODULES = testdata/mcp/node_modules/.package-lock.json
$(MCP_MODULES): testdata/mcp/package.json testdata/mcp/package-lock.json
	npm ci --prefix testdata/mcp --no-audit --no-fund
	@touch $@

# -timeout: the run package's end-to-end scripts take 8-10 minutes under
# -race on a loaded 2-core machine, past go test's default of 10.
test: vet $(MCP_MODULES)
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

bench: mods
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) -benchmem $(PKGS)

install: mods
	CGO_ENABLED=0 $(GO) install -buildvcs=true -tags $(TAGS) .

# An offline run against a scripted model server: no API key, no network.
demo: build
	$(GO) build -o bin/llmserve ./run/internal/llmserve
	testdata/demo/demo.sh $(BIN) bin/llmserve

fmt:
	gofmt -w .

clean:
	rm -rf bin
