package reports

import "strconv"

// The verdict's decision in machine-readable form (docs/reports.md, "The verdict"): which
// kind of verdict it is, the settings of the change it names and the figures that change
// cuts by the margin. Verdict's words say the same; this is for programs.

// VerdictKind is what a what-if verdict decides; the kinds are a closed list
// (docs/schema/kidx.whatif.1.json).
type VerdictKind string

// The what-if verdicts.
const (
	// VerdictChange: the verdict names one change worth making (a figure falls by the margin).
	VerdictChange VerdictKind = "change"
	// VerdictNoChange: no point of the sweep clears the margin.
	VerdictNoChange VerdictKind = "no-change"
	// VerdictLeastWalking: the sweep leaves out its starting configuration, and the verdict
	// names the point that walks least.
	VerdictLeastWalking VerdictKind = "least-walking"
	// VerdictNoBatches: the workload produced no batches.
	VerdictNoBatches VerdictKind = "no-batches"
)

// WhatIfVerdictJSON is the "verdictDetail" object of kidx.whatif/1.
type WhatIfVerdictJSON struct {
	Kind VerdictKind `json:"kind"`
	// Regime is the starting configuration's regime (absent without it).
	Regime Regime `json:"regime,omitempty"`
	// MapsOverLimit: the configuration needs more memory maps than vm.max_map_count, which
	// the verdict says first.
	MapsOverLimit bool `json:"mapsOverLimit"`
	// Point is the index in "points" of the point the verdict names (change, least-walking).
	Point *int `json:"point,omitempty"`
	// Changes are the named point's settings that differ from the starting configuration's
	// (least-walking: every swept setting of the point); producer keys are the producer's.
	Changes []VerdictSetting `json:"changes"`
	// Figures are the figures the named change cuts by the margin, from the configuration's
	// value to the point's.
	Figures []VerdictFigure `json:"figures"`
}

// VerdictSetting is one setting of a named change.
type VerdictSetting struct {
	Config string `json:"config"`
	Value  string `json:"value"`
}

// VerdictFigure is one figure a named change cuts: Name is the point's JSON key that holds it.
type VerdictFigure struct {
	Name string  `json:"name"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
	Unit string  `json:"unit"`
}

// verdictChange is the point Verdict names as the one change worth making, nil when it names
// none: on the plateau the candidate that clears the margin (namedCandidate); thinning or on
// the cliff, the lower interval on the plateau when it clears the margin, else the candidate
// (denserVerdict).
func (r *WhatIf) verdictChange(base *Point) *Point {
	switch base.Regime {
	case Plateau:
		return r.namedCandidate(base)
	case Thinning, Cliff:
		if best := r.bestLowerPlateau(base); best != nil && improves(base, best) {
			return best
		}
		return r.namedCandidate(base)
	}
	return nil
}

// verdictDetail is Verdict's decision (the same cases, in the same order).
func (r *WhatIf) verdictDetail() WhatIfVerdictJSON {
	d := WhatIfVerdictJSON{Kind: VerdictNoChange, Changes: []VerdictSetting{}, Figures: []VerdictFigure{}}
	if len(r.Points) == 0 {
		d.Kind = VerdictNoBatches
		return d
	}
	base := r.basePoint()
	if base == nil {
		least := r.leastWalking()
		if least == nil {
			d.Kind = VerdictNoBatches
			return d
		}
		var firstEra []*Point
		for _, p := range r.Points {
			if p.Batches > 0 && p.Era.ID == least.Era.ID {
				firstEra = append(firstEra, p)
			}
		}
		named := cheapestNear(least, firstEra)
		d.Kind, d.Point = VerdictLeastWalking, r.pointIndex(named)
		for _, s := range r.Sweeps {
			d.Changes = append(d.Changes, VerdictSetting{s.Key, strconv.FormatInt(named.SweptValue(s.Key), 10)})
		}
		return d
	}
	if base.Batches == 0 {
		d.Kind = VerdictNoBatches
		return d
	}
	d.Regime = base.Regime
	d.MapsOverLimit = base.Maps.MaxMapCount > 0 && base.Maps.Headroom < 0
	named := r.verdictChange(base)
	if named == nil {
		return d
	}
	d.Kind, d.Point = VerdictChange, r.pointIndex(named)
	for _, s := range r.Sweeps {
		if v := named.SweptValue(s.Key); v != base.SweptValue(s.Key) {
			d.Changes = append(d.Changes, VerdictSetting{s.Key, strconv.FormatInt(v, 10)})
		}
	}
	for _, f := range figuresOf(base, named) {
		if f.falls() {
			d.Figures = append(d.Figures, VerdictFigure{Name: f.name, From: f.from, To: f.to, Unit: f.units})
		}
	}
	return d
}

// pointIndex is p's index in r.Points.
func (r *WhatIf) pointIndex(p *Point) *int {
	for i, q := range r.Points {
		if q == p {
			return &i
		}
	}
	return nil
}
