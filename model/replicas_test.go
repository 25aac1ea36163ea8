package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// followerOverflowWorkload is docs/kafka-hazards.md §1's reproduction as a replicated
// workload: segment.bytes 1 GiB, index.interval.bytes 4096, segment.index.bytes 4096,
// one-record batches of 5070 bytes with rising timestamps; 547 produces; the follower
// fetches 1 MiB (206 batches: 207 × 5070 = 1,049,490 > 1,048,576), restarts cleanly, and
// fetches twice more.
func followerOverflowWorkload(version string) Workload {
	w := Workload{
		Config:       map[string]int64{"segment.bytes": 1 << 30, "index.interval.bytes": 4096, "segment.index.bytes": 4096},
		KafkaVersion: version,
		Replicas:     &ReplicaSpec{Count: 2, FetchMaxBytes: DefaultFetchMaxBytes, StartOffsets: []int64{0, 0}},
	}
	for i := int64(0); i < 547; i++ {
		w.Steps = append(w.Steps, AppendStep(Batch{Records: 1, Bytes: 5070, MaxTimestamp: 1000 + i}))
	}
	fetch := Step{Fetch: true, Replica: 1, HasReplica: true}
	w.Steps = append(w.Steps, fetch, Step{Restart: true, Replica: 1, HasReplica: true}, fetch, fetch)
	return w
}

