# kidx: see README.md. Every target works from a clean clone with only Go installed;
# tools come through the Go module proxy at pinned versions.

GO          ?= go
BIN         := bin/kidx
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Property-test depth for `make test` (CI). rapid reads RAPID_CHECKS from the environment, so
# packages without rapid are unaffected (the -rapid.checks flag would break them).
RAPID_CHECKS ?= 10000
FUZZTIME    ?= 30s
# Native fuzz targets (docs/fuzz.md). CI runs each for a fixed count: a duration can
# end in a bare "context deadline exceeded" (golang/go#75804). The parser targets live in
# packages whose test binaries link neither rapid, gofuzz nor franz-go (the engine's cost per
# execution grows with the binary's coverage counters): fuzz/parsers/ (fixed-layout binary
# parsers), fuzz/parsers/decoding/ (those reaching the codecs or encoding/json); the others
# in fuzz/.
FUZZ_PARSER_TARGETS   := FuzzIndexFile FuzzTimeIndexFile FuzzBatchHeader FuzzRecordDecode \
                         FuzzSegmentName FuzzProducerSnapshot FuzzTxnIndex
FUZZ_DECODING_TARGETS := FuzzLogWalk FuzzCheckpointFiles FuzzDecompress FuzzRecordsAnyBatch
# The protocol reader of kidx diff --against (docs/against.md) lives in against/.
# The reference reader of examples/goreader (docs/against.md) is fuzzed in its own package.
FUZZ_AGAINST_TARGETS  := FuzzAgainstAnswers
FUZZ_EXAMPLE_TARGETS  := FuzzLookup
# The decoders of Kafka's messages (docs/kafkamsg.md) are fuzzed in kafkamsg itself.
FUZZ_KAFKAMSG_TARGETS := FuzzMetadataRecord FuzzCoordinatorRecord
# kidx dump's record decoders (docs/dump-decoders.md): their own package, which links kmsg.
FUZZ_DECODER_TARGETS  := FuzzDumpDecoders
FUZZ_TARGETS := $(FUZZ_PARSER_TARGETS) $(FUZZ_DECODING_TARGETS) $(FUZZ_AGAINST_TARGETS) $(FUZZ_EXAMPLE_TARGETS) $(FUZZ_KAFKAMSG_TARGETS) $(FUZZ_DECODER_TARGETS) FuzzWorkloadJSON FuzzDifferential \
                FuzzRapidDifferential FuzzExplain FuzzConfigFile FuzzCrash
# Sets $$pkg, in a recipe's loop over targets $$t, to the package holding target $$t.
FUZZ_PKG = pkg=./fuzz/; \
	case " $(FUZZ_PARSER_TARGETS) " in *" $$t "*) pkg=./fuzz/parsers/;; esac; \
	case " $(FUZZ_DECODING_TARGETS) " in *" $$t "*) pkg=./fuzz/parsers/decoding/;; esac; \
	case " $(FUZZ_AGAINST_TARGETS) " in *" $$t "*) pkg=./against/;; esac; \
	case " $(FUZZ_EXAMPLE_TARGETS) " in *" $$t "*) pkg=./examples/goreader/kafkaindex/;; esac; \
	case " $(FUZZ_KAFKAMSG_TARGETS) " in *" $$t "*) pkg=./kafkamsg/;; esac; \
	case " $(FUZZ_DECODER_TARGETS) " in *" $$t "*) pkg=./fuzz/decoders/;; esac
FUZZ_CI_COUNT ?= 2000x
# New inputs are minimized for at most this many runs (the default, 60s per input, stalls
# short runs).
FUZZ_MINIMIZE ?= 1000x
BENCHTIME   ?= 1s

.PHONY: all build test test-short lint bench demo fuzz check-long check-html z3 strace clean generate-kafkamsg

all: build

# -buildvcs=auto: record the git revision for `kidx version` when building in a checkout, even
# where GOFLAGS sets -buildvcs=false (a flag on the command line wins).
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/kidx

