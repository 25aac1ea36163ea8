package props

import (
	"fmt"
	"math"

	"pgregory.net/rapid"

	"kidx/model"
)

// DefaultAlphabet holds the batch sizes the edges are made of: the smallest v2 batch (one
// record, 68 bytes: model.MinBatchBytes), a small one, just below, at and above 4096 (the
// default interval), and the seed post's 16350-byte batch (docs/background.md).
var DefaultAlphabet = []int64{68, 100, 4095, 4096, 4097, 16350}

// minBatch is the smallest batch a file can hold: one record, 68 bytes.
var minBatch = model.MinBatchBytes(1, model.NotLegacy)

// AlphabetError says which size of an exhaustive alphabet no batch can have (below the
// smallest batch, 68 bytes), nil when every size can be a batch. The walk gives the k-th size
// k+1 records, or as many as it holds (model.PossibleRecords).
func AlphabetError(alphabet []int64) error {
	for _, b := range alphabet {
		if b < minBatch || b > math.MaxInt32 {
			return fmt.Errorf("%d is not a batch size (%d..2^31-1: %d bytes is the smallest batch, the 61-byte header and one 7-byte record)", b, minBatch, minBatch)
		}
	}
	return nil
}

// GenOptions shape the cases CaseGen draws.
type GenOptions struct {
	Rule model.AppendRule
	// Era, when set, is a candidate era the cases run under (Case.Era).
	Era        *model.Era
	MaxAppends int // appends per case (default 16)
	MaxGroup   int // batches per append (default 4); 1 gives leader workloads
	Restarts   bool
	Recovers   bool
	Mutant     model.Mutant
}

// CaseGen draws a case. The config comes first, so that shrinking the workload keeps it: an
// edge size e (from the alphabet or anywhere up to 20000 bytes), segment.bytes a small
// multiple of e, the interval just below, at or above e or segment.bytes (or 0, 1, or
// anywhere), segment.index.bytes small enough to fill. Then the steps: appends of
// 1..MaxGroup batches whose sizes are mostly e or alphabet sizes, record counts plausible for
// the size, timestamps increasing, equal, shuffled or absent, and restarts and recoveries
// between appends. Every choice shrinks towards the simplest: one batch per append, no reset.
func CaseGen(o GenOptions) *rapid.Generator[*Case] {
	if o.MaxAppends == 0 {
		o.MaxAppends = 16
	}
	if o.MaxGroup == 0 {
		o.MaxGroup = 4
	}
	return rapid.Custom(func(t *rapid.T) *Case {
		e := rapid.OneOf(rapid.SampledFrom(DefaultAlphabet), rapid.Int64Range(minBatch, 20000)).Draw(t, "edge")
		cfg := model.DefaultConfig()
		cfg.SegmentBytes = e * rapid.Int64Range(1, 12).Draw(t, "segment.bytes/e")
		cfg.SegmentBytes += rapid.SampledFrom([]int64{0, -1, 1, e / 2}).Draw(t, "segment.bytes+")
		S := cfg.SegmentBytes
		cfg.IndexIntervalBytes = rapid.SampledFrom([]int64{0, 1, e - 1, e, e + 1, 2*e - 1, 2 * e, 2*e + 1, S - 1, S, S + 1,
			rapid.Int64Range(0, 2*S).Draw(t, "intervalRandom")}).Draw(t, "index.interval.bytes")
		cfg.SegmentIndexBytes = rapid.SampledFrom([]int64{model.DefaultSegmentIndexBytes, 12, 16, 24, 36, 48, 96}).Draw(t, "segment.index.bytes")
		compare := cfg.IndexIntervalBytes + rapid.SampledFrom([]int64{1, e, e + 1, rapid.Int64Range(1, S).Draw(t, "compareRandom")}).Draw(t, "compareDelta")

		size := rapid.OneOf(rapid.Just(e), rapid.SampledFrom(DefaultAlphabet), rapid.Int64Range(minBatch, 20000))
		tsMode := rapid.IntRange(0, 3).Draw(t, "tsMode") // increasing, equal, shuffled, none
		ts := int64(1_700_000_000_000)
		batch := rapid.Custom(func(t *rapid.T) model.Batch {
			b := size.Draw(t, "bytes")
			// Only counts the size can hold (a file can hold the batch: kidx write can write a
			// counterexample), and not 1 where no 1-record batch has the size (126 bytes).
			r := rapid.Int64Range(1, max(1, min(50, (b-61)/8+1, model.MaxBatchRecords(b)))).Draw(t, "records")
			r = model.PossibleRecords(b, r)
			var mts int64
			switch tsMode {
			case 0:
				ts += rapid.Int64Range(1, 100).Draw(t, "dt")
				mts = ts
			case 1:
				ts += rapid.Int64Range(0, 1).Draw(t, "dt")
				mts = ts
			case 2:
				mts = ts + rapid.Int64Range(-50, 50).Draw(t, "dt")
				ts += 10
			default:
				mts = model.NoTimestamp
			}
			return model.Batch{Records: r, Bytes: b, MaxTimestamp: mts}
		})
		resets := 0
		if o.Restarts {
			resets = 1
		}
		if o.Recovers {
			resets = 2
		}
		step := rapid.Custom(func(t *rapid.T) []model.Step {
			var out []model.Step
			// 0, what rapid shrinks towards, is no reset.
			switch r := rapid.IntRange(0, 9).Draw(t, "reset"); {
			case r == 8 && resets >= 1:
				out = append(out, model.Step{Restart: true})
			case r == 9 && resets >= 2:
				out = append(out, model.Step{Recover: true})
			}
			g := 1
			if o.MaxGroup > 1 {
				g = rapid.IntRange(1, o.MaxGroup).Draw(t, "group")
			}
			return append(out, model.AppendStep(rapid.SliceOfN(batch, g, g).Draw(t, "append")...))
		})
		var steps []model.Step
		for _, s := range rapid.SliceOfN(step, 1, o.MaxAppends).Draw(t, "steps") {
			steps = append(steps, s...)
		}
		return &Case{Steps: steps, Rule: o.Rule, Era: o.Era, Mutant: o.Mutant, Config: cfg, Compare: compare}
	})
}
