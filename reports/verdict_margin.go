package reports

import (
	"fmt"
	"strconv"
	"strings"
)

// marginPercent is the share of the configuration's own figure a change must save before the
// verdict names it (docs/reports.md, "The verdict"). Besides it, the saving must be at least
// one unit of the figure (figure.unit): a walk that moves by less than a batch only moved
// where one batch boundary fell, and p99 moving by 12 B out of 64 KiB is nothing an operator
// would restart a broker for (issue 22, item 8).
const marginPercent = 10

// figure is one number an operator watches, at the configuration and at another point.
type figure struct {
	what     string  // "the longest walk"
	name     string  // the point's JSON key that holds it: "scan.maxScanBytes"
	units    string  // what it counts, for machines: "bytes"
	from, to float64 // the configuration's value, the other point's
	unit     float64 // the least saving that counts, besides marginPercent
	unitName string  // the unit in the verdict's words: "one mean batch of 15.8 KiB"
	show     func(float64) string
	// watched: a saving here is a reason to change (memory maps only when they are short).
	watched bool
	walk    bool // a scan figure: a rise makes lookups walk further
	// always: said even when it does not move (the two walks; counts and hops go unsaid then).
	always bool
}

// falls says the other point saves the margin on f; rises says it costs the margin.
func (f figure) falls() bool { return moved(f.from-f.to, f.from, f.unit) }
func (f figure) rises() bool { return moved(f.to-f.from, f.from, f.unit) }

func moved(by, of, unit float64) bool { return by >= unit && by*100 >= marginPercent*of }

// meanBatchBytes is the workload's mean batch (log bytes / batches): the unit of a walk.
func meanBatchBytes(p *Point) int64 {
	if p.Batches == 0 {
		return 0
	}
	return p.LogBytes / p.Batches
}

// figuresOf compares q with the configuration p on every figure the verdict weighs.
func figuresOf(p, q *Point) []figure {
	batch := meanBatchBytes(p)
	bytes := func(v float64) string { return Bytes(int64(v)) }
	count := func(v float64) string { return strconv.FormatInt(int64(v), 10) }
	hops := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	batchName := "one mean batch of " + Bytes(batch)
	// Maps only matter against vm.max_map_count: below 10 % headroom (the notes' threshold).
	mapsShort := p.Maps.MaxMapCount > 0 && p.Maps.Headroom*10 < p.Maps.MaxMapCount
	return []figure{
		{what: "the longest walk", name: "scan.maxScanBytes", units: "bytes", from: float64(p.Scan.MaxScanBytes), to: float64(q.Scan.MaxScanBytes),
			unit: float64(batch), unitName: batchName, show: bytes, watched: true, walk: true, always: true},
		{what: "the p99 walk", name: "scan.p99ScanBytes", units: "bytes", from: float64(p.ScanQ[P99]), to: float64(q.ScanQ[P99]),
			unit: float64(batch), unitName: batchName, show: bytes, watched: true, walk: true, always: true},
		{what: "the mean hops", name: "scan.meanHops", units: "hops", from: p.Scan.MeanHops(), to: q.Scan.MeanHops(),
			unit: 1, unitName: "one hop", show: hops, watched: true, walk: true},
		{what: "index-full rolls", name: "indexFullRolls", units: "segments", from: float64(p.IndexFullRolls), to: float64(q.IndexFullRolls),
			unit: 1, unitName: "one roll", show: count, watched: true},
		{what: "memory maps", name: "maps.maps", units: "maps", from: float64(p.Maps.Maps), to: float64(q.Maps.Maps),
			unit: 2, unitName: "one segment's two maps", show: count, watched: mapsShort},
	}
}

// improves says q is a change worth naming against p: a watched figure falls by the margin
// and no walk grows by it.
func improves(p, q *Point) bool {
	saves := false
	for _, f := range figuresOf(p, q) {
		if f.walk && f.rises() {
			return false
		}
		saves = saves || (f.watched && f.falls())
	}
	return saves
}

// savesButLengthens says q saves the margin on a watched figure and yet lengthens a walk by
// as much (fewer bytes for more hops): what improves refuses.
func savesButLengthens(p, q *Point) bool {
	saves := false
	for _, f := range figuresOf(p, q) {
		saves = saves || (f.watched && f.falls())
	}
	return saves && walksMoreThan(q, p)
}

// walksMoreThan says q walks measurably further than p: some walk figure rises by the margin.
func walksMoreThan(q, p *Point) bool {
	for _, f := range figuresOf(p, q) {
		if f.walk && f.rises() {
			return true
		}
	}
	return false
}