# The CI test command. Race detection covers every package; the exhaustive and
# long property runs stay in check-long. It needs z3 for the parametric proofs (props/smt) and
# strace for the read-only commands' trace test (cmd/kidx/readonly_trace_test.go): the z3 and
# strace targets install them first where they can.
test: z3 strace
	RAPID_CHECKS=$(RAPID_CHECKS) $(GO) test -race -count=1 ./...
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_PKG); echo "== $$t ($(FUZZ_CI_COUNT))"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZ_CI_COUNT) -fuzzminimizetime $(FUZZ_MINIMIZE) $$pkg || exit $$?; \
	done
	@if command -v chromium >/dev/null 2>&1 || [ -n "$(CHROMIUM)" ]; then \
		$(MAKE) --no-print-directory check-html; \
	else \
		echo "== check-html skipped: no chromium on this machine (make check-html installs it as root, or says how)"; \
	fi

test-short:
	$(GO) test -short -count=1 ./...

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

# The seed post's experiment (docs/background.md): kidx sim's summary at each of its four intervals, then the same
# sweep as a what-if report (text on the terminal, and report.html).
demo: build
	@for i in 1 4096 20000 1048576; do \
		echo "== kidx sim --config index.interval.bytes=$$i"; \
		./$(BIN) sim --config index.interval.bytes=$$i | tail -2 || exit $$?; \
	done
	@echo
	./$(BIN) whatif
	./$(BIN) whatif --format html --out report.html
	@echo "wrote report.html"

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_PKG); echo "== $$t ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZ_MINIMIZE) $$pkg || exit $$?; \
	done

# The recorded campaign of issue 13, item 5 (docs/fuzz.md, "Long campaign"): every parser
# target (the differential ones are left to make fuzz and kidx diff) for FUZZ_LONG_COUNT
# executions. A target that finds a crash fails the run at the end, after the others have
# run; Go keeps the input in testdata/fuzz/<Target>/ of the target's package. -timeout 0: a run takes longer
# than go test's default 10 minutes for the slowest targets (docs/fuzz.md gives the times).
FUZZ_LONG_TARGETS := FuzzIndexFile FuzzTimeIndexFile FuzzBatchHeader FuzzLogWalk FuzzRecordDecode \
                     FuzzSegmentName FuzzWorkloadJSON FuzzDecompress FuzzRecordsAnyBatch \
                     FuzzProducerSnapshot FuzzTxnIndex FuzzCheckpointFiles FuzzConfigFile FuzzExplain
FUZZ_LONG_COUNT   ?= 10000000x

.PHONY: fuzz-long
fuzz-long:
	@status=0; for t in $(FUZZ_LONG_TARGETS); do \
		$(FUZZ_PKG); echo "== $$t ($(FUZZ_LONG_COUNT)) $$(date -u +%FT%TZ)"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZ_LONG_COUNT) -fuzzminimizetime $(FUZZ_MINIMIZE) -timeout 0 $$pkg || status=1; \
	done; exit $$status

# Long property runs: 100 000 rapid cases per property and rule, then the full exhaustive
# default space (L = 7: measured 1060 s per-batch and 705 s per-append on 2 vCPUs), the
# parametric proofs' benchmark, then kidx prove: its default space as it is, with restarts
# (under 1 s) and with recovers (10 s), the same default space as check --exhaustive for ANY length (about 1 s per
# rule on 2 vCPUs), and that space with appends of two batches (about 25 s).
check-long: build z3
	RAPID_CHECKS=100000 $(GO) test -count=1 -timeout 60m ./props/ ./fuzz/
	KIDX_LONG_REPLICAS=1 $(GO) test -count=1 -run 'TestSearchReplicasLong' -v ./props/
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 5x ./props/smt/
	./$(BIN) check --checks 100000 --rule per-batch
	./$(BIN) check --checks 100000 --rule per-append
	./$(BIN) check --exhaustive --max-len 7 --rule per-batch
	./$(BIN) check --exhaustive --max-len 7 --rule per-append
	./$(BIN) prove
	./$(BIN) prove --restarts
	./$(BIN) prove --recovers
	./$(BIN) prove --replicas
	./$(BIN) check --replicas --checks 100000
	./$(BIN) prove $(PROVE_EXHAUSTIVE) --max-append 1
	./$(BIN) prove $(PROVE_EXHAUSTIVE) --max-append 2
	./$(BIN) prove --era-spec examples/eras/fix-a-roll-on-index-room.json --index-bytes 24,36 --max-append 2 --restarts
	./$(BIN) prove --era-spec examples/eras/fix-b-skip-entry-when-full.json --index-bytes 24,36 --max-append 3 --restarts
	./$(BIN) prove --parametric --era-spec examples/eras/fix-a-roll-on-index-room.json
	$(GO) test -count=1 -run '^$$' -bench 'Prove' -benchtime 3x ./props/

