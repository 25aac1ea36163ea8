package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kidx/internal/english"
	"kidx/model"
)

// Advice is one recommendation in machine-readable form (docs/reports.md, "Advice"): its
// kind, the setting it asks to change (Config) and the value it names (Value, a string as
// Kafka's configs take it), the figure the sentence quotes to justify it, and the sentence.
type Advice struct {
	Kind   AdviceKind    `json:"kind"`
	Config string        `json:"config,omitempty"`
	Value  string        `json:"value,omitempty"`
	Figure *AdviceFigure `json:"figure,omitempty"`
	Text   string        `json:"text"`
}

// AdviceKind names what an Advice says; the kinds are a closed list (docs/reports.md, and
// the enum of docs/schema/kidx.whatif.1.json and kidx.analyze.1.json).
type AdviceKind string

// The kinds of advice: whatif's points (recommend) and analyze's partitions
// (recommendPartition) share the ones that mean the same.
const (
	AdviceNoBatches           AdviceKind = "no-batches"
	AdviceEmptyPlateau        AdviceKind = "empty-plateau"
	AdvicePlateau             AdviceKind = "plateau"
	AdviceRaiseIndexInterval  AdviceKind = "raise-index-interval"
	AdviceThinning            AdviceKind = "thinning"
	AdviceLowerIndexInterval  AdviceKind = "lower-index-interval"
	AdviceEmptyIndex          AdviceKind = "empty-index"
	AdviceIntervalNotBelowSeg AdviceKind = "interval-not-below-segment"
	AdviceIntervalOverHalfSeg AdviceKind = "interval-over-half-segment"
	AdviceScanBoundPerAppend  AdviceKind = "scan-bound-per-append"
	AdviceScanBoundRestarts   AdviceKind = "scan-bound-restarts"
	AdviceScanBoundBroken     AdviceKind = "scan-bound-broken"
	AdviceWarmWholeIndex      AdviceKind = "warm-whole-index"
	AdviceWarmPartial         AdviceKind = "warm-partial"
	AdviceRaiseMaxMapCount    AdviceKind = "raise-max-map-count"
	AdviceMapHeadroomLow      AdviceKind = "map-headroom-low"
	AdviceRaiseSegmentIndex   AdviceKind = "raise-segment-index-bytes"
	AdviceFollowerOverflow    AdviceKind = "follower-overflow-exposure"
	AdviceIndexOverflowHazard AdviceKind = "index-overflow-hazard"
	AdviceRejectedAppends     AdviceKind = "rejected-appends"
	AdviceIndexCapacity       AdviceKind = "index-capacity"
	AdviceRebuiltIndex        AdviceKind = "rebuilt-index"
	AdviceEmptyIndexSmall     AdviceKind = "empty-index-small-segments"
	AdviceIndexDensity        AdviceKind = "index-density"
	AdviceRestartCost         AdviceKind = "restart-cost"
	AdviceVerifyProblems      AdviceKind = "verify-problems"
)

// AdviceKinds lists every kind, in the order docs/reports.md gives them.
var AdviceKinds = []AdviceKind{AdviceNoBatches, AdviceEmptyPlateau, AdvicePlateau, AdviceRaiseIndexInterval, AdviceThinning,
	AdviceLowerIndexInterval, AdviceEmptyIndex, AdviceIntervalNotBelowSeg, AdviceIntervalOverHalfSeg, AdviceScanBoundPerAppend,
	AdviceScanBoundRestarts, AdviceScanBoundBroken, AdviceWarmWholeIndex, AdviceWarmPartial, AdviceRaiseMaxMapCount,
	AdviceMapHeadroomLow, AdviceRaiseSegmentIndex, AdviceFollowerOverflow, AdviceIndexOverflowHazard, AdviceRejectedAppends,
	AdviceIndexCapacity, AdviceRebuiltIndex, AdviceEmptyIndexSmall, AdviceIndexDensity, AdviceRestartCost, AdviceVerifyProblems}

// AdviceFigure is one number a sentence quotes: Name is where the same number sits in the JSON
// document, as a dotted path from the object that holds the advice ("scan.maxScanBytes");
// Unit is what it counts ("bytes", "entries", "hops", ...).
type AdviceFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

func fig(name string, v int64, unit string) *AdviceFigure {
	return &AdviceFigure{Name: name, Value: float64(v), Unit: unit}
}