// effectWords says what q does to p's figures, every word backed by a figure: the savings
// by the margin ("cuts the longest walk from 31.9 KiB to 16.0 KiB") and the walks that did
// not move by it (held at their value, or moved "by only 12 B"); costs, apart, are the
// figures that grew by the margin ("raises index-full rolls from 0 to 308"). It never says a
// walk is cut that moved by less than the margin.
func effectWords(p, q *Point) (effects, costs string) {
	var cuts, holds, rises, clauses []string
	for _, f := range figuresOf(p, q) {
		switch {
		case f.falls():
			cuts = append(cuts, fmt.Sprintf("%s from %s to %s", f.what, f.show(f.from), f.show(f.to)))
		case f.rises():
			rises = append(rises, fmt.Sprintf("%s from %s to %s", f.what, f.show(f.from), f.show(f.to)))
		case !f.always:
		case f.from == f.to:
			holds = append(holds, fmt.Sprintf("%s at %s", f.what, f.show(f.from)))
		case f.to < f.from:
			clauses = append(clauses, fmt.Sprintf("moves %s by only %s, to %s", f.what, f.show(f.from-f.to), f.show(f.to)))
		default:
			clauses = append(clauses, fmt.Sprintf("lengthens %s by %s, to %s", f.what, f.show(f.to-f.from), f.show(f.to)))
		}
	}
	if len(holds) > 0 {
		clauses = append([]string{"leaves " + joinAnd(holds)}, clauses...)
	}
	if len(cuts) > 0 {
		clauses = append([]string{"cuts " + joinAnd(cuts)}, clauses...)
	}
	if len(rises) > 0 {
		costs = "raises " + joinAnd(rises)
	}
	return joinClauses(clauses), costs
}

// marginWords states the margin in the units of the figures q saves on (or, when it saves
// on none, of the walks): "at least 10 % and at least one mean batch of 15.8 KiB".
func marginWords(p, q *Point) string {
	var units []string
	seen := map[string]bool{}
	for _, f := range figuresOf(p, q) {
		if f.falls() && !seen[f.unitName] {
			seen[f.unitName] = true
			units = append(units, f.unitName)
		}
	}
	if len(units) == 0 {
		units = []string{"one mean batch of " + Bytes(meanBatchBytes(p))}
	}
	return fmt.Sprintf("at least %d %% and at least %s", marginPercent, strings.Join(units, " or "))
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// joinClauses joins verb clauses: "a and b", or "a, b, and c"; a comma also sets two clauses
// apart when one holds its own "and" ("cuts x and y, and leaves z").
func joinClauses(clauses []string) string {
	if len(clauses) == 2 && !strings.Contains(clauses[0], " and ") && !strings.Contains(clauses[1], " and ") {
		return clauses[0] + " and " + clauses[1]
	}
	if len(clauses) <= 1 {
		return strings.Join(clauses, "")
	}
	return strings.Join(clauses[:len(clauses)-1], ", ") + ", and " + clauses[len(clauses)-1]
}

// namedCandidate is the point of the configuration's era the verdict may name as a change:
// among those that improve on it by the margin, the ones that walk no measurably further than
// the least walking of them, and of those the cheapest (fewest index-full rolls, then memory
// maps, then .index bytes). nil when no point clears the margin.
func (r *WhatIf) namedCandidate(base *Point) *Point {
	var cands []*Point
	for _, q := range r.Points {
		if q != base && q.Batches > 0 && q.Era.ID == base.Era.ID && improves(base, q) {
			cands = append(cands, q)
		}
	}
	return cheapestNear(leastWalkingOf(cands), cands)
}

// leastWalkingOf is the point with the lowest p99 walk, then longest walk, then .index.
func leastWalkingOf(points []*Point) *Point {
	var best *Point
	for _, p := range points {
		if best == nil || p.ScanQ[P99] < best.ScanQ[P99] ||
			(p.ScanQ[P99] == best.ScanQ[P99] && (p.Scan.MaxScanBytes < best.Scan.MaxScanBytes ||
				(p.Scan.MaxScanBytes == best.Scan.MaxScanBytes && p.IndexBytes < best.IndexBytes))) {
			best = p
		}
	}
	return best
}

// cheapestNear is, of the points that walk no measurably further than least, the one with
// the fewest index-full rolls, then memory maps, then .index bytes (least itself on a tie):
// a walk shorter by less than the margin does not pay for segments rolled early.
func cheapestNear(least *Point, points []*Point) *Point {
	pick := least
	for _, q := range points {
		if pick == nil || walksMoreThan(q, least) {
			continue
		}
		if q.IndexFullRolls < pick.IndexFullRolls ||
			(q.IndexFullRolls == pick.IndexFullRolls && (q.Maps.Maps < pick.Maps.Maps ||
				(q.Maps.Maps == pick.Maps.Maps && q.IndexBytes < pick.IndexBytes))) {
			pick = q
		}
	}
	return pick
}