# check --exhaustive's default space (props.DefaultAlphabet, DefaultIntervals, DefaultSegments,
# Kafka's segment.index.bytes) as kidx prove flags.
PROVE_EXHAUSTIVE := --alphabet 68,100,4095,4096,4097,16350 --intervals 0,100,4095,4096,4097,16350 \
	--segments 16350,32700,65400 --index-bytes 10485760

# Renders the HTML reports (default whatif, a grid sweep, analyze of golden partitions) in
# headless Chromium and fails on a broken page: a chart missing or of no size, a script error,
# the page's self-check not run (scripts/check-html.sh). Screenshots land in $(CHECK_HTML_DIR)
# to look at. Needs chromium: installed with apt-get when run as root, else it says how. About
# 10 s; `make test` runs it last where chromium is already installed, and says so where not
# (CI machines have none).
CHECK_HTML_DIR ?= bin/check-html
check-html: build
	scripts/check-html.sh ./$(BIN) $(CHECK_HTML_DIR)

# z3, the SMT solver of the parametric proofs (props/smt, docs/proofs-parametric.md): installed
# with apt-get (Debian's z3 package) when missing and run as root, else it says how. Without
# z3 the proofs' tests skip with a loud message, except under CI (CI set), where they fail:
# this target then fails first.
z3:
	@if command -v z3 >/dev/null 2>&1; then \
		echo "== z3: $$(z3 -version)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "== installing z3 (apt-get install z3)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq z3 && z3 -version; \
	else \
		echo "== z3 is missing: install it as root with 'apt-get install z3' (or run 'make z3' as root); the parametric proofs' tests skip without it"; \
		if [ -n "$$CI" ]; then echo "CI is set: failing, the parametric proofs must run in CI"; exit 1; fi; \
	fi

# strace, for the test that runs the read-only commands under a system-call trace and fails on
# any open for writing, create, remove, rename, truncate or lock (docs/cli.md, "Read-only
# commands"): installed with apt-get (Debian's strace package) when missing and run as root,
# else it says how. Without strace that test skips loudly, except under CI, where it fails:
# this target then fails first.
strace:
	@if command -v strace >/dev/null 2>&1; then \
		echo "== strace: $$(strace -V | head -1)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "== installing strace (apt-get install strace)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace && strace -V | head -1; \
	else \
		echo "== strace is missing: install it as root with 'apt-get install strace' (or run 'make strace' as root); the read-only trace test skips without it"; \
		if [ -n "$$CI" ]; then echo "CI is set: failing, the read-only trace test must run in CI"; exit 1; fi; \
	fi

# kafkamsg's tables from Kafka's JSON message definitions (docs/kafkamsg.md): KAFKA is an
# apache/kafka tree at KAFKA_COMMIT (a checkout, or `git archive KAFKA_COMMIT` of it). Not part
# of `make test`: the generated files are committed.
KAFKA_COMMIT ?= 3e3f0c4315204bf16b6d04b7b91eed6855dad56b
generate-kafkamsg:
	@if [ -z "$(KAFKA)" ]; then echo "usage: make generate-kafkamsg KAFKA=/path/to/kafka [KAFKA_COMMIT=sha]"; exit 2; fi
	$(GO) run ./kafkamsg/internal/gen -kafka "$(KAFKA)" -commit $(KAFKA_COMMIT) -out kafkamsg

clean:
	rm -rf bin report.html
