package main

import (
	"encoding/json"
	"fmt"
	"io"

	"kidx/model"
)

// simReplicasJSON is sim's document for a replicated workload (docs/contract.md §3.1): the
// single-log document's keys per replica, the events with their replica, and the steps that
// did nothing.
type simReplicasJSON struct {
	Schema        string               `json:"schema"`
	Rule          string               `json:"rule"`
	Era           string               `json:"era"`
	KafkaVersion  string               `json:"kafkaVersion,omitempty"`
	Config        map[string]int64     `json:"config"`
	FetchMaxBytes int64                `json:"fetchMaxBytes"`
	Leader        int                  `json:"leader"`
	Replicas      []simReplicaJSON     `json:"replicas"`
	Events        []model.ReplicaEvent `json:"events"`
	Notes         []model.ReplicaNote  `json:"notes"`
}

type simReplicaJSON struct {
	Replica    int           `json:"replica"`
	NextOffset int64         `json:"nextOffset"`
	Failed     bool          `json:"failed"`
	Segments   []segmentJSON `json:"segments"`
}

// runSimReplicas runs a replicated workload and writes every replica's segments.
func runSimReplicas(stdout io.Writer, w model.Workload, cfg model.Config, era model.Era, source, version, format string) error {
	rs, err := model.SimulateReplicas(cfg, era, w)
	if err != nil {
		return usageErr("%v", err)
	}
	if format == "json" {
		doc := simReplicasJSON{Schema: simReplicasSchema, Rule: era.Rule().String(), Era: era.ID, KafkaVersion: version, Config: cfg.Map(),
			FetchMaxBytes: rs.Spec().FetchMaxBytes, Leader: rs.Leader(), Events: rs.Events(), Notes: rs.Notes()}
		if doc.Events == nil {
			doc.Events = []model.ReplicaEvent{}
		}
		if doc.Notes == nil {
			doc.Notes = []model.ReplicaNote{}
		}
		for i, l := range rs.Replicas() {
			doc.Replicas = append(doc.Replicas, simReplicaJSON{Replica: i, NextOffset: l.NextOffset(), Failed: l.Stopped(),
				Segments: simDocument(l, version).Segments})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintf(stdout, "kidx sim: %s; %s; %d replicas, replica.fetch.max.bytes=%d; index.interval.bytes=%d segment.bytes=%d segment.index.bytes=%d\n",
		source, eraLabel(era, version), len(rs.Replicas()), rs.Spec().FetchMaxBytes, cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.SegmentIndexBytes)
	heads := make([]string, len(simTextColumns))
	for i, c := range simTextColumns {
		heads[i] = c.head
	}
	for i, l := range rs.Replicas() {
		role := "follower"
		if i == rs.Leader() {
			role = "leader"
		}
		state := ""
		if l.Stopped() {
			state = ", failed (Kafka threw)"
		}
		fmt.Fprintf(stdout, "\nreplica %d (%s at the end%s): log end offset %d\n", i, role, state, l.NextOffset())
		fmt.Fprint(stdout, simTextRow(heads...))
		for _, s := range l.Summaries() {
			fmt.Fprint(stdout, simSegmentRow(s))
		}
	}
	if ev := rs.Events(); len(ev) > 0 {
		fmt.Fprintf(stdout, "\nevents:\n")
		for _, e := range ev {
			fmt.Fprintf(stdout, "  step %d: replica %d: %s: %s\n", e.Step, e.Replica, e.Kind, e.Message)
		}
		fmt.Fprintf(stdout, "  (a replica that threw stops there: its segments show the state before that step; docs/kafka-hazards.md)\n")
	}
	if notes := rs.Notes(); len(notes) > 0 {
		fmt.Fprintf(stdout, "\nsteps that did nothing:\n")
		for _, n := range notes {
			fmt.Fprintf(stdout, "  step %d: %s\n", n.Step, n.Text)
		}
	}
	return nil
}
