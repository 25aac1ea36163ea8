package explain

import (
	"fmt"

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
	c, over := logdir.IndexOverCapacity(sf, time)
	if !over {
		return nil, 0
	}
	entrySize, what := int64(segment.OffsetIndexEntrySize), "offset"
	meaning := "Kafka writes at most one offset-index entry per batch, and a batch takes at least 26 bytes"
	if time {
		entrySize, what = segment.TimeIndexEntrySize, "time"
		meaning = "Kafka appends a time-index entry only for a timestamp above the last one, each the max timestamp of a batch, so at most one per batch, and a batch takes at least 26 bytes"
	}
	return &Disagreement{File: c.Path, Slot: int(c.Limit), Byte: c.Limit * entrySize,
		Found:    fmt.Sprintf("%d entries before the zero tail", c.Valid),
		Expected: fmt.Sprintf("at most %d, the most a .log of %d bytes has room for", c.Limit, c.LogSize),
		Meaning:  meaning + ": no Kafka release wrote this " + what + " index (verify's index-capacity); its entries are not loaded",
	}, int(c.Valid)
}
