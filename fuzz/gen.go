package fuzz

import (
	"math"

	"kidx/model"
	"kidx/segment"
)

// Source is the randomness a workload generator draws from. *math/rand.Rand satisfies it, and
// so do the gofuzz and rapid adapters, so that all three generators make the same edge-heavy
// choices. Intn(n) returns a value in [0, n); n > 0.
type Source interface {
	Intn(n int) int
}

// GenOptions shape generated workloads.
type GenOptions struct {
	// Rule fixes the append rule ("per-batch" or "per-append"); "" picks one per workload.
	Rule string
	// MaxSteps bounds the number of steps (default 40).
	MaxSteps int
	// Batches, when > 0, makes a workload of exactly that many single-batch appends and no
	// restart or recover (the benchmark's "100-batch workloads").
	Batches int
	// Clean also draws clean steps (gen_clean.go): kidx diff's differential and crash
	// campaigns, FuzzDifferential, FuzzCrash. Off, a workload is what the same source drew
	// before clean steps existed (the corpus, kidx diff --against).
	Clean bool
}

// Generation constants. segment.ms is drawn too: both sides roll on the batches' timestamps
// (LogSegment.timeWaitedForRoll), so small values exercise time-based rolls.
const (
	maxGenBatch    = 1 << 20 // largest batch generated (bytes)
	tsBase         = 1_700_000_000_000
	defaultMaxStep = 40
)

// minBatch caches segment.MinBatchSize for small record counts.
var minBatch = func() []int64 {
	t := make([]int64, 65)
	for i := range t {
		t[i] = int64(segment.MinBatchSize(i))
	}
	return t
}()

// MinBatchSize is segment.MinBatchSize, cached for the counts the generators draw.
func MinBatchSize(records int64) int64 {
	if records >= 0 && records < int64(len(minBatch)) {
		return minBatch[records]
	}
	return int64(segment.MinBatchSize(int(records)))
}

// Encodable reports whether the size-targeting builder can make a batch of this many records
// and bytes (docs/segment.md): at least MinBatchSize, and not one of the sizes a single record
// cannot have (no record is 65 or 8194 bytes, so 1-record batches of 126 and 8255 bytes do not
// exist). Larger gaps (records of 2^20+ bytes) are left to the builder, whose refusal makes the
// harness skip the case.
func Encodable(records, bytes int64) bool {
	if records < 1 || bytes < MinBatchSize(records) || bytes > math.MaxInt32 {
		return false
	}
	return records != 1 || (bytes != 126 && bytes != 8255)
}

type gen struct {
	src       Source
	o         GenOptions
	scale     int64
	interval  int64
	segBytes  int64
	tsMode    int
	ts        int64
	nextCount int64
}

func (g *gen) n(k int) int { return g.src.Intn(k) }

// between returns a value in [lo, hi] (hi >= lo).
func (g *gen) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + int64(g.src.Intn(int(hi-lo+1)))
}

func (g *gen) pick(vs ...int64) int64 { return vs[g.n(len(vs))] }

// Generate draws one workload: a config near its edges (intervals around the batch size,
// segments a few batches long, segment.index.bytes small enough to overflow), a rule, a start
// offset, and steps whose batches are valid and encodable on the file side.
func Generate(src Source, o GenOptions) model.Workload {
	g := &gen{src: src, o: o}
	if o.MaxSteps <= 0 {
		g.o.MaxSteps = defaultMaxStep
	}
	w := model.Workload{Config: map[string]int64{}, Rule: o.Rule}
	if w.Rule == "" {
		w.Rule = []string{"per-batch", "per-append"}[g.n(2)]
	}
	g.scale = g.pick(61, 80, 150, 300, 1000, 4000)
	g.interval = g.drawInterval()
	g.segBytes = min(max(g.drawSegmentBytes(), 14), math.MaxInt32) // Kafka's range (docs/kafka.md §9)
	w.Config["index.interval.bytes"] = g.interval
	w.Config["segment.bytes"] = g.segBytes
	w.Config["segment.index.bytes"] = g.drawIndexBytes()
	w.Config["segment.ms"] = g.pick(math.MaxInt64, math.MaxInt64, 604_800_000, 1, 3, 10, 40)
	w.StartOffset = g.pick(0, 0, 0, g.between(1, 5000), math.MaxInt32-3, math.MaxInt32, 1<<32+7, 1_000_000_000_000)
	g.tsMode = g.n(6)
	g.ts = g.pick(tsBase, 0, 1, tsBase)
	if o.Batches > 0 {
		for range o.Batches {
			w.Steps = append(w.Steps, model.AppendStep(g.batch()))
		}
		w.SingleBatch = true
		return w
	}
	steps := 1 + g.n(g.o.MaxSteps)
	for range steps {
		switch k := g.n(20); {
		case k < 13:
			w.Steps = append(w.Steps, model.AppendStep(g.batch()))
		case k < 17:
			bs := make([]model.Batch, 2+g.n(4))
			for i := range bs {
				bs[i] = g.batch()
			}
			w.Steps = append(w.Steps, model.AppendStep(bs...))
		case k < 19:
			w.Steps = append(w.Steps, model.Step{Restart: true})
		default:
			w.Steps = append(w.Steps, model.Step{Recover: true})
		}
	}
	if o.Clean {
		// Drawn last, so that the rest of the workload is what the same source drew before
		// clean steps existed.
		cfg := model.DefaultConfig()
		rule := model.PerBatch
		if w.Rule == "per-append" {
			rule = model.PerAppend
		}
		if w.ApplyTo(&cfg) == nil && cfg.Validate() == nil {
			g.addCleanSteps(&w, cfg, rule)
		}
		// Half the recover steps start at a recovery point (docs/contract.md §3 "recover"):
		// below the log start, at it, or anywhere in the offsets the steps may have written.
		for i := range w.Steps {
			if st := &w.Steps[i]; st.Recover && g.n(2) == 0 {
				st.RecoveryPoint, st.HasRecoveryPoint = g.pick(0, w.StartOffset, w.StartOffset+g.between(0, 400)), true
			}
		}
	}
	return w
}

