GO      ?= go
BIN     ?= bin/rubichan
PKGS    ?= ./...
# e.g. make bench PKGS=./run/ BENCHTIME=3x for a quick look
BENCHTIME ?= 1s
# urfave_cli_no_docs leaves out urfave/cli's markdown and man page
# generation, which rubichan does not use; its markdown library's
# initialisers cost every start 1.5 ms (line mode's target is 20 ms).
TAGS    ?= urfave_cli_no_docs

.PHONY: build test vet race bench install demo fmt clean mods image image-check

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

# The ACP TypeScript SDK (testdata/acp): its JSON Schema validates what
# rubichan acp sends, and its client drives rubichan acp from outside.
ACP_MODULES = testdata/acp/node_modules/.package-lock.json
$(ACP_MODULES): testdata/acp/package.json testdata/acp/package-lock.json
	npm ci --prefix testdata/acp --no-audit --no-fund
	@touch $@

# -timeout: the run package's end-to-end scripts take 8-10 minutes under
# -race on a loaded 2-core machine, past go test's default of 10. go test
# prints a line per package as each ends; the run package goes last, on
# its own and verbose through testdata/make/progress.awk, so that its
# minutes show a line per top-level test and per 25 scripts.
RUNPKG = github.com/rubichan/rubichan/run
test: vet $(MCP_MODULES) $(ACP_MODULES)
	$(GO) test -race -count=1 -timeout 30m $$($(GO) list $(PKGS) | grep -vx $(RUNPKG))
	@if $(GO) list $(PKGS) | grep -qx $(RUNPKG); then \
	  echo "$(RUNPKG): its end-to-end scripts take minutes; a line as its tests end"; \
	  $(GO) test -race -count=1 -timeout 30m -v $(RUNPKG) 2>&1 | awk -f testdata/make/progress.awk; \
	fi

bench: mods
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) -benchmem $(PKGS)

install: mods
	CGO_ENABLED=0 $(GO) install -buildvcs=true -tags $(TAGS) .

# An offline run against a scripted model server: no API key, no network.
demo: build
	$(GO) build -o bin/llmserve ./run/internal/llmserve
	testdata/demo/demo.sh $(BIN) bin/llmserve

# The OCI image (docs/scale-out.md): buildah from scratch plus files of
# this machine's Debian packages (testdata/image/build.sh), tagged
# rubichan:VERSION and rubichan:latest. Reproducible: the binary is built
# with -trimpath and every timestamp is SOURCE_DATE_EPOCH (default: the
# commit time of HEAD), so the same commit on the same packages gives the
# same digest. Needs buildah, git and busybox-static.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE_BIN = bin/image/rubichan
image: mods
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(TAGS) \
	  -ldflags '-s -w -X github.com/rubichan/rubichan/run.version=$(VERSION)' -o $(IMAGE_BIN) .
	testdata/image/build.sh $(IMAGE_BIN) '$(VERSION)' '$(REVISION)' '$(SOURCE_DATE_EPOCH)' \
	  rubichan:$(VERSION) rubichan:latest

# The image's checks (testdata/image/check.sh), apart from make test: size,
# user, labels, runs against the scripted model server, the sandbox inside
# the container, and a second build with the same digest. .ci/run calls it
# after make test. Needs podman, buildah and runc.
image-check: image
	$(GO) build -o bin/llmserve ./run/internal/llmserve
	testdata/image/check.sh rubichan:$(VERSION) $(IMAGE_BIN) '$(VERSION)' '$(REVISION)' '$(SOURCE_DATE_EPOCH)' bin/llmserve

fmt:
	gofmt -w .

clean:
	rm -rf bin
