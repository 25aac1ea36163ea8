package explain

import (
	"fmt"
	"os"

	"kidx/logdir"
	"kidx/segment"
)

// overCapacity is the disagreement of an index with more valid entries than its .log has room
// for, found by a count in bounded reads before the file would be loaded (nil when it has
// room). Kafka writes at most one offset-index entry per batch (LogSegment.append), and every
// time-index entry it appends holds a timestamp above the last one's and the max timestamp of
// a batch (TimeIndex.maybeAppend), so no replay gives more entries than batches: such a file
// is never reproduced, and loading it would cost memory in proportion to a file of any size
// (docs/explain.md, "An index no Kafka release wrote").
func overCapacity(sf segment.SegmentFiles, time bool) (*Disagreement, int) {
	path, entrySize, count, what := sf.Index, int64(segment.OffsetIndexEntrySize), logdir.OffsetIndexOverCapacity, "offset"
	if time {
		path, entrySize, count, what = sf.TimeIndex, segment.TimeIndexEntrySize, logdir.TimeIndexOverCapacity, "time"
	}
	if path == "" {
		return nil, 0
	}
	st, err := os.Stat(sf.Log)
	if err != nil {
		return nil, 0 // the open of the .log reports it
	}
	valid, limit, over := count(path, st.Size())
	if !over {
		return nil, 0
	}
	meaning := "Kafka writes at most one offset-index entry per batch, and a batch takes at least 26 bytes"
	if time {
		meaning = "Kafka appends a time-index entry only for a timestamp above the last one, each the max timestamp of a batch, so at most one per batch, and a batch takes at least 26 bytes"
	}
	return &Disagreement{File: path, Slot: int(limit), Byte: limit * entrySize,
		Found:    fmt.Sprintf("%d entries before the zero tail", valid),
		Expected: fmt.Sprintf("at most %d, the most a .log of %d bytes has room for", limit, st.Size()),
		Meaning:  meaning + ": no Kafka release wrote this " + what + " index (verify's index-capacity); its entries are not loaded",
	}, int(valid)
}
