package reports

import (
	"encoding/json"
	"io"

	"kidx/model"
)

// ScanJSON is the docs/contract.md §10 `scan` object, shared by whatif points and analyze partitions.
// Keys may be added, never renamed (docs/reports.md).
type ScanJSON struct {
	Lookups        int64   `json:"lookups"`
	MaxScanBytes   int64   `json:"maxScanBytes"`
	MeanScanBytes  float64 `json:"meanScanBytes"`
	P50ScanBytes   int64   `json:"p50ScanBytes"`
	P99ScanBytes   int64   `json:"p99ScanBytes"`
	P999ScanBytes  int64   `json:"p999ScanBytes"`
	TotalScanBytes int64   `json:"totalScanBytes"`
	MaxHops        int64   `json:"maxHops"`
	MeanHops       float64 `json:"meanHops"`
	P50Hops        int64   `json:"p50Hops"`
	P99Hops        int64   `json:"p99Hops"`
	P999Hops       int64   `json:"p999Hops"`
	TotalHops      int64   `json:"totalHops"`
	// Kafka's own phase-2 header reads (docs/contract.md §5): the hops before 4.1, more from 4.1
	// (docs/reports.md says which release a report's figures are for).
	MaxHeaderReads   int64   `json:"maxHeaderReads"`
	MeanHeaderReads  float64 `json:"meanHeaderReads"`
	TotalHeaderReads int64   `json:"totalHeaderReads"`
}

