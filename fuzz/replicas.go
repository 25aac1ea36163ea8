package fuzz

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// CheckReplicated is the differential check of a replicated workload (docs/contract.md §3.1):
// model.SimulateReplicas against the file-backed segment.ReplicaSet, which parses the same
// JSON on its own and serves each fetch from the leader's files. Every replica's events must
// agree, and its files must be the model's segments byte for byte. A replica that threw is
// compared as Check compares a single log that threw: the model shows its state before the
// throwing step, so its files are those of a run of the steps before it. era, when set, is a
// candidate whose knobs both sides take; else the workload's rule or release decides.
func CheckReplicated(w model.Workload, era *model.Era) (*Divergence, error) {
	if w.Replicas == nil {
		return nil, fmt.Errorf("%w: no \"replicas\"", ErrSkip)
	}
	cfg := model.DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSkip, err)
	}
	e := model.EraForRule(model.PerBatch)
	switch {
	case era != nil:
		e = *era
	case w.KafkaVersion != "":
		v, err := model.EraForKafkaVersion(w.KafkaVersion)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkip, err)
		}
		e = v
	case w.Rule != "":
		r, err := model.ParseRule(w.Rule)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSkip, err)
		}
		e = model.EraForRule(r)
	}
	if e.ID != model.EraForRule(e.Rule()).ID && e.Candidate != model.EraForRule(e.Rule()).ID {
		return nil, fmt.Errorf("%w: era %s: the file writer writes the two current eras", ErrSkip, e.ID)
	}
	rs, err := model.SimulateReplicas(cfg, e, w)
	if err != nil {
		return nil, fmt.Errorf("%w: model: %v", ErrSkip, err)
	}
	data, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	sw, err := segment.ParseWorkload(data)
	if err != nil {
		return &Divergence{Kind: "parse", What: fmt.Sprintf("the model runs the workload, the file side refuses it: %v", err), Workload: w}, nil
	}
	sw.Rule = segment.PerBatch
	if e.Rule() == model.PerAppend {
		sw.Rule = segment.PerAppend
	}
	sw.Config.Candidate = FileCandidate(e)
	fsys := vfs.NewMemFS()
	res, err := segment.WriteWorkloadFS(fsys, "full", sw)
	if err != nil {
		if isBuilderRefusal(err) {
			return nil, fmt.Errorf("%w: %v", ErrSkip, err)
		}
		return &Divergence{Kind: "files", What: fmt.Sprintf("the model runs the workload, the file side stops: %v", err), Workload: w}, nil
	}
	div := func(kind, format string, args ...any) (*Divergence, error) {
		return &Divergence{Kind: kind, What: fmt.Sprintf(format, args...), Workload: w}, nil
	}
	if len(res.Replicas) != len(rs.Replicas()) {
		return div("replicas", "model %d replicas, files %d", len(rs.Replicas()), len(res.Replicas))
	}
	if res.Leader != rs.Leader() {
		return div("leader", "model ends with replica %d leading, files %d", rs.Leader(), res.Leader)
	}
	for r, ml := range rs.Replicas() {
		fr := res.Replicas[r]
		var mev []model.Event
		for _, re := range rs.Events() {
			if re.Replica == r {
				mev = append(mev, re.Event)
			}
		}
		if what := compareEvents(mev, fr.Events); what != "" {
			return div("events", "replica %d: %s", r, what)
		}
		if ml.NextOffset() != fr.NextOffset {
			return div("log-end", "replica %d: model log end offset %d, files %d", r, ml.NextOffset(), fr.NextOffset)
		}
		dir := filepath.Join("full", segment.ReplicaDirName(r))
		segs := ml.Segments()
		if ml.Stopped() && len(mev) > 0 {
			prefix := *sw
			prefix.Steps = sw.Steps[:mev[len(mev)-1].Step]
			pdir := fmt.Sprintf("prefix-%d", r)
			if _, err := segment.WriteWorkloadFS(fsys, pdir, &prefix); err != nil {
				return nil, fmt.Errorf("file side, the steps before replica %d's throw: %w", r, err)
			}
			dir = filepath.Join(pdir, segment.ReplicaDirName(r))
			if n := len(segs); n > 1 && len(segs[n-1].Batches()) == 0 {
				segs = segs[:n-1]
			}
		}
		kind, what, err := compareDir(fsys, segs, dir)
		if err != nil {
			return nil, err
		}
		if what != "" {
			return div(kind, "replica %d: %s", r, what)
		}
	}
	return nil, nil
}
