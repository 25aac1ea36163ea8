package fuzz

import (
	"bytes"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"

	"kidx/model"
	"kidx/segment"
)

// Parsers must never panic and never allocate more than a small multiple of their input
// (docs/contract.md §7: "never trust a length field beyond the file size"). The binary parsers get
// allocFactor: a decoded record (segment.Record, ~120 bytes) comes from at least 7 input
// bytes, a record header from 2. The JSON parsers get jsonAllocFactor (encoding/json);
// model.ParseWorkload once took up to 114x (a json.Decoder and raw values for every batch)
// and now decodes in one pass (about 11x on the golden workload files).
// All plus a fixed allowance for error values and buffers: 32 KiB for JSON, whose error path
// decodes the failing file again step by step to name the step and field (a few decoders,
// whatever the input's size; the replay keys of docs/contract.md §3 grew each step's and batch's form).
const (
	allocFactor     = 40
	jsonAllocFactor = 64
	allocFixed      = 16 << 10
	jsonAllocFixed  = 32 << 10
)

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

// heapAllocated is the process's cumulative heap allocation (runtime/metrics, which reads
// per-P counters without stopping the world, unlike runtime.ReadMemStats).
func heapAllocated() uint64 {
	metrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}

// The allocation check costs a second parse and two runtime/metrics reads per input (a third
// parse when it sees an excess), and a real file costs a handful of system calls: together they
// held the parser targets to 7-37 k execs/s (issue 13, item 5: at least 100 k). Under
// `go test` without -fuzz (make test, go test ./fuzz/) every f.Add seed and every input of
// testdata/fuzz/<Target>/ is still measured and still goes through the file: that run tests
// the bound of docs/contract.md §7 on every committed input. Under -fuzz, the checks are made
// on a deterministic sample, chosen by a hash of the input: one input in allocEvery is
// measured, one in fileEvery goes through a file. A crash input is always sampled again when
// it is replayed from testdata/fuzz (plain go test samples everything).
const (
	allocEvery = 64
	fileEvery  = 32
)

// fuzzing reports whether this process runs under -fuzz (the coordinator or a worker: both
// carry the flag). Read after flag parsing, so not at package initialization.
var fuzzing = sync.OnceValue(func() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
})

// sampling says which of the costly checks an input gets.
type sampling struct {
	alloc bool // measure allocations
	file  bool // also read the input through a real file
}

// sampleOf draws an input's sampling from its bytes and an extra argument (a base offset, a
// codec id): the same input always gets the same checks.
func sampleOf(data []byte, extra int64) sampling {
	if !fuzzing() {
		return sampling{alloc: true, file: true}
	}
	h := crc32.ChecksumIEEE(data) ^ uint32(extra) ^ uint32(uint64(extra)>>32)
	h *= 0x9e3779b1 // Fibonacci hashing: the top bits depend on every bit of h
	return sampling{alloc: h>>26 < 64/allocEvery, file: (h>>20)&63 < 64/fileEvery}
}

// checkAllocN runs f once when measure is false. Otherwise it measures a second call of f (the
// first one pays one-time initialization, such as encoding/json's per-type caches) and fails
// only when a third call confirms the excess, so that an allocation by another goroutine
// cannot fail a parser.
func checkAllocN(t *testing.T, measure bool, what string, n, factor int, f func()) {
	t.Helper()
	if !measure {
		f()
		return
	}
	fixed := allocFixed
	if factor == jsonAllocFactor {
		fixed = jsonAllocFixed
	}
	checkAllocBudget(t, true, fmt.Sprintf("%s, given %d bytes,", what, n), uint64(factor*n+fixed), f)
}

// checkAllocBudget is checkAllocN with a fixed budget.
func checkAllocBudget(t *testing.T, measure bool, what string, budget uint64, f func()) {
	t.Helper()
	f()
	if !measure {
		return
	}
	for try := 0; ; try++ {
		before := heapAllocated()
		f()
		got := heapAllocated() - before
		if got <= budget {
			return
		}
		if try == 1 {
			t.Fatalf("%s allocated %d bytes (budget %d)", what, got, budget)
		}
	}
}

