package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/props"
)

const proveReplicasUsage = "search the replicated log's states instead (FollowerAppendNeverOverflows and the leader's and recovery's overflows; BFS, shortest paths; docs/proofs.md, \"Replicas\"): 2 replicas, batches of --alphabet's first size, index.interval.bytes one below it, segment.bytes 30 batches, segment.index.bytes 24 and 36 (--index-bytes), fetches of segment.index.bytes/12 batches, followers starting 0 to 2 batches in and at most 4 behind, restarts, recovers and elections"

// replicaSpaces is prove --replicas's space: the default above, --alphabet's first size,
// --index-bytes when given, --max-states when given (else 300,000: about 1 GB).
func (o *proveOptions) replicaSpaces(era model.Era) ([]props.ReplicaSpace, error) {
	b := o.space.Alphabet[0]
	if !o.replicas.flags.Changed("alphabet") {
		b = 100
	}
	indexBytes := []int64{24, 36}
	if o.replicas.flags.Changed("index-bytes") {
		indexBytes = o.space.IndexBytes
	}
	maxStates := int64(300_000)
	if o.replicas.flags.Changed("max-states") {
		maxStates = o.maxStates
	}
	var out []props.ReplicaSpace
	for _, x := range indexBytes {
		cfg := model.DefaultConfig()
		cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = 30*b, b-1, x
		s := props.ReplicaSpace{Config: cfg, Era: era, BatchBytes: b, Replicas: 2,
			FetchMaxBytes: max(1, x/12) * b, MaxLag: 4, FollowerStarts: []int64{0, 1, 2},
			Restarts: true, Recovers: true, Elections: true, MaxStates: maxStates}
		if err := s.Validate(); err != nil {
			return nil, usageErr("--replicas: %v", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// replicaSearchJSON is one search in prove --replicas --format json: a document per search,
// one per line.
type replicaSearchJSON struct {
	Schema           string                     `json:"schema"`
	Era              string                     `json:"era"`
	Candidate        string                     `json:"candidate,omitempty"`
	Config           map[string]int64           `json:"config"`
	BatchBytes       int64                      `json:"batchBytes"`
	FetchMaxBytes    int64                      `json:"fetchMaxBytes"`
	MaxLag           int                        `json:"maxLag"`
	States           int64                      `json:"states"`
	Depth            int                        `json:"depth"`
	Exhausted        bool                       `json:"exhausted"`
	Seconds          float64                    `json:"seconds"`
	Results          map[string]string          `json:"results"`
	Counterexamples  map[string]json.RawMessage `json:"counterexamples,omitempty"`
	WithinAssumption *bool                      `json:"withinFixAAssumption,omitempty"`
}

// runReplicas is kidx prove --replicas.
func (o *proveOptions) runReplicas(stdout io.Writer) error {
	if o.parametricAsked() {
		return usageErr("--replicas is the explicit-state search: --parametric does not apply")
	}
	eras, err := o.replicas.eras(o.rules)
	if err != nil {
		return err
	}
	var docs []replicaSearchJSON
	failed := false
	for _, era := range eras {
		spaces, err := o.replicaSpaces(era)
		if err != nil {
			return err
		}
		for _, s := range spaces {
			res, err := props.SearchReplicas(s)
			if err != nil {
				return err // the stepper disagreeing with model.ReplicaSet: a kidx bug
			}
			d := replicaSearchJSON{Schema: proveReplicasSchema, Era: era.ID, Candidate: era.Candidate, Config: map[string]int64{
				"segment.bytes": s.Config.SegmentBytes, "index.interval.bytes": s.Config.IndexIntervalBytes, "segment.index.bytes": s.Config.SegmentIndexBytes},
				BatchBytes: s.BatchBytes, FetchMaxBytes: s.FetchMaxBytes, MaxLag: s.MaxLag, States: res.States, Depth: res.Depth,
				Exhausted: res.Exhausted, Seconds: res.Elapsed.Seconds(), Results: map[string]string{}}
			if era.RollWhenAppendLacksIndexRoom {
				within := s.ChunkBatches() <= int64(props.RollOnRoomMaxBatches(s.Config, era))
				d.WithinAssumption = &within
			}
			for _, f := range []struct {
				p    *props.ReplicaProperty
				path *props.ReplicaPath
			}{{props.FollowerAppendNeverOverflows, res.Follower}, {props.LeaderAppendNeverOverflows, res.Leader}, {props.ReplicaRecoverNeverOverflows, res.Recover}} {
				kind := f.p.KindFor(era)
				switch {
				case f.path != nil && kind == props.Invariant:
					d.Results[f.p.Name], failed = "violated", true
				case f.path != nil:
					d.Results[f.p.Name] = "finding"
				case res.Exhausted:
					d.Results[f.p.Name] = "proved"
				default:
					d.Results[f.p.Name], failed = "unknown", true
				}
				if f.path == nil {
					continue
				}
				wl, err := f.path.Workload.MarshalJSON()
				if err != nil {
					return err
				}
				if d.Counterexamples == nil {
					d.Counterexamples = map[string]json.RawMessage{}
				}
				d.Counterexamples[f.p.Name] = wl
				if o.out != "" {
					if err := os.MkdirAll(o.out, 0o755); err != nil {
						return usageErr("--out %s: %v", o.out, err)
					}
					name := fmt.Sprintf("%s-index%d-%s.json", era.ID, s.Config.SegmentIndexBytes, f.p.Name)
					if err := writeFileAtomic(filepath.Join(o.out, name), append(wl, '\n')); err != nil {
						return usageErr("--out: %v", err)
					}
				}
			}
			docs = append(docs, d)
		}
	}
	if o.format == "json" {
		// One document per search, each on its own line (JSON Lines), as the fixpoint's.
		enc := json.NewEncoder(stdout)
		for _, d := range docs {
			if err := enc.Encode(d); err != nil {
				return err
			}
		}
	} else {
		writeProveReplicasText(stdout, docs, o.out)
	}
	if failed {
		return problemsFound
	}
	return nil
}

func writeProveReplicasText(w io.Writer, docs []replicaSearchJSON, out string) {
	fmt.Fprintf(w, "kidx prove --replicas: breadth-first search of the replicated log's abstract states (docs/proofs.md, \"Replicas\")\n")
	for _, d := range docs {
		era := d.Era
		if d.Candidate != "" {
			era += " (candidate on " + d.Candidate + ")"
		}
		fmt.Fprintf(w, "\nera %s; batches of %d B, index.interval.bytes=%d segment.bytes=%d segment.index.bytes=%d, fetchMaxBytes=%d, lag <= %d\n",
			era, d.BatchBytes, d.Config["index.interval.bytes"], d.Config["segment.bytes"], d.Config["segment.index.bytes"], d.FetchMaxBytes, d.MaxLag)
		space := "exhausted"
		if !d.Exhausted {
			space = "NOT exhausted (--max-states)"
		}
		fmt.Fprintf(w, "  %d states, depth %d, %s, %.2fs\n", d.States, d.Depth, space, d.Seconds)
		if d.WithinAssumption != nil {
			fmt.Fprintf(w, "  fix (a)'s assumption (a fetch of at most segment.index.bytes/12 batches): %v\n", *d.WithinAssumption)
		}
		for _, name := range []string{"FollowerAppendNeverOverflows", "LeaderAppendNeverOverflows", "ReplicaRecoverNeverOverflows"} {
			fmt.Fprintf(w, "  %-30s %s\n", name, d.Results[name])
			if wl, ok := d.Counterexamples[name]; ok {
				fmt.Fprintf(w, "    shortest: %s\n", wl)
				if out != "" {
					fmt.Fprintf(w, "    replay: kidx sim --workload %s\n", printsafe.Name(filepath.Join(out, fmt.Sprintf("%s-index%d-%s.json", d.Era, d.Config["segment.index.bytes"], name))))
				}
			}
		}
	}
}
