package parsers

import (
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/metrics"
	"sync"
	"testing"
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

// checkAlloc runs f and, when measure is set, fails t when it allocated more than the budget
// for n input bytes.
func checkAlloc(t *testing.T, measure bool, what string, n int, f func()) {
	checkAllocN(t, measure, what, n, allocFactor, f)
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

// tempRoot is /dev/shm when it is a writable directory (tmpfs: the targets measure the parsers,
// not a disk), else os.TempDir(); the same choice as fuzz.TempRoot, which this package does not
// import.
func tempRoot() string {
	if f, err := os.CreateTemp("/dev/shm", "kidx-probe-*"); err == nil {
		f.Close()
		os.Remove(f.Name())
		return "/dev/shm"
	}
	return os.TempDir()
}

// scratchRoot is one directory per test process (each fuzz worker is a process), made once: a
// fresh directory per input, made and removed around each call, was most of the cost of the
// file-backed fuzz targets.
var scratchRoot = sync.OnceValues(func() (string, error) { return os.MkdirTemp(tempRoot(), "kidx-fuzz-parsers-*") })

// writeScratch writes data as the file name in the directory sub of scratchRoot (one per
// target, so that a reader looking for a segment's other files finds none of another target's)
// and returns its path. The file is rewritten for every input: the caller closes what it opened
// before its next input.
func writeScratch(t *testing.T, sub, name string, data []byte) string {
	t.Helper()
	root, err := scratchRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, sub)
	path := filepath.Join(dir, name)
	err = os.WriteFile(path, data, 0o644)
	if os.IsNotExist(err) {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMain removes scratchRoot when the process ends (the fuzz workers' too: they return
// from m.Run when the coordinator stops them).
func TestMain(m *testing.M) {
	code := m.Run()
	if root, err := scratchRoot(); err == nil {
		os.RemoveAll(root)
	}
	os.Exit(code)
}
