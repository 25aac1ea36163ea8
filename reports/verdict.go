package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kidx/model"
	"kidx/sim"
)

// Verdict is the paragraph a report opens with (docs/reports.md, "The verdict"): where the
// operator's own configuration sits, and the one change worth making, or that none is. It says
// only what the sweep's figures show, and names the figures. A change is named only when a
// figure an operator watches moves by the margin it states (verdict_margin.go).
func (r *WhatIf) Verdict() string {
	if len(r.Points) == 0 {
		return ""
	}
	base := r.basePoint()
	if base == nil {
		return r.sweepOnlyVerdict()
	}
	if base.Batches == 0 {
		return "The workload produced no batches: there is nothing to tune."
	}
	var b strings.Builder
	// An over-limit map count stops the broker ("Map failed"): it comes before any tuning.
	if m := base.Maps; m.MaxMapCount > 0 && m.Headroom < 0 {
		fmt.Fprintf(&b, "First: at %s this broker needs %d memory maps, above vm.max_map_count=%d, and fails with \"Map failed\" "+
			"(at most %s fit); raise vm.max_map_count or keep fewer segments. ",
			plural(int64(m.Partitions), "partition"), m.Maps, m.MaxMapCount, plural(m.MaxPartitions, "partition"))
	}
	fmt.Fprintf(&b, "This configuration, %s, %s: %s in %s, lookups walk up to %s (p99 %s).",
		r.baseLabel(base), regimeWords(base), plural(base.OffsetIndexEntries, "entry"), plural(int64(base.Segments), "segment"),
		Bytes(base.Scan.MaxScanBytes), Bytes(base.ScanQ[P99]))
	if pc := r.PieceOf(base.Config.IndexIntervalBytes); pc != nil && base.Regime != Empty {
		fmt.Fprintf(&b, " The same index comes from any index.interval.bytes %s.", rangeWords(pc.Min, pc.Max))
	}
	cand := r.namedCandidate(base)
	switch base.Regime {
	case Plateau:
		r.plateauVerdict(&b, base, cand)
	case Thinning, Cliff:
		r.denserVerdict(&b, base, cand)
	}
	b.WriteString(r.rollsWords(base))
	return b.String()
}

// plateauVerdict: no interval indexes more densely; another swept setting may still be worth
// changing (cand, by the margin).
func (r *WhatIf) plateauVerdict(b *strings.Builder, base, cand *Point) {
	I := base.Config.IndexIntervalBytes
	switch {
	case base.DensestEntries == 0:
		fmt.Fprintf(b, " No change of index.interval.bytes is worth making: no segment holds a second %s, so no interval can index one.", unitOfIndexing(base))
	case cand == nil:
		b.WriteString(" No change is worth making: a lower interval cannot add an entry, the batching decides the density.")
	default:
		b.WriteString(" No lower interval is worth setting: it cannot add an entry, the batching decides the density.")
	}
	if up := r.nextPiece(I); up != nil && base.DensestEntries > 0 {
		if up.OffsetIndexEntries == 0 {
			fmt.Fprintf(b, " From %d up the index is empty (lookups up to %s).", up.Min, Bytes(up.Scan.MaxScanBytes))
		} else {
			fmt.Fprintf(b, " Above %d the index thins (%s, lookups up to %s).", up.Min-1,
				plural(up.OffsetIndexEntries, "entry"), Bytes(up.Scan.MaxScanBytes))
		}
	}
	if cand != nil {
		r.namedChange(b, base, cand)
	}
}

