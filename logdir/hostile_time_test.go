package logdir

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// The four-batch partition (segmenttest.FourBatchPartition): offsets 0 to 3 in a .log of
// 20000 bytes, so a time index of it holds at most 20000/26+1 = 769+1 = 770 entries.
const fourBatchTimeLimit = 770

// timeEntry is a time-index slot as Kafka writes it: the timestamp, then the offset relative
// to the base offset (0 here), both big-endian.
func timeEntry(b []byte, ts int64, rel int32) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(ts))
	return binary.BigEndian.AppendUint32(b, uint32(rel))
}

// risingTimeIndex is n entries (1700000000000+i, relative offset i+1): timestamps and offsets
// strictly increasing, the first three naming offsets 1, 2 and 3 of the .log, the rest past it.
func risingTimeIndex(n int) []byte {
	var b []byte
	for i := range n {
		b = timeEntry(b, 1700000000000+int64(i), int32(i+1))
	}
	return b
}

// fourBatchWithTimeIndex writes the four-batch partition with the given .timeindex.
func fourBatchWithTimeIndex(t *testing.T, timeIndex []byte) (part, path string) {
	t.Helper()
	part = segmenttest.FourBatchPartition(t, t.TempDir())
	path = filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix)
	testfiles.MustWrite(t, path, timeIndex)
	return part, path
}

// Issue 27 item 1, the time index: 1000 entries (more than the 770 the 20000-byte .log has
// room for) are streamed, not loaded. Worked by hand from risingTimeIndex(1000) with six
// slots changed: slot 0 names offset 0 (a relative offset of 0 in slot 0 ends nothing); slot 500's timestamp 0 and slot 900's equal to slot 899's (two
// timeindex-out-of-order: 1700000000499 >= 0, 1700000000899 >= 1700000000899); slot 600's
// offset equal to slot 599's (600: offsets may repeat, no finding); slot 700's offset 5 and
// slot 800's -1 (two index-order: below 700 and 800). Slots 0, 1, 2 (offsets 0, 2, 3: both
// ends of the .log's offsets) lie in the .log; the other 997 do not: 996 past its last offset 3 ("found log offset: -1") and slot 800's -1
// before its first batch (found: that batch's last offset, 0).
func TestTimeIndexOverCapacityIsStreamed(t *testing.T) {
	if got := maxEntriesFor(20000); got != fourBatchTimeLimit {
		t.Fatalf("maxEntriesFor(20000) = %d, want 770", got)
	}
	ti := risingTimeIndex(1000)
	copy(ti, timeEntry(nil, 1700000000000, 0))
	copy(ti[500*12:], timeEntry(nil, 0, 501))
	copy(ti[600*12:], timeEntry(nil, 1700000000600, 600))
	copy(ti[900*12:], timeEntry(nil, 1700000000899, 901))
	copy(ti[700*12:], timeEntry(nil, 1700000000700, 5))
	copy(ti[800*12:], timeEntry(nil, 1700000000800, -1))
	part, path := fourBatchWithTimeIndex(t, ti)
	r := verifyWith(t, part, 5)
	caps := findingsOf(r, CheckIndexCapacity)
	if len(caps) != 2 || caps[0].File != path || caps[0].Severity != SeverityError ||
		!strings.HasPrefix(caps[0].Message, "1000 entries before the zero tail, more than the 770 a .log of 20000 bytes has room for") {
		t.Fatalf("index-capacity findings: %v", caps)
	}
	if caps[1].Severity != SeverityInfo || !strings.HasPrefix(caps[1].Message, "3 of its entries name offsets the .log holds (0 to 3)") {
		t.Fatalf("the count of entries inside the .log: %v", caps[1])
	}
	order := findingsOf(r, CheckIndexOrder)
	if len(order) != 2 || order[0].Pos != 700*12+8 || order[1].Pos != 800*12+8 ||
		order[0].Message != "entry 700 offset 5 is below the previous entry's 700" || order[1].Message != "entry 800 offset -1 is below the previous entry's 800" {
		t.Fatalf("index-order: %v", order)
	}
	ts := findingsOf(r, CheckTimeIndexOutOfOrder)
	if len(ts) != 2 || ts[0].Pos != 500*12 || ts[0].Message != "Index timestamp: 0, Previously indexed timestamp: 1700000000499" ||
		ts[1].Pos != 900*12 || ts[1].Message != "Index timestamp: 1700000000899, Previously indexed timestamp: 1700000000899" {
		t.Fatalf("timeindex-out-of-order: %v", ts)
	}
	if l, m := countFindings(r, CheckTimeIndexNotFound); l != 5 || m != 992 {
		t.Fatalf("%d listed, %d more timeindex-not-found; want 5, 992", l, m)
	}
	nf := findingsOf(r, CheckTimeIndexNotFound)
	if nf[0].Pos != 3*12+8 || nf[0].Message != "Indexed offset: 4, found log offset: -1" {
		t.Fatalf("first timeindex-not-found: %v", nf[0])
	}
	if n := len(findingsOf(r, CheckIndexSanity)); n != 0 {
		t.Fatalf("%d sanity findings on a trimmed index whose last entry (1700000000999, 1000) passes", n)
	}
	// 1 capacity + 2 order + 2 timestamp order + 997 not found; the rest of the partition is
	// healthy.
	if p := r.Problems(); p != 1002 {
		t.Fatalf("%d problems, want 1002:\n%v", p, r.Findings)
	}
	if all := verifyWith(t, part, 0); all.Problems() != 1002 || len(findingsOf(all, CheckTimeIndexNotFound)) != 997 {
		t.Fatalf("uncapped: %d problems, %d timeindex-not-found listed; want 1002, 997", all.Problems(), len(findingsOf(all, CheckTimeIndexNotFound)))
	}
	for _, f := range findingsOf(verifyWith(t, part, 0), CheckTimeIndexNotFound) {
		if f.Pos == 800*12+8 && f.Message != "Indexed offset: -1, found log offset: 0" {
			t.Fatalf("slot 800, before the first batch: %v", f)
		}
	}
	v := r.Partitions[0].Segments[0]
	if v.TimeIndexEntries != 1000 || v.IndexEntries != 3 || v.Batches != 4 {
		t.Fatalf("verdict: %d time entries, %d entries, %d batches; want 1000, 3, 4", v.TimeIndexEntries, v.IndexEntries, v.Batches)
	}
	if pairs := r.TimeNotFound[segment.KafkaPath(path)]; len(pairs) != 5 || pairs[0] != [2]int64{4, -1} {
		t.Fatalf("DumpLogSegments' not-found pairs: %v", pairs)
	}
}

