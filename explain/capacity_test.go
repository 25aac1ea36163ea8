package explain

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// Issue 27 item 1, the time index in explain: the four-batch partition's .log (20000 bytes)
// has room for 20000/26+1 = 770 time-index entries; a .timeindex of 771 (timestamps and
// offsets rising) is refused before it is loaded, and the disagreement names slot 770, at byte
// 770*12 = 9240. One of 770 is loaded and compared as before (it disagrees elsewhere).
func TestExplainRefusesTimeIndexOverCapacity(t *testing.T) {
	for _, n := range []int{770, 771} {
		part := segmenttest.FourBatchPartition(t, t.TempDir())
		path := filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix)
		var ti []byte
		for i := range n {
			ti = binary.BigEndian.AppendUint64(ti, uint64(1700000000000+i))
			ti = binary.BigEndian.AppendUint32(ti, uint32(i+1))
		}
		testfiles.MustWrite(t, path, ti)
		parts, err := Dirs([]string{part}, Options{Interval: -1})
		if err != nil {
			t.Fatal(err)
		}
		s := parts[0].Segments[0]
		d := s.FirstDisagreement
		if s.Reproduced || d == nil {
			t.Fatalf("%d entries: reproduced %v, disagreement %v", n, s.Reproduced, d)
		}
		refused := d.File == path && d.Slot == 770 && d.Byte == 9240 && d.Found == "771 entries before the zero tail" &&
			strings.HasPrefix(d.Expected, "at most 770, the most a .log of 20000 bytes has room for")
		if refused != (n == 771) {
			t.Fatalf("%d entries: disagreement %v", n, d)
		}
		if s.TimeEntries != n || s.Batches != 4 || s.OffsetEntries != 3 {
			t.Fatalf("%d entries: counted %d time entries, %d batches, %d offset entries; want %d, 4, 3", n, s.TimeEntries, s.Batches, s.OffsetEntries, n)
		}
	}
}

// The four-batch partition as written is reproduced: the refusal above is the time index's.
func TestExplainFourBatchPartition(t *testing.T) {
	parts, err := Dirs([]string{segmenttest.FourBatchPartition(t, t.TempDir())}, Options{Interval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if s := parts[0].Segments[0]; !s.Reproduced {
		t.Fatalf("not reproduced: %v", s.FirstDisagreement)
	}
}

// The same for the offset index: a .index of 771 entries (offsets and positions rising)
// beside the 20000-byte .log is refused unread at slot 770, byte 770*8 = 6160; one of 770 is
// loaded and compared (and disagrees elsewhere).
func TestExplainRefusesOffsetIndexOverCapacity(t *testing.T) {
	for _, n := range []int{770, 771} {
		part := segmenttest.FourBatchPartition(t, t.TempDir())
		path := filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)
		var idx []byte
		for i := range n {
			idx = binary.BigEndian.AppendUint32(idx, uint32(i+1))
			idx = binary.BigEndian.AppendUint32(idx, uint32(i*26))
		}
		testfiles.MustWrite(t, path, idx)
		parts, err := Dirs([]string{part}, Options{Interval: -1})
		if err != nil {
			t.Fatal(err)
		}
		s := parts[0].Segments[0]
		d := s.FirstDisagreement
		if s.Reproduced || d == nil {
			t.Fatalf("%d entries: reproduced %v, disagreement %v", n, s.Reproduced, d)
		}
		refused := d.File == path && d.Slot == 770 && d.Byte == 6160 && d.Found == "771 entries before the zero tail" &&
			strings.HasPrefix(d.Expected, "at most 770, the most a .log of 20000 bytes has room for")
		if refused != (n == 771) {
			t.Fatalf("%d entries: disagreement %v", n, d)
		}
		if s.OffsetEntries != n || s.Batches != 4 {
			t.Fatalf("%d entries: counted %d offset entries, %d batches; want %d, 4", n, s.OffsetEntries, s.Batches, n)
		}
	}
}