// denserVerdict: a thinning or empty index. The lower interval on the plateau is named when
// it saves the margin; else another point that does; else why none is named.
func (r *WhatIf) denserVerdict(b *strings.Builder, base, cand *Point) {
	best := r.bestLowerPlateau(base)
	switch {
	case best != nil && improves(base, best):
		r.namedChange(b, base, best)
		return
	case best != nil:
		// More entries that shorten no walk by the margin are not worth their bytes.
		lead := " No change is worth making: the densest"
		if cand != nil {
			lead = " The densest"
		}
		effects, _ := effectWords(base, best)
		fmt.Fprintf(b, "%s index this sweep gives (index.interval.bytes=%d, %s) %s, short of the margin a change needs (%s).",
			lead, best.Config.IndexIntervalBytes, plural(best.OffsetIndexEntries, "entry"), effects, marginWords(base, best))
		if cand == nil {
			return
		}
	}
	if cand != nil {
		r.namedChange(b, base, cand)
		return
	}
	other := r.leastWalking()
	switch {
	case other != nil && other != base && savesButLengthens(base, other):
		// Fewer bytes for more headers (smaller batches): a trade, not a change worth naming.
		effects, costs := effectWords(base, other)
		fmt.Fprintf(b, " No change is worth making: the least walking point, %s, %s but %s (a change is named only when a "+
			"figure falls by %s and no walk grows by as much).", r.pointLabel(other), effects, costs, marginWords(base, other))
	case other != nil && other != base && (other.ScanQ[P99] < base.ScanQ[P99] || other.Scan.MaxScanBytes < base.Scan.MaxScanBytes):
		effects, costs := effectWords(base, other)
		fmt.Fprintf(b, " No point of this sweep walks measurably less: the least walking point, %s, %s, short of the margin a change needs (%s)",
			r.pointLabel(other), effects, marginWords(base, other))
		if costs != "" {
			fmt.Fprintf(b, "; it %s", costs)
		}
		b.WriteString(".")
	case r.Pieces == nil && !r.sweepsProducer():
		b.WriteString(" No point of this sweep indexes more densely; `--sweep index.interval.bytes=exact` finds every value where the index changes.")
	default:
		b.WriteString(" No point of this sweep indexes more densely.")
	}
}

// namedChange names q as the one change worth making, with what it saves (by the margin,
// which it states), what it leaves and what it costs.
func (r *WhatIf) namedChange(b *strings.Builder, base, q *Point) {
	what := r.pointLabel(q)
	if q.Regime == Plateau && sameExceptInterval(base, q) {
		what = fmt.Sprintf("index.interval.bytes=%d%s indexes %s (%s) and", q.Config.IndexIntervalBytes, r.plateauRange(q),
			densestShort(q), plural(q.OffsetIndexEntries, "entry"))
	} else if q.OffsetIndexEntries != base.OffsetIndexEntries {
		what += fmt.Sprintf(" (%s)", plural(q.OffsetIndexEntries, "entry"))
	}
	effects, costs := effectWords(base, q)
	if costs != "" {
		effects = joinClauses([]string{effects, costs})
	}
	if extra := q.IndexBytes - base.IndexBytes; extra > 0 {
		effects += fmt.Sprintf(", for %s more of .index", Bytes(extra))
	}
	fmt.Fprintf(b, " The one change worth making: %s %s (a change is named only when a figure falls by %s).",
		what, effects, marginWords(base, q))
}

// unitOfIndexing is what the rule indexes: a batch, or (per-append) an append.
func unitOfIndexing(p *Point) string {
	if p.Rule == model.PerAppend {
		return "append"
	}
	return "batch"
}

// rollsWords says, when points of the sweep roll segments because an index filled, how many
// at which points (issue 22: a segment.index.bytes sweep must not be judged on walks alone).
// One list per era, said once when the eras agree; "" when no point rolls one.
func (r *WhatIf) rollsWords(base *Point) string {
	var lists []string
	var eraLists []string
	for _, era := range r.eraIDs() {
		var pts []*Point
		for _, p := range r.Points {
			if p.Batches > 0 && (era == "" || p.Era.ID == era) {
				pts = append(pts, p)
			}
		}
		l := r.rollsList(pts, base)
		lists = append(lists, l)
		if l != "" && len(pts) > 0 {
			eraLists = append(eraLists, r.eraName(pts[0])+": "+l)
		}
	}
	switch {
	case len(eraLists) == 0:
		return ""
	case allSame(lists):
		return " Index-full rolls (segments closed before segment.bytes because an index filled): " + lists[0] + "."
	}
	return " Index-full rolls (segments closed before segment.bytes because an index filled): " + strings.Join(eraLists, "; ") + "."
}

