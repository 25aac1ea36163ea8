package logdir

import (
	"fmt"

	"kidx/segment"
)

// timesIn judges the time-index entries that fall in batch b (and those that fall in the
// offset gap before it). DumpLogSegments.dumpTimeIndex finds the first batch whose last
// offset is >= the entry's, then wants that last offset to be the entry's and the batch's
// max record timestamp to be the entry's.
func (w *segmentWalk) timesIn(b segment.BatchInfo, first, last int64, indexed bool) {
	x := w.seg.TimeIndex
	var recs *recordScan
	for w.tp < len(w.byOffset) {
		slot := w.byOffset[w.tp]
		e := w.times[slot]
		if e.Offset > last {
			return
		}
		w.tp++
		w.lastTimeTs = max(w.lastTimeTs, e.Timestamp)
		if !indexed && e.Offset >= first {
			w.unpairedTime, w.unpairedTs = e.Offset, e.Timestamp
		}
		at := int64(slot) * segment.TimeIndexEntrySize
		if e.Offset == last {
			// The batch header's max timestamp: Kafka's LogValidator writes it from the
			// records (and the CRC, which --deep checks, covers both). DumpLogSegments takes
			// the max over the records themselves: kidx dump does.
			maxTs := b.MaxTimestamp()
			if maxTs != e.Timestamp {
				w.observe(observation{f: Finding{File: x.Path, Pos: at, Check: CheckTimeIndexMismatch,
					Message:  fmt.Sprintf("Index timestamp: %d, log timestamp: %d", e.Timestamp, maxTs),
					Expected: "the max record timestamp of the batch ending at the indexed offset"}, kind: "time-mismatch", pair: [2]int64{e.Timestamp, maxTs}})
			}
			continue
		}
		o := observation{f: Finding{File: x.Path, Pos: at + 8, Check: CheckTimeIndexNotFound,
			Message:  fmt.Sprintf("Indexed offset: %d, found log offset: %d", e.Offset, last),
			Expected: "a batch ending at the indexed offset"}, kind: "time-not-found", pair: [2]int64{e.Offset, last}}
		// Kafka 0.11 to 3.6 name, for a leader's uncompressed CreateTime v2 batch, the first
		// record holding the batch's max timestamp (LogValidator).
		if e.Offset >= first && !b.IsLegacy() && b.Header.Compression() == 0 && b.Header.TimestampType() == "CreateTime" && e.Timestamp == b.MaxTimestamp() {
			exact := true
			if w.ctx.opts.Deep {
				if recs == nil {
					recs = scanRecords(w.seg.Log, b)
				}
				exact = recs.ok && recs.firstMax == e.Offset && recs.maxTs == e.Timestamp
			}
			if exact {
				o.allowed = erasExactTime
				o.why = "from 0.11 to 3.6 a leader's uncompressed CreateTime batch is time-indexed at the record holding its max timestamp (LogValidator; at the batch's last offset since 3.7, #14697)"
			}
		}
		w.observe(o)
	}
}

// recordScan is what one batch's records say about timestamps.
type recordScan struct {
	ok       bool
	maxTs    int64
	firstMax int64 // offset of the first record with maxTs
}

func scanRecords(lf *segment.LogFile, b segment.BatchInfo) *recordScan {
	s := &recordScan{maxTs: segment.NoTimestamp, firstMax: -1}
	err := lf.RecordTimestamps(b, func(off, ts int64) bool {
		if ts > s.maxTs {
			s.maxTs, s.firstMax = ts, off
		}
		return true
	})
	s.ok = err == nil
	return s
}
