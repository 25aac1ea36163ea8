package segment

import (
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The lookup benchmark segment: 268 MB of 16 KiB batches, interval 4096,
// written by the writer once per process (guarded, so plain `go test`
// never builds it).
var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

const benchBatch = 16384

func benchSegment(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "kidx-bench-")
		if benchErr != nil {
			return
		}
		l, err := CreateLog(benchDir, Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 10485760}, PerBatch, 0)
		if err != nil {
			benchErr = err
			return
		}
		batch, _ := BuildSizedBatch(0, 80, benchBatch, 1700000000000)
		for i := 0; i < 268_000_000/benchBatch; i++ {
			if _, err := l.Append(batch); err != nil {
				benchErr = err
				return
			}
		}
		benchErr = l.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, FilenamePrefixFromOffset(0)+LogSuffix)
}

func benchLookups(b *testing.B, access Access) {
	seg, err := OpenSegmentWith(benchSegment(b), access)
	if err != nil {
		b.Fatal(err)
	}
	defer seg.Close()
	last := int64(seg.Log.Size()/benchBatch)*80 - 1
	rng := rand.New(rand.NewSource(1))
	targets := make([]int64, 1<<16)
	for i := range targets {
		targets[i] = rng.Int63n(last + 1)
	}
	i := 0
	start := time.Now()
	for b.Loop() {
		r, err := seg.Lookup(targets[i&(len(targets)-1)])
		if err != nil || !r.Found {
			b.Fatal(r, err)
		}
		i++
	}
	b.ReportMetric(float64(i)/time.Since(start).Seconds(), "lookups/s")
}

// BenchmarkLookupPread: phase 1 in the mmapped index, phase 2 with one
// 61-byte pread per hop.
func BenchmarkLookupPread(b *testing.B) { benchLookups(b, AccessPread) }

// BenchmarkLookupMmap: phase 2 from an mmap of the .log.
func BenchmarkLookupMmap(b *testing.B) { benchLookups(b, AccessMmap) }

// BenchmarkWrite: Log.Append of prebuilt 16 KiB batches vs a plain
// sequential write of the same bytes to a file in the same directory.
func BenchmarkWrite(b *testing.B) {
	const total = 64 << 20
	batch, _ := BuildSizedBatch(0, 80, benchBatch, 1700000000000)
	dir := b.TempDir()
	var logDur, plainDur time.Duration
	n := 0
	for b.Loop() {
		os.RemoveAll(filepath.Join(dir, "l"))
		t0 := time.Now()
		l, err := CreateLog(filepath.Join(dir, "l"), Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 10485760}, PerBatch, 0)
		if err != nil {
			b.Fatal(err)
		}
		for w := 0; w < total; w += benchBatch {
			l.Append(batch)
		}
		l.Close()
		logDur += time.Since(t0)
		os.Remove(filepath.Join(dir, "plain"))
		t0 = time.Now()
		f, _ := os.Create(filepath.Join(dir, "plain"))
		for w := 0; w < total; w += benchBatch {
			f.Write(batch)
		}
		f.Close()
		plainDur += time.Since(t0)
		n++
	}
	mb := float64(n*total) / 1e6
	b.ReportMetric(mb/logDur.Seconds(), "write-MB/s")
	b.ReportMetric(mb/plainDur.Seconds(), "plain-MB/s")
	b.ReportMetric(plainDur.Seconds()/logDur.Seconds()*100, "%-of-plain")
}

// benchVerify times Verify on the 268 MB segment against a plain sequential read of the same
// file (1 MiB buffers, what cat does), and reports the ratio of the times: the targets
// are at most 0.5 for headers only and 1.5 for --deep (docs/logdirs.md).
func benchVerify(b *testing.B, deep bool) {
	path := benchSegment(b)
	var vDur, pDur time.Duration
	var size int64
	buf := make([]byte, 1<<20)
	for b.Loop() {
		t0 := time.Now()
		f, _ := os.Open(path)
		size = 0
		for {
			k, err := f.Read(buf)
			size += int64(k)
			if err != nil {
				break
			}
		}
		f.Close()
		pDur += time.Since(t0)
		t0 = time.Now()
		r, err := Verify([]string{path}, VerifyOptions{Deep: deep})
		if err != nil || r.Problems() != 0 {
			b.Fatal(err, r.Findings)
		}
		vDur += time.Since(t0)
	}
	n := float64(b.N)
	b.ReportMetric(float64(size)*n/1e6/vDur.Seconds(), "verify-MB/s")
	b.ReportMetric(float64(size)*n/1e6/pDur.Seconds(), "plain-read-MB/s")
	b.ReportMetric(vDur.Seconds()/pDur.Seconds(), "x-plain-read-time")
}

// BenchmarkVerifyHeaders: plain verify reads batch headers and the indexes only.
func BenchmarkVerifyHeaders(b *testing.B) { benchVerify(b, false) }

// BenchmarkVerifyDeep: every byte, every CRC.
func BenchmarkVerifyDeep(b *testing.B) { benchVerify(b, true) }

// BenchmarkIndexParse: decoding a 10 MiB offset index image.
func BenchmarkIndexParse(b *testing.B) {
	var img []byte
	for i := 0; i < 10485760/8; i++ {
		img = EncodeIndexEntry(img, 0, IndexEntry{Offset: int64(i + 1), Position: int64(i) * 100})
	}
	b.SetBytes(int64(len(img)))
	start := time.Now()
	n := 0
	for b.Loop() {
		if e := ParseOffsetIndex(img, 0); len(e) != len(img)/8 {
			b.Fatal(len(e))
		}
		n++
	}
	b.ReportMetric(float64(n*len(img))/1e9/time.Since(start).Seconds(), "GB/s")
}

// TestMain removes the benchmark segment after a -bench run.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}
