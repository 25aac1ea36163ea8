package segment

// Cleaner defaults (docs/contract.md §3, the "clean" step): each of a cleaner thread's read
// and write buffers is log.cleaner.io.buffer.size (524288) / log.cleaner.threads (1) / 2, and
// they grow for one batch up to max.message.bytes.
const (
	DefaultCleanerIOBufferSize = 262144
)

// CleanSpec is one pass of Kafka's log cleaner (a "clean" step, docs/contract.md §3): the
// non-active segments below UncleanableOffset, grouped as Cleaner.groupSegmentsBySize does,
// each group rewritten into a cleaned segment and swapped in. Drop and Rewrite say, by base
// offset, which source batches are removed or rebuilt; every other batch is copied as it is.
type CleanSpec struct {
	// UncleanableOffset is firstUncleanableDirtyOffset when HasUncleanableOffset; without it,
	// the active segment's base offset.
	UncleanableOffset    int64
	HasUncleanableOffset bool
	Drop                 []int64
	Rewrite              []CleanRewrite
	// IOBufferSize sets the read-buffer chunks; 0 means DefaultCleanerIOBufferSize. The
	// buffers grow for one batch up to the config's max.message.bytes.
	IOBufferSize int64
}

// CleanRewrite is a source batch the cleaner rebuilds with fewer records
// (MemoryRecords.buildRetainedRecordsInto): a v2 batch keeps its base and last offsets, and
// is written at exactly Bytes.
type CleanRewrite struct {
	BaseOffset      int64
	Bytes           int64
	MaxTimestamp    int64
	HasMaxTimestamp bool
	// DeleteHorizonMs, when HasDeleteHorizon, is written as the batch's base timestamp with
	// the delete-horizon attribute bit set, as the cleaner does to a batch holding tombstones.
	DeleteHorizonMs  int64
	HasDeleteHorizon bool
}