// FuzzWorkloadJSON: arbitrary bytes as a docs/contract.md §3 workload file (model.ParseWorkload, the
// SPEC's parser), and through segment.ParseWorkload and segment.ParseRecipe. Checked: no
// panic, bounded allocation, an accepted workload writes back (MarshalJSON) to a file that
// parses to the same workload, and when both workload parsers accept a file they read the
// same steps, start offset and rule.
func FuzzWorkloadJSON(f *testing.F) {
	for _, s := range []string{
		`{"config": {"index.interval.bytes": 4096, "segment.bytes": 65536}, "rule": "per-batch", "startOffset": 0, "batches": [{"records": 79, "bytes": 16350, "maxTimestamp": 1700000000000}]}`,
		`{"steps": [{"append": [{"records": 1, "bytes": 61}, {"records": 2, "bytes": 200}]}, {"restart": true}, {"recover": true}]}`,
		`{"batches": [{"records": -1, "bytes": 2147483647}]}`, `{"batches": [{"records": 0, "bytes": 13}]}`,
		`{"steps": [{"append": []}]}`, `{"batches": [{"records": 1e3, "bytes": 1.5}]}`,
		`{"config": {"segment.index.bytes": 4}, "batches": [{"records": 1, "bytes": 61}]}`, `{"rule": "per-append", "batches": [{"records": 1, "bytes": 61}]} x`,
		`{"appends": [[{"records": 2, "valueBytes": 5}]]}`, `{"steps": [{"restart": false}]}`, `[`, ``,
	} {
		f.Add([]byte(s))
	}
	for _, g := range goldenDirs(f) {
		for _, name := range []string{"workload.json", "kafka-input.json"} {
			if b, err := os.ReadFile(filepath.Join(g, name)); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		measure := sampleOf(data, 0).alloc
		var w model.Workload
		var err error
		checkAllocN(t, measure, "model.ParseWorkload", len(data), jsonAllocFactor, func() { w, err = model.ParseWorkload(data) })
		var sw *segment.Workload
		var serr error
		checkAllocN(t, measure, "segment.ParseWorkload", len(data), jsonAllocFactor, func() { sw, serr = segment.ParseWorkload(data) })
		// segment.ParseRecipe bounds its "repeat" expansion (a 68-byte input once asked for
		// 2^31-1 batches), so every input goes through it.
		checkAllocN(t, measure, "segment.ParseRecipe", len(data), jsonAllocFactor, func() { _, _ = segment.ParseRecipe(data) })
		if err != nil {
			return
		}
		out, merr := w.MarshalJSON()
		if merr != nil {
			t.Fatalf("MarshalJSON: %v", merr)
		}
		w2, err := model.ParseWorkload(out)
		if err != nil {
			t.Fatalf("%s written back as %s does not parse: %v", data, out, err)
		}
		a, _ := cloneWorkload(w).MarshalJSON()
		b, _ := cloneWorkload(w2).MarshalJSON()
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip changed the workload: %s -> %s", a, b)
		}
		if serr != nil {
			return
		}
		if sw.StartOffset != w.StartOffset || len(sw.Steps) != len(w.Steps) || (w.Rule == "per-append") != (sw.Rule == segment.PerAppend) {
			t.Fatalf("parsers disagree: model start %d steps %d rule %q, segment start %d steps %d rule %v", w.StartOffset, len(w.Steps), w.Rule, sw.StartOffset, len(sw.Steps), sw.Rule)
		}
		for i, s := range w.Steps {
			ss := sw.Steps[i]
			if s.Restart != ss.Restart || s.Recover != ss.Recover || len(s.Append) != len(ss.Append) {
				t.Fatalf("step %d: model %+v, segment %+v", i, s, ss)
			}
			for j, b := range s.Append {
				if sb := ss.Append[j]; int64(sb.Records) != b.Records || int64(sb.Bytes) != b.Bytes || sb.MaxTimestamp != b.MaxTimestamp {
					t.Fatalf("step %d batch %d: model %+v, segment %+v", i, j, b, sb)
				}
			}
		}
	})
}

// goldenDirs lists the golden Kafka cases (testdata/kafka-golden/*).
func goldenDirs(tb testing.TB) []string {
	ds, err := filepath.Glob("../testdata/kafka-golden/*")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
