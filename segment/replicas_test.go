package segment_test

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// Expected values in this file are worked by hand from docs/kafka.md (§2 the append rules,
// §4/§6 isFull: an offset index of segment.index.bytes/8 entries, a time index full at
// segment.index.bytes/12 - 1, §8 one shouldRoll check per append) and
// testdata/scenarios/follower-overflow.txt, which works the same sequence for the model. Files
// are read back with encoding/binary, not with the package's readers.

const tsBase = 1_700_000_000_000

// oneRecordBatches is n produce steps of one 5070-byte one-record batch each, the batch at
// offset o stamped tsBase+o (every batch a newer timestamp).
func oneRecordBatches(from, n int64, bytes int) []segment.Step {
	var steps []segment.Step
	for o := from; o < from+n; o++ {
		steps = append(steps, segment.Step{Append: []segment.BatchSpec{{Records: 1, Bytes: bytes, MaxTimestamp: tsBase + o}}, Replica: segment.LeaderReplica})
	}
	return steps
}

// indexEntries reads an offset index's non-empty slots (relative offset, position) up to the
// first all-zero one (a preallocated index's tail).
func indexEntries(t *testing.T, path string, base int64) [][2]int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for i := 0; i+8 <= len(data); i += 8 {
		rel, pos := binary.BigEndian.Uint32(data[i:]), binary.BigEndian.Uint32(data[i+4:])
		if rel == 0 && pos == 0 {
			break
		}
		out = append(out, [2]int64{base + int64(rel), int64(pos)})
	}
	return out
}

// timeEntries reads a time index's slots (timestamp, offset) up to the first zero timestamp.
func timeEntries(t *testing.T, path string, base int64) [][2]int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for i := 0; i+12 <= len(data); i += 12 {
		ts := int64(binary.BigEndian.Uint64(data[i:]))
		if ts == 0 {
			break
		}
		out = append(out, [2]int64{ts, base + int64(binary.BigEndian.Uint32(data[i+8:]))})
	}
	return out
}

func segPath(dir string, base int64, suffix string) string {
	return filepath.Join(dir, segment.FilenamePrefixFromOffset(base)+suffix)
}

// issue23Config is the reproduction's topic: segment.bytes 1 GiB, index.interval.bytes 4096,
// segment.index.bytes 4096 (offset index 512 entries, time index full at 340).
func issue23Config() segment.Config {
	c := segment.DefaultConfig()
	c.SegmentBytes, c.IndexIntervalBytes, c.SegmentIndexBytes = 1<<30, 4096, 4096
	return c
}

