package fuzz

import (
	"math"
	"pgregory.net/rapid"

	"kidx/model"
	"kidx/segment"
)

// rapidSource draws every choice from rapid, so rapid shrinks a failing workload choice by
// choice (towards the first option of each pick, the plainest one).
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Intn(n int) int { return rapid.IntRange(0, n-1).Draw(s.t, "choice") }

// WorkloadGen is a rapid generator of workloads with the same edge-heavy choices as
// Generate (written here, independently of package props' generators).
func WorkloadGen(o GenOptions) *rapid.Generator[model.Workload] {
	return rapid.Custom(func(t *rapid.T) model.Workload { return Generate(rapidSource{t}, o) })
}

// BatchGen draws one valid, encodable batch: 1..64 records, a size from MinBatchSize to
// 64 KiB, a max timestamp >= -1.
func BatchGen() *rapid.Generator[model.Batch] {
	return rapid.Custom(func(t *rapid.T) model.Batch {
		r := rapid.Int64Range(1, 64).Draw(t, "records")
		lo := MinBatchSize(r)
		b := rapid.OneOf(rapid.Just(lo), rapid.Int64Range(lo, lo+200), rapid.Int64Range(lo, 1<<16)).Draw(t, "bytes")
		if !Encodable(r, b) {
			b++
		}
		ts := rapid.OneOf(rapid.Just(int64(model.NoTimestamp)), rapid.Int64Range(0, 10), rapid.Int64Range(tsBase, tsBase+1000)).Draw(t, "maxTimestamp")
		return model.Batch{Records: r, Bytes: b, MaxTimestamp: ts}
	})
}

// ConfigGen draws a file-compatible config (segment.ms pinned, see Generate) as the
// workload-file map.
func ConfigGen() *rapid.Generator[map[string]int64] {
	return rapid.Custom(func(t *rapid.T) map[string]int64 {
		return map[string]int64{
			segment.KeyIndexIntervalBytes: rapid.OneOf(rapid.Int64Range(0, 2), rapid.Int64Range(0, 5000), rapid.Just[int64](4096)).Draw(t, "interval"),
			segment.KeySegmentBytes:       rapid.OneOf(rapid.Int64Range(14, 300), rapid.Int64Range(300, 20000)).Draw(t, "segment.bytes"),
			segment.KeySegmentIndexBytes:  rapid.OneOf(rapid.Int64Range(12, 100), rapid.Just[int64](model.DefaultSegmentIndexBytes)).Draw(t, "segment.index.bytes"),
			segment.KeySegmentMs:          rapid.OneOf(rapid.Just[int64](math.MaxInt64), rapid.Int64Range(1, 50)).Draw(t, "segment.ms"),
		}
	})
}
