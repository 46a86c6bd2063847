GO      ?= go
BIN     ?= bin/rubichan
PKGS    ?= ./...

.PHONY: build test vet race bench install fmt clean

build:
	$(GO) build -o $(BIN) .

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

test: vet
	$(GO) test -race -count=1 $(PKGS)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

install:
	$(GO) install .

fmt:
	gofmt -w .

clean:
	rm -rf bin
