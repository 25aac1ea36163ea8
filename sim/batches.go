package sim

import (
	"io"
	"math"

	"kidx/model"
)

// A batchGen yields one batch at a time, one per append (what a leader sees). It returns
// false when it has no more. firstOffset is the offset the batch will start at, for
// generators that derive timestamps from offsets.
type batchGen interface {
	next(firstOffset int64, b *model.Batch) bool
}

// DefaultTimestampStart is the max timestamp of offset 0 in generated workloads without a
// producer clock: batch k's max timestamp is DefaultTimestampStart + its base offset, the
// convention of kidx sim and of the golden vectors.
const DefaultTimestampStart = 1_700_000_000_000

// DefaultRecordBytes is the mean on-disk bytes per record used to derive a batch's record
// count from its size (16350-byte batches of 79 records in the seed post (docs/background.md): 207 B a record).
const DefaultRecordBytes = 207

// sizeBatches turns a size distribution into batches that can exist (model.MinBatchBytes,
// docs/workloads.md): the record count is the fixed one given, or the one the distribution
// drew (tiny), or (size-61)/record.bytes (at least 1, at most what the size holds); the size
// is raised to the smallest a batch of that many records can have, and capped at int32.
type sizeBatches struct {
	dist        sizeDist
	recordBytes int64
	records     int64 // fixed record count, 0 to derive
	tsStart     int64
}

func (g *sizeBatches) next(firstOffset int64, b *model.Batch) bool {
	size := min(g.dist.draw(), math.MaxInt32)
	recs := g.records
	if t, ok := g.dist.(*tinyDist); ok {
		recs = t.lastRecords
	}
	if recs == 0 {
		size = max(size, model.MinBatchBytes(1, model.NotLegacy))
		recs = model.PossibleRecords(size, (size-model.RecordBatchOverhead)/g.recordBytes)
	}
	size = model.PossibleBytes(recs, size)
	*b = model.Batch{Records: recs, Bytes: size, MaxTimestamp: g.tsStart + firstOffset}
	return true
}

// limitedStream runs a batchGen under Limits as a BatchStream: single-batch appends, no
// restarts. The last batch is cut to the record limit, its bytes in proportion (at least the
// smallest batch of the records kept).
type limitedStream struct {
	gen     batchGen
	limits  Limits
	clock   func() int64 // producer time in ms since start, nil without a clock
	offset  int64
	batches int64
	done    bool
	buf     []model.Batch
}

func (s *limitedStream) one(b *model.Batch) bool {
	if s.done || (s.limits.Batches > 0 && s.batches >= s.limits.Batches) ||
		(s.limits.Records > 0 && s.offset >= s.limits.Records) {
		s.done = true
		return false
	}
	if !s.gen.next(s.offset, b) {
		s.done = true
		return false
	}
	if s.clock != nil && s.limits.Duration > 0 && s.clock() > s.limits.Duration.Milliseconds() {
		s.done = true
		return false
	}
	if s.limits.Records > 0 && s.offset+b.Records > s.limits.Records {
		keep := s.limits.Records - s.offset
		b.Bytes = model.PossibleBytes(keep, b.Bytes*keep/b.Records)
		b.Records = keep
	}
	s.offset += b.Records
	s.batches++
	return true
}

// Next implements Stream.
func (s *limitedStream) Next(dst []model.Step) (int, error) {
	if len(s.buf) < len(dst) {
		s.buf = make([]model.Batch, len(dst))
	}
	n := 0
	for ; n < len(dst) && s.one(&s.buf[n]); n++ {
		dst[n] = model.Step{Append: s.buf[n : n+1 : n+1]}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// NextBatches implements BatchStream: the 64 M-batch path, no per-batch allocation.
func (s *limitedStream) NextBatches(bytes, records []int32, maxTimestamps []int64) (int, error) {
	n := 0
	var b model.Batch
	for ; n < len(bytes) && s.one(&b); n++ {
		bytes[n], records[n] = int32(b.Bytes), int32(b.Records)
		if maxTimestamps != nil {
			maxTimestamps[n] = b.MaxTimestamp
		}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
