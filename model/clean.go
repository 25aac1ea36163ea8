package model

import "errors"

// Cleaner defaults (docs/contract.md §3, the "clean" step).
const (
	// DefaultCleanerIOBufferSize is the size of each of a cleaner thread's read and write
	// buffers: log.cleaner.io.buffer.size (524288) / log.cleaner.threads (1) / 2, as
	// LogCleaner builds its Cleaner.
	DefaultCleanerIOBufferSize = 262144
)

// Clean is one pass of Kafka's log cleaner over the partition (a "clean" step,
// docs/contract.md §3): the non-active segments below UncleanableOffset, grouped as
// Cleaner.groupSegmentsBySize groups them, each group rewritten into one cleaned segment.
// What survives is given per source batch, by base offset: Drop removes a batch, Rewrite
// rebuilds one with fewer records; every other batch is kept as it is.
type Clean struct {
	// UncleanableOffset is Kafka's firstUncleanableDirtyOffset when HasUncleanableOffset;
	// without it, the active segment's base offset.
	UncleanableOffset    int64
	HasUncleanableOffset bool
	Drop                 []int64
	Rewrite              []CleanRewrite
	// IOBufferSize sets the read-buffer chunks; 0 means DefaultCleanerIOBufferSize. The
	// buffers grow for one batch up to the config's max.message.bytes.
	IOBufferSize int64
}

// CleanRewrite is a source batch the cleaner rebuilds with fewer records
// (MemoryRecords.buildRetainedRecordsInto): a v2 batch keeps its base and last offsets.
type CleanRewrite struct {
	BaseOffset int64
	Bytes      int64
	// MaxTimestamp is the rebuilt batch's, when HasMaxTimestamp; else the source batch's.
	MaxTimestamp    int64
	HasMaxTimestamp bool
	// DeleteHorizonMs is for the file writer only (the batch's delete-horizon bit and base
	// timestamp), when HasDeleteHorizon.
	DeleteHorizonMs  int64
	HasDeleteHorizon bool
}

// Clean runs one cleaner pass (docs/contract.md §3 "clean").
func (l *Log) Clean(c Clean) error {
	if _, err := l.startStep(); err != nil {
		return err
	}
	return errors.New("the clean step is not built yet (issue 25)")
}
