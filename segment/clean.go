package segment

import (
	"fmt"
	"math"
)

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

// Event kinds of a clean step beside the index overflows (docs/contract.md §3 "clean").
const (
	// EventOffsetOverflow is LogSegment.append's LogSegmentOffsetOverflowException: a chunk's
	// largest offset does not fit the cleaned segment's relative offsets.
	EventOffsetOverflow = "offset-overflow"
	// EventCleanerBufferOverflow is Cleaner.growBuffers' IllegalStateException (a batch larger
	// than the buffers may grow to), or ByteBuffer.allocate's refusal of a doubled capacity
	// past Integer.MAX_VALUE.
	EventCleanerBufferOverflow = "cleaner-buffer-overflow"
	// EventSegmentSizeOverflow is FileRecords.append's refusal of records that would take the
	// cleaned .log past Integer.MAX_VALUE bytes (rebuilt batches larger than their sources).
	EventSegmentSizeOverflow = "segment-size-overflow"
)

// MaxCleanerIOBufferSize is the largest ioBufferSize: log.cleaner.io.buffer.size is a Java int,
// halved for the read and the write buffer (LogCleaner's CleanerThread).
const MaxCleanerIOBufferSize = math.MaxInt32 / 2

type wireClean struct {
	UncleanableOffset *int64  `json:"uncleanableOffset"`
	Drop              []int64 `json:"drop"`
	Rewrite           []struct {
		BaseOffset      *int64 `json:"baseOffset"`
		Bytes           *int64 `json:"bytes"`
		MaxTimestamp    *int64 `json:"maxTimestamp"`
		DeleteHorizonMs *int64 `json:"deleteHorizonMs"`
	} `json:"rewrite"`
	IOBufferSize *int64 `json:"ioBufferSize"`
}

// spec checks what the step alone tells; which batches it names is checked against the log
// when it runs (Log.Clean).
func (w *wireClean) spec(where string) (CleanSpec, error) {
	var c CleanSpec
	if w.UncleanableOffset != nil {
		if *w.UncleanableOffset < 0 {
			return c, fmt.Errorf("%s.uncleanableOffset: %d is negative", where, *w.UncleanableOffset)
		}
		c.UncleanableOffset, c.HasUncleanableOffset = *w.UncleanableOffset, true
	}
	if w.IOBufferSize != nil {
		if *w.IOBufferSize < 1 || *w.IOBufferSize > MaxCleanerIOBufferSize {
			return c, fmt.Errorf("%s.ioBufferSize: %d is outside [1, %d] (log.cleaner.io.buffer.size, a Java int, / threads / 2)", where, *w.IOBufferSize, MaxCleanerIOBufferSize)
		}
		c.IOBufferSize = *w.IOBufferSize
	}
	named := map[int64]string{}
	for i, o := range w.Drop {
		if o < 0 {
			return c, fmt.Errorf("%s.drop[%d]: base offset %d is negative", where, i, o)
		}
		if _, dup := named[o]; dup {
			return c, fmt.Errorf("%s.drop[%d]: batch %d is named twice", where, i, o)
		}
		named[o] = "drop"
		c.Drop = append(c.Drop, o)
	}
	for i, r := range w.Rewrite {
		at := fmt.Sprintf("%s.rewrite[%d]", where, i)
		if r.BaseOffset == nil || r.Bytes == nil {
			return c, fmt.Errorf("%s: needs \"baseOffset\" and \"bytes\"", at)
		}
		if *r.BaseOffset < 0 {
			return c, fmt.Errorf("%s.baseOffset: %d is negative", at, *r.BaseOffset)
		}
		if *r.Bytes < RecordBatchOverhead || *r.Bytes > math.MaxInt32 {
			return c, fmt.Errorf("%s.bytes: %d is outside [%d, %d] (a v2 batch is at least its 61-byte header)", at, *r.Bytes, RecordBatchOverhead, math.MaxInt32)
		}
		if was, dup := named[*r.BaseOffset]; dup {
			if was == "drop" {
				return c, fmt.Errorf("%s: batch %d is both dropped and rewritten", at, *r.BaseOffset)
			}
			return c, fmt.Errorf("%s: batch %d is rewritten twice", at, *r.BaseOffset)
		}
		named[*r.BaseOffset] = "rewrite"
		rw := CleanRewrite{BaseOffset: *r.BaseOffset, Bytes: *r.Bytes}
		if r.MaxTimestamp != nil {
			if *r.MaxTimestamp < NoTimestamp {
				return c, fmt.Errorf("%s.maxTimestamp: %d is below -1 (NO_TIMESTAMP)", at, *r.MaxTimestamp)
			}
			rw.MaxTimestamp, rw.HasMaxTimestamp = *r.MaxTimestamp, true
		}
		if r.DeleteHorizonMs != nil {
			rw.DeleteHorizonMs, rw.HasDeleteHorizon = *r.DeleteHorizonMs, true
		}
		c.Rewrite = append(c.Rewrite, rw)
	}
	return c, nil
}
