package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFollowerOverflow writes docs/kafka-hazards.md §1's reproduction as a replicated
// workload (docs/contract.md §3.1): 547 produces of 5070-byte batches, the follower's 1 MiB
// fetch, its clean restart, two more fetches.
func writeFollowerOverflow(t *testing.T) string {
	t.Helper()
	var steps []map[string]any
	for i := 0; i < 547; i++ {
		steps = append(steps, map[string]any{"append": []map[string]any{{"records": 1, "bytes": 5070, "maxTimestamp": 1000 + i}}})
	}
	steps = append(steps, map[string]any{"fetch": 1}, map[string]any{"restart": true, "replica": 1}, map[string]any{"fetch": 1}, map[string]any{"fetch": 1})
	data, err := json.Marshal(map[string]any{"config": map[string]int64{"segment.bytes": 1 << 30, "index.interval.bytes": 4096, "segment.index.bytes": 4096},
		"kafkaVersion": "4.1.0", "replicas": map[string]any{"count": 2}, "steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "follower-overflow.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// kidx sim of a replicated workload shows every replica and the follower's throw (the
// figures are TestFollowerOverflowReproduction's, worked by hand in package model).
func TestSimReplicas(t *testing.T) {
	path := writeFollowerOverflow(t)
	out, _, code := runKidx(t, "sim", "--workload", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{
		"2 replicas, replica.fetch.max.bytes=1048576",
		"replica 0 (leader at the end): log end offset 547",
		"           0     1728870      341      340           340           0          0.0         1          1  time-index-full",
		"replica 1 (follower at the end, failed (Kafka threw)): log end offset 341",
		"step 550: replica 1: time-index-overflow: Attempt to append to a full time index (size = 340).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	out, errOut, code := runKidx(t, "sim", "--workload", path, "--era-spec", fixASpec, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc simReplicasJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Era != "fix-a-roll-on-index-room" || doc.KafkaVersion != "" || len(doc.Events) != 0 || len(doc.Replicas) != 2 ||
		len(doc.Replicas[1].Segments) != 2 || doc.Replicas[1].Segments[0].RollReason != "index-room" || doc.Replicas[1].Segments[1].BaseOffset != 341 {
		t.Errorf("fix (a): %s", out)
	}
	if !strings.Contains(errOut, "candidate fix-a-roll-on-index-room (on Kafka 4.1-4.4)") {
		t.Errorf("stderr %q does not name the candidate", errOut)
	}
}
