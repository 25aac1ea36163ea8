package reports

import (
	"fmt"

	"kidx/model"
)

// recommend derives plain-word advice from a point's figures (rules in docs/reports.md). Every
// sentence quotes the figure it comes from; nothing is said that the figures do not show.
func recommend(p *Point, rep *WhatIf) []string {
	var out []string
	cfg := p.Config
	I, S := cfg.IndexIntervalBytes, cfg.SegmentBytes
	if p.Batches == 0 {
		return []string{"The workload produced no batches: nothing to tune."}
	}
	switch p.Regime {
	case Plateau:
		walk := fmt.Sprintf("a lookup walks at most the batch before its own: here up to %s", Bytes(p.Scan.MaxScanBytes))
		if p.Scan.MaxScanBytes == 0 {
			walk = "every lookup starts at its own batch (no walk at all)"
		}
		out = append(out, fmt.Sprintf("On the plateau: %d of %d batches carry an entry, as many as index.interval.bytes=0 gives "+
			"(every batch after each segment's first). Lowering index.interval.bytes (now %d) changes nothing; batching decides "+
			"the density, and %s.", p.OffsetIndexEntries, p.Batches, I, walk))
		if hi, ok := widestPlateau(p, rep); ok && hi > I {
			out = append(out, fmt.Sprintf("In this sweep the index stays identical up to index.interval.bytes=%d: raising it that far costs nothing.", hi))
		}
	case Thinning:
		skipped := p.DensestEntries - p.OffsetIndexEntries
		out = append(out, fmt.Sprintf("Thinning: %d of the %d entries the batching allows are skipped (%.0f%%); lookups walk up to %s "+
			"(p99 %s, mean %.1f header hops).", skipped, p.DensestEntries, 100*float64(skipped)/float64(max(p.DensestEntries, 1)),
			Bytes(p.Scan.MaxScanBytes), Bytes(p.ScanQ[P99]), p.Scan.MeanHops()))
		if lo, ok := nearestPlateau(p, rep); ok {
			out = append(out, fmt.Sprintf("Lowering index.interval.bytes to %d reaches the plateau in this sweep.", lo))
		}
	case Cliff:
		if p.OffsetIndexEntries == 0 {
			out = append(out, fmt.Sprintf("Cliff: the offset index is empty. Every lookup walks batch headers from byte 0: up to %s "+
				"and %d hops, %.1f on average.", Bytes(p.Scan.MaxScanBytes), p.Scan.MaxHops, p.Scan.MeanHops()))
		} else {
			out = append(out, fmt.Sprintf("Cliff: %d entries in %d segments; no segment can hold more than one. Lookups walk up to %s (%d hops).",
				p.OffsetIndexEntries, p.Segments, Bytes(p.Scan.MaxScanBytes), p.Scan.MaxHops))
		}
	}
	switch {
	case I >= S:
		out = append(out, fmt.Sprintf("index.interval.bytes=%d is at or above segment.bytes=%d: no segment can ever get an entry.", I, S))
	case 2*I >= S && p.Regime != Cliff:
		out = append(out, fmt.Sprintf("index.interval.bytes=%d is within 2x of segment.bytes=%d: at most one entry fits a segment; "+
			"the index is about to go empty.", I, S))
	case 2*I >= S:
		out = append(out, fmt.Sprintf("index.interval.bytes=%d is within 2x of segment.bytes=%d: keep the interval well below the segment size.", I, S))
	}
	if p.BoundSlack < 0 && p.Rule == model.PerAppend {
		out = append(out, fmt.Sprintf("The max scan %s exceeds I + the largest append (%s): under the per-append rule an offset "+
			"inside a multi-batch append starts from the previous append's entry, so the walk can span I + the previous append + "+
			"this append. Multi-batch appends (followers, the cleaner) pay it; Kafka 3.9.1+/4.0.1+/4.1+ index per batch.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit)))
	} else if p.BoundSlack < 0 && p.Restarts > 0 {
		out = append(out, fmt.Sprintf("The max scan %s exceeds the ScanBound %s: the workload's %d restarts start the byte counter again, "+
			"and the bound holds per process lifetime (docs/findings.md): a lookup after a restart walks from the last entry before it.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit), p.Restarts))
	} else if p.BoundSlack < 0 {
		out = append(out, fmt.Sprintf("The max scan %s exceeds the ScanBound %s: this contradicts Kafka's rule; report it.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit)))
	}
	if p.MaxEntriesPerSegment > 0 {
		if p.Warm.WholeSegment {
			out = append(out, fmt.Sprintf("The whole index of the fullest segment (%d entries) fits the warm section: every lookup in the "+
				"active segment stays on warm index pages (%d pages for a tail lookup).", p.MaxEntriesPerSegment, p.Phase1.TailPages))
		} else {
			out = append(out, fmt.Sprintf("The warm section (last %d entries) covers only %s of a %d-entry segment: consumers lagging further "+
				"behind the tail search cold index pages (up to %d pages, against %d for a tail lookup).",
				p.Warm.Entries, Bytes(p.Warm.CoveredBytes), p.MaxEntriesPerSegment, p.Phase1.ColdPages, p.Phase1.TailPages))
		}
	}
	m := p.Maps
	switch {
	case m.Headroom < 0:
		out = append(out, fmt.Sprintf("Memory maps: %d partitions x %d segments x 2 = %d maps exceeds vm.max_map_count=%d by %d: "+
			"the broker fails with \"Map failed\". At most %d partitions fit; raise vm.max_map_count, use fewer, larger segments, or fewer partitions.",
			m.Partitions, m.SegmentsPerPart, m.Maps, m.MaxMapCount, -m.Headroom, m.MaxPartitions))
	case m.Headroom*10 < m.MaxMapCount:
		out = append(out, fmt.Sprintf("Memory maps: %d of vm.max_map_count=%d used (%d partitions x %d segments x 2); less than 10%% headroom.",
			m.Maps, m.MaxMapCount, m.Partitions, m.SegmentsPerPart))
	}
	if p.IndexFullRolls > 0 {
		slots := cfg.SegmentIndexBytes / model.OffsetIndexEntrySize
		out = append(out, fmt.Sprintf("%d segments rolled because an index was full (segment.index.bytes=%d holds %d offset entries): "+
			"segments end before segment.bytes; raise segment.index.bytes.", p.IndexFullRolls, cfg.SegmentIndexBytes, slots))
	}
	if p.OverflowHazard {
		out = append(out, fmt.Sprintf("Index overflow hazard: %d appends overflowed an index after shouldRoll's single check "+
			"(per-batch rule, several batches per append). Kafka throws there; raise segment.index.bytes.", len(p.OverflowEvents)))
	}
	if p.Rejected > 0 {
		out = append(out, fmt.Sprintf("%d appends are larger than segment.bytes=%d and are rejected (RecordBatchTooLargeException).", p.Rejected, S))
	}
	for _, w := range p.VersionWarnings {
		out = append(out, "Kafka "+rep.KafkaVersion+": "+w)
	}
	return out
}

// sameExceptInterval reports whether q differs from p at most in index.interval.bytes.
func sameExceptInterval(p, q *Point) bool {
	a, b := p.Config, q.Config
	a.IndexIntervalBytes, b.IndexIntervalBytes = 0, 0
	return a == b && p.Rule == q.Rule && p.Era.ID == q.Era.ID && settingsString(p.Producer) == settingsString(q.Producer)
}

// widestPlateau is the largest swept interval that still gives the plateau, with everything
// else equal.
func widestPlateau(p *Point, rep *WhatIf) (int64, bool) {
	var hi int64
	ok := false
	for _, q := range rep.Points {
		if q.Regime == Plateau && sameExceptInterval(p, q) && q.Config.IndexIntervalBytes > hi {
			hi, ok = q.Config.IndexIntervalBytes, true
		}
	}
	return hi, ok
}

// nearestPlateau is the largest swept interval below p's that gives the plateau.
func nearestPlateau(p *Point, rep *WhatIf) (int64, bool) {
	var best int64 = -1
	for _, q := range rep.Points {
		if q.Regime == Plateau && sameExceptInterval(p, q) && q.Config.IndexIntervalBytes < p.Config.IndexIntervalBytes && q.Config.IndexIntervalBytes > best {
			best = q.Config.IndexIntervalBytes
		}
	}
	return best, best >= 0
}

// Bytes renders a byte count for people: exact below 10 KiB, else KiB/MiB/GiB with one decimal.
func Bytes(n int64) string {
	const k = 1024
	switch {
	case n < 10*k && n > -10*k:
		return fmt.Sprintf("%d B", n)
	case n < k*k*10:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k*10:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	default:
		return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
	}
}
