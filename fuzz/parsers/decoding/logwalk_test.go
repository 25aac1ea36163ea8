package decoding

import (
	"sync"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
	"kidx/segment/vfs"
)

// FuzzLogWalk: arbitrary .log bytes through the file reader (FileLogInputStream.nextBatch,
// docs/kafka.md §1.5), read once through mmap and once through pread; both must agree. Checked:
// no panic, batches in order and inside the file (a size field is never trusted beyond the
// file size), a tail of <= 17 bytes never a batch, CRC checks and record iteration of every
// batch without panic, and the lookup of every batch's offsets. The two readers read a real
// file (OpenLogWith, OpenSegment) for every input under go test and one in parsecheck.FileEvery under
// -fuzz; the other inputs go through the same two access paths over the bytes in memory
// (LogFileFromBytes: the mapped path; OpenSegmentFS on a MemFS: the pread path), which cost
// no system call.
func FuzzLogWalk(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := parsecheck.SampleOf(data, 0)
		var logs [2]*segment.LogFile // mmap, pread
		var seg *segment.Segment
		if s.File {
			path := parsecheck.WriteScratch(t, "logwalk", "00000000000000000000.log", data)
			for k, access := range []segment.Access{segment.AccessMmap, segment.AccessPread} {
				lf, err := segment.OpenLogWith(path, access)
				if err != nil {
					t.Fatal(err)
				}
				defer lf.Close()
				logs[k] = lf
			}
			var err error
			if seg, err = segment.OpenSegment(path); err != nil {
				t.Fatal(err)
			}
		} else {
			logs[0] = segment.LogFileFromBytes("00000000000000000000.log", data)
			seg = openSegmentInMemory(t, data)
			logs[1] = seg.Log
		}
		defer seg.Close()
		var walks [2][]segment.BatchInfo
		var results [2]segment.WalkResult
		for k, lf := range logs {
			parsecheck.CheckAlloc(t, s.Alloc, "Walk", len(data), func() {
				walks[k] = walks[k][:0]
				results[k] = lf.Walk(0, 0, func(b segment.BatchInfo) bool {
					walks[k] = append(walks[k], b)
					_ = lf.CheckBatch(b)
					_ = lf.RecordTimestamps(b, func(int64, int64) bool { return true })
					return true
				})
			})
		}
		if len(walks[0]) != len(walks[1]) || results[0].ValidBytes != results[1].ValidBytes || (results[0].Err == nil) != (results[1].Err == nil) {
			t.Fatalf("mmap walk %d batches to %d (%v), pread walk %d to %d (%v)", len(walks[0]), results[0].ValidBytes, results[0].Err, len(walks[1]), results[1].ValidBytes, results[1].Err)
		}
		pos := int64(0)
		for i, b := range walks[0] {
			if b != walks[1][i] {
				t.Fatalf("batch %d: mmap %+v, pread %+v", i, b, walks[1][i])
			}
			if b.Position != pos || b.Size < segment.MinRecordOverhead+segment.LogOverhead || b.End() > int64(len(data)) {
				t.Fatalf("batch %d at %d size %d: walk at %d, file %d bytes", i, b.Position, b.Size, pos, len(data))
			}
			pos = b.End()
		}
		if results[0].ValidBytes != pos || results[0].TrailingBytes() < 0 {
			t.Fatalf("valid bytes %d, batches end at %d", results[0].ValidBytes, pos)
		}
		if len(data) <= segment.HeaderSizeUpToMagic && len(walks[0]) > 0 {
			t.Fatalf("a %d-byte file gave a batch", len(data))
		}
		for _, b := range walks[0][:min(len(walks[0]), 8)] {
			_, _ = seg.Lookup(b.LastOffset())
			_, _ = seg.LookupTimestamp(b.MaxTimestamp())
		}
	})
}

// memLogDir is one in-memory filesystem per test process, holding the .log of the current
// input of FuzzLogWalk (a fuzz worker runs one input at a time).
var memLogDir = sync.OnceValue(func() *vfs.MemFS {
	m := vfs.NewMemFS()
	if err := m.MkdirAll("/logwalk", 0o755); err != nil {
		panic(err)
	}
	return m
})

// openSegmentInMemory writes data as the only file of memLogDir and opens it as a segment
// (OpenSegmentFS: the .log read through the pread path over its bytes, no index).
func openSegmentInMemory(t *testing.T, data []byte) *segment.Segment {
	t.Helper()
	m := memLogDir()
	const path = "/logwalk/00000000000000000000.log"
	w, err := m.Create(path)
	if err == nil {
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	seg, err := segment.OpenSegmentFS(m, path)
	if err != nil {
		t.Fatal(err)
	}
	return seg
}