// Issue 23, the reproduction (docs/kafka-hazards.md): the leader appends 547 one-batch
// produces and rolls at offset 341 (its time index full: entries at 1..340); the follower
// fetches 1 MiB chunks (206 batches: 206*5070 = 1,044,420 <= 1,048,576 < 207*5070), restarts
// cleanly after the first, fetches 206-340 (135 batches, to the leader's segment end), and its
// third fetch (341-546) throws from TimeIndex.maybeAppend at batch 342 with the time index at
// 340 entries: LogSegment.append's per-batch loop (KAFKA-806) after one shouldRoll check.
func TestReplicasFollowerOverflowIssue23(t *testing.T) {
	dir := t.TempDir()
	rs, err := segment.CreateReplicaSetFS(vfs.OS, dir, issue23Config(), segment.PerBatch,
		segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range oneRecordBatches(0, 547, 5070) {
		if err := rs.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	if got := rs.Log(0).SegmentBaseOffsets(); len(got) != 2 || got[1] != 341 {
		t.Fatalf("leader segments %v, want [0 341] (time index full after 340 entries)", got)
	}
	leaderDir, followerDir := filepath.Join(dir, "replica-0"), filepath.Join(dir, "replica-1")

	// Step 547: the first fetch.
	f1, err := rs.Fetch(1, 0)
	if err != nil || f1.From != 0 || f1.Next != 206 || f1.Batches != 206 || f1.Bytes != 206*5070 || f1.LeaderSegment != 0 || f1.Event != nil {
		t.Fatalf("fetch 1: %+v, %v; want 206 batches 0-205 from leader segment 0", f1, err)
	}
	if err := rs.Restart(1); err != nil { // step 548
		t.Fatal(err)
	}
	// Step 549: from 206 to the leader's segment end (a fetch never spans a leader segment);
	// the leader's index entry (206, 206*5070) is where its read starts.
	f2, err := rs.Fetch(1, 0)
	if err != nil || f2.From != 206 || f2.Next != 341 || f2.Batches != 135 || f2.LeaderSegment != 0 || f2.Event != nil {
		t.Fatalf("fetch 2: %+v, %v; want 135 batches 206-340 from leader segment 0", f2, err)
	}
	// Step 550: the throw.
	f3, err := rs.Fetch(1, 0)
	if err != nil || f3.From != 341 || f3.Batches != 206 || f3.LeaderSegment != 341 {
		t.Fatalf("fetch 3: %+v, %v; want 206 batches 341-546 from leader segment 341", f3, err)
	}
	wantMsg := "Attempt to append to a full time index (size = 340)."
	if f3.Event == nil || f3.Event.Kind != segment.EventTimeIndexOverflow || f3.Event.Message != wantMsg || f3.Event.Step != 550 {
		t.Fatalf("fetch 3 event %+v, want time-index-overflow at step 550: %s", f3.Event, wantMsg)
	}
	if !rs.Log(1).Failed() || rs.FailedAt(1) != 550 || rs.Log(0).Failed() {
		t.Fatalf("failed: leader %v, follower %v at %d", rs.Log(0).Failed(), rs.Log(1).Failed(), rs.FailedAt(1))
	}

	// The follower's files as the throw left them: every batch of the chunk in the .log
	// (written before the loop), the offset index one entry ahead of the time index: entries at
	// 1..205 (chunk 1), 207..340 (chunk 2: 206 none, the counter restarted at 0), 341 and 342
	// (chunk 3): 341 offset entries; the time index's 341st (for 342) threw: 340.
	fLog, fIdx, fTime := segPath(followerDir, 0, ".log"), segPath(followerDir, 0, ".index"), segPath(followerDir, 0, ".timeindex")
	if got := fileSize(t, fLog); got != 547*5070 {
		t.Fatalf("follower .log %d bytes, want 547*5070 = 2773290", got)
	}
	idx := indexEntries(t, fIdx, 0)
	if len(idx) != 341 || idx[204] != [2]int64{205, 205 * 5070} || idx[205] != [2]int64{207, 207 * 5070} || idx[340] != [2]int64{342, 342 * 5070} {
		t.Fatalf("follower offset index: %d entries (want 341), [204]=%v [205]=%v last=%v", len(idx), idx[204], idx[205], idx[len(idx)-1])
	}
	tix := timeEntries(t, fTime, 0)
	if len(tix) != 340 || tix[339] != [2]int64{tsBase + 341, 341} {
		t.Fatalf("follower time index before close: %d entries (want 340), last %v", len(tix), tix[len(tix)-1])
	}

	// A failed follower fetches nothing more (the fetcher marked the partition failed); the
	// leader goes on.
	f4, err := rs.Fetch(1, 0)
	if err != nil || f4.Batches != 0 || !strings.Contains(f4.Note, "failed at step 550") {
		t.Fatalf("fetch after the throw: %+v, %v", f4, err)
	}
	if err := rs.Apply(oneRecordBatches(547, 1, 5070)[0]); err != nil {
		t.Fatal(err)
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}

	// LogSegment.close on the failed follower: its time-index append skips the full check
	// (skipFullCheck), so the max timestamp (batch 342's, loaded by the loop) takes slot 340 of
	// 341; then both indexes are trimmed: 341 entries each.
	if got := fileSize(t, fIdx); got != 341*8 {
		t.Fatalf("follower .index after close %d bytes, want 341*8", got)
	}
	tix = timeEntries(t, fTime, 0)
	if fileSize(t, fTime) != 341*12 || len(tix) != 341 || tix[340] != [2]int64{tsBase + 342, 342} {
		t.Fatalf("follower .timeindex after close: %d bytes, last %v; want 341*12, (ts 342, 342)", fileSize(t, fTime), tix[len(tix)-1])
	}
	// The leader: segment 0 holds 0-340 with 340 entries in each index (close adds no time
	// entry: batch 340's timestamp is the last entry's); segment 341 holds 341-547, entries at
	// 342..547 (206).
	if fileSize(t, segPath(leaderDir, 0, ".log")) != 341*5070 || fileSize(t, segPath(leaderDir, 0, ".index")) != 340*8 || fileSize(t, segPath(leaderDir, 0, ".timeindex")) != 340*12 {
		t.Fatalf("leader segment 0 sizes: log %d index %d timeindex %d", fileSize(t, segPath(leaderDir, 0, ".log")), fileSize(t, segPath(leaderDir, 0, ".index")), fileSize(t, segPath(leaderDir, 0, ".timeindex")))
	}
	if got := indexEntries(t, segPath(leaderDir, 341, ".index"), 341); len(got) != 206 || got[0] != [2]int64{342, 5070} {
		t.Fatalf("leader segment 341 index: %d entries, first %v; want 206, (342, 5070)", len(got), got[0])
	}
}

// Issue 23: Kafka 4.0.0 (per-append) indexes once per append, so the same sequence never
// throws: the follower's one segment gets one offset-index entry, at chunk 3 (counter 135*5070 > 4096 after
// the restart): the append's last offset 546 at its start 341*5070 = 1,728,870.
func TestReplicasFollowerPerAppendNoOverflowIssue23(t *testing.T) {
	dir := t.TempDir()
	rs, err := segment.CreateReplicaSetFS(vfs.OS, dir, issue23Config(), segment.PerAppend,
		segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	steps := append(oneRecordBatches(0, 547, 5070),
		segment.Step{Fetch: true, Replica: 1}, segment.Step{Restart: true, Replica: 1},
		segment.Step{Fetch: true, Replica: 1}, segment.Step{Fetch: true, Replica: 1}, segment.Step{Fetch: true, Replica: 1})
	for _, s := range steps {
		if err := rs.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	if len(rs.Events(0)) != 0 || len(rs.Events(1)) != 0 || rs.Log(1).NextOffset() != 547 {
		t.Fatalf("events %v %v, follower at %d; want none and 547", rs.Events(0), rs.Events(1), rs.Log(1).NextOffset())
	}
	// The last fetch found the follower caught up.
	if n := rs.Notes(); len(n) != 1 || n[0].Step != 551 || !strings.Contains(n[0].Message, "caught up") {
		t.Fatalf("notes %+v", n)
	}
	fd := filepath.Join(dir, "replica-1")
	if got := rs.Log(1).SegmentBaseOffsets(); len(got) != 1 {
		t.Fatalf("follower segments %v, want [0]", got)
	}
	if got := indexEntries(t, segPath(fd, 0, ".index"), 0); len(got) != 1 || got[0] != [2]int64{546, 1728870} {
		t.Fatalf("follower offset index %v, want [(546, 1728870)]", got)
	}
	// The time index has one more: the restart's LogSegment.close appended the max timestamp
	// so far, batch 205's, into the then empty time index (maybeAppend with skipFullCheck).
	if got := timeEntries(t, segPath(fd, 0, ".timeindex"), 0); len(got) != 2 || got[0] != [2]int64{tsBase + 205, 205} || got[1] != [2]int64{tsBase + 546, 546} {
		t.Fatalf("follower time index %v, want [(ts 205, 205) (ts 546, 546)]", got)
	}
}

// A follower whose log starts inside a leader segment (DeleteRecords, a new replica): its first
// segment is named by its start offset, and its first fetch starts at that batch. With
// index.interval.bytes 0 every batch but a segment's first gets an entry (bytes since > 0).
func TestReplicasFollowerStartsInsideLeaderSegment(t *testing.T) {
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 0
	dir := t.TempDir()
	rs, err := segment.CreateReplicaSetFS(vfs.OS, dir, cfg, segment.PerBatch,
		segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range oneRecordBatches(0, 5, 100) {
		if err := rs.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	f, err := rs.Fetch(1, 0)
	if err != nil || f.From != 3 || f.Next != 5 || f.Batches != 2 || f.Bytes != 200 {
		t.Fatalf("fetch: %+v, %v; want batches 3-4", f, err)
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	fd := filepath.Join(dir, "replica-1")
	data, err := os.ReadFile(segPath(fd, 3, ".log"))
	if err != nil || len(data) != 200 || binary.BigEndian.Uint64(data) != 3 || binary.BigEndian.Uint64(data[100:]) != 4 {
		t.Fatalf("follower's 00000000000000000003.log: %d bytes, %v", len(data), err)
	}
	if got := indexEntries(t, segPath(fd, 3, ".index"), 3); len(got) != 1 || got[0] != [2]int64{4, 100} {
		t.Fatalf("follower offset index %v, want [(4, 100)]", got)
	}
}

// A follower's log end must be a batch boundary of the leader's log: starting at offset 1 of a
// three-record batch (offsets 0-2) is an error naming the batch; one past the leader's end is
// an error too (a real follower would truncate).
func TestReplicasFetchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start int64
		want  string
	}{
		{"inside a batch", 1, "inside the leader's batch of offsets 0-2 (at position 0 of 00000000000000000000.log)"},
		{"past the leader's end", 9, "its log ends at offset 9, past the leader's (replica 0) end 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := segment.CreateReplicaSetFS(vfs.OS, t.TempDir(), segment.DefaultConfig(), segment.PerBatch,
				segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, tc.start}})
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			if _, err := rs.Produce([]segment.BatchSpec{{Records: 3, Bytes: 200, MaxTimestamp: tsBase}}); err != nil {
				t.Fatal(err)
			}
			if _, err := rs.Fetch(1, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// minOneMessage: a fetch bounded below its first batch still returns that batch, and a bound
// ending inside a batch leaves it for the next fetch (whole batches only).
func TestReplicasFetchAtLeastOneBatch(t *testing.T) {
	rs, err := segment.CreateReplicaSetFS(vfs.OS, t.TempDir(), segment.DefaultConfig(), segment.PerBatch,
		segment.ReplicaSpec{Count: 2, FetchMaxBytes: 250, StartOffsets: []int64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for _, s := range oneRecordBatches(0, 4, 100) {
		if err := rs.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		max        int64
		from, next int64
	}{{1, 0, 1}, {0, 1, 3}, {99, 3, 4}} { // 1 byte: one batch; the workload's 250: two; 99: one
		f, err := rs.Fetch(1, tc.max)
		if err != nil || f.From != tc.from || f.Next != tc.next {
			t.Fatalf("fetch max %d: %+v, %v; want %d-%d", tc.max, f, err, tc.from, tc.next-1)
		}
	}
}

// Elections: a caught-up replica takes over, produces go to it and the old leader fetches from
// it; a lagging replica is refused (kidx models no truncation), and so is a fetch by the leader.
func TestReplicasElection(t *testing.T) {
	rs, err := segment.CreateReplicaSetFS(vfs.OS, t.TempDir(), segment.DefaultConfig(), segment.PerBatch,
		segment.ReplicaSpec{Count: 3, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for _, s := range oneRecordBatches(0, 3, 100) {
		if err := rs.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rs.Fetch(1, 0); err != nil {
		t.Fatal(err)
	}
	if err := rs.Elect(2); err == nil || !strings.Contains(err.Error(), "replica 2 is not caught up: its log ends at offset 0, the leader's (replica 0) at 3") {
		t.Fatalf("elect of a lagging replica: %v", err)
	}
	if err := rs.Elect(1); err != nil || rs.Leader() != 1 {
		t.Fatalf("elect 1: %v, leader %d", err, rs.Leader())
	}
	if _, err := rs.Produce([]segment.BatchSpec{{Records: 1, Bytes: 100, MaxTimestamp: tsBase + 3}}); err != nil {
		t.Fatal(err)
	}
	if rs.Log(1).NextOffset() != 4 || rs.Log(0).NextOffset() != 3 {
		t.Fatalf("after a produce to replica 1: ends %d (replica 1), %d (replica 0); want 4, 3", rs.Log(1).NextOffset(), rs.Log(0).NextOffset())
	}
	if f, err := rs.Fetch(0, 0); err != nil || f.From != 3 || f.Next != 4 {
		t.Fatalf("replica 0 fetching from replica 1: %+v, %v", f, err)
	}
	if _, err := rs.Fetch(1, 0); err == nil || !strings.Contains(err.Error(), "replica 1 is the leader") {
		t.Fatalf("fetch by the leader: %v", err)
	}
}

// The replicated workload format (docs/contract.md §3.1): what ParseWorkload refuses,
// each with the step path.
func TestParseReplicatedWorkloadErrors(t *testing.T) {
	const reps = `"replicas": {"count": 2}`
	for _, tc := range []struct{ in, want string }{
		{`{"steps": [{"fetch": 1}]}`, `steps[0]: "fetch" belongs to a replicated workload`},
		{`{"steps": [{"restart": true, "replica": 0}]}`, `steps[0]: "replica" belongs to a replicated workload`},
		{`{"steps": [{"elect": 1}]}`, `"elect" belongs to a replicated workload`},
		{`{` + reps + `, "batches": [{"records": 1, "bytes": 61}]}`, `a replicated workload ("replicas") is written as "steps"`},
		{`{"replicas": {"count": 1}, "steps": []}`, `replicas.count: 1 is outside [2, 8]`},
		{`{"replicas": {"count": 9}, "steps": []}`, `replicas.count: 9 is outside [2, 8]`},
		{`{"replicas": {}, "steps": []}`, `"count" is missing`},
		{`{"replicas": {"count": 2, "fetchMaxBytes": -1}, "steps": []}`, `replicas.fetchMaxBytes: -1 is outside`},
		{`{"replicas": {"count": 2, "startOffsets": [0]}, "steps": []}`, `1 offsets for 2 replicas`},
		{`{"startOffset": 5, "replicas": {"count": 2, "startOffsets": [0, 5]}, "steps": []}`, `replicas.startOffsets[0]: 0, but replica 0 is the first leader`},
		{`{"replicas": {"count": 2, "startOffsets": [0, -1]}, "steps": []}`, `replicas.startOffsets[1]: -1 is negative`},
		{`{` + reps + `, "steps": [{"fetch": 0}]}`, `steps[0].fetch: replica 0 is the leader at this step`},
		{`{` + reps + `, "steps": [{"fetch": 2}]}`, `steps[0].fetch: replica 2 does not exist (replicas 0 to 1)`},
		{`{` + reps + `, "steps": [{"elect": 1}, {"fetch": 1}]}`, `steps[1].fetch: replica 1 is the leader at this step`},
		{`{` + reps + `, "steps": [{"restart": true, "replica": 5}]}`, `steps[0].replica: replica 5 does not exist`},
		{`{` + reps + `, "steps": [{"fetch": 1, "replica": 1}]}`, `steps[0]: "replica" names the replica of a restart, recover or roll step`},
		{`{` + reps + `, "steps": [{"restart": true, "maxBytes": 5}]}`, `steps[0]: "maxBytes" bounds a fetch`},
		{`{` + reps + `, "steps": [{"fetch": 1, "elect": 1}]}`, `steps[0]: need exactly one of append, fetch, restart, recover, roll, elect`},
		{`{` + reps + `, "steps": [{"crash": {"recoveryPoint": 0, "segments": []}}]}`, `steps[0]: a crash step in a replicated workload is not modelled`},
		{`{` + reps + `, "steps": [{"fetch": 1, "maxBytes": 2147483648}]}`, `steps[0].maxBytes: 2147483648 is outside`},
		{`{"rule": "per-batch", "kafkaVersion": "4.1.0", ` + reps + `, "steps": []}`, `set either "rule" or "kafkaVersion", not both`},
	} {
		_, err := segment.ParseWorkload([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// The format's example parses to the steps it says; "replica" defaults to the current leader,
// startOffsets to the workload's startOffset, fetchMaxBytes to 1 MiB; "maxBytes": 0 is kept as
// 1 (both fetch one batch).
func TestParseReplicatedWorkload(t *testing.T) {
	w, err := segment.ParseWorkload([]byte(`{"config": {"segment.index.bytes": 4096}, "kafkaVersion": "4.1.0", "startOffset": 7,
		"replicas": {"count": 3},
		"steps": [{"append": [{"records": 1, "bytes": 5070, "maxTimestamp": 1}]}, {"fetch": 1}, {"fetch": 2, "maxBytes": 0},
		          {"restart": true, "replica": 1}, {"recover": true}, {"roll": true, "replica": 0}, {"elect": 1}, {"fetch": 0, "maxBytes": 500000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.KafkaVersion != "4.1.0" || w.Replicas == nil || w.Replicas.Count != 3 || w.Replicas.FetchMaxBytes != 1<<20 ||
		len(w.Replicas.StartOffsets) != 3 || w.Replicas.StartOffsets[2] != 7 {
		t.Fatalf("workload %+v, replicas %+v", w, w.Replicas)
	}
	want := []segment.Step{
		{Append: []segment.BatchSpec{{Records: 1, Bytes: 5070, MaxTimestamp: 1}}, Replica: segment.LeaderReplica},
		{Fetch: true, Replica: 1}, {Fetch: true, Replica: 2, MaxBytes: 1},
		{Restart: true, Replica: 1}, {Recover: true, Replica: segment.LeaderReplica}, {Roll: true, Replica: 0},
		{Elect: true, Replica: 1}, {Fetch: true, Replica: 0, MaxBytes: 500000},
	}
	got, _ := json.Marshal(w.Steps)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) {
		t.Fatalf("steps\n%s\nwant\n%s", got, exp)
	}
	// kidx write refuses the roll step before writing anything.
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "step 5: a roll step") {
		t.Fatalf("Validate: %v", err)
	}
}

// kidx write of a replicated workload: DIR holds replica-0, replica-1, each a partition
// directory; the JSON result holds one result per replica; --force replaces such a directory.
func TestWriteReplicatedWorkloadDir(t *testing.T) {
	w, err := segment.ParseWorkload([]byte(`{"config": {"segment.bytes": 300}, "replicas": {"count": 2},
		"steps": [{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1}]}, {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 2}]},
		          {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 3}]}, {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 4}]},
		          {"fetch": 1}, {"fetch": 1}, {"fetch": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	res, err := segment.WriteWorkloadDir(dir, w, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := namesIn(t, dir); strings.Join(got, " ") != "replica-0 replica-1" {
		t.Fatalf("%s holds %v", dir, got)
	}
	// segment.bytes 300: three 100-byte batches fill segment 0, the fourth rolls (300 > 300-100).
	// The follower's first fetch takes segment 0's three, the second batch 3, the third nothing.
	b, _ := json.Marshal(res)
	want := `{"leader":0,"replicas":[{"replica":0,"dir":"replica-0","segments":[0,3],"nextOffset":4,"failedAt":-1,"events":[]},` +
		`{"replica":1,"dir":"replica-1","segments":[0,3],"nextOffset":4,"failedAt":-1,"events":[]}],` +
		`"notes":[{"step":6,"replica":1,"message":"replica 1 is caught up with the leader (replica 0) at offset 4: the fetch returns nothing"}]}`
	if string(b) != want {
		t.Fatalf("result\n%s\nwant\n%s", b, want)
	}
	for _, r := range []string{"replica-0", "replica-1"} {
		if got := strings.Join(namesIn(t, filepath.Join(dir, r)), " "); got != "00000000000000000000.index 00000000000000000000.log 00000000000000000000.timeindex 00000000000000000003.index 00000000000000000003.log 00000000000000000003.timeindex" {
			t.Fatalf("%s holds %s", r, got)
		}
	}
	if _, err := segment.WriteWorkloadDir(dir, w, false); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a second write without --force: %v", err)
	}
	if _, err := segment.WriteWorkloadDir(dir, w, true); err != nil {
		t.Fatalf("--force over an earlier replicated write: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "replica-1", "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := segment.WriteWorkloadDir(dir, w, true); err == nil || !strings.Contains(err.Error(), "holds replica-1") {
		t.Fatalf("--force over a replica directory holding another file: %v", err)
	}
}

// LogSegment.translateOffset on a per-append leader: its offset-index entries name an append's
// last offset at the append's start, so the entry at or below the target may point at an
// earlier batch, and the walk from there finds the target's batch. Appends of three 100-byte
// batches, index.interval.bytes 0: the second append gets the entry (5, 300), the third (8, 600);
// a follower starting at 7 reads from position 300 (entry 5 <= 7 < 8) and takes 7-8.
func TestReplicasFetchTranslatesOffsetPerAppend(t *testing.T) {
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 0
	dir := t.TempDir()
	rs, err := segment.CreateReplicaSetFS(vfs.OS, dir, cfg, segment.PerAppend,
		segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 7}})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for a := int64(0); a < 3; a++ {
		var specs []segment.BatchSpec
		for o := 3 * a; o < 3*a+3; o++ {
			specs = append(specs, segment.BatchSpec{Records: 1, Bytes: 100, MaxTimestamp: tsBase + o})
		}
		if _, err := rs.Produce(specs); err != nil {
			t.Fatal(err)
		}
	}
	if got := indexEntries(t, segPath(filepath.Join(dir, "replica-0"), 0, ".index"), 0); len(got) != 2 || got[0] != [2]int64{5, 300} || got[1] != [2]int64{8, 600} {
		t.Fatalf("leader index %v, want [(5, 300) (8, 600)]", got)
	}
	if f, err := rs.Fetch(1, 0); err != nil || f.From != 7 || f.Next != 9 || f.Batches != 2 {
		t.Fatalf("fetch from 7: %+v, %v; want batches 7-8", f, err)
	}
}