func scanJSON(s model.ScanStats, scanQ, hopsQ map[Quantile]int64) ScanJSON {
	return ScanJSON{Lookups: s.Lookups, MaxScanBytes: s.MaxScanBytes, MeanScanBytes: round1(s.MeanScanBytes()),
		P50ScanBytes: scanQ[P50], P99ScanBytes: scanQ[P99], P999ScanBytes: scanQ[P999], TotalScanBytes: s.TotalScanBytes,
		MaxHops: s.MaxHops, MeanHops: round2(s.MeanHops()), P50Hops: hopsQ[P50], P99Hops: hopsQ[P99], P999Hops: hopsQ[P999],
		TotalHops: s.TotalHops, MaxHeaderReads: s.MaxHeaderReads, MeanHeaderReads: round2(s.MeanHeaderReads()),
		TotalHeaderReads: s.TotalHeaderReads}
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// Schema names of the documents of this package (docs/schema/README.md): a change that could
// break a reader of one bumps its N, and its file in docs/schema stays beside the new one.
const (
	WhatIfSchema  = "kidx.whatif/1"
	AnalyzeSchema = "kidx.analyze/1"
	FleetSchema   = "kidx.analyze.fleet/1"
)

type whatIfJSON struct {
	Schema       string          `json:"schema"`
	Source       string          `json:"source"`
	Rule         string          `json:"rule"`
	Rules        []string        `json:"rules"`
	Era          string          `json:"era"`  // the first era's ID (model.Era.ID)
	Eras         []string        `json:"eras"` // every era's ID, as rules
	KafkaVersion string          `json:"kafkaVersion"`
	Batches      int64           `json:"batches"`
	Passes       int             `json:"passes"`
	Scale        scaleJSON       `json:"scale"`
	Points       []pointJSON     `json:"points"`
	Sweeps       []sweepJSONItem `json:"sweeps"`
	Baseline     *baselineJSON   `json:"baseline,omitempty"`
	// Workloads are the workloads run, one per producer setting of a producer sweep, each with
	// its own source and batch count ("source" and "batches" above are the first's).
	Workloads []workloadJSON `json:"workloads"`
	// Verdict is the paragraph the text report opens with (WhatIf.Verdict); VerdictDetail is
	// its decision in machine-readable form.
	Verdict       string            `json:"verdict"`
	VerdictDetail WhatIfVerdictJSON `json:"verdictDetail"`
	// IntervalPieces, with the exact interval sweep, is the whole step function of the
	// workload over index.interval.bytes (WhatIf.Pieces); omitted without it.
	IntervalPieces         []intervalPieceJSON `json:"intervalPieces,omitempty"`
	IntervalPiecesComplete *bool               `json:"intervalPiecesComplete,omitempty"`
}

type workloadJSON struct {
	Source  string `json:"source"`
	Batches int64  `json:"batches"`
}

// intervalPieceJSON is one IntervalPiece: every index.interval.bytes value in [min, max]
// gives this same run.
type intervalPieceJSON struct {
	Min                int64   `json:"min"`
	Max                int64   `json:"max"`
	Regime             Regime  `json:"regime,omitempty"`
	Segments           int     `json:"segments"`
	OffsetIndexEntries int64   `json:"offsetIndexEntries"`
	Lookups            int64   `json:"lookups"`
	MaxScanBytes       int64   `json:"maxScanBytes"`
	MeanScanBytes      float64 `json:"meanScanBytes"`
	TotalScanBytes     int64   `json:"totalScanBytes"`
	MaxHops            int64   `json:"maxHops"`
}

// baselineJSON is a replayed real partition's check (key "baseline", only with
// --from-logdir).
type baselineJSON struct {
	Dir                 string   `json:"dir"`
	ReproducesRealIndex bool     `json:"reproducesRealIndex"`
	Detail              string   `json:"detail"`
	Era                 string   `json:"era"`
	Interval            int64    `json:"index.interval.bytes"`
	Restarts            int      `json:"restarts"`
	ComparedSegments    int      `json:"comparedSegments"`
	UnindexedSegments   int      `json:"segmentsWithoutIndexFiles"`
	Notes               []string `json:"notes"`
}

type sweepJSONItem struct {
	Key    string  `json:"key"`
	Values []int64 `json:"values"`
}

type scaleJSON struct {
	Partitions       int   `json:"partitions"`
	RetainedSegments int   `json:"retainedSegments"`
	MaxMapCount      int64 `json:"maxMapCount"`
}

type pointJSON struct {
	Config               map[string]int64 `json:"config"`
	Producer             map[string]int64 `json:"producer,omitempty"`
	Rule                 string           `json:"rule"`
	Era                  string           `json:"era"`
	Regime               Regime           `json:"regime"`
	Segments             int              `json:"segments"`
	Batches              int64            `json:"batches"`
	OffsetIndexEntries   int64            `json:"offsetIndexEntries"`
	TimeIndexEntries     int64            `json:"timeIndexEntries"`
	DensestEntries       int64            `json:"densestEntries"`
	MeanEntriesPerSeg    float64          `json:"meanEntriesPerSegment"`
	MaxEntriesPerSegment int              `json:"maxEntriesPerSegment"`
	IndexBytes           int64            `json:"indexBytes"`
	TimeIndexBytes       int64            `json:"timeIndexBytes"`
	LogBytes             int64            `json:"logBytes"`
	MaxBatchBytes        int64            `json:"maxBatchBytes"`
	Scan                 ScanJSON         `json:"scan"`
	Bound                boundJSON        `json:"bound"`
	Phase1               phase1JSON       `json:"phase1"`
	Warm                 warmJSON         `json:"warm"`
	Maps                 mapsJSON         `json:"maps"`
	IndexFullRolls       int              `json:"indexFullRolls"`
	OverflowHazard       bool             `json:"overflowHazard"`
	OverflowEvents       []model.Event    `json:"overflowEvents"`
	FollowerOverflow     exposureJSON     `json:"followerOverflow"`
	Rejected             int64            `json:"rejectedAppends"`
	VersionWarnings      []string         `json:"versionWarnings"`
	Recommendations      []string         `json:"recommendations"`
	// Advice: the recommendations, one for one, in machine-readable form.
	Advice []Advice `json:"advice"`
}

type boundJSON struct {
	LimitBytes int64 `json:"limitBytes"`
	SlackBytes int64 `json:"slackBytes"`
}

type phase1JSON struct {
	Entries     int `json:"entries"`
	TailSlots   int `json:"tailSlots"`
	TailPages   int `json:"tailPages"`
	ColdSlots   int `json:"coldSlots"`
	ColdPages   int `json:"coldPages"`
	ColdTargets int `json:"coldTargets"`
}

type warmJSON struct {
	Entries      int   `json:"entries"`
	CoveredBytes int64 `json:"coveredBytes"`
	WholeSegment bool  `json:"wholeSegment"`
}

type mapsJSON struct {
	Partitions           int   `json:"partitions"`
	SegmentsPerPartition int   `json:"segmentsPerPartition"`
	Maps                 int64 `json:"maps"`
	MaxMapCount          int64 `json:"maxMapCount"`
	Headroom             int64 `json:"headroom"`
	MaxPartitions        int64 `json:"maxPartitions"`
}

func (p *Point) meanEntries() float64 {
	if p.Segments == 0 {
		return 0
	}
	return float64(p.OffsetIndexEntries) / float64(p.Segments)
}

func pointDoc(p *Point) pointJSON {
	d := pointJSON{Config: p.Config.Map(), Rule: p.Rule.String(), Era: p.Era.ID, Regime: p.Regime, Segments: p.Segments, Batches: p.Batches,
		OffsetIndexEntries: p.OffsetIndexEntries, TimeIndexEntries: p.TimeIndexEntries, DensestEntries: p.DensestEntries,
		MeanEntriesPerSeg: round2(p.meanEntries()), MaxEntriesPerSegment: p.MaxEntriesPerSegment,
		IndexBytes: p.IndexBytes, TimeIndexBytes: p.TimeIndexBytes, LogBytes: p.LogBytes, MaxBatchBytes: p.MaxBatchBytes,
		Scan:   scanJSON(p.Scan, p.ScanQ, p.HopsQ),
		Bound:  boundJSON{p.BoundLimit, p.BoundSlack},
		Phase1: phase1JSON(p.Phase1),
		Warm:   warmJSON(p.Warm),
		Maps: mapsJSON{p.Maps.Partitions, p.Maps.SegmentsPerPart, p.Maps.Maps, p.Maps.MaxMapCount, p.Maps.Headroom,
			p.Maps.MaxPartitions},
		IndexFullRolls: p.IndexFullRolls, OverflowHazard: p.OverflowHazard, OverflowEvents: p.OverflowEvents,
		FollowerOverflow: exposureDoc(p.Exposure, p.Config, p.Era.String()),
		Rejected:         p.Rejected, VersionWarnings: p.VersionWarnings, Recommendations: p.Recommendations, Advice: p.Advice}
	if len(p.Producer) > 0 {
		d.Producer = map[string]int64{}
		for _, s := range p.Producer {
			d.Producer[s.Key] = s.Value
		}
	}
	if d.OverflowEvents == nil {
		d.OverflowEvents = []model.Event{}
	}
	if d.VersionWarnings == nil {
		d.VersionWarnings = []string{}
	}
	if d.Recommendations == nil {
		d.Recommendations = []string{}
	}
	if d.Advice == nil {
		d.Advice = []Advice{}
	}
	return d
}

// WriteJSON writes the docs/contract.md §10 document.
func (r *WhatIf) WriteJSON(w io.Writer) error {
	doc := whatIfJSON{Schema: WhatIfSchema, Source: r.Source, Rule: r.Rules[0].String(), KafkaVersion: r.KafkaVersion, Batches: r.Batches,
		Passes: r.Passes, Scale: scaleJSON{r.Scale.Partitions, r.Scale.RetainedSegments, r.Scale.MaxMapCount},
		Points: []pointJSON{}, Sweeps: []sweepJSONItem{}, Rules: []string{}, Eras: []string{}}
	if b := r.Baseline; b != nil {
		notes := b.Notes
		if notes == nil {
			notes = []string{}
		}
		doc.Baseline = &baselineJSON{Dir: b.Dir, ReproducesRealIndex: b.Reproduces, Detail: b.Detail, Era: b.Era,
			Interval: b.Interval, Restarts: b.Restarts, ComparedSegments: b.Compared, UnindexedSegments: b.Unindexed, Notes: notes}
	}
	for _, rule := range r.Rules {
		doc.Rules = append(doc.Rules, rule.String())
	}
	for _, e := range r.Eras {
		doc.Eras = append(doc.Eras, e.ID)
	}
	if len(doc.Eras) > 0 {
		doc.Era = doc.Eras[0]
	}
	for _, s := range r.Sweeps {
		doc.Sweeps = append(doc.Sweeps, sweepJSONItem(s))
	}
	for _, p := range r.Points {
		doc.Points = append(doc.Points, pointDoc(p))
	}
	doc.Verdict = r.Verdict()
	doc.VerdictDetail = r.verdictDetail()
	doc.Workloads = []workloadJSON{}
	for _, w := range r.Workloads {
		doc.Workloads = append(doc.Workloads, workloadJSON(w))
	}
	if len(r.Workloads) > 0 {
		doc.Batches = r.Workloads[0].Batches
	}
	if r.Pieces != nil {
		complete := r.PiecesComplete
		doc.IntervalPiecesComplete = &complete
		for _, pc := range r.Pieces {
			doc.IntervalPieces = append(doc.IntervalPieces, intervalPieceJSON{Min: pc.Min, Max: pc.Max, Regime: pc.Regime,
				Segments: pc.Segments, OffsetIndexEntries: pc.OffsetIndexEntries, Lookups: pc.Scan.Lookups,
				MaxScanBytes: pc.Scan.MaxScanBytes, MeanScanBytes: round1(pc.Scan.MeanScanBytes()),
				TotalScanBytes: pc.Scan.TotalScanBytes, MaxHops: pc.Scan.MaxHops})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// exposureJSON is a configuration's exposure to the follower index overflow (docs/reports.md).
type exposureJSON struct {
	Exposed      bool            `json:"exposed"`
	Rule         string          `json:"rule"` // per-batch: a follower's fetch throws; per-append: only recovery can
	Index        string          `json:"index,omitempty"`
	Entries      int64           `json:"entries,omitempty"`
	SpacingBytes int64           `json:"entrySpacingBytes,omitempty"`
	ExactSpacing bool            `json:"exactSpacing"`
	FullAtBytes  int64           `json:"fullAtBytes,omitempty"`
	Remedy       *ExposureRemedy `json:"remedy,omitempty"`
	Sentence     string          `json:"sentence,omitempty"`
}

// exposureDoc is e's JSON; releases names the per-append releases for its sentence.
func exposureDoc(e Exposure, cfg model.Config, releases string) exposureJSON {
	rule := model.PerAppend
	if e.PerBatch {
		rule = model.PerBatch
	}
	d := exposureJSON{Exposed: e.Exposed, Rule: rule.String(), Index: e.Index, Entries: e.Entries, SpacingBytes: e.SpacingBytes,
		ExactSpacing: e.ExactSpacing, FullAtBytes: e.FullAtBytes, Sentence: e.Sentence(cfg, releases)}
	if e.Exposed {
		r := e.Remedy
		d.Remedy = &r
	}
	return d
}
