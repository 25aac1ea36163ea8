package reports

import (
	"fmt"
	"math"
	"strings"
)

// Verdict is the paragraph a report opens with (docs/reports.md, "The verdict"): where the
// operator's own configuration sits, and the one change worth making, or that none is. It says
// only what the sweep's figures show, and names the figures.
func (r *WhatIf) Verdict() string {
	if len(r.Points) == 0 {
		return ""
	}
	base := r.basePoint()
	if base == nil {
		return "The sweep does not include the configuration it starts from, so this report compares its points only (see the table)."
	}
	if base.Batches == 0 {
		return "The workload produced no batches: there is nothing to tune."
	}
	I := base.Config.IndexIntervalBytes
	var b strings.Builder
	fmt.Fprintf(&b, "This configuration, index.interval.bytes=%d, %s: %s in %s, lookups walk up to %s (p99 %s).",
		I, regimeWords(base), plural(base.OffsetIndexEntries, "entry"), plural(int64(base.Segments), "segment"),
		Bytes(base.Scan.MaxScanBytes), Bytes(base.ScanQ[P99]))
	if pc := r.PieceOf(I); pc != nil {
		fmt.Fprintf(&b, " The same index comes from any value %s.", rangeWords(pc.Min, pc.Max))
	}
	switch base.Regime {
	case Plateau:
		b.WriteString(" No change is worth making: a lower interval cannot add an entry, the batching decides the density.")
		if up := r.nextPiece(I); up != nil {
			fmt.Fprintf(&b, " Above %d the index thins (%s, lookups up to %s).", up.Min-1,
				plural(up.OffsetIndexEntries, "entry"), Bytes(up.Scan.MaxScanBytes))
		}
	case Thinning, Cliff:
		best := r.bestLowerPlateau(base)
		if best == nil {
			b.WriteString(" No point of this sweep indexes more densely; lowering index.interval.bytes below the batch size would.")
			break
		}
		extra := best.IndexBytes - base.IndexBytes
		fmt.Fprintf(&b, " The one change worth making: index.interval.bytes=%d%s indexes %s "+
			"(%s) and cuts the longest walk to %s (p99 %s), for %s more of .index.",
			best.Config.IndexIntervalBytes, r.plateauRange(best), densestShort(best), plural(best.OffsetIndexEntries, "entry"),
			Bytes(best.Scan.MaxScanBytes), Bytes(best.ScanQ[P99]), Bytes(extra))
	}
	return b.String()
}

// basePoint is the point of the first era at the sweep's starting configuration.
func (r *WhatIf) basePoint() *Point {
	for _, p := range r.Points {
		if p.Config == r.Base && len(p.Producer) == 0 && (len(r.Eras) == 0 || p.Era.ID == r.Eras[0].ID) {
			return p
		}
	}
	return nil
}

// bestLowerPlateau is the plateau point below p's interval (same other settings, same era)
// to recommend: Kafka's default 4096 when it is one, else the largest such interval, the
// cheapest that indexes every batch. A piece's top is not recommended itself: it is the
// batch size minus one, and a batch a byte smaller would leave the plateau.
func (r *WhatIf) bestLowerPlateau(p *Point) *Point {
	var best *Point
	for _, q := range r.Points {
		if q.Regime != Plateau || q.Era.ID != p.Era.ID || !sameExceptInterval(p, q) || q.Config.IndexIntervalBytes >= p.Config.IndexIntervalBytes {
			continue
		}
		if q.Config.IndexIntervalBytes == defaultIndexInterval {
			return q
		}
		if best == nil || q.Config.IndexIntervalBytes > best.Config.IndexIntervalBytes {
			best = q
		}
	}
	return best
}

// nextPiece is the piece just above the one holding v.
func (r *WhatIf) nextPiece(v int64) *IntervalPiece {
	for i := range r.Pieces {
		if r.Pieces[i].Min <= v && v <= r.Pieces[i].Max && i+1 < len(r.Pieces) {
			return &r.Pieces[i+1]
		}
	}
	return nil
}

// plateauRange says which values give the recommended point's index, where the exact sweep
// knows it: " (Kafka's default; any value in [0, 16349] gives the same index)".
func (r *WhatIf) plateauRange(p *Point) string {
	var what []string
	if p.Config.IndexIntervalBytes == defaultIndexInterval {
		what = append(what, "Kafka's default")
	}
	if pc := r.PieceOf(p.Config.IndexIntervalBytes); pc != nil {
		what = append(what, fmt.Sprintf("any value %s gives the same index", rangeWords(pc.Min, pc.Max)))
	}
	if len(what) == 0 {
		return ""
	}
	return " (" + strings.Join(what, "; ") + ")"
}

func regimeWords(p *Point) string {
	switch p.Regime {
	case Plateau:
		return "sits on the plateau (" + densestShort(p) + " carries an entry)"
	case Thinning:
		skipped := p.DensestEntries - p.OffsetIndexEntries
		return fmt.Sprintf("thins the index (%d of the %d entries the batching allows are skipped)", skipped, p.DensestEntries)
	case Cliff:
		return "leaves the index empty (every lookup walks from its segment's start)"
	}
	return "has no batches"
}

func rangeWords(lo, hi int64) string {
	if hi >= math.MaxInt32 {
		return fmt.Sprintf("from %d up", lo)
	}
	return fmt.Sprintf("in [%d, %d]", lo, hi)
}