// The bound is a strict > on the valid entries: 770 are judged entry by entry as before, also
// in a file of more slots (a zero tail of 100), 771 streamed.
func TestTimeIndexCapacityBoundary(t *testing.T) {
	for _, tc := range []struct {
		n, zeroSlots int
		streamed     bool
	}{{fourBatchTimeLimit, 0, false}, {fourBatchTimeLimit, 100, false}, {fourBatchTimeLimit + 1, 0, true}} {
		part, _ := fourBatchWithTimeIndex(t, append(risingTimeIndex(tc.n), make([]byte, 12*tc.zeroSlots)...))
		r := verifyWith(t, part, 5)
		if got := len(findingsOf(r, CheckIndexCapacity)) > 0; got != tc.streamed {
			t.Errorf("%d entries: index-capacity %v, want %v", tc.n, got, tc.streamed)
		}
		if v := r.Partitions[0].Segments[0]; v.TimeIndexEntries != tc.n {
			t.Errorf("%d entries: the verdict counts %d", tc.n, v.TimeIndexEntries)
		}
	}
}

// TimeIndex.sanityCheck on a streamed file, in Kafka's words, and the zero tail: worked by hand
// from risingTimeIndex(1000), whose first timestamp is 1700000000000.
func TestStreamedTimeIndexSanityCheck(t *testing.T) {
	lastTsLow := risingTimeIndex(1000)
	copy(lastTsLow[999*12:], timeEntry(nil, 5, 1000))
	lastTsEqual := risingTimeIndex(1000)
	copy(lastTsEqual[999*12:], timeEntry(nil, 1700000000000, 1000))
	lastOffLow := risingTimeIndex(1000)
	copy(lastOffLow[999*12:], timeEntry(nil, 1700000000999, -7))
	for _, tc := range []struct {
		name    string
		data    []byte
		pos     int64
		message string // after "time index file (<path>)" or "Time index file <path>"; "" for none
	}{
		{"last timestamp below the first", lastTsLow, 999 * 12, "has non-zero size but the last timestamp is 5 which is less than the first timestamp 1700000000000"},
		{"last timestamp equal to the first (Kafka's test is a strict <)", lastTsEqual, -1, ""},
		{"last offset below the base", lastOffLow, 999*12 + 8, "has non-zero size but the last offset is -7 which is less than the first offset 0"},
		{"a length no multiple of 12", append(risingTimeIndex(1000), 1, 2, 3, 4, 5), 12000, "is corrupt, found 12005 bytes which is neither positive nor a multiple of 12"},
		// 100 zero slots after the 1000 entries: untrimmed, valid entries still 1000, and the
		// sanity verdict is only what an unclean start would say (none given).
		{"untrimmed", append(risingTimeIndex(1000), make([]byte, 1200)...), -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part, path := fourBatchWithTimeIndex(t, tc.data)
			r := verifyWith(t, part, 5)
			if v := r.Partitions[0].Segments[0]; v.TimeIndexEntries != 1000 {
				t.Fatalf("%d valid entries, want 1000", v.TimeIndexEntries)
			}
			got := findingsOf(r, CheckIndexSanity)
			if tc.message == "" {
				if len(got) != 0 {
					t.Fatalf("sanity findings: %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Pos != tc.pos || got[0].File != path || !strings.HasSuffix(got[0].Message, segment.KafkaPath(path)+") "+tc.message) && !strings.HasSuffix(got[0].Message, segment.KafkaPath(path)+" "+tc.message) {
				t.Fatalf("sanity findings %v, want one at byte %d ending %q", got, tc.pos, tc.message)
			}
		})
	}
}

// The four-batch partition as written is healthy, its .timeindex one entry (every batch has
// the same max timestamp, so only close appends one), so the tests above judge only the file
// they write in its place.
func TestFourBatchPartitionIsHealthy(t *testing.T) {
	part := segmenttest.FourBatchPartition(t, t.TempDir())
	st, err := os.Stat(filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix))
	if err != nil || st.Size() != segment.TimeIndexEntrySize {
		t.Fatalf("the written .timeindex: %v, %v", st, err)
	}
	if p := verifyWith(t, part, 0).Problems(); p != 0 {
		t.Fatalf("%d problems on the healthy partition", p)
	}
}
