package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kidx sim --format json shows a clean step's cleaned segment ("cleaned": true, no
// rollReason) with its entries; the text table, which streams the segments, refuses the step
// (docs/contract.md §3 "clean", §4). The workload is model's TestCleanWithDeletes: the cleaned
// segment 0 holds the rewritten batches 0 (90 B) and 4 (120 B), time entry (30, 5).
func TestSimCleanStep(t *testing.T) {
	w := `{"config": {"segment.bytes": 1024, "index.interval.bytes": 100}, "steps": [
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 10}]},
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 20}]},
		{"roll": true},
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 30}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 70, "maxTimestamp": 40}]},
		{"clean": {"drop": [2], "rewrite": [{"baseOffset": 0, "bytes": 90, "maxTimestamp": 5}, {"baseOffset": 4, "bytes": 120}]}}]}`
	path := filepath.Join(t.TempDir(), "clean.json")
	if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runKidx(t, "sim", "--workload", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc simJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Segments) != 2 {
		t.Fatalf("%d segments: %s", len(doc.Segments), out)
	}
	s := doc.Segments[0]
	if !s.Cleaned || s.RollReason != "" || s.BaseOffset != 0 || s.SizeBytes != 210 || s.BatchCount != 2 || s.LastOffset != 5 ||
		len(s.OffsetIndex) != 0 || len(s.TimeIndex) != 1 || s.TimeIndex[0] != [2]int64{30, 5} {
		t.Errorf("cleaned segment %+v", s)
	}
	if doc.Segments[1].Cleaned || strings.Count(out, `"cleaned"`) != 1 {
		t.Errorf(`"cleaned" on the active segment, or more than once:\n%s`, out)
	}
	_, errOut, code = runKidx(t, "sim", "--workload", path)
	if code != 2 || !strings.Contains(errOut, "step 6: clean: the log cleaner rewrites rolled segments, which this run does not keep") {
		t.Errorf("text table: exit %d, %s", code, errOut)
	}
}
