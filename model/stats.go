package model

// ScanStats aggregates the phase-2 cost of looking up every offset of a segment (or of a
// whole log), as defined in docs/contract.md §5: scanBytes(o) = hit position - start position, and
// hops(o) = batch headers read in phase 2, the hit included. All figures are exact.
//
// MaxHeaderReads and TotalHeaderReads are the batch headers Kafka's own phase-2 loop reads
// (docs/contract.md §5, docs/kafka.md §7.1 and §13.6): equal to the hops before 4.1; from 4.1
// (searchForOffsetFromPosition, KAFKA-18989) one more for every lookup of an offset that is
// not its batch's base offset, unless the batch is the segment's last (the loop returns at a
// base offset equal to the target, else reads on to the next batch's header). A Segment's or
// Log's Scan() fills them for its era.
type ScanStats struct {
	Lookups          int64 `json:"lookups"`
	MaxScanBytes     int64 `json:"maxScanBytes"`
	TotalScanBytes   int64 `json:"totalScanBytes"`
	MaxHops          int64 `json:"maxHops"`
	TotalHops        int64 `json:"totalHops"`
	MaxHeaderReads   int64 `json:"maxHeaderReads"`
	TotalHeaderReads int64 `json:"totalHeaderReads"`
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
	s.TotalHeaderReads += o.TotalHeaderReads
	s.MaxHeaderReads = max(s.MaxHeaderReads, o.MaxHeaderReads)
}

// MeanHeaderReads is TotalHeaderReads / Lookups (0 with no lookups).
func (s ScanStats) MeanHeaderReads() float64 {
	if s.Lookups == 0 {
		return 0
	}
	return float64(s.TotalHeaderReads) / float64(s.Lookups)
}

// WithoutHeaderReads is st with the header-read figures cleared: what the runs of Runs and
// OnRun add up to (runs carry hops, not Kafka's header reads).
func (st ScanStats) WithoutHeaderReads() ScanStats {
	st.MaxHeaderReads, st.TotalHeaderReads = 0, 0
	return st
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

// scanWalker computes ScanStats in one pass over a segment's batches in offset order (docs/contract.md
// §5). Every offset-index entry the model can produce names an offset inside some batch
// (its last offset under the per-batch rule, the per-append rule and recover() from 2.0; an
// append's first offset up to 1.1) and points at a batch start at or before it. So within
// batch j the offsets below the named one share the start of the latest earlier entry, and
// the rest use the new entry: two runs per batch at most.
//
// It also keeps what Kafka's header reads need (docs/kafka.md §7.1, §13.6): from 4.1 a lookup of
// an offset other than its batch's base reads one header past its hit, unless the hit is the
// segment's last batch, which is known only when the segment stops growing. So the last
// batch's figures are kept apart.
type scanWalker struct {
	startPos   int64 // position of the latest entry so far (0 before the first)
	startBatch int   // ordinal of the batch at startPos

	batches     int   // batches walked
	lastLookups int64 // offsets of the last batch walked
	lastMaxHops int64 // the largest hops of a lookup hitting the last batch
	// lastAsEarlier is the largest header reads of the last batch's lookups once another
	// batch follows it; earlierMaxReads the largest of every earlier batch.
	lastAsEarlier   int64
	earlierMaxReads int64
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

// step accounts for batch j. entryBatch is the ordinal of the batch that the entry naming
// entryOffset (an offset of batch j) points at, or -1 when no entry names an offset of j.
//
// Ordinals count from the segment's first batch (also when the segment keeps only its last
// append's batches, LogOptions.ForgetBatches); entryPos is the position of batch entryBatch.
func (w *scanWalker) step(stats runSink, b *BatchInfo, j, entryBatch int, entryPos, entryOffset int64) {
	w.earlierMaxReads = max(w.earlierMaxReads, w.lastAsEarlier)
	w.batches++
	w.lastLookups = b.LastOffset - b.BaseOffset + 1
	scan := b.Position - w.startPos
	hops := int64(j - w.startBatch + 1)
	if entryBatch < 0 {
		stats.Add(w.lastLookups, scan, hops)
		w.lastMaxHops = hops
		w.lastAsEarlier = hops // the base offset's lookup
		if w.lastLookups > 1 {
			w.lastAsEarlier = hops + 1
		}
		return
	}
	before := entryOffset - b.BaseOffset
	stats.Add(before, scan, hops)
	w.startPos = entryPos
	w.startBatch = entryBatch
	after := int64(j - entryBatch + 1)
	stats.Add(b.LastOffset-entryOffset+1, b.Position-w.startPos, after)
	// The base offset is in the first run (or, when the entry names it, the second); every
	// other offset reads one more header once the batch is not the last.
	w.lastMaxHops = after
	w.lastAsEarlier = after + 1
	if before > 0 {
		w.lastMaxHops = max(hops, after)
		w.lastAsEarlier = max(w.lastAsEarlier, hops)
		if before > 1 {
			w.lastAsEarlier = max(w.lastAsEarlier, hops+1)
		}
	}
	if w.lastLookups == 1 {
		w.lastAsEarlier = after
	}
}

// withHeaderReads fills st's header-read figures: the hops themselves, or (pastHit, 4.1+)
// one more for every lookup of an offset other than its batch's base in every batch but the
// segment's last.
func (w *scanWalker) withHeaderReads(st ScanStats, pastHit bool) ScanStats {
	if !pastHit || w.batches == 0 {
		st.MaxHeaderReads, st.TotalHeaderReads = st.MaxHops, st.TotalHops
		return st
	}
	st.TotalHeaderReads = st.TotalHops + st.Lookups - w.lastLookups - int64(w.batches-1)
	st.MaxHeaderReads = max(w.lastMaxHops, w.earlierMaxReads)
	return st
}
