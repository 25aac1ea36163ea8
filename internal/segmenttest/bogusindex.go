package segmenttest

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"kidx/segment"
)

// BogusIndexPartition writes, under dir, partition t-0 of issue 27's hostile case: four
// 5000-byte batches (a 20,000-byte .log) beside an .index of indexBytes random bytes (seeded,
// so every run judges the same file), and returns the partition's path.
func BogusIndexPartition(tb testing.TB, dir string, indexBytes int64) string {
	tb.Helper()
	part := FourBatchPartition(tb, dir)
	writeRandom(tb, filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix), indexBytes)
	return part
}

// BogusTimeIndexPartition is BogusIndexPartition with the random bytes in the .timeindex
// (timeIndexBytes of them) and the .index as Kafka writes it.
func BogusTimeIndexPartition(tb testing.TB, dir string, timeIndexBytes int64) string {
	tb.Helper()
	part := FourBatchPartition(tb, dir)
	writeRandom(tb, filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix), timeIndexBytes)
	return part
}

// FourBatchPartition writes, under dir, partition t-0 with one segment at base offset 0: four
// batches of one record and 5000 bytes each, offsets 0 to 3 at positions 0, 5000, 10000 and
// 15000 (a 20,000-byte .log), all stamped 1700000000000, an .index with entries for offsets
// 1, 2 and 3 (index.interval.bytes 4096), and a .timeindex of one entry, (1700000000000, 0),
// the one a close appends (the timestamp never rises after the first batch). It returns the
// partition's path.
func FourBatchPartition(tb testing.TB, dir string) string {
	tb.Helper()
	part := filepath.Join(dir, "t-0")
	w := &segment.Workload{Config: segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 20, SegmentIndexBytes: 10 << 20}, Rule: segment.PerBatch}
	for range 4 {
		w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{{Records: 1, Bytes: 5000, MaxTimestamp: 1700000000000}}})
	}
	if _, err := segment.WriteWorkload(part, w); err != nil {
		tb.Fatal(err)
	}
	return part
}

// writeRandom replaces path with n seeded random bytes.
func writeRandom(tb testing.TB, path string, n int64) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rng := rand.NewChaCha8([32]byte{27})
	buf := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(buf)) {
		_, _ = rng.Read(buf)
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			tb.Fatal(err)
		}
	}
}

// PeakRSSMB is the process's peak resident set so far (getrusage's ru_maxrss), in MB.
func PeakRSSMB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

// RisingTimeIndex is n time-index entries with nothing wrong but their number: entry i holds
// timestamp 1700000000000+i and relative offset i+1, both rising, none zero.
func RisingTimeIndex(n int) []byte {
	var b []byte
	for i := range n {
		b = binary.BigEndian.AppendUint64(b, uint64(1700000000000+i))
		b = binary.BigEndian.AppendUint32(b, uint32(i+1))
	}
	return b
}

// RisingOffsetIndex is n offset-index entries likewise: entry i holds relative offset i+1 at
// position 26*i (26 bytes, the smallest batch, apart).
func RisingOffsetIndex(n int) []byte {
	var b []byte
	for i := range n {
		b = binary.BigEndian.AppendUint32(b, uint32(i+1))
		b = binary.BigEndian.AppendUint32(b, uint32(26*i))
	}
	return b
}
