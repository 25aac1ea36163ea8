package model

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ReplicaSpec is a replicated workload's "replicas" object (docs/contract.md §3.1).
type ReplicaSpec struct {
	// Count is the number of replicas, 2 to MaxReplicas; replica 0 is the first leader.
	Count int `json:"count"`
	// FetchMaxBytes is replica.fetch.max.bytes: a fetch takes whole batches up to it, and at
	// least one.
	FetchMaxBytes int64 `json:"fetchMaxBytes"`
	// StartOffsets is each replica's log start offset (its first segment's base offset).
	StartOffsets []int64 `json:"startOffsets"`
}

// MaxReplicas bounds a replicated workload (Kafka has no such limit; kidx's output does).
const MaxReplicas = 8

// DefaultFetchMaxBytes is replica.fetch.max.bytes's default, 1 MiB.
const DefaultFetchMaxBytes = 1 << 20

func (f *replicasFile) spec(start int64) (ReplicaSpec, error) {
	werr := func(path string, format string, args ...any) error {
		return &WorkloadError{Path: "replicas" + path, Offset: -1, Err: fmt.Errorf(format, args...)}
	}
	if f.Count == nil {
		return ReplicaSpec{}, werr(".count", "missing")
	}
	n, err := numberInt(*f.Count, "replicas.count")
	if err != nil {
		return ReplicaSpec{}, err
	}
	if n < 2 || n > MaxReplicas {
		return ReplicaSpec{}, werr(".count", "%d: want 2 to %d replicas", n, MaxReplicas)
	}
	spec := ReplicaSpec{Count: int(n), FetchMaxBytes: DefaultFetchMaxBytes}
	if f.FetchMaxBytes != nil {
		if spec.FetchMaxBytes, err = numberInt(*f.FetchMaxBytes, "replicas.fetchMaxBytes"); err != nil {
			return ReplicaSpec{}, err
		}
		if spec.FetchMaxBytes < 1 {
			return ReplicaSpec{}, werr(".fetchMaxBytes", "%d: want at least 1 byte", spec.FetchMaxBytes)
		}
	}
	spec.StartOffsets = make([]int64, spec.Count)
	if f.StartOffsets == nil {
		for i := range spec.StartOffsets {
			spec.StartOffsets[i] = start
		}
		return spec, nil
	}
	if len(f.StartOffsets) != spec.Count {
		return ReplicaSpec{}, werr(".startOffsets", "%d offsets for %d replicas", len(f.StartOffsets), spec.Count)
	}
	for i, v := range f.StartOffsets {
		path := fmt.Sprintf("replicas.startOffsets[%d]", i)
		if spec.StartOffsets[i], err = numberInt(v, path); err != nil {
			return ReplicaSpec{}, err
		}
		if spec.StartOffsets[i] < start {
			return ReplicaSpec{}, werr(fmt.Sprintf(".startOffsets[%d]", i), "%d is below the workload's startOffset %d", spec.StartOffsets[i], start)
		}
	}
	if spec.StartOffsets[0] != start {
		return ReplicaSpec{}, werr(".startOffsets[0]", "%d: the first leader's log starts at the workload's startOffset %d", spec.StartOffsets[0], start)
	}
	return spec, nil
}

// replicaFields reads the keys that name a replica: "fetch": R, "elect": R, "replica": R
// (restart, recover, roll) and "maxBytes" (fetch).
func (f *stepFile) replicaFields(path string, st Step) (Step, error) {
	replica := func(n *json.Number, key string) error {
		v, err := numberInt(*n, path+"."+key)
		if err != nil {
			return err
		}
		if v < 0 || v >= MaxReplicas {
			return &WorkloadError{Path: path + "." + key, Offset: -1, Err: fmt.Errorf("replica %d: replicas are numbered 0 to %d", v, MaxReplicas-1)}
		}
		st.Replica, st.HasReplica = int(v), true
		return nil
	}
	switch {
	case f.Fetch != nil:
		if err := replica(f.Fetch, "fetch"); err != nil {
			return Step{}, err
		}
	case f.Elect != nil:
		if err := replica(f.Elect, "elect"); err != nil {
			return Step{}, err
		}
	}
	if f.Replica != nil {
		if !st.Restart && !st.Recover && !st.Roll {
			return Step{}, &WorkloadError{Path: path + ".replica", Offset: -1,
				Err: errors.New(`only a restart, recover or roll names a "replica" (a fetch or elect names it as its value)`)}
		}
		if err := replica(f.Replica, "replica"); err != nil {
			return Step{}, err
		}
	}
	if f.MaxBytes != nil {
		if !st.Fetch {
			return Step{}, &WorkloadError{Path: path + ".maxBytes", Offset: -1, Err: errors.New(`only a fetch has "maxBytes"`)}
		}
		v, err := numberInt(*f.MaxBytes, path+".maxBytes")
		if err != nil {
			return Step{}, err
		}
		if v < 1 {
			return Step{}, &WorkloadError{Path: path + ".maxBytes", Offset: -1, Err: fmt.Errorf("%d: want at least 1 byte", v)}
		}
		st.FetchMaxBytes = v
	}
	return st, nil
}

// checkReplicaSteps holds the steps to the workload's form: replica keys only with
// "replicas", and in a replicated workload only what ReplicaSet models.
func (w Workload) checkReplicaSteps() error {
	for i, st := range w.Steps {
		path := fmt.Sprintf("steps[%d]", i)
		if w.Replicas == nil {
			if st.Fetch || st.Elect || st.HasReplica {
				return &WorkloadError{Path: path, Offset: -1, Err: fmt.Errorf(`a %s step naming a replica needs a replicated workload ("replicas", docs/contract.md §3.1)`, st.Kind())}
			}
			continue
		}
		switch {
		case st.Crash != nil:
			return &WorkloadError{Path: path + ".crash", Offset: -1, Err: errors.New("a replicated workload has no crash steps (kidx models a replica's unclean restart as \"recover\")")}
		case st.Clean != nil:
			return &WorkloadError{Path: path + ".clean", Offset: -1, Err: errors.New("a replicated workload has no clean steps (each replica's cleaner is not modelled yet)")}
		case st.HasRecoveryPoint:
			return &WorkloadError{Path: path + ".recoveryPoint", Offset: -1, Err: errors.New("a replicated workload's recover step recovers the replica's active segment; it takes no recovery point")}
		case st.HasReplica && st.Replica >= w.Replicas.Count:
			return &WorkloadError{Path: path, Offset: -1, Err: fmt.Errorf("replica %d: the workload has replicas 0 to %d", st.Replica, w.Replicas.Count-1)}
		case len(st.Append) > 0 && st.Origin != OriginLeader:
			return &WorkloadError{Path: path + ".origin", Offset: -1, Err: errors.New(`in a replicated workload an append is a produce to the leader; a follower's append is a "fetch" step`)}
		}
		for j, b := range st.Append {
			if b.BaseOffset > 0 {
				return &WorkloadError{Path: fmt.Sprintf("%s.append[%d].baseOffset", path, j), Offset: -1,
					Err: errors.New("the leader assigns a produce's offsets: a replicated workload's batches name none")}
			}
		}
	}
	if w.Replicas != nil && w.SingleBatch {
		return &WorkloadError{Path: "replicas", Offset: -1, Err: errors.New(`a replicated workload needs the "steps" form (its fetches are steps)`)}
	}
	return nil
}

// withReplica adds "replica" to a restart, recover or roll step that names one.
func withReplica(st map[string]any, s Step) map[string]any {
	if s.HasReplica {
		st["replica"] = s.Replica
	}
	return st
}
