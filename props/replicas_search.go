package props

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"kidx/model"
)

// ReplicaSpace is the finite space of the explicit-state search over a replicated log
// (docs/proofs.md, "Replicas"): one config, one batch size (one record each, timestamps
// rising by one per offset), a fixed fetchMaxBytes, followers at most MaxLag batches
// behind the leader (a produce waits until every follower is within MaxLag-1), and the
// steps: a produce (one batch), a fetch by any follower that is behind, and, when asked,
// a clean restart or a recover of any replica and the election of a caught-up follower.
// Followers may start at any of FollowerStarts (a log start offset inside a leader
// segment).
type ReplicaSpace struct {
	Config         model.Config
	Era            model.Era
	BatchBytes     int64
	Replicas       int
	FetchMaxBytes  int64
	MaxLag         int
	FollowerStarts []int64
	Restarts       bool
	Recovers       bool
	Elections      bool
	// MaxStates stops the search past this many states (Exhausted is then false).
	MaxStates int64
}

// Validate says what of the space the search cannot take.
func (s ReplicaSpace) Validate() error {
	switch {
	case s.Replicas < 2 || s.Replicas > 3:
		return fmt.Errorf("replicas %d: the search takes 2 or 3", s.Replicas)
	case s.BatchBytes < minBatch:
		return fmt.Errorf("batch size %d: at least %d bytes (one record)", s.BatchBytes, minBatch)
	case s.FetchMaxBytes < 1:
		return fmt.Errorf("fetchMaxBytes %d: at least 1", s.FetchMaxBytes)
	case s.MaxLag < 1 || s.MaxLag > 64:
		return fmt.Errorf("max lag %d: want 1 to 64 batches", s.MaxLag)
	case s.ChunkBatches()*s.BatchBytes > s.Config.SegmentBytes:
		return fmt.Errorf("a fetch of %d batches of %d bytes is larger than segment.bytes %d (RecordBatchTooLargeException): the search models no rejected fetch",
			s.ChunkBatches(), s.BatchBytes, s.Config.SegmentBytes)
	case s.Config.SegmentBytes/s.BatchBytes > 4096:
		return fmt.Errorf("segment.bytes %d holds %d batches of %d bytes: the search takes at most 4096 per segment",
			s.Config.SegmentBytes, s.Config.SegmentBytes/s.BatchBytes, s.BatchBytes)
	}
	for _, o := range s.FollowerStarts {
		if o < 0 || o > int64(s.MaxLag) {
			return fmt.Errorf("follower start %d: want 0 to the max lag %d", o, s.MaxLag)
		}
	}
	return s.Config.Validate()
}

// ChunkBatches is the most batches one fetch brings: fetchMaxBytes of whole batches, at
// least one (minOneMessage).
func (s ReplicaSpace) ChunkBatches() int64 { return max(1, s.FetchMaxBytes/s.BatchBytes) }

// A ReplicaPath is a shortest path to a finding: the replicated workload that replays it
// (model.SimulateReplicas gives the same event at the same step: the search checks it) and
// the event.
type ReplicaPath struct {
	Workload model.Workload
	Event    model.ReplicaEvent
}

// ReplicaSearchResult is the outcome of a search.
type ReplicaSearchResult struct {
	Space  ReplicaSpace
	States int64 // distinct abstract states reached
	Depth  int   // BFS levels explored (steps of the longest shortest path)
	// Exhausted: every reachable state was explored (no MaxStates cut): a property without a
	// path holds for every workload of any length over the space.
	Exhausted bool
	// Shortest paths to a follower's fetch overflow, a produce's and a recover's, when reached.
	Follower, Leader, Recover *ReplicaPath
	Elapsed                   time.Duration
}

// searchLog is one replica in the search: its model.Log (cloned per successor) and the base
// offsets of its segments (the active one last), which a fetch from it reads.
type searchLog struct {
	log   *model.Log
	bases []int64
}

// searchNode is a concrete replicated state: every replica's log, the leader, and how it was
// reached (the parent's index and the step; the starts for a root).
type searchNode struct {
	reps   []searchLog
	leader int
	parent int
	step   model.Step
	starts []int64
}