func (g *gen) drawInterval() int64 {
	s := g.scale
	switch g.n(10) {
	case 0:
		return g.pick(0, 1)
	case 1:
		return g.pick(60, 61, 62)
	case 2:
		return g.pick(s-1, s, s+1)
	case 3:
		return g.pick(2*s-1, 2*s, 2*s+1)
	case 4:
		return 4096
	case 5:
		return g.pick(1<<20, 1<<30) // empty indexes (EmptyAboveSegment)
	default:
		return g.between(0, 6*s)
	}
}

func (g *gen) drawSegmentBytes() int64 {
	s := g.scale
	switch g.n(8) {
	case 0:
		return 1 << 30
	case 1:
		return g.pick(14, 60, 61, 62) // nothing or one minimal batch fits
	case 2:
		return g.pick(g.interval-1, g.interval, g.interval+1, g.interval+s) // interval near the segment size
	case 3:
		return g.pick(2*s, 3*s, 4*s) // segments a whole number of batches long
	default:
		return g.between(2*s, 40*s)
	}
}

func (g *gen) drawIndexBytes() int64 {
	switch g.n(10) {
	case 0, 1, 2:
		return g.between(12, 100) // tiny: overflows mid-append (docs/kafka.md §2.4)
	case 3:
		return g.pick(12, 16, 23, 24, 36, 48, 96) // entry-size boundaries (8 and 12)
	case 4:
		return g.between(100, 2000)
	default:
		return model.DefaultSegmentIndexBytes
	}
}

func (g *gen) batch() model.Batch {
	var records int64
	switch g.n(6) {
	case 0, 1:
		records = 1
	case 2:
		records = 2
	case 3:
		records = g.between(1, 8)
	case 4:
		records = g.between(1, 40)
	default:
		records = g.between(1, 64)
	}
	lo := MinBatchSize(records)
	s, iv, sb := g.scale, g.interval, g.segBytes
	var bytes int64
	switch g.n(14) {
	case 0:
		bytes = lo
	case 1:
		bytes = lo + 1
	case 2:
		bytes = g.pick(s-1, s, s+1)
	case 3:
		bytes = g.pick(iv-1, iv, iv+1, iv/2)
	case 4:
		bytes = g.pick(sb-1, sb, sb+1, sb/2, sb/3) // fills the segment exactly, or is rejected
	case 5:
		bytes = g.pick(61, 62, 126, 127, 8255)
	default:
		bytes = g.between(lo, 2*s)
	}
	bytes = min(max(bytes, lo), maxGenBatch)
	if !Encodable(records, bytes) {
		bytes++
	}
	return model.Batch{Records: records, Bytes: bytes, MaxTimestamp: g.timestamp(records)}
}

func (g *gen) timestamp(records int64) int64 {
	defer func() { g.nextCount += records }()
	switch g.tsMode {
	case 0:
		return model.NoTimestamp
	case 1: // increasing with the offset, the golden vectors' convention
		return g.ts + g.nextCount
	case 2: // all equal: later batches never add time-index entries
		return g.ts
	case 3: // going back and forth
		g.ts = max(g.ts+g.between(-5, 5), 0)
		return g.ts
	case 4: // mixed: -1, 0, equal, back
		return g.pick(model.NoTimestamp, 0, g.ts, g.ts+g.nextCount, max(g.ts-g.nextCount, 0))
	default:
		return g.between(-1, 50) + g.ts
	}
}
