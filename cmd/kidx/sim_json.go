package main

import (
	"encoding/json"
	"io"

	"kidx/model"
	"kidx/reports"
)

// The schemas of sim's documents (docs/schema): a workload's run, a replicated workload's.
const (
	simSchema         = "kidx.sim/1"
	simReplicasSchema = "kidx.sim.replicas/1"
)

// simJSON is the docs/contract.md §4 document, with the era's keys: "era" (model.Era.ID) always, and
// "kafkaVersion" when a release picked it.
type simJSON struct {
	Schema       string           `json:"schema"`
	Rule         string           `json:"rule"`
	Era          string           `json:"era"`
	KafkaVersion string           `json:"kafkaVersion,omitempty"`
	Config       map[string]int64 `json:"config"`
	Segments     []segmentJSON    `json:"segments"`
	Events       []model.Event    `json:"events"`
	// Baseline, with --from-logdir: whether the replay gives back the partition's indexes.
	Baseline *simBaselineJSON `json:"baseline,omitempty"`
}

type simBaselineJSON struct {
	Dir                 string   `json:"dir"`
	ReproducesRealIndex bool     `json:"reproducesRealIndex"`
	Detail              string   `json:"detail"`
	Restarts            int      `json:"restarts"`
	Notes               []string `json:"notes"`
}

type segmentJSON struct {
	BaseOffset  int64           `json:"baseOffset"`
	SizeBytes   int64           `json:"sizeBytes"`
	BatchCount  int             `json:"batchCount"`
	LastOffset  int64           `json:"lastOffset"`
	OffsetIndex [][2]int64      `json:"offsetIndex"`
	TimeIndex   [][2]int64      `json:"timeIndex"`
	Scan        model.ScanStats `json:"scan"`
	RollReason  string          `json:"rollReason,omitempty"`
	// Cleaned: the log cleaner wrote the segment (a clean step, docs/contract.md §4).
	Cleaned bool `json:"cleaned,omitempty"`
}

func simDocument(l *model.Log, version string) simJSON {
	doc := simJSON{Schema: simSchema, Rule: l.Rule().String(), Era: l.Era().ID, KafkaVersion: version, Config: l.Config().Map(), Events: l.Events()}
	if doc.Events == nil {
		doc.Events = []model.Event{}
	}
	for _, s := range l.Segments() {
		sj := segmentJSON{BaseOffset: s.BaseOffset(), SizeBytes: s.Size(), BatchCount: len(s.Batches()),
			LastOffset: s.LastOffset(), OffsetIndex: [][2]int64{}, TimeIndex: [][2]int64{}, Scan: s.Scan(),
			RollReason: string(s.RollReason()), Cleaned: s.Cleaned()}
		for _, e := range s.OffsetIndex().All() {
			sj.OffsetIndex = append(sj.OffsetIndex, [2]int64{e.Offset, e.Position})
		}
		for _, e := range s.TimeIndex().All() {
			sj.TimeIndex = append(sj.TimeIndex, [2]int64{e.Timestamp, e.Offset})
		}
		doc.Segments = append(doc.Segments, sj)
	}
	return doc
}

func writeSimJSON(w io.Writer, l *model.Log, version string, b *reports.Baseline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	doc := simDocument(l, version)
	if b != nil {
		notes := b.Notes
		if notes == nil {
			notes = []string{}
		}
		doc.Baseline = &simBaselineJSON{Dir: b.Dir, ReproducesRealIndex: b.Reproduces, Detail: b.Detail, Restarts: b.Restarts, Notes: notes}
	}
	return enc.Encode(doc)
}