// rollsList lists the rolls of one era's points: "308 at segment.index.bytes=4096; none at
// segment.index.bytes=10485760 (this configuration)", at most rollsListed of them by name.
func (r *WhatIf) rollsList(pts []*Point, base *Point) string {
	const rollsListed = 5
	name := func(p *Point) string {
		// The configuration's settings in every era, so that the eras' lists compare equal.
		if base != nil && p.Config == base.Config && settingsString(p.Producer) == settingsString(base.Producer) {
			return r.pointLabel(p) + " (this configuration)"
		}
		return r.pointLabel(p)
	}
	var rolling []*Point
	var none []string
	for _, p := range pts {
		if p.IndexFullRolls == 0 {
			none = append(none, name(p))
		} else {
			rolling = append(rolling, p)
		}
	}
	switch {
	case len(rolling) == 0:
		return ""
	case len(pts) == 1:
		return fmt.Sprintf("%d at %s", pts[0].IndexFullRolls, name(pts[0]))
	case len(none) == 0 && allRollsEqual(rolling):
		return fmt.Sprintf("%d at every point", rolling[0].IndexFullRolls)
	}
	var said []string
	for i, p := range rolling {
		if i == rollsListed {
			rest := rolling[i:]
			lo, hi := rest[0].IndexFullRolls, rest[0].IndexFullRolls
			for _, q := range rest {
				lo, hi = min(lo, q.IndexFullRolls), max(hi, q.IndexFullRolls)
			}
			span := strconv.Itoa(lo)
			if hi != lo {
				span = fmt.Sprintf("%d to %d", lo, hi)
			}
			said = append(said, fmt.Sprintf("%s at %d more points", span, len(rest)))
			break
		}
		said = append(said, fmt.Sprintf("%d at %s", p.IndexFullRolls, name(p)))
	}
	out := strings.Join(said, ", ")
	switch {
	case len(none) > 0 && len(none) <= 3:
		out += "; none at " + joinAnd(none)
	case len(none) > 3:
		out += fmt.Sprintf("; none at the other %d points", len(none))
	}
	return out
}

func allRollsEqual(pts []*Point) bool {
	for _, p := range pts {
		if p.IndexFullRolls != pts[0].IndexFullRolls {
			return false
		}
	}
	return true
}

// eraIDs are the report's era IDs ("" alone when it names none: every point is one group).
func (r *WhatIf) eraIDs() []string {
	if len(r.Eras) == 0 {
		return []string{""}
	}
	ids := make([]string, len(r.Eras))
	for i, e := range r.Eras {
		ids[i] = e.ID
	}
	return ids
}

func allSame(s []string) bool {
	for _, x := range s {
		if x != s[0] {
			return false
		}
	}
	return true
}

// baseLabel names the base point by its swept values and its interval ("index.interval.bytes=4096";
// with a producer sweep "batch.size=16384, linger.ms=5, index.interval.bytes=4096"; with a
// segment.index.bytes sweep "segment.index.bytes=10485760, index.interval.bytes=4096").
func (r *WhatIf) baseLabel(p *Point) string {
	parts := []string{}
	for _, s := range p.Producer {
		parts = append(parts, fmt.Sprintf("%s=%d", s.Key, s.Value))
	}
	for _, s := range r.Sweeps {
		if !IsProducerKey(s.Key) && s.Key != "index.interval.bytes" {
			parts = append(parts, fmt.Sprintf("%s=%d", s.Key, p.SweptValue(s.Key)))
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("index.interval.bytes=%d", p.Config.IndexIntervalBytes)), ", ")
}

// sweepOnlyVerdict is the verdict of a sweep without the starting configuration (e.g.
// --sweep index.interval.bytes=1,20000 over a base of 4096): the point that walks least, or,
// when others walk as little within the margin, the cheapest of those.
func (r *WhatIf) sweepOnlyVerdict() string {
	least := r.leastWalking()
	if least == nil {
		return "The workload produced no batches: there is nothing to tune."
	}
	var firstEra []*Point
	for _, p := range r.Points {
		if p.Batches > 0 && p.Era.ID == least.Era.ID {
			firstEra = append(firstEra, p)
		}
	}
	best, how := cheapestNear(least, firstEra), "walks least"
	if best != least {
		how = fmt.Sprintf("walks as little as any within the margin (%s) and rolls or maps least", marginWords(least, least))
	}
	var start []string
	for _, s := range r.Sweeps {
		if v, err := r.Base.Get(s.Key); err == nil && s.Key != "index.interval.bytes" {
			start = append(start, fmt.Sprintf("%s=%d", s.Key, v))
		}
	}
	start = append(start, fmt.Sprintf("index.interval.bytes=%d", r.Base.IndexIntervalBytes))
	return fmt.Sprintf("The sweep does not include the configuration it starts from (%s). Of its points, %s "+
		"%s: up to %s (p99 %s), %s in %s (%s).", strings.Join(start, ", "), r.pointLabel(best), how,
		Bytes(best.Scan.MaxScanBytes), Bytes(best.ScanQ[P99]), plural(best.OffsetIndexEntries, "entry"),
		plural(int64(best.Segments), "segment"), best.Regime) + r.rollsWords(nil)
}

