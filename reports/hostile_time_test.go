package reports

import (
	"os"
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/logdir"
	"kidx/segment"
)

// Issue 27 item 1, the time index in analyze: a .timeindex of 1000 entries beside the
// four-batch partition's 20000-byte .log (room for 20000/26+1 = 770) is judged by verify's
// streamed pass; analyze counts its entries as verify did (1000, not 0 for a file not
// loaded), its file's bytes (12000), and verify's problems: 1 index-capacity + 997 entries
// naming offsets past the .log's last, 3 (offsets 1 to 1000, rising, timestamps rising).
func TestAnalyzeTimeIndexOverCapacity(t *testing.T) {
	part := segmenttest.FourBatchPartition(t, t.TempDir())
	testfiles.MustWrite(t, filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix), segmenttest.RisingTimeIndex(1000))
	a, err := AnalyzeDir(part, AnalyzeOptions{Judge: logdir.VerifyOptions{MaxFindings: 5}})
	if err != nil {
		t.Fatal(err)
	}
	p := a.Partitions[0]
	if p.TimeIndexEntries != 1000 || p.TimeIndexFileBytes != 12000 || p.OffsetIndexEntries != 3 || p.Batches != 4 {
		t.Fatalf("%d time entries in %d bytes, %d offset entries, %d batches; want 1000, 12000, 3, 4", p.TimeIndexEntries, p.TimeIndexFileBytes, p.OffsetIndexEntries, p.Batches)
	}
	if a.Problems != 998 || p.Problems != 998 {
		t.Fatalf("%d problems (the partition: %d), want 998", a.Problems, p.Problems)
	}
}

// Without its .index, the segment is walked again with the index recovery would build
// (segmentRunsWith), which does not load the time index either: the file's 12000 bytes are
// kept, and the entries are the rebuild's, 1 (all four batches share one max timestamp, so
// recover's maybeAppend keeps only the first).
func TestAnalyzeTimeIndexOverCapacityWithoutIndex(t *testing.T) {
	part := segmenttest.FourBatchPartition(t, t.TempDir())
	testfiles.MustWrite(t, filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix), segmenttest.RisingTimeIndex(1000))
	if err := os.Remove(filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)); err != nil {
		t.Fatal(err)
	}
	a, err := AnalyzeDir(part, AnalyzeOptions{Judge: logdir.VerifyOptions{MaxFindings: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if p := a.Partitions[0]; p.TimeIndexEntries != 1 || p.TimeIndexFileBytes != 12000 || p.Batches != 4 {
		t.Fatalf("%d time entries in %d bytes, %d batches; want 1, 12000, 4", p.TimeIndexEntries, p.TimeIndexFileBytes, p.Batches)
	}
}
