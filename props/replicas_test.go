package props

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"kidx/model"
)

// tinyReplicaSpace is the smallest space where a clean restart misaligns a follower:
// batches of 100 B (one record), index.interval.bytes 99 (every batch after a segment's
// first, or after a restart's counter reset, is indexed), segment.index.bytes 24 (3 offset
// slots, 2 time slots: TimeIndex.isFull at 1 entry), fetches of up to 3 batches.
func tinyReplicaSpace(era model.Era) ReplicaSpace {
	cfg := model.DefaultConfig()
	cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = 3000, 99, 24
	return ReplicaSpace{Config: cfg, Era: era, BatchBytes: 100, Replicas: 2, FetchMaxBytes: 300, MaxLag: 4,
		FollowerStarts: []int64{0}, Restarts: true}
}

func candidate(id string, fixA, fixB bool) model.Era {
	e := model.EraForRule(model.PerBatch)
	e.Candidate, e.ID = e.ID, id
	e.RollWhenAppendLacksIndexRoom, e.SkipEntryWhenIndexFull = fixA, fixB
	return e
}

// FollowerAppendNeverOverflows, explicit-state search, per-batch: the shortest path is 6
// steps, worked by hand. 1 produce: leader L holds batch 0 (counter 0, not > 99: no entry).
// 2 fetch: follower F holds batch 0, no entry. 3 L restarts: close appends the final time
// entry (ts of batch 0) into the reserved slot, so L's time index is full (1 entry) and its
// counter restarts at 0. 4 produce: shouldRoll sees the full time index, L rolls at 1; batch
// 1 is the new segment's first (no entry). 5 produce: batch 2 is indexed (counter 100 > 99):
// L's segment [1, 2] is full. 6 F fetches from 1: L's segment holding 1 ends at its log end
// 3, so the chunk is batches 1 and 2; F's shouldRoll sees an empty time index (F never
// closed its segment), so no roll; batch 1 is indexed (counter 100), then batch 2 (counter
// 100 again) meets the full time index: "Attempt to append to a full time index (size =
// 1)." No shorter path exists: F's index needs an entry before the chunk and two entries in
// it, so F holds a batch before a chunk of two batches that L put in one segment (3
// batches, 3 produces, 2 fetches) and something must make L roll where F does not (the
// restart's entry). Under 4.0.0 (per-append) no fetch throws.
func TestSearchReplicasShortestFollowerOverflow(t *testing.T) {
	res, err := SearchReplicas(tinyReplicaSpace(model.EraForRule(model.PerBatch)))
	if err != nil {
		t.Fatal(err)
	}
	p := res.Follower
	if !res.Exhausted || p == nil {
		t.Fatalf("exhausted %v, follower path %v", res.Exhausted, p)
	}
	want := []string{"append", "fetch", "restart", "append", "append", "fetch"}
	if len(p.Workload.Steps) != len(want) {
		t.Fatalf("%d steps, want %d: %+v", len(p.Workload.Steps), len(want), p.Workload.Steps)
	}
	for i, s := range p.Workload.Steps {
		if stepKind(s) != want[i] {
			t.Errorf("step %d is a %s, want a %s", i, stepKind(s), want[i])
		}
	}
	if s := p.Workload.Steps[2]; s.Replica != 0 || p.Event.Replica != 1 || p.Event.Step != 5 ||
		p.Event.Message != "Attempt to append to a full time index (size = 1)." {
		t.Errorf("restart of replica %d, event %+v", s.Replica, p.Event)
	}
	if res.Leader != nil || res.Recover != nil {
		t.Errorf("leader %v, recover %v: the space has no recover and a produce is one batch", res.Leader, res.Recover)
	}

	res, err = SearchReplicas(tinyReplicaSpace(model.EraForRule(model.PerAppend)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exhausted || res.Follower != nil || res.Leader != nil {
		t.Errorf("per-append: exhausted %v, follower %v, leader %v", res.Exhausted, res.Follower, res.Leader)
	}
}

// Fix (a) within its assumption (fetches of at most segment.index.bytes/12 batches) and fix
// (b): the search exhausts the space, with restarts, recovers, elections and followers
// starting inside a leader segment, and no fetch throws. recover()'s overflow is another
// matter (docs/kafka-hazards.md §1): under fix (a) at segment.index.bytes 36 it is reached.
func TestSearchReplicasFixesNeverOverflowFollower(t *testing.T) {
	for _, x := range []int64{24, 36} {
		for _, era := range []model.Era{candidate("fix-a", true, false), candidate("fix-b", false, true)} {
			s := tinyReplicaSpace(era)
			s.Config.SegmentIndexBytes = x
			s.FetchMaxBytes = int64(RollOnRoomMaxBatches(s.Config, era)) * s.BatchBytes
			s.FollowerStarts, s.Recovers, s.Elections = []int64{0, 1, 2}, true, true
			res, err := SearchReplicas(s)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Exhausted || res.Follower != nil || res.Leader != nil {
				t.Errorf("%s, segment.index.bytes %d: exhausted %v, follower %v, leader %v", era.ID, x, res.Exhausted, res.Follower, res.Leader)
			}
			t.Logf("%s segment.index.bytes=%d: %d states, depth %d, %s; recover overflow reached: %v", era.ID, x, res.States, res.Depth, res.Elapsed, res.Recover != nil)
		}
	}
}

// The abstraction is exact for the search (docs/proofs.md, "Replicas"): two concrete states
// with one key, extended by the same steps (the same positions in successorSteps), keep
// one key and throw alike. Checked on random walks of the per-batch space with every step
// kind, against the first state seen with each key.
func TestReplicaKeyIsExact(t *testing.T) {
	space := tinyReplicaSpace(model.EraForRule(model.PerBatch))
	space.Config.SegmentIndexBytes = 36
	space.FollowerStarts, space.Recovers, space.Elections = []int64{0, 1}, true, true
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]searchNode{}
	pairs := 0
	for walk := 0; walk < 400; walk++ {
		n, err := rootNode(space, []int64{0, int64(rng.IntN(2))})
		if err != nil {
			t.Fatal(err)
		}
		for depth := 0; depth < 25; depth++ {
			k := replicaKey(n)
			if other, ok := seen[k]; !ok {
				seen[k] = n
			} else if depth > 0 {
				pairs++
				a, b := n, other
				for ext := 0; ext < 8; ext++ {
					sa, sb := successorSteps(space, &a), successorSteps(space, &b)
					if len(sa) != len(sb) {
						t.Fatalf("key %s: %d and %d successors", k, len(sa), len(sb))
					}
					i := rng.IntN(len(sa))
					ca, ea, err1 := stepNode(space, &a, sa[i])
					cb, eb, err2 := stepNode(space, &b, sb[i])
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if (ea == nil) != (eb == nil) || (ea != nil && (ea.Kind != eb.Kind || ea.Message != eb.Message || ea.Replica != eb.Replica)) {
						t.Fatalf("key %s, step %+v: events %v and %v", k, sa[i], ea, eb)
					}
					if ea != nil {
						break
					}
					if replicaKey(ca) != replicaKey(cb) {
						t.Fatalf("key %s, step %+v: keys part: %s and %s", k, sa[i], replicaKey(ca), replicaKey(cb))
					}
					a, b = ca, cb
				}
			}
			steps := successorSteps(space, &n)
			c, ev, err := stepNode(space, &n, steps[rng.IntN(len(steps))])
			if err != nil {
				t.Fatal(err)
			}
			if ev != nil {
				break
			}
			n = c
		}
	}
	if pairs < 1000 {
		t.Errorf("only %d pairs of states with one key compared", pairs)
	}
}

// The search's stepper is model.ReplicaSet's: random paths of the space, replayed through
// model.ReplicaSet step by step, leave every replica at the same log end offset, active
// segment base and entry counts, and throw the same exception at the same step.
func TestSearchStepperAgreesWithReplicaSet(t *testing.T) {
	space := tinyReplicaSpace(model.EraForRule(model.PerBatch))
	space.Config.SegmentIndexBytes = 48
	space.Replicas, space.FollowerStarts, space.Recovers, space.Elections = 3, []int64{0, 2}, true, true
	rng := rand.New(rand.NewPCG(3, 4))
	for walk := 0; walk < 200; walk++ {
		starts := []int64{0, int64(2 * rng.IntN(2)), int64(2 * rng.IntN(2))}
		n, err := rootNode(space, starts)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := model.NewReplicaSet(space.Config, space.Era, model.ReplicaSpec{Count: 3, FetchMaxBytes: space.FetchMaxBytes, StartOffsets: starts})
		if err != nil {
			t.Fatal(err)
		}
		for depth := 0; depth < 40; depth++ {
			steps := successorSteps(space, &n)
			st := steps[rng.IntN(len(steps))]
			c, ev, err := stepNode(space, &n, st)
			if err != nil {
				t.Fatal(err)
			}
			before := len(rs.Events())
			if err := rs.Apply(st); err != nil {
				t.Fatalf("walk %d step %d %+v: %v", walk, depth, st, err)
			}
			got := rs.Events()[before:]
			if (ev == nil) != (len(got) == 0) || (ev != nil && (got[0].Replica != ev.Replica || got[0].Message != ev.Message)) {
				t.Fatalf("walk %d step %d %+v: search %v, ReplicaSet %v", walk, depth, st, ev, got)
			}
			if ev != nil {
				break
			}
			n = c
			for r, l := range rs.Replicas() {
				a, b := l.Active(), n.reps[r].log.Active()
				if l.NextOffset() != n.reps[r].log.NextOffset() || a.BaseOffset() != b.BaseOffset() ||
					a.OffsetIndex().Entries() != b.OffsetIndex().Entries() || a.TimeIndex().Entries() != b.TimeIndex().Entries() ||
					a.BytesSinceLastIndexEntry() != b.BytesSinceLastIndexEntry() {
					t.Fatalf("walk %d step %d %+v: replica %d differs", walk, depth, st, r)
				}
			}
		}
	}
}

// kidx check --replicas's rapid run (FollowerAppendNeverOverflows, per-batch) finds the
// follower's overflow from seed 1 within a few cases, and its shrunk counterexample
// replays through model.SimulateReplicas with a follower's fetch throwing.
func TestCheckReplicasFindsFollowerOverflow(t *testing.T) {
	era := model.EraForRule(model.PerBatch)
	res, err := CheckReplicas(FollowerAppendNeverOverflows, ReplicaOptions{Era: era, Checks: 10000, Seed: 1, ShrinkTime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Finding || res.Kind != Question || res.Cases > 50 {
		t.Fatalf("outcome %s (%s) after %d cases", res.Outcome, res.Kind, res.Cases)
	}
	if res.Elapsed > 10*time.Second {
		t.Errorf("took %s, want a few seconds", res.Elapsed)
	}
	data, err := res.Counterexample.Workload.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	cfg := model.DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	c := &ReplicaCase{Workload: w, Config: cfg, Era: era}
	if FollowerAppendNeverOverflows.Check(c) == nil {
		t.Errorf("the counterexample does not replay: %s", data)
	}
	t.Logf("%d cases, %s, %d steps", res.Cases, res.Elapsed, len(w.Steps))
}

// Under either fix (fix (a) with fetches within its assumption) and under 4.0.0's
// per-append rule, no follower's fetch throws on rapid's cases; the property is then an
// invariant.
func TestCheckReplicasHoldsUnderFixes(t *testing.T) {
	for _, era := range []model.Era{candidate("fix-a", true, false), candidate("fix-b", false, true), model.EraForRule(model.PerAppend)} {
		res, err := CheckReplicas(FollowerAppendNeverOverflows, ReplicaOptions{Era: era, Checks: 300, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != Holds || res.Kind != Invariant {
			t.Errorf("%s: %s (%s): %v", era.ID, res.Outcome, res.Kind, res.Counterexample)
		}
	}
}

// The larger space of make check-long (KIDX_LONG_REPLICAS=1; about 20 s and 1 GB): three
// replicas, segment.index.bytes 36, followers starting 0 to 2 batches in and at most 4
// behind, clean restarts and elections. Per-batch reaches the follower's overflow; fix (a)
// within its assumption exhausts the space without one.
func TestSearchReplicasLong(t *testing.T) {
	if os.Getenv("KIDX_LONG_REPLICAS") == "" {
		t.Skip("make check-long runs it (KIDX_LONG_REPLICAS=1)")
	}
	for _, era := range []model.Era{model.EraForRule(model.PerBatch), candidate("fix-a", true, false)} {
		s := tinyReplicaSpace(era)
		s.Config.SegmentIndexBytes, s.FetchMaxBytes, s.Replicas = 36, 300, 3
		s.FollowerStarts, s.Elections, s.MaxStates = []int64{0, 1, 2}, true, 1_000_000
		res, err := SearchReplicas(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d states, depth %d, exhausted %v, %s", era.ID, res.States, res.Depth, res.Exhausted, res.Elapsed)
		if era.Candidate == "" && res.Follower == nil {
			t.Errorf("per-batch: no follower overflow")
		}
		if era.Candidate != "" && (!res.Exhausted || res.Follower != nil || res.Leader != nil) {
			t.Errorf("fix (a): exhausted %v, follower %v, leader %v", res.Exhausted, res.Follower, res.Leader)
		}
	}
}
