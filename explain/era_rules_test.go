package explain

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/logdir"
	"kidx/segment"
)

// Issue 27 item 9: which offset an entry names, per era, pinned by files worked by hand, not
// only by the real-data tests. One segment, written by a leader with index.interval.bytes=0:
// three uncompressed CreateTime v2 batches of three records each, one batch per append, base
// offsets 0, 3, 6, each batch's max timestamp held by its middle record (record timestamps
// T+3k, T+3k+2, T+3k+1 for batch k). Every release checks before it counts
// (bytesSinceLastIndexEntry > indexIntervalBytes, then += the append's size), so the first
// append gets no entry and the other two get one each, at their positions; the max timestamp
// is taken before the check, and the close() at the end appends nothing (the last entry
// already holds the max). What the entries name, by hand, per LogSegment.append:
//
//   - 0.11-1.1: the offset entry names the append's first offset (index.append(firstOffset,
//     ...)): 3 and 6; the time entry names the record holding the max timestamp
//     (LogValidator's offsetOfMaxTimestamp for a leader's uncompressed append): 4 and 7.
//   - 2.0-3.6: the offset entry names the append's last offset (KAFKA-6530): 5 and 8; the
//     time entry still the record holding the max: 4 and 7.
//   - 3.7 on: the time entry names the batch's last offset too (#14697, KAFKA-16310): 5 and 8,
//     as a 2.0-3.6 follower's does (only a leader's append names a record inside the batch).
//
// So each pair of files is what one set of eras writes and no other: a change to an era's
// offset or time rule (in the era table, the candidates or the replay that regenerates the
// bytes) fails this test.
func TestEntryOffsetsByEra(t *testing.T) {
	const ts = 1700000000000
	var log []byte
	var size int64
	for k := int64(0); k < 3; k++ {
		recs := segmenttest.V2Records([]segmenttest.Rec{
			{TsDelta: 0, OffDelta: 0, Value: []byte("a")},
			{TsDelta: 2, OffDelta: 1, Value: []byte("b")},
			{TsDelta: 1, OffDelta: 2, Value: []byte("c")},
		})
		b := segmenttest.V2Batch(segmenttest.V2Hdr{Base: 3 * k, LastDelta: 2, BaseTs: ts + 3*k, MaxTs: ts + 3*k + 2,
			BaseSeq: -1, Count: 3, ProducerID: -1, PartitionLeaderEpoch: 0}, recs)
		size = int64(len(b))
		log = append(log, b...)
	}
	index := func(offsets ...int64) []byte {
		var out []byte
		for i, o := range offsets {
			out = binary.BigEndian.AppendUint32(out, uint32(o)) // relative to base offset 0
			out = binary.BigEndian.AppendUint32(out, uint32(int64(i+1)*size))
		}
		return out
	}
	timeIndex := func(offsets ...int64) []byte {
		var out []byte
		for i, o := range offsets {
			out = binary.BigEndian.AppendUint64(out, uint64(ts+3*int64(i+1)+2))
			out = binary.BigEndian.AppendUint32(out, uint32(o))
		}
		return out
	}
	for _, c := range []struct {
		name        string
		offsets     []int64 // the offset index's entries (positions: one batch and two)
		timeOffsets []int64 // the time index's entries (timestamps T+5, T+8)
		eras        []string
	}{
		{"1.1", []int64{3, 6}, []int64{4, 7}, []string{"0.11-1.1"}},
		{"3.6", []int64{5, 8}, []int64{4, 7}, []string{"2.0-2.2", "2.3-3.6"}},
		// A follower of 2.0-3.6 writes these too: only a leader's uncompressed append names
		// the record inside the batch.
		{"3.7+", []int64{5, 8}, []int64{5, 8}, []string{"2.0-2.2", "2.3-3.6", "3.7-4.0.0", "per-batch"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "topic-0")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			prefix := filepath.Join(dir, segment.FilenamePrefixFromOffset(0))
			testfiles.MustWrite(t, prefix+segment.LogSuffix, log)
			testfiles.MustWrite(t, prefix+segment.IndexSuffix, index(c.offsets...))
			testfiles.MustWrite(t, prefix+segment.TimeIndexSuffix, timeIndex(c.timeOffsets...))
			parts, err := Dirs([]string{dir}, Options{Interval: -1})
			if err != nil {
				t.Fatal(err)
			}
			s := parts[0].Segments[0]
			if !s.Reproduced {
				t.Fatalf("not reproduced: %v", s.FirstDisagreement)
			}
			var want logdir.EraSet
			for _, id := range c.eras {
				e, ok := logdir.EraByID(id)
				if !ok {
					t.Fatalf("no era %q", id)
				}
				want |= logdir.EraSetOf(e)
			}
			if s.Eras != want {
				t.Errorf("eras %s, want %s (worked by hand above)", s.Eras, want)
			}
		})
	}
}
