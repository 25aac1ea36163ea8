// Package parsecheck holds what the parser fuzz targets of fuzz/parsers and
// fuzz/parsers/decoding share: the allocation bound of docs/contract.md §7 and its Sampling
// under -fuzz, a scratch directory for the inputs read through real files, the golden and
// real-data seeds, and the FormatError check. It is imported by tests only.
package parsecheck

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"

	"kidx/segment"
)

// Parsers must never panic and never allocate more than a small multiple of their input
// (docs/contract.md §7: "never trust a length field beyond the file size"). The binary parsers get
// AllocFactor: a decoded record (segment.Record, ~120 bytes) comes from at least 7 input
// bytes, a record header from 2. The JSON parsers get JSONAllocFactor (encoding/json);
// model.ParseWorkload once took up to 114x (a json.Decoder and raw values for every batch)
// and now decodes in one pass (about 11x on the golden workload files).
// All plus a fixed allowance for error values and buffers: 32 KiB for JSON, whose error path
// decodes the failing file again step by step to name the step and field (a few decoders,
// whatever the input's size; the replay keys of docs/contract.md §3 grew each step's and batch's form).
const (
	AllocFactor     = 40
	JSONAllocFactor = 64
	AllocFixed      = 16 << 10
	JSONAllocFixed  = 32 << 10
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
// on a deterministic sample, chosen by a hash of the input: one input in AllocEvery is
// measured, one in FileEvery goes through a file. A crash input is always sampled again when
// it is replayed from testdata/fuzz (plain go test samples everything).
const (
	AllocEvery = 64
	FileEvery  = 32
)

// Fuzzing reports whether this process runs under -fuzz (the coordinator or a worker: both
// carry the flag). Read after flag parsing, so not at package initialization.
var Fuzzing = sync.OnceValue(func() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
})

// Sampling says which of the costly checks an input gets.
type Sampling struct {
	Alloc bool // measure allocations
	File  bool // also read the input through a real file
}

// SampleOf draws an input's Sampling from its bytes and an extra argument (a base offset, a
// codec id): the same input always gets the same checks.
func SampleOf(data []byte, extra int64) Sampling {
	if !Fuzzing() {
		return Sampling{Alloc: true, File: true}
	}
	h := crc32.ChecksumIEEE(data) ^ uint32(extra) ^ uint32(uint64(extra)>>32)
	h *= 0x9e3779b1 // Fibonacci hashing: the top bits depend on every bit of h
	return Sampling{Alloc: h>>26 < 64/AllocEvery, File: (h>>20)&63 < 64/FileEvery}
}

// CheckAlloc runs f and, when measure is set, fails t when it allocated more than the budget
// for n input bytes.
func CheckAlloc(t *testing.T, measure bool, what string, n int, f func()) {
	CheckAllocN(t, measure, what, n, AllocFactor, f)
}

// CheckAllocN runs f once when measure is false. Otherwise it measures a second call of f (the
// first one pays one-time initialization, such as encoding/json's per-type caches) and fails
// only when a third call confirms the excess, so that an allocation by another goroutine
// cannot fail a parser.
func CheckAllocN(t *testing.T, measure bool, what string, n, factor int, f func()) {
	t.Helper()
	if !measure {
		f()
		return
	}
	fixed := AllocFixed
	if factor == JSONAllocFactor {
		fixed = JSONAllocFixed
	}
	CheckAllocBudget(t, true, fmt.Sprintf("%s, given %d bytes,", what, n), uint64(factor*n+fixed), f)
}

// CheckAllocBudget is CheckAllocN with a fixed budget.
func CheckAllocBudget(t *testing.T, measure bool, what string, budget uint64, f func()) {
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

// WriteScratch writes data as the file name in the directory sub of scratchRoot (one per
// target, so that a reader looking for a segment's other files finds none of another target's)
// and returns its path. The file is rewritten for every input: the caller closes what it opened
// before its next input.
func WriteScratch(t *testing.T, sub, name string, data []byte) string {
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

// GoldenDirs lists the golden Kafka cases (testdata/kafka-golden/*).
func GoldenDirs(tb testing.TB) []string {
	ds, err := filepath.Glob(filepath.Join(ModuleRoot(), "testdata", "kafka-golden", "*"))
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

// AddGoldenSeeds adds, for every golden case, its first file with the suffix (at most 2 KiB:
// Kafka's own bytes), a truncation, and a zero tail. The committed corpus in
// testdata/fuzz/<Target>/ adds hostile length fields.
func AddGoldenSeeds(f *testing.F, suffix string) {
	for _, g := range GoldenDirs(f) {
		files, _ := filepath.Glob(filepath.Join(g, "files", "*"+suffix))
		if len(files) == 0 {
			continue
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 2<<10)]
		switch suffix {
		case segment.LogSuffix:
			f.Add(b)
			f.Add(b[:len(b)*2/3])
			f.Add(append(bytes.Clone(b), make([]byte, 40)...))
		default:
			base, _ := segment.OffsetFromFileName(filepath.Base(files[0]))
			f.Add(b, base)
			f.Add(b[:len(b)*2/3], base)
			f.Add(append(bytes.Clone(b), make([]byte, 48)...), base)
		}
	}
}

// RealLogDirFiles reads, in place, the files of /work/shared/realdata (the module root's
// ../shared) whose base name matches, at most max of them. These files are stored verbatim (only
// index files lose their zero tails there), so they need no restore. None when ../shared is
// absent: the inline seeds below have the same shapes.
func RealLogDirFiles(tb testing.TB, match func(name string) bool, max int) [][]byte {
	var out [][]byte
	root := RealData()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(out) >= max || !match(d.Name()) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			out = append(out, b)
		}
		return nil
	})
	return out
}

func MustUnhex(tb testing.TB, s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// CheckFormatErr: err is nil or a *segment.FormatError naming file at a byte of the input.
func CheckFormatErr(t *testing.T, what string, err error, file string, n int) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *segment.FormatError
	if !errors.As(err, &fe) || fe.File != file || fe.Pos < 0 || fe.Pos > int64(n) || fe.Msg == "" {
		t.Fatalf("%s: error %v (%T) is not a FormatError of %s inside its %d bytes", what, err, err, file, n)
	}
}

// RemoveScratch removes the scratch directory, if it was made (from TestMain, when the process
// ends: the fuzz workers' too, which return from m.Run when the coordinator stops them).
func RemoveScratch() {
	if root, err := scratchRoot(); err == nil {
		os.RemoveAll(root)
	}
}

// ModuleRoot is the directory of go.mod above the working directory (a test's package
// directory).
var ModuleRoot = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			panic("no go.mod above " + dir)
		}
	}
})

// RealData is /work/shared/realdata (the module root's ../shared/realdata): real Kafka
// files, read in place, absent on most machines.
func RealData() string { return filepath.Join(ModuleRoot(), "..", "shared", "realdata") }
