package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

// Issue 25: explain considers three histories per segment (written by appends, by the log
// cleaner in one pass, rebuilt by recovery at a restart). Each test below writes a segment's
// three files by hand (the .log from sized batches, the indexes from entries worked out by
// hand with the rule named), so no answer comes from the code under test.

// histBatch is one batch of a hand-written segment: its base offset, record count, size and
// max timestamp, and whether it carries the cleaner's delete horizon (attribute bit 6).
type histBatch struct {
	base    int64
	records int
	size    int
	ts      int64
	horizon bool
}

// writeHistorySegment writes DIR/topic-0 with one closed segment at base (trimmed indexes
// holding idx and times), producer snapshots at the offsets given, and, when cleanerAt >= 0,
// the log directory's cleaner-offset-checkpoint naming topic-0 at that offset.
func writeHistorySegment(t *testing.T, base int64, batches []histBatch, idx []segment.IndexEntry,
	times []segment.TimeIndexEntry, snapshots []int64, cleanerAt int64) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "topic-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var log []byte
	for _, b := range batches {
		if b.horizon {
			// One record filling b.size bytes: a v2 header (61 bytes) around a record whose
			// value takes the rest, with the delete-horizon bit in the attributes.
			var raw []byte
			for v := 0; v < b.size && len(raw) != b.size; v++ {
				rec := segmenttest.V2Records([]segmenttest.Rec{{Key: []byte("k"), Value: make([]byte, v)}})
				raw = segmenttest.V2Batch(segmenttest.V2Hdr{Base: b.base, Attrs: 0x40, BaseTs: b.ts, MaxTs: b.ts,
					Count: 1, ProducerID: -1}, rec)
			}
			if len(raw) != b.size {
				t.Fatalf("no horizon batch of %d bytes", b.size)
			}
			log = append(log, raw...)
			continue
		}
		raw, err := segment.BuildSizedBatch(b.base, b.records, b.size, b.ts)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, raw...)
	}
	var ib, tb []byte
	for _, e := range idx {
		ib = segment.EncodeIndexEntry(ib, base, e)
	}
	for _, e := range times {
		tb = segment.EncodeTimeIndexEntry(tb, base, e)
	}
	stem := filepath.Join(dir, fmt.Sprintf("%020d", base))
	for name, data := range map[string][]byte{".log": log, ".index": ib, ".timeindex": tb} {
		if err := os.WriteFile(stem+name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, off := range snapshots {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%020d.snapshot", off)), segmenttest.EmptyProducerSnapshot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cleanerAt >= 0 {
		cp := fmt.Sprintf("0\n1\ntopic 0 %d\n", cleanerAt)
		if err := os.WriteFile(filepath.Join(root, "cleaner-offset-checkpoint"), []byte(cp), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func explainOnly(t *testing.T, dir string) SegmentExplanation {
	t.Helper()
	parts, err := Dirs([]string{dir}, Options{Interval: -1})
	if err != nil || len(parts) != 1 || len(parts[0].Segments) != 1 {
		t.Fatalf("explain %s: %v (%d partitions)", dir, err, len(parts))
	}
	return parts[0].Segments[0]
}

// The cleaner's output (the shape of __consumer_offsets-25's segment 0): four one-record
// batches of 100 bytes at offsets 10, 20, 30, 40 of a segment based at 0 (compaction's gaps),
// timestamps 1000, 3000, 2000, 4000. Written in one pass and closed: no offset-index entry
// at index.interval.bytes 4096 and one time-index entry, onBecomeInactiveSegment's
// (max 4000 at offset 40). A producer snapshot at offset 30 lies inside its offsets: as a
// restart before batch 30 it would have made close() append (3000, 20) first, so the appends
// history cannot reproduce the files, and the cleaned history (no restart) does.
// By hand, the interval set: under the per-batch rule (3.9.1+, 4.1+) every batch start is a
// check without an entry, the last at byte 300: I >= 300; under the per-append eras the
// cleaner's chunk is one append of the four (several batches per append) checked once at
// byte 0: any I. The union is every value.
func TestExplainCleanedHistoryIgnoresAnotherLifetimesSnapshot(t *testing.T) {
	batches := []histBatch{{10, 1, 100, 1000, false}, {20, 1, 100, 3000, false}, {30, 1, 100, 2000, false}, {40, 1, 100, 4000, false}}
	times := []segment.TimeIndexEntry{{Timestamp: 4000, Offset: 40}}
	dir := writeHistorySegment(t, 0, batches, nil, times, []int64{30}, -1)
	s := explainOnly(t, dir)
	if !s.Reproduced || s.History != HistoryCleaned {
		t.Fatalf("reproduced %v, history %q (%v); want the cleaned history", s.Reproduced, s.History, s.FirstDisagreement)
	}
	if len(s.Restarts) != 0 || s.Recovery != nil {
		t.Errorf("restarts %+v, recovery %+v; a cleaned segment is written in one pass", s.Restarts, s.Recovery)
	}
	if s.Appends != SeveralBatchesPerAppend {
		t.Errorf("appends %q; the cleaner's chunks are several batches", s.Appends)
	}
	if !s.Interval.Contains(0) || !s.Interval.Contains(MaxIntervalBytes) {
		t.Errorf("interval %s, want every value", s.Interval)
	}
	if got := strings.Join(s.HistoryEvidence, "; "); !strings.Contains(got, "skips offsets 4 times") {
		t.Errorf("evidence %q; the segment skips offsets 4 times (0-9, 11-19, 21-29, 31-39)", got)
	}
	note := strings.Join(s.Notes, "; ")
	if !strings.Contains(note, "00000000000000000030.snapshot") || !strings.Contains(note, "another segment's lifetime") {
		t.Errorf("notes %q do not say the snapshot at 30 is another segment's", note)
	}
}

// Decision (preferCleaned): offset gaps alone are also a follower's copy of cleaned data, so
// where the appends history reproduces the files with no restart it stays the answer; the
// cleaner checkpoint past the segment (cleaner-offset-checkpoint: 41 > 40, its last offset)
// or a delete horizon make it the cleaned history. Same four batches, no snapshot.
func TestExplainCleanedHistoryNeedsStrongEvidence(t *testing.T) {
	batches := []histBatch{{10, 1, 100, 1000, false}, {20, 1, 100, 3000, false}, {30, 1, 100, 2000, false}, {40, 1, 100, 4000, false}}
	times := []segment.TimeIndexEntry{{Timestamp: 4000, Offset: 40}}
	t.Run("gaps-only", func(t *testing.T) {
		s := explainOnly(t, writeHistorySegment(t, 0, batches, nil, times, nil, -1))
		if !s.Reproduced || s.History != HistoryAppends {
			t.Errorf("reproduced %v, history %q; want appends (gaps alone)", s.Reproduced, s.History)
		}
	})
	t.Run("below-cleaner-checkpoint", func(t *testing.T) {
		s := explainOnly(t, writeHistorySegment(t, 0, batches, nil, times, nil, 41))
		if !s.Reproduced || s.History != HistoryCleaned {
			t.Fatalf("reproduced %v, history %q; want cleaned", s.Reproduced, s.History)
		}
		if got := strings.Join(s.HistoryEvidence, "; "); !strings.Contains(got, "below offset 41") {
			t.Errorf("evidence %q does not name the checkpoint 41", got)
		}
	})
	t.Run("checkpoint-at-the-segment-end", func(t *testing.T) {
		// 40 is not below 40: the cleaner stopped inside the segment's last offset, no evidence.
		s := explainOnly(t, writeHistorySegment(t, 0, batches, nil, times, nil, 40))
		if s.History != HistoryAppends {
			t.Errorf("history %q; want appends (the checkpoint 40 is not past offset 40)", s.History)
		}
	})
	t.Run("delete-horizon", func(t *testing.T) {
		b := append([]histBatch(nil), batches...)
		b[1].horizon = true
		s := explainOnly(t, writeHistorySegment(t, 0, b, nil, times, nil, -1))
		if !s.Reproduced || s.History != HistoryCleaned {
			t.Fatalf("reproduced %v, history %q (%v); want cleaned", s.Reproduced, s.History, s.FirstDisagreement)
		}
		if got := strings.Join(s.HistoryEvidence, "; "); !strings.Contains(got, "delete horizon") {
			t.Errorf("evidence %q does not name the delete horizon", got)
		}
	})
}

// A cleaned segment has no restart inside: a time-index entry that only a restart's close()
// explains rules the cleaned history out, even below the checkpoint. Here (3000, 20) before
// the final (4000, 40): with no offset-index entry, only a close() after batch 20 and before
// batch 40 appends it (the max is 3000 from batch 20 until batch 40 raises it), so the
// appends history answers, with that restart placed between offsets 30 and 40.
func TestExplainCleanedHistoryRefusesAMarkedRestart(t *testing.T) {
	batches := []histBatch{{10, 1, 100, 1000, false}, {20, 1, 100, 3000, false}, {30, 1, 100, 2000, false}, {40, 1, 100, 4000, false}}
	times := []segment.TimeIndexEntry{{Timestamp: 3000, Offset: 20}, {Timestamp: 4000, Offset: 40}}
	s := explainOnly(t, writeHistorySegment(t, 0, batches, nil, times, nil, 41))
	if !s.Reproduced || s.History != HistoryAppends {
		t.Fatalf("reproduced %v, history %q (%v); want appends with a restart", s.Reproduced, s.History, s.FirstDisagreement)
	}
	if len(s.Restarts) != 1 || s.Restarts[0].Evidence != "time-index" || s.Restarts[0].EarliestOffset != 30 {
		t.Errorf("restarts %+v; want one shown by the time index, from before offset 30", s.Restarts)
	}
}

// The shape of cart-product-request-0's segment 12: 14 one-record batches of 100 bytes at
// offsets 12..25, timestamps 1012..1025, a clean restart before offset 19 (its producer
// snapshot) and one after the last batch (the snapshot at 26). Written by appends, the files
// would hold close()'s entry at the restart, (1018, 18), then the last shutdown's (1025, 25).
// Recovery at the restart after the last batch rebuilt both indexes from byte 0
// (LogSegment.recover): no offset-index entry while I >= 1300 (the last batch starts at
// byte 1300; recover checks every batch), and its closing maybeAppend writes (1025, 25)
// alone; close() then appends nothing (no greater timestamp). Recovery at the restart before
// 19 would keep (1018, 18), so the recovery is placed after the last batch.
func TestExplainRecoveredHistoryAtTheEnd(t *testing.T) {
	var batches []histBatch
	for off := int64(12); off <= 25; off++ {
		batches = append(batches, histBatch{off, 1, 100, 1000 + off, false})
	}
	times := []segment.TimeIndexEntry{{Timestamp: 1025, Offset: 25}}
	s := explainOnly(t, writeHistorySegment(t, 12, batches, nil, times, []int64{19, 26}, -1))
	if !s.Reproduced || s.History != HistoryRecovered {
		t.Fatalf("reproduced %v, history %q (%v); want recovered", s.Reproduced, s.History, s.FirstDisagreement)
	}
	if r := s.Recovery; r == nil || r.Offset != 26 || r.Position != 1400 || r.Evidence != "producer-snapshot" {
		t.Errorf("recovery %+v; want after the last batch (offset 26, byte 1400), shown by the snapshot at 26", r)
	}
	if len(s.Restarts) != 1 || s.Restarts[0].Offset != 19 || s.Restarts[0].Position != 700 || s.Restarts[0].Evidence != "producer-snapshot" {
		t.Errorf("restarts %+v; want the one before offset 19 (byte 700), shown by its snapshot", s.Restarts)
	}
	if len(s.Interval) != 1 || s.Interval[0] != (IntervalRange{1300, MaxIntervalBytes}) {
		t.Errorf("interval %s, want from 1300", s.Interval)
	}
}

// Recovery at a restart inside the segment, followed by appends: ten one-record batches of
// 100 bytes at offsets 0..9, timestamps 1000..1009, index.interval.bytes 150, producer
// snapshots at 3 and 7 (two clean restarts). recover() at the restart before 7 rebuilt
// batches 0..6 from byte 0, checking every batch: entries at 200 (offset 2), 400 (4), 600
// (6), each with the time entry (max so far, that offset); its closing maybeAppend adds
// nothing (1006 is no greater). The appends after it count from 0 at byte 700: 800 is 100
// bytes on, 900 is 200 > 150: entry (9, 900) and (1009, 9). Written by appends instead, the
// restart at 3 would reset the counter at byte 300, and the entry at 400 (100 bytes on) needs
// I < 100 while the check at 100 after byte 0 needs I >= 100: no interval. Recovery at the
// restart before 3 leaves the same contradiction. By hand, the set: every stretch has one
// check 100 bytes after its anchor and its entry 200 after: [100, 199].
func TestExplainRecoveredHistoryInside(t *testing.T) {
	var batches []histBatch
	for off := int64(0); off <= 9; off++ {
		batches = append(batches, histBatch{off, 1, 100, 1000 + off, false})
	}
	idx := []segment.IndexEntry{{Offset: 2, Position: 200}, {Offset: 4, Position: 400}, {Offset: 6, Position: 600}, {Offset: 9, Position: 900}}
	times := []segment.TimeIndexEntry{{Timestamp: 1002, Offset: 2}, {Timestamp: 1004, Offset: 4}, {Timestamp: 1006, Offset: 6}, {Timestamp: 1009, Offset: 9}}
	dir := writeHistorySegment(t, 0, batches, idx, times, []int64{3, 7}, -1)
	if d := os.Getenv("KIDX_KEEP"); d != "" {
		_ = os.CopyFS(d, os.DirFS(filepath.Dir(dir)))
	}
	s := explainOnly(t, dir)
	if !s.Reproduced || s.History != HistoryRecovered {
		t.Fatalf("reproduced %v, history %q (%v); want recovered", s.Reproduced, s.History, s.FirstDisagreement)
	}
	if r := s.Recovery; r == nil || r.Offset != 7 || r.Position != 700 {
		t.Errorf("recovery %+v; want at the restart before offset 7 (byte 700)", r)
	}
	var got []int64
	for _, r := range s.Restarts {
		got = append(got, r.Offset)
	}
	if fmt.Sprint(got) != "[3 7]" {
		t.Errorf("restarts at %v, want [3 7] (both snapshots)", got)
	}
	if len(s.Interval) != 1 || s.Interval[0] != (IntervalRange{100, 199}) {
		t.Errorf("interval %s, want [100, 199]", s.Interval)
	}
}

// Several restarts between two entries, each pinned to one batch by close()'s time-index
// entry (__consumer_offsets-45's segment 507: six restarts, no entry). Eight one-record
// batches: two of 117 bytes, six of 971, timestamps rising; clean restarts before each of
// batches 2..7; no offset-index entry; the time index holds close()'s entry at each restart
// and the final one. By hand: the lifetimes are {0, 1} (a check at byte 117: I >= 117) and
// one batch each after (no check): every I from 117 reproduces the files, 4096 among them.
// Before issue 25 one mark per stretch was an anchor, and the set started at 4855.
func TestExplainPinnedMarksAreAnchors(t *testing.T) {
	sizes := []int{117, 117, 971, 971, 971, 971, 971, 971}
	var batches []histBatch
	var times []segment.TimeIndexEntry
	for i, size := range sizes {
		batches = append(batches, histBatch{int64(i), 1, size, 5000 + int64(i), false})
		if i >= 1 {
			times = append(times, segment.TimeIndexEntry{Timestamp: 5000 + int64(i), Offset: int64(i)})
		}
	}
	s := explainOnly(t, writeHistorySegment(t, 0, batches, nil, times, nil, -1))
	if !s.Reproduced || s.History != HistoryAppends {
		t.Fatalf("reproduced %v, history %q (%v)", s.Reproduced, s.History, s.FirstDisagreement)
	}
	if s.Appends != OneBatchPerAppend || len(s.Interval) != 1 || s.Interval[0] != (IntervalRange{117, MaxIntervalBytes}) {
		t.Errorf("%s, interval %s; want one batch per append from 117", s.Appends, s.Interval)
	}
	if len(s.Restarts) != 6 {
		t.Errorf("restarts %+v, want 6", s.Restarts)
	}
}

// Decision (preferCleaned): with offset gaps alone, a producer snapshot's restart that both
// histories agree with stays a restart of the segment's own lifetime. Batches of 100 bytes at
// offsets 10, 20, 30, 40 (timestamps 1000..4000), index.interval.bytes in [100, 199] under the
// per-batch rule: an entry at byte 200 (offset 30, time entry (3000, 30)); a clean restart
// before offset 40 (snapshot at 40) whose close() adds nothing (3000 is no greater), then the
// last close's (4000, 40). By hand, one lifetime gives the same files (the check at byte 300
// is 100 bytes after the entry: no entry for I >= 100): the cleaned history reproduces them
// too. Gaps alone: the appends answer, with the restart at 40; the checkpoint past the
// segment: the cleaned answer, with no restart and the snapshot called another lifetime's.
func TestExplainCleanedHistoryKeepsASnapshotRestartOnGapsAlone(t *testing.T) {
	batches := []histBatch{{10, 1, 100, 1000, false}, {20, 1, 100, 2000, false}, {30, 1, 100, 3000, false}, {40, 1, 100, 4000, false}}
	idx := []segment.IndexEntry{{Offset: 30, Position: 200}}
	times := []segment.TimeIndexEntry{{Timestamp: 3000, Offset: 30}, {Timestamp: 4000, Offset: 40}}
	s := explainOnly(t, writeHistorySegment(t, 0, batches, idx, times, []int64{40}, -1))
	if !s.Reproduced || s.History != HistoryAppends || len(s.Restarts) != 1 || s.Restarts[0].Offset != 40 {
		t.Errorf("gaps alone: reproduced %v, history %q, restarts %+v; want appends with the restart before 40", s.Reproduced, s.History, s.Restarts)
	}
	s = explainOnly(t, writeHistorySegment(t, 0, batches, idx, times, []int64{40}, 41))
	if !s.Reproduced || s.History != HistoryCleaned || len(s.Restarts) != 0 {
		t.Errorf("below the checkpoint: reproduced %v, history %q, restarts %+v; want cleaned, no restart", s.Reproduced, s.History, s.Restarts)
	}
	if !s.Interval.Contains(100) || !s.Interval.Contains(199) {
		t.Errorf("interval %s does not hold [100, 199]", s.Interval)
	}
}
