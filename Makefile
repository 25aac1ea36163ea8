# kidx: see README.md. Every target works from a clean clone with only Go installed;
# tools come through the Go module proxy at pinned versions.

GO          ?= go
BIN         := bin/kidx
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Property-test depth for `make test` (CI). rapid reads RAPID_CHECKS from the environment, so
# packages without rapid are unaffected (the -rapid.checks flag would break them).
RAPID_CHECKS ?= 10000
FUZZTIME    ?= 30s
BENCHTIME   ?= 1s

.PHONY: all build test test-short lint bench demo fuzz check-long clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/kidx

# The CI test command. Race detection covers every package; the exhaustive and
# long property runs stay in check-long.
test:
	RAPID_CHECKS=$(RAPID_CHECKS) $(GO) test -race -count=1 ./...

test-short:
	$(GO) test -short -count=1 ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

demo: build
	@for i in 1 4096 20000 1048576; do \
		echo "== kidx sim (seed post 000 scenario) --config index.interval.bytes=$$i"; \
		./$(BIN) sim --config index.interval.bytes=$$i || exit $$?; \
		echo; \
	done

fuzz:
	@echo "no fuzz targets yet"

check-long:
	RAPID_CHECKS=100000 $(GO) test -count=1 -timeout 60m ./...

clean:
	rm -rf bin report.html
