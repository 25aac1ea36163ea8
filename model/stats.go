package model

// ScanStats aggregates the phase-2 cost of looking up every offset of a segment (or of a
// whole log), as defined in SPEC §5: scanBytes(o) = hit position - start position, and
// hops(o) = batch headers read in phase 2, the hit included. All figures are exact.
type ScanStats struct {
	Lookups        int64 `json:"lookups"`
	MaxScanBytes   int64 `json:"maxScanBytes"`
	TotalScanBytes int64 `json:"totalScanBytes"`
	MaxHops        int64 `json:"maxHops"`
	TotalHops      int64 `json:"totalHops"`
}

// Add records count offsets that all cost scanBytes and hops.
func (s *ScanStats) Add(count, scanBytes, hops int64) {
	if count <= 0 {
		return
	}
	s.Lookups += count
	s.TotalScanBytes += count * scanBytes
	s.TotalHops += count * hops
	if scanBytes > s.MaxScanBytes {
		s.MaxScanBytes = scanBytes
	}
	if hops > s.MaxHops {
		s.MaxHops = hops
	}
}

// Merge adds o's figures to s.
func (s *ScanStats) Merge(o ScanStats) {
	s.Lookups += o.Lookups
	s.TotalScanBytes += o.TotalScanBytes
	s.TotalHops += o.TotalHops
	s.MaxScanBytes = max(s.MaxScanBytes, o.MaxScanBytes)
	s.MaxHops = max(s.MaxHops, o.MaxHops)
}

// MeanScanBytes is TotalScanBytes / Lookups (0 with no lookups).
func (s ScanStats) MeanScanBytes() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.TotalScanBytes) / float64(s.Lookups)
}

// MeanHops is TotalHops / Lookups (0 with no lookups).
func (s ScanStats) MeanHops() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.TotalHops) / float64(s.Lookups)
}

// scanWalker computes ScanStats in one pass over a segment's batches in offset order (SPEC
// §5). Every offset-index entry the model can produce names the last offset of some batch
// (its own batch under the per-batch rule and recover(), the append's last batch under the
// per-append rule) and points at a batch start at or before that batch. So within batch j
// the offsets below its last one share the start of the latest earlier entry, and its last
// offset uses its own entry when it has one. That is two runs per batch at most.
type scanWalker struct {
	startPos   int64 // position of the latest entry so far (0 before the first)
	startBatch int   // ordinal of the batch at startPos
}

// runSink receives runs of offsets that share one lookup cost.
type runSink interface {
	Add(count, scanBytes, hops int64)
}

// RunFunc adapts a function to receive runs.
type RunFunc func(count, scanBytes, hops int64)

// Add calls f.
func (f RunFunc) Add(count, scanBytes, hops int64) {
	if count > 0 {
		f(count, scanBytes, hops)
	}
}

// step accounts for batch j. entryBatch is the ordinal of the batch the entry naming j's
// last offset points at, or -1 when no entry names it.
func (w *scanWalker) step(stats runSink, batches []BatchInfo, j, entryBatch int) {
	b := &batches[j]
	records := b.LastOffset - b.BaseOffset + 1
	scan := b.Position - w.startPos
	hops := int64(j - w.startBatch + 1)
	if entryBatch < 0 {
		stats.Add(records, scan, hops)
		return
	}
	stats.Add(records-1, scan, hops)
	w.startPos = batches[entryBatch].Position
	w.startBatch = entryBatch
	stats.Add(1, b.Position-w.startPos, int64(j-entryBatch+1))
}