// SearchReplicas explores, breadth first, every abstract state of the space's replicated
// log (replicaKey), so that the first path found to each finding is a shortest one. Each
// state is stepped by the model itself (model.Log per replica, with ReplicaSet's fetch);
// a state where a replica threw is terminal. Every path found is replayed through
// model.SimulateReplicas, which must throw the same exception at the same step.
func SearchReplicas(space ReplicaSpace) (ReplicaSearchResult, error) {
	if err := space.Validate(); err != nil {
		return ReplicaSearchResult{}, err
	}
	if space.MaxStates == 0 {
		space.MaxStates = 5_000_000
	}
	res := ReplicaSearchResult{Space: space}
	start := time.Now()
	var nodes []searchNode // every state's node, kept for the paths (logs dropped once expanded)
	visited := map[string]bool{}
	var frontier []int
	for _, starts := range startCombinations(space) {
		n, err := rootNode(space, starts)
		if err != nil {
			return res, err
		}
		if k := replicaKey(n); !visited[k] {
			visited[k] = true
			nodes = append(nodes, n)
			frontier = append(frontier, len(nodes)-1)
		}
	}
	res.States = int64(len(nodes))
	cut := false
	for depth := 0; len(frontier) > 0 && !cut; depth++ {
		var next []int
		for _, i := range frontier {
			for _, st := range successorSteps(space, &nodes[i]) {
				child, ev, err := stepNode(space, &nodes[i], st)
				if err != nil {
					return res, fmt.Errorf("step %+v after %d steps: %w", st, depth, err)
				}
				child.parent, child.step = i, st
				if ev != nil {
					nodes = append(nodes, child)
					if err := res.record(space, nodes, len(nodes)-1, *ev); err != nil {
						return res, err
					}
					continue // Kafka threw: terminal
				}
				k := replicaKey(child)
				if visited[k] {
					continue
				}
				visited[k] = true
				nodes = append(nodes, child)
				next = append(next, len(nodes)-1)
				res.States++
				if res.States >= space.MaxStates {
					cut = true
					break
				}
			}
			nodes[i].reps = nil // expanded: only its path is needed now
			if cut {
				break
			}
		}
		if len(next) > 0 {
			res.Depth = depth + 1
		}
		frontier = next
	}
	res.Exhausted = !cut
	res.Elapsed = time.Since(start)
	return res, nil
}

// record keeps the first (shortest) path to each kind of overflow, checked against
// model.SimulateReplicas.
func (res *ReplicaSearchResult) record(space ReplicaSpace, nodes []searchNode, i int, ev model.ReplicaEvent) error {
	var slot **ReplicaPath
	switch stepKind(nodes[i].step) {
	case "fetch":
		slot = &res.Follower
	case "append":
		slot = &res.Leader
	case "recover":
		slot = &res.Recover
	default:
		return fmt.Errorf("an overflow on a %s step", stepKind(nodes[i].step))
	}
	if *slot != nil {
		return nil
	}
	w := pathWorkload(space, nodes, i)
	ev.Step = len(w.Steps) - 1
	if err := crossCheck(space, w, ev); err != nil {
		return err
	}
	*slot = &ReplicaPath{Workload: w, Event: ev}
	return nil
}

// crossCheck replays a path through model.SimulateReplicas: the search's stepper and the
// model's ReplicaSet must agree on the exception, its replica and its step.
func crossCheck(space ReplicaSpace, w model.Workload, ev model.ReplicaEvent) error {
	rs, err := model.SimulateReplicas(space.Config, space.Era, w)
	if err != nil {
		return fmt.Errorf("the search's path does not replay: %w", err)
	}
	got := rs.Events()
	if len(got) != 1 || got[0].Replica != ev.Replica || got[0].Step != ev.Step || got[0].Kind != ev.Kind || got[0].Message != ev.Message {
		return fmt.Errorf("the search's stepper and model.ReplicaSet disagree on a path: search %+v, model %+v", ev, got)
	}
	return nil
}