// leastWalking is the point of the first era with the lowest p99 walk, then the lowest
// longest walk, then the smallest .index.
func (r *WhatIf) leastWalking() *Point {
	var pts []*Point
	for _, p := range r.Points {
		if p.Batches > 0 && (len(r.Eras) == 0 || p.Era.ID == r.Eras[0].ID) {
			pts = append(pts, p)
		}
	}
	return leastWalkingOf(pts)
}

// sweepsProducer says a producer setting is swept.
func (r *WhatIf) sweepsProducer() bool {
	for _, s := range r.Sweeps {
		if IsProducerKey(s.Key) {
			return true
		}
	}
	return false
}

// pointLabel names a point by every swept value.
func (r *WhatIf) pointLabel(p *Point) string {
	var parts []string
	for _, s := range r.Sweeps {
		parts = append(parts, fmt.Sprintf("%s=%d", s.Key, p.SweptValue(s.Key)))
	}
	if len(parts) == 0 {
		return r.baseLabel(p)
	}
	return strings.Join(parts, ", ")
}

// basePoint is the point of the first era at the sweep's starting configuration. With a
// producer sweep, the producer's own settings are unknown here: the point whose producer
// settings are the producer's defaults is taken (isDefaultProducer).
func (r *WhatIf) basePoint() *Point {
	for _, p := range r.Points {
		if p.Config == r.Base && (len(p.Producer) == 0 || r.isDefaultProducer(p.Producer)) && (len(r.Eras) == 0 || p.Era.ID == r.Eras[0].ID) {
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
		if p.DensestEntries == 0 {
			// The legend's plateau: as many entries as index.interval.bytes=0 gives, here none.
			return "sits on the plateau with an empty index (" + emptyPlateauWhy(p) + ")"
		}
		return "sits on the plateau (" + densestShort(p) + " carries an entry)"
	case Thinning:
		skipped := p.DensestEntries - p.OffsetIndexEntries
		return fmt.Sprintf("thins the index (%d of the %d entries the batching allows are skipped)", skipped, p.DensestEntries)
	case Cliff:
		return "leaves the index empty (every lookup walks from its segment's start)"
	}
	return "has no batches"
}

// emptyPlateauWhy says why even index.interval.bytes=0 gives no entry: each segment holds one
// batch (per-append: one append), the first of a segment being never indexed.
func emptyPlateauWhy(p *Point) string {
	if p.Restarts > 0 {
		return "index.interval.bytes=0 gives no entry either"
	}
	return fmt.Sprintf("one %s in every segment, so no entry is possible", unitOfIndexing(p))
}

func rangeWords(lo, hi int64) string {
	if hi >= math.MaxInt32 {
		return fmt.Sprintf("from %d up", lo)
	}
	return fmt.Sprintf("in [%d, %d]", lo, hi)
}

// isDefaultProducer says a point's producer settings are the producer's defaults (batch.size
// 16384, linger.ms 5: sim.DefaultBatchSize, sim.DefaultLingerMs), the configuration a
// producer sweep starts from unless the generator spec sets them itself.
func (r *WhatIf) isDefaultProducer(s []Setting) bool {
	for _, x := range s {
		switch {
		case x.Key == "batch.size" && x.Value != sim.DefaultBatchSize,
			x.Key == "linger.ms" && x.Value != sim.DefaultLingerMs:
			return false
		}
	}
	return true
}
