package segment_test

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

func benchLookups(b *testing.B, access segment.Access) {
	seg, err := segment.OpenSegmentWith(segmenttest.BenchSegment(b), access)
	if err != nil {
		b.Fatal(err)
	}
	defer seg.Close()
	last := int64(seg.Log.Size()/segmenttest.BenchBatch)*80 - 1
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
func BenchmarkLookupPread(b *testing.B) { benchLookups(b, segment.AccessPread) }

// BenchmarkLookupMmap: phase 2 from an mmap of the .log.
func BenchmarkLookupMmap(b *testing.B) { benchLookups(b, segment.AccessMmap) }

// BenchmarkWrite: Log.Append of prebuilt 16 KiB batches vs a plain
// sequential write of the same bytes to a file in the same directory.
func BenchmarkWrite(b *testing.B) {
	const total = 64 << 20
	batch, _ := segment.BuildSizedBatch(0, 80, segmenttest.BenchBatch, 1700000000000)
	dir := b.TempDir()
	var logDur, plainDur time.Duration
	n := 0
	for b.Loop() {
		os.RemoveAll(filepath.Join(dir, "l"))
		t0 := time.Now()
		l, err := segment.CreateLog(filepath.Join(dir, "l"), segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: 10485760}, segment.PerBatch, 0)
		if err != nil {
			b.Fatal(err)
		}
		for w := 0; w < total; w += segmenttest.BenchBatch {
			l.Append(batch)
		}
		l.Close()
		logDur += time.Since(t0)
		os.Remove(filepath.Join(dir, "plain"))
		t0 = time.Now()
		f, _ := os.Create(filepath.Join(dir, "plain"))
		for w := 0; w < total; w += segmenttest.BenchBatch {
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

// BenchmarkIndexParse: decoding a 10 MiB offset index image.
func BenchmarkIndexParse(b *testing.B) {
	var img []byte
	for i := 0; i < 10485760/8; i++ {
		img = segment.EncodeIndexEntry(img, 0, segment.IndexEntry{Offset: int64(i + 1), Position: int64(i) * 100})
	}
	b.SetBytes(int64(len(img)))
	start := time.Now()
	n := 0
	for b.Loop() {
		if e := segment.ParseOffsetIndex(img, 0); len(e) != len(img)/8 {
			b.Fatal(len(e))
		}
		n++
	}
	b.ReportMetric(float64(n*len(img))/1e9/time.Since(start).Seconds(), "GB/s")
}

// TestMain removes the benchmark segment after a -bench run.
func TestMain(m *testing.M) {
	code := m.Run()
	segmenttest.RemoveBenchSegment()
	os.Exit(code)
}