// pathWorkload is the replicated workload of node i's path.
func pathWorkload(space ReplicaSpace, nodes []searchNode, i int) model.Workload {
	var steps []model.Step
	for ; nodes[i].starts == nil; i = nodes[i].parent {
		steps = append(steps, nodes[i].step)
	}
	for a, b := 0, len(steps)-1; a < b; a, b = a+1, b-1 {
		steps[a], steps[b] = steps[b], steps[a]
	}
	spec := model.ReplicaSpec{Count: space.Replicas, FetchMaxBytes: space.FetchMaxBytes, StartOffsets: nodes[i].starts}
	w := model.Workload{Config: space.Config.Map(), Replicas: &spec, Steps: steps}
	if space.Era.Candidate == "" {
		w.KafkaVersion = space.Era.First.String()
	} else {
		w.Rule = space.Era.Rule().String()
	}
	return w
}

// startCombinations lists the followers' start offsets (replica 0 at 0).
func startCombinations(space ReplicaSpace) [][]int64 {
	starts := space.FollowerStarts
	if len(starts) == 0 {
		starts = []int64{0}
	}
	out := [][]int64{{0}}
	for r := 1; r < space.Replicas; r++ {
		var next [][]int64
		for _, prefix := range out {
			for _, s := range starts {
				next = append(next, append(append([]int64(nil), prefix...), s))
			}
		}
		out = next
	}
	return out
}

func rootNode(space ReplicaSpace, starts []int64) (searchNode, error) {
	n := searchNode{parent: -1, starts: starts}
	for _, s := range starts {
		// ForgetRolled: a rolled segment never matters again (the search tracks the bases
		// itself), and a clone then copies only the active segment; without recovers, not
		// even its batches (only LogSegment.recover reads them again).
		l, err := model.NewLog(space.Config, space.Era.Rule(), model.LogOptions{StartOffset: s, Era: space.Era, ForgetRolled: true, ForgetBatches: !space.Recovers})
		if err != nil {
			return n, err
		}
		n.reps = append(n.reps, searchLog{log: l, bases: []int64{s}})
	}
	return n, nil
}

// batchAt is the space's batch at an offset: one record of BatchBytes, its timestamp
// rising with the offset.
func batchAt(space ReplicaSpace, offset int64) model.Batch {
	return model.Batch{Records: 1, Bytes: space.BatchBytes, MaxTimestamp: 1000 + offset, BaseOffset: offset}
}

// successorSteps lists the steps the space allows from a state.
func successorSteps(space ReplicaSpace, n *searchNode) []model.Step {
	leo := n.reps[n.leader].log.NextOffset()
	var out []model.Step
	produce := true
	for r := range n.reps {
		if r != n.leader && leo-n.reps[r].log.NextOffset() >= int64(space.MaxLag) {
			produce = false
		}
	}
	if produce {
		b := batchAt(space, leo)
		b.BaseOffset = 0 // the leader assigns a produce's offsets
		out = append(out, model.AppendStep(b))
	}
	// A follower below the leader's log start offset would be truncated by Kafka
	// (OFFSET_OUT_OF_RANGE), which the model refuses: no such fetch. The leader's first base
	// lies above that follower's log end, so the state's key holds it (replicaKey).
	leaderStart := n.reps[n.leader].bases[0]
	for r := range n.reps {
		if at := n.reps[r].log.NextOffset(); r != n.leader && at < leo && at >= leaderStart {
			out = append(out, model.Step{Fetch: true, Replica: r, HasReplica: true})
		}
	}
	for r := range n.reps {
		if space.Restarts {
			out = append(out, model.Step{Restart: true, Replica: r, HasReplica: true})
		}
		if space.Recovers {
			out = append(out, model.Step{Recover: true, Replica: r, HasReplica: true})
		}
		if space.Elections && r != n.leader && n.reps[r].log.NextOffset() == leo {
			out = append(out, model.Step{Elect: true, Replica: r, HasReplica: true})
		}
	}
	return out
}