// setting is the config key and value of a piece of advice that names one.
func setting(key string, v int64) (string, string) { return key, strconv.FormatInt(v, 10) }

// texts are the advice's sentences (the "recommendations" strings).
func texts(as []Advice) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Text
	}
	return out
}

// recommend derives plain-word advice from a point's figures (rules in docs/reports.md). Every
// sentence quotes the figure it comes from; nothing is said that the figures do not show.
func recommend(p *Point, rep *WhatIf) []Advice {
	var out []Advice
	cfg := p.Config
	I, S := cfg.IndexIntervalBytes, cfg.SegmentBytes
	if p.Batches == 0 {
		return []Advice{{Kind: AdviceNoBatches, Figure: fig("batches", 0, "batches"), Text: "The workload produced no batches: nothing to tune."}}
	}
	// The verdict opens the report and says, for the starting point, its regime and figures,
	// the range of intervals giving the same index, and the one change worth making: its
	// notes say only the rest (issue 11, defect 5: "per-point notes only where they add to it").
	verdictSaysIt := p == rep.basePoint()
	switch {
	case verdictSaysIt:
	case p.Regime == Plateau && p.DensestEntries == 0:
		// Not a cliff: index.interval.bytes=0 gives no entry either, so no interval changes anything.
		walk := fmt.Sprintf("lookups walk up to %s", Bytes(p.Scan.MaxScanBytes))
		if p.Scan.MaxScanBytes == 0 {
			walk = "every lookup starts at its own batch (no walk at all)"
		}
		out = append(out, Advice{Kind: AdviceEmptyPlateau, Figure: fig("offsetIndexEntries", 0, "entries"),
			Text: fmt.Sprintf("On the plateau with an empty index: 0 entries over %s, as many as index.interval.bytes=0 gives (%s). "+
				"No index.interval.bytes (now %d) changes anything; %s.", plural(p.Batches, "batch"), emptyPlateauWhy(p), I, walk)})
	case p.Regime == Plateau:
		walk := fmt.Sprintf("a lookup walks at most the batch before its own: here up to %s", Bytes(p.Scan.MaxScanBytes))
		if p.Scan.MaxScanBytes == 0 {
			walk = "every lookup starts at its own batch (no walk at all)"
		}
		out = append(out, Advice{Kind: AdvicePlateau, Figure: fig("offsetIndexEntries", p.OffsetIndexEntries, "entries"),
			Text: fmt.Sprintf("On the plateau: %s over %s, as many as index.interval.bytes=0 gives (%s). "+
				"Lowering index.interval.bytes (now %d) changes nothing; batching decides the density, and %s.",
				plural(p.OffsetIndexEntries, "entry"), plural(p.Batches, "batch"), densestWords(p), I, walk)})
		// Raising the interval within the piece keeps the very same index: the figure is the
		// entry count that does not change.
		same := fig("offsetIndexEntries", p.OffsetIndexEntries, "entries")
		if pc := rep.PieceOf(I); pc != nil {
			if pc.Max > I {
				k, v := setting("index.interval.bytes", pc.Max)
				out = append(out, Advice{Kind: AdviceRaiseIndexInterval, Config: k, Value: v, Figure: same,
					Text: fmt.Sprintf("Every index.interval.bytes up to %d gives this same index (the exact sweep): raising it that far costs nothing.", pc.Max)})
			}
		} else if hi, ok := widestPlateau(p, rep); ok && hi > I {
			k, v := setting("index.interval.bytes", hi)
			out = append(out, Advice{Kind: AdviceRaiseIndexInterval, Config: k, Value: v, Figure: same,
				Text: fmt.Sprintf("In this sweep the index stays identical up to index.interval.bytes=%d: raising it that far costs nothing.", hi)})
		}
	case p.Regime == Thinning:
		skipped := p.DensestEntries - p.OffsetIndexEntries
		walk := fig("scan.maxScanBytes", p.Scan.MaxScanBytes, "bytes")
		out = append(out, Advice{Kind: AdviceThinning, Figure: walk,
			Text: fmt.Sprintf("Thinning: %d of the %s the batching allows are skipped (%.0f%%); lookups walk up to %s "+
				"(p99 %s, mean %.1f header hops).", skipped, plural(p.DensestEntries, "entry"), 100*float64(skipped)/float64(max(p.DensestEntries, 1)),
				Bytes(p.Scan.MaxScanBytes), Bytes(p.ScanQ[P99]), p.Scan.MeanHops())})
		if top, ok := plateauTopBelow(p, rep); ok {
			k, v := setting("index.interval.bytes", top)
			out = append(out, Advice{Kind: AdviceLowerIndexInterval, Config: k, Value: v, Figure: walk,
				Text: fmt.Sprintf("Any index.interval.bytes up to %d reaches the plateau (the exact sweep).", top)})
		} else if lo, ok := nearestPlateau(p, rep); ok {
			k, v := setting("index.interval.bytes", lo)
			out = append(out, Advice{Kind: AdviceLowerIndexInterval, Config: k, Value: v, Figure: walk,
				Text: fmt.Sprintf("Lowering index.interval.bytes to %d reaches the plateau in this sweep.", lo)})
		}
	case p.Regime == Cliff:
		out = append(out, Advice{Kind: AdviceEmptyIndex, Figure: fig("scan.maxScanBytes", p.Scan.MaxScanBytes, "bytes"),
			Text: fmt.Sprintf("Cliff: the offset index is empty. Every lookup walks batch headers from byte 0: up to %s "+
				"and %s, %.1f on average.", Bytes(p.Scan.MaxScanBytes), plural(p.Scan.MaxHops, "hop"), p.Scan.MeanHops())})
	}
	// Kafka adds an entry when the bytes appended since the last one (or since the segment
	// began) exceed index.interval.bytes, checked before each append (LogSegment.append), and
	// no batch starts past segment.bytes (LogSegment.shouldRoll rolls first).
	switch {
	case I >= S:
		out = append(out, Advice{Kind: AdviceIntervalNotBelowSeg, Config: "index.interval.bytes", Figure: fig("config.segment.bytes", S, "bytes"),
			Text: fmt.Sprintf("index.interval.bytes=%d is %s segment.bytes=%d: an entry needs a batch that starts more than "+
				"index.interval.bytes into its segment, and no batch starts past segment.bytes, so no segment can get an entry.",
				I, timesWords(I, S), S)})
	case 2*I >= S:
		out = append(out, Advice{Kind: AdviceIntervalOverHalfSeg, Config: "index.interval.bytes", Figure: fig("config.segment.bytes", S, "bytes"),
			Text: fmt.Sprintf("index.interval.bytes=%d is at least half of segment.bytes=%d: a segment's second entry would need a batch "+
				"starting more than 2 x %d = %d bytes in, past segment.bytes, so no segment can get more than one entry. "+
				"Keep the interval well below the segment size.", I, S, I, 2*I)})
	}
	maxScan := fig("scan.maxScanBytes", p.Scan.MaxScanBytes, "bytes")
	if p.BoundSlack < 0 && p.Rule == model.PerAppend {
		out = append(out, Advice{Kind: AdviceScanBoundPerAppend, Figure: maxScan, Text: fmt.Sprintf("The max scan %s exceeds I + the largest append (%s): under the per-append rule an offset "+
			"inside a multi-batch append starts from the previous append's entry, so the walk can span I + the previous append + "+
			"this append. Multi-batch appends (followers, the cleaner) pay it; Kafka 3.9.1+/4.0.1+/4.1+ index per batch.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit))})
	} else if p.BoundSlack < 0 && p.Restarts > 0 {
		out = append(out, Advice{Kind: AdviceScanBoundRestarts, Figure: maxScan, Text: fmt.Sprintf("The max scan %s exceeds the ScanBound %s: the workload's %s start the byte counter again, "+
			"and the bound holds per process lifetime (docs/findings.md): a lookup after a restart walks from the last entry before it.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit), plural(int64(p.Restarts), "restart"))})
	} else if p.BoundSlack < 0 {
		out = append(out, Advice{Kind: AdviceScanBoundBroken, Figure: maxScan, Text: fmt.Sprintf("The max scan %s exceeds the ScanBound %s: this contradicts Kafka's rule; report it.",
			Bytes(p.Scan.MaxScanBytes), Bytes(p.BoundLimit))})
	}
	if p.MaxEntriesPerSegment > 0 {
		if p.Warm.WholeSegment {
			out = append(out, Advice{Kind: AdviceWarmWholeIndex, Figure: fig("maxEntriesPerSegment", int64(p.MaxEntriesPerSegment), "entries"),
				Text: fmt.Sprintf("The whole index of the fullest segment (%s) fits the warm section: every lookup in the "+
					"active segment stays on warm index pages (%s for a tail lookup).", plural(int64(p.MaxEntriesPerSegment), "entry"), plural(int64(p.Phase1.TailPages), "page"))})
		} else {
			out = append(out, Advice{Kind: AdviceWarmPartial, Figure: fig("warm.coveredBytes", p.Warm.CoveredBytes, "bytes"),
				Text: fmt.Sprintf("The warm section (the last %s) covers only %s of a %d-entry segment: consumers lagging further "+
					"behind the tail search cold index pages (up to %s, against %d for a tail lookup).",
					plural(int64(p.Warm.Entries), "entry"), Bytes(p.Warm.CoveredBytes), p.MaxEntriesPerSegment, plural(int64(p.Phase1.ColdPages), "page"), p.Phase1.TailPages)})
		}
	}
	m := p.Maps
	switch {
	case m.Headroom < 0:
		// The least vm.max_map_count that holds these maps is the map count itself.
		k, v := setting("vm.max_map_count", m.Maps)
		out = append(out, Advice{Kind: AdviceRaiseMaxMapCount, Config: k, Value: v, Figure: fig("maps.maps", m.Maps, "maps"), Text: fmt.Sprintf("Memory maps: %s x %s x 2 = %s exceeds vm.max_map_count=%d by %d: "+
			"the broker fails with \"Map failed\". At most %s fit; raise vm.max_map_count, use fewer, larger segments, or fewer partitions.",
			plural(int64(m.Partitions), "partition"), plural(int64(m.SegmentsPerPart), "segment"), plural(m.Maps, "map"), m.MaxMapCount, -m.Headroom,
			plural(m.MaxPartitions, "partition"))})
	case m.Headroom*10 < m.MaxMapCount:
		out = append(out, Advice{Kind: AdviceMapHeadroomLow, Figure: fig("maps.maps", m.Maps, "maps"), Text: fmt.Sprintf("Memory maps: %d of vm.max_map_count=%d used (%s x %s x 2); less than 10%% headroom.",
			m.Maps, m.MaxMapCount, plural(int64(m.Partitions), "partition"), plural(int64(m.SegmentsPerPart), "segment"))})
	}
	if p.IndexFullRolls > 0 {
		// A leader rolls when an index is full; a follower's fetch of many batches is checked
		// once, so once its segments are out of line with the leader's it can fill an index
		// mid-append and throw (KAFKA-806's per-batch loop), and LogSegment.recover indexes per
		// batch in every release (issue 23, docs/kafka-hazards.md).
		k, v := setting("segment.index.bytes", model.SegmentIndexBytesNeverFull(cfg))
		out = append(out, Advice{Kind: AdviceRaiseSegmentIndex, Config: k, Value: v, Figure: fig("indexFullRolls", int64(p.IndexFullRolls), "segments"), Text: fmt.Sprintf("%s because an index was full (segment.index.bytes=%d holds %s and %s): "+
			"segments end before segment.bytes, and a follower of Kafka 3.9.1+, 4.0.1+ or 4.1+ can throw \"Attempt to append to a full time index\" "+
			"on a fetch once a restart puts its segments out of line with the leader's (as can a recovery of a follower's segment in any release; docs/kafka-hazards.md). "+
			"segment.index.bytes=%d keeps every index from filling before segment.bytes=%d whatever the batches.",
			pluralVerb(int64(p.IndexFullRolls), "segment rolled", "segments rolled"), cfg.SegmentIndexBytes,
			plural(model.OffsetIndexCapacity(cfg.SegmentIndexBytes), "offset entry"), plural(model.TimeIndexCapacity(cfg.SegmentIndexBytes), "time entry"),
			model.SegmentIndexBytesNeverFull(cfg), S) + alsoRemedies(remedyFor(cfg), cfg)})
	}
	if p.IndexFullRolls == 0 && p.Exposure.Exposed {
		// The run's segments did not fill an index (it ended first, or segments rolled for
		// size), but its batches can (issue 23, docs/kafka-hazards.md §4).
		out = append(out, exposureAdvice(p.Exposure, "followerOverflow.fullAtBytes", p.Exposure.Sentence(cfg, p.Era.String())))
	}
	if p.OverflowHazard {
		out = append(out, Advice{Kind: AdviceIndexOverflowHazard, Config: "segment.index.bytes", Figure: fig("overflowEvents", int64(len(p.OverflowEvents)), "appends"),
			Text: fmt.Sprintf("Index overflow hazard: %s an index after shouldRoll's single check "+
				"(per-batch rule, several batches per append). Kafka throws there; raise segment.index.bytes.", pluralVerb(int64(len(p.OverflowEvents)), "append overflowed", "appends overflowed"))})
	}
	if p.Rejected > 0 {
		out = append(out, Advice{Kind: AdviceRejectedAppends, Figure: fig("rejectedAppends", p.Rejected, "appends"),
			Text: fmt.Sprintf("%s larger than segment.bytes=%d: rejected (RecordBatchTooLargeException).", pluralVerb(int64(p.Rejected), "append is", "appends are"), S)})
	}
	// The release warnings (p.VersionWarnings) are said once, at the top of the report.
	return out
}

// exposureAdvice is the exposure's sentence as advice: the setting its remedy names first
// (segment.index.bytes, which helps whatever the other settings) and the byte count at which
// an index can be full; at names that figure in the document.
func exposureAdvice(e Exposure, at, text string) Advice {
	k, v := setting("segment.index.bytes", e.Remedy.SegmentIndexBytes)
	return Advice{Kind: AdviceFollowerOverflow, Config: k, Value: v, Figure: fig(at, e.FullAtBytes, "bytes"), Text: text}
}

// densestWords says what the densest index (index.interval.bytes=0) indexes under p's rule:
// per batch from Kafka 4.1 (and 3.9.1/4.0.1), per append before (one entry per append,
// however many batches it holds).
func densestWords(p *Point) string {
	what := densestShort(p)
	if p.Rule == model.PerAppend {
		what += ": one entry per append, however many batches it holds"
	}
	if p.Restarts > 0 {
		what += ", and none for the first after a restart"
	}
	return what
}

// densestShort is densestWords in a few words: "every batch (append) after each segment's first".
func densestShort(p *Point) string {
	if p.Rule == model.PerAppend {
		return "every append after each segment's first"
	}
	return "every batch after each segment's first"
}

// timesWords compares a to b: "equal to", "16x", "1.5x".
func timesWords(a, b int64) string {
	if a == b {
		return "equal to"
	}
	return strconv.FormatFloat(math.Round(10*float64(a)/float64(b))/10, 'f', -1, 64) + "x"
}

// pluralVerb is "1 append is" or "3 appends are".
func pluralVerb(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
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

// plateauTopBelow is, with the exact sweep, the top of the plateau's piece below p's interval
// (the pieces are those of the sweep's base settings, so only for points that share them).
func plateauTopBelow(p *Point, rep *WhatIf) (int64, bool) {
	if rep.Pieces == nil || len(p.Producer) > 0 || p.Config.SegmentBytes != rep.Base.SegmentBytes {
		return 0, false
	}
	var top int64 = -1
	for _, pc := range rep.Pieces {
		if pc.Regime == Plateau && pc.Max < p.Config.IndexIntervalBytes {
			top = max(top, pc.Max)
		}
	}
	return top, top >= 0
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
func Bytes(n int64) string { return english.Bytes(n) }

// alsoRemedies names the other settings that keep every index from filling whatever the
// batches (remedyFor), after the index-full rolls' sentence: " So does index.interval.bytes=M
// (or segment.bytes=K)." ("" when none is offered).
func alsoRemedies(r ExposureRemedy, cfg model.Config) string {
	var alt []string
	if r.IndexIntervalBytes > cfg.IndexIntervalBytes {
		alt = append(alt, fmt.Sprintf("index.interval.bytes=%d", r.IndexIntervalBytes))
	}
	if r.SegmentBytes > 0 {
		alt = append(alt, fmt.Sprintf("segment.bytes=%d", r.SegmentBytes))
	}
	if len(alt) == 0 {
		return ""
	}
	return " So does " + strings.Join(alt, " or ") + ", each on its own."
}
