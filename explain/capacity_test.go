package explain

import (
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// Issue 27 item 1, the indexes in explain: the four-batch partition's .log (20000 bytes) has
// room for 20000/26+1 = 770 entries of either index; an index of 771 (offsets, positions and
// timestamps rising) is refused before it is loaded, and the disagreement names slot 770, at
// byte 770*8 = 6160 of a .index, 770*12 = 9240 of a .timeindex. One of 770 is loaded and
// compared as before (it disagrees elsewhere).
func TestExplainRefusesIndexOverCapacity(t *testing.T) {
	for _, c := range []struct {
		suffix  string
		byte    int64
		entries func(n int) []byte
	}{
		{segment.IndexSuffix, 6160, segmenttest.RisingOffsetIndex},
		{segment.TimeIndexSuffix, 9240, segmenttest.RisingTimeIndex},
	} {
		for _, n := range []int{770, 771} {
			part := segmenttest.FourBatchPartition(t, t.TempDir())
			path := filepath.Join(part, segment.FilenamePrefixFromOffset(0)+c.suffix)
			testfiles.MustWrite(t, path, c.entries(n))
			parts, err := Dirs([]string{part}, Options{Interval: -1})
			if err != nil {
				t.Fatal(err)
			}
			s := parts[0].Segments[0]
			d := s.FirstDisagreement
			if s.Reproduced || d == nil {
				t.Fatalf("%s, %d entries: reproduced %v, disagreement %v", c.suffix, n, s.Reproduced, d)
			}
			refused := d.File == path && d.Slot == 770 && d.Byte == c.byte && d.Found == "771 entries before the zero tail" &&
				strings.HasPrefix(d.Expected, "at most 770, the most a .log of 20000 bytes has room for")
			if refused != (n == 771) {
				t.Fatalf("%s, %d entries: disagreement %v", c.suffix, n, d)
			}
			offsetEntries, timeEntries := 3, n // the partition's own .index has 3 entries
			if c.suffix == segment.IndexSuffix {
				offsetEntries, timeEntries = n, s.TimeEntries
			}
			if s.OffsetEntries != offsetEntries || s.TimeEntries != timeEntries || s.Batches != 4 {
				t.Fatalf("%s, %d entries: counted %d offset entries, %d time entries, %d batches; want %d, %d, 4",
					c.suffix, n, s.OffsetEntries, s.TimeEntries, s.Batches, offsetEntries, timeEntries)
			}
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
