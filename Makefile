GO      ?= go
BIN     ?= bin/rubichan
PKGS    ?= ./...
# e.g. make bench PKGS=./run/ BENCHTIME=3x for a quick look
BENCHTIME ?= 1s

.PHONY: build test vet race bench install demo fmt clean

build:
	$(GO) build -o $(BIN) .

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

test: vet
	$(GO) test -race -count=1 $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) -benchmem $(PKGS)

install:
	$(GO) install .

# An offline run against a scripted model server: no API key, no network.
demo: build
	$(GO) build -o bin/llmserve ./run/internal/llmserve
	testdata/demo/demo.sh $(BIN) bin/llmserve

fmt:
	gofmt -w .

clean:
	rm -rf bin