func simulateReplicas(t *testing.T, w Workload, era Era) *ReplicaSet {
	t.Helper()
	cfg := DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	rs, err := SimulateReplicas(cfg, era, w)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// The reproduction, worked by hand (testdata/scenarios/follower-overflow.txt has the same
// sequence step by step): the leader's time index (4096/12 = 341 slots, full at 340:
// TimeIndex.isFull) is full after batches 1-340 are indexed, so its 342nd produce rolls
// (time-index-full) and segment 1 starts at 341. The follower's first fetch takes batches
// 0-205 (205 entries); after the restart its counter starts at 0, so its second fetch,
// 206-340 (the end of the leader's segment 0: a fetch never spans a leader segment), adds
// 134 (339 in all); the third fetch, 341-546, passes shouldRoll's one isFull check (339 <
// 340) and throws at batch 342 from TimeIndex.maybeAppend.
func TestFollowerOverflowReproduction(t *testing.T) {
	w := followerOverflowWorkload("4.1.0")
	era, _ := EraForKafkaVersion("4.1.0")
	rs := simulateReplicas(t, w, era)
	ev := rs.Events()
	if len(ev) != 1 || ev[0].Replica != 1 || ev[0].Step != 550 || ev[0].Kind != EventTimeIndexFull ||
		ev[0].Message != "Attempt to append to a full time index (size = 340)." {
		t.Fatalf("events %+v, want replica 1's time-index overflow at step 550 (size = 340)", ev)
	}
	leader := rs.Replicas()[0].Segments()
	if len(leader) != 2 || leader[0].RollReason() != RollTimeIndexFull || leader[1].BaseOffset() != 341 ||
		leader[0].TimeIndex().Entries() != 340 {
		t.Fatalf("leader: %d segments, the first rolled for %q", len(leader), leader[0].RollReason())
	}
	// Kafka's state up to the throwing append (docs/contract.md §4): batches 0-340, 339 entries.
	follower := rs.Replicas()[1].Segments()
	if len(follower) != 1 || follower[0].LastOffset() != 340 || follower[0].OffsetIndex().Entries() != 339 {
		t.Fatalf("follower: %d segments, last offset %d, %d entries; want 1, 340, 339",
			len(follower), follower[0].LastOffset(), follower[0].OffsetIndex().Entries())
	}

	// Kafka 4.0.0 makes one entry per append: the follower's three fetches make one (the third,
	// counter 135 × 5070 > 4096) and nothing throws.
	era400, _ := EraForKafkaVersion("4.0.0")
	rs = simulateReplicas(t, followerOverflowWorkload("4.0.0"), era400)
	if ev := rs.Events(); len(ev) != 0 {
		t.Fatalf("4.0.0: events %+v, want none", ev)
	}
	if f := rs.Replicas()[1].Segments(); len(f) != 1 || f[0].LastOffset() != 546 || f[0].OffsetIndex().Entries() != 1 {
		t.Errorf("4.0.0 follower: %d segments, want one of offsets 0-546 with one entry", len(f))
	}

	// Candidate fix (a) (docs/kafka-hazards.md §6): the third fetch has 206 batches and the
	// time index one free slot, so the follower rolls at 341 first, where the leader did.
	fixA := era
	fixA.RollWhenAppendLacksIndexRoom = true
	rs = simulateReplicas(t, w, fixA)
	if ev := rs.Events(); len(ev) != 0 {
		t.Fatalf("(a): events %+v, want none", ev)
	}
	if f := rs.Replicas()[1].Segments(); len(f) != 2 || f[0].RollReason() != RollIndexRoom || f[1].BaseOffset() != 341 {
		t.Errorf("(a) follower: %d segments, want a roll for index room at 341", len(f))
	}
}

// A follower whose log starts inside a leader segment (a new replica after DeleteRecords)
// fetches from its start offset, and its chunks still end at the leader's segment end.
func TestFollowerStartsInsideLeaderSegment(t *testing.T) {
	w := followerOverflowWorkload("4.1.0")
	w.Replicas.StartOffsets = []int64{0, 100}
	w.Steps = w.Steps[:547]
	fetch := Step{Fetch: true, Replica: 1, HasReplica: true}
	w.Steps = append(w.Steps, fetch, fetch, fetch)
	rs := simulateReplicas(t, w, EraForRule(PerBatch))
	segs := rs.Replicas()[1].Segments()
	// Fetch 1: 100-305 (206 batches); fetch 2: 306-340 (the leader's segment 0 ends at 341);
	// fetch 3: 341-546. The follower's one segment starts at 100; its time index fills at 340
	// entries: batch 100 none, then one per batch: 101-340 is 240 entries, then 341-546 needs
	// 206 more: the overflow comes at batch 441 (entry 341 would be batch 441).
	if segs[0].BaseOffset() != 100 {
		t.Fatalf("follower's first segment at %d, want 100", segs[0].BaseOffset())
	}
	ev := rs.Events()
	if len(ev) != 1 || ev[0].Step != 549 || ev[0].Kind != EventTimeIndexFull {
		t.Fatalf("events %+v, want the follower's time-index overflow at step 549", ev)
	}
}

// Leadership moves only to a caught-up replica (kidx models no truncation); after it, the
// produces go to the new leader and the old one fetches from it.
func TestElect(t *testing.T) {
	b := Batch{Records: 1, Bytes: 100, MaxTimestamp: 1}
	w := Workload{Replicas: &ReplicaSpec{Count: 2, FetchMaxBytes: 1000, StartOffsets: []int64{0, 0}}}
	fetch := Step{Fetch: true, Replica: 1, HasReplica: true}
	w.Steps = []Step{AppendStep(b), AppendStep(b), {Elect: true, Replica: 1, HasReplica: true}}
	cfg := DefaultConfig()
	if _, err := SimulateReplicas(cfg, EraForRule(PerBatch), w); err == nil || !strings.Contains(err.Error(), "replica 1 is not caught up (log end offset 0, the leader's 2)") {
		t.Fatalf("electing a lagging replica: %v", err)
	}
	w.Steps = []Step{AppendStep(b), AppendStep(b), fetch, {Elect: true, Replica: 1, HasReplica: true}, AppendStep(b), {Fetch: true, Replica: 0, HasReplica: true}, fetch}
	_, err := SimulateReplicas(cfg, EraForRule(PerBatch), w)
	if err == nil || !strings.Contains(err.Error(), "replica 1 is the leader") {
		t.Fatalf("a fetch by the leader: %v", err)
	}
	w.Steps = w.Steps[:6]
	rs, err := SimulateReplicas(cfg, EraForRule(PerBatch), w)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Leader() != 1 || rs.Replicas()[0].NextOffset() != 3 || rs.Replicas()[1].NextOffset() != 3 {
		t.Errorf("leader %d, log ends %d and %d; want 1, 3, 3", rs.Leader(), rs.Replicas()[0].NextOffset(), rs.Replicas()[1].NextOffset())
	}
}

// docs/contract.md §3.1: the replicated form parses, writes back, and is refused where it
// does not fit.
func TestReplicatedWorkloadJSON(t *testing.T) {
	in := `{"config":{"segment.index.bytes":4096},"startOffset":5,"replicas":{"count":3,"fetchMaxBytes":500,"startOffsets":[5,5,7]},
"steps":[{"append":[{"records":2,"bytes":100}]},{"fetch":1},{"fetch":2,"maxBytes":70},{"restart":true,"replica":1},{"recover":true},{"roll":true,"replica":2},{"elect":1}]}`
	w, err := ParseWorkload([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if w.Replicas == nil || w.Replicas.Count != 3 || w.Replicas.FetchMaxBytes != 500 || w.Replicas.StartOffsets[2] != 7 {
		t.Fatalf("replicas %+v", w.Replicas)
	}
	want := []Step{{}, {Fetch: true, Replica: 1, HasReplica: true}, {Fetch: true, Replica: 2, HasReplica: true, FetchMaxBytes: 70},
		{Restart: true, Replica: 1, HasReplica: true}, {Recover: true}, {Roll: true, Replica: 2, HasReplica: true}, {Elect: true, Replica: 1, HasReplica: true}}
	for i := 1; i < len(want); i++ {
		g := w.Steps[i]
		if g.Fetch != want[i].Fetch || g.Elect != want[i].Elect || g.Restart != want[i].Restart || g.Recover != want[i].Recover ||
			g.Roll != want[i].Roll || g.Replica != want[i].Replica || g.HasReplica != want[i].HasReplica || g.FetchMaxBytes != want[i].FetchMaxBytes {
			t.Errorf("step %d: got %+v, want %+v", i, g, want[i])
		}
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseWorkload(out)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(out) {
		t.Errorf("round trip:\n%s\n%s", out, again)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"steps":[{"fetch":1}]}`, `steps[0]: a fetch step naming a replica needs a replicated workload`},
		{`{"steps":[{"restart":true,"replica":1}]}`, `needs a replicated workload`},
		{`{"replicas":{"count":1},"steps":[]}`, `replicas.count: 1: want 2 to 8 replicas`},
		{`{"replicas":{"count":2,"startOffsets":[0]},"steps":[]}`, `replicas.startOffsets: 1 offsets for 2 replicas`},
		{`{"startOffset":3,"replicas":{"count":2,"startOffsets":[4,5]},"steps":[]}`, `replicas.startOffsets[0]: 4: the first leader's log starts`},
		{`{"replicas":{"count":2},"batches":[{"records":1,"bytes":100}]}`, `needs the "steps" form`},
		{`{"replicas":{"count":2},"steps":[{"fetch":2}]}`, `replica 2: the workload has replicas 0 to 1`},
		{`{"replicas":{"count":2},"steps":[{"append":[{"records":1,"bytes":100}],"origin":"replication"}]}`, `a follower's append is a "fetch" step`},
		{`{"replicas":{"count":2},"steps":[{"append":[{"records":1,"bytes":100,"baseOffset":4}]}]}`, `the leader assigns a produce's offsets`},
		{`{"replicas":{"count":2},"steps":[{"append":[{"records":1,"bytes":100}],"maxBytes":4}]}`, `only a fetch has "maxBytes"`},
		{`{"replicas":{"count":2},"steps":[{"fetch":1,"replica":1}]}`, `only a restart, recover or roll names a "replica"`},
		{`{"replicas":{"count":2},"steps":[{"fetch":1,"elect":1}]}`, `a step is exactly one of`},
		{`{"replicas":{"count":2},"steps":[{"crash":{"recoveryPoint":0,"segments":[{"baseOffset":0,"logBytes":0,"indexBytes":0,"timeIndexBytes":0}]}}]}`, `no crash steps`},
	} {
		if _, err := ParseWorkload([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// kidx models no truncation: a follower whose log ends past the leader's (Kafka answers
// OFFSET_OUT_OF_RANGE and truncates it) is refused, as the file side refuses it.
func TestFetchPastLeaderEndRefused(t *testing.T) {
	w := Workload{Replicas: &ReplicaSpec{Count: 2, FetchMaxBytes: 1000, StartOffsets: []int64{0, 5}},
		Steps: []Step{AppendStep(Batch{Records: 1, Bytes: 100, MaxTimestamp: 1}), {Fetch: true, Replica: 1, HasReplica: true}}}
	_, err := SimulateReplicas(DefaultConfig(), EraForRule(PerBatch), w)
	if err == nil || !strings.Contains(err.Error(), "replica 1's log ends at offset 5, past the leader's (replica 0) end 1") {
		t.Fatalf("got %v", err)
	}
}
