package explain

import (
	"fmt"
	"os"

	"kidx/logdir"
	"kidx/segment"
)

// timeOverCapacity is the disagreement of a .timeindex with more valid entries than its .log
// has room for, found by a count in bounded reads before the file would be loaded (nil when it
// has room). Every time-index entry Kafka appends holds a timestamp above the last one's and
// the max timestamp of a batch (TimeIndex.maybeAppend), so no replay gives more entries than
// batches: such a file is never reproduced, and loading it would cost memory in proportion to
// a file of any size (docs/explain.md, "A time index no Kafka release wrote").
func timeOverCapacity(sf segment.SegmentFiles) (*Disagreement, int) {
	if sf.TimeIndex == "" {
		return nil, 0
	}
	st, err := os.Stat(sf.Log)
	if err != nil {
		return nil, 0 // the open of the .log reports it
	}
	valid, limit, over := logdir.TimeIndexOverCapacity(sf.TimeIndex, st.Size())
	if !over {
		return nil, 0
	}
	return &Disagreement{File: sf.TimeIndex, Slot: int(limit), Byte: limit * segment.TimeIndexEntrySize,
		Found:    fmt.Sprintf("%d entries before the zero tail", valid),
		Expected: fmt.Sprintf("at most %d, the most a .log of %d bytes has room for", limit, st.Size()),
		Meaning:  "Kafka appends a time-index entry only for a timestamp above the last one, each the max timestamp of a batch, so at most one per batch, and a batch takes at least 26 bytes: no Kafka release wrote this time index (verify's index-capacity); its entries are not loaded",
	}, int(valid)
}