// stepNode applies one step to a copy of the state, as model.ReplicaSet.Apply does; the
// event is the exception a replica threw, if one did.
func stepNode(space ReplicaSpace, n *searchNode, st model.Step) (searchNode, *model.ReplicaEvent, error) {
	child := searchNode{leader: n.leader, reps: make([]searchLog, len(n.reps))}
	copy(child.reps, n.reps)
	target := st.Replica
	if st.Elect {
		child.leader = target
		return child, nil, nil
	}
	if len(st.Append) > 0 {
		target = n.leader
	}
	rep := searchLog{log: n.reps[target].log.Clone(), bases: append([]int64(nil), n.reps[target].bases...)}
	child.reps[target] = rep
	before := len(rep.log.Events())
	var err error
	switch {
	case len(st.Append) > 0:
		err = rep.log.Append(st.Append...)
	case st.Fetch:
		err = rep.log.AppendFrom(model.OriginReplication, fetchChunk(space, n.reps[n.leader], rep.log.NextOffset())...)
	case st.Restart:
		err = rep.log.Restart()
	case st.Recover:
		err = rep.log.Recover()
	default:
		return child, nil, errors.New("a step the search does not take")
	}
	if err != nil {
		return child, nil, err
	}
	// A roll starts the active segment at a new base: the log end offset (a produce's or a
	// fetch's first offset is the log end offset, so RollToFirstOffset changes nothing here).
	if a := rep.log.Active().BaseOffset(); a != rep.bases[len(rep.bases)-1] {
		rep.bases = append(rep.bases, a)
	}
	child.reps[target] = rep
	if evs := rep.log.Events(); len(evs) > before {
		e := evs[before]
		if e.Kind != model.EventOffsetIndexFull && e.Kind != model.EventTimeIndexFull {
			return child, nil, fmt.Errorf("replica %d: %s: %s", target, e.Kind, e.Message)
		}
		return child, &model.ReplicaEvent{Replica: target, Event: e}, nil
	}
	return child, nil, nil
}

// fetchChunk is ReplicaSet's fetch from the leader: from offset, the whole batches of the
// one leader segment holding it (LocalLog.read reads a single segment), up to fetchMaxBytes
// and at least one (minOneMessage).
func fetchChunk(space ReplicaSpace, leader searchLog, from int64) []model.Batch {
	end := leader.log.NextOffset()
	for i := len(leader.bases) - 1; i >= 0; i-- {
		if leader.bases[i] <= from {
			if i+1 < len(leader.bases) {
				end = leader.bases[i+1]
			}
			break
		}
	}
	n := min(end-from, space.ChunkBatches())
	out := make([]model.Batch, n)
	for i := range out {
		out[i] = batchAt(space, from+int64(i))
	}
	return out
}

// replicaKey is the abstract state (docs/proofs.md, "Replicas"): relative to the leader's
// log end offset L and to the lowest log end offset m of any replica, per replica: L minus
// its log end offset; its active segment's size, byte counter (LogSegment.bytesSinceLastIndexEntry),
// offset- and time-index entry counts, and whether its max timestamp is above the time
// index's last entry (a close adds a final time entry); and the base offsets of its segments
// above m, relative to L (a fetch from offset x ≥ m ends at the leader's first base above
// x). Then the leader. Offsets, timestamps and the segments below m appear nowhere: every
// batch is the space's one size with timestamps rising, so only differences matter.
func replicaKey(n searchNode) string {
	leo := n.reps[n.leader].log.NextOffset()
	low := leo
	for _, r := range n.reps {
		low = min(low, r.log.NextOffset())
	}
	b := make([]byte, 0, 64)
	b = strconv.AppendInt(b, int64(n.leader), 10)
	for _, r := range n.reps {
		a := r.log.Active()
		pending := a.Size() > 0 && (a.TimeIndex().Entries() == 0 || a.MaxTimestamp() > a.TimeIndex().LastEntry().Timestamp)
		b = append(b, '|')
		b = strconv.AppendInt(b, leo-r.log.NextOffset(), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, a.Size(), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, a.BytesSinceLastIndexEntry(), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(a.OffsetIndex().Entries()), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(a.TimeIndex().Entries()), 10)
		b = strconv.AppendBool(b, pending)
		for _, base := range r.bases {
			if base > low {
				b = append(b, ':')
				b = strconv.AppendInt(b, leo-base, 10)
			}
		}
	}
	return string(b)
}
