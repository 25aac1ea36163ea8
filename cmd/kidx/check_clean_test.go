package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// kidx check --clean (issue 25, "Properties over cleaned segments"): the three invariants hold
// (exit 0) and the question CleanedIndexNeverOverflows is a finding, not a failure (exit 0);
// --out writes the shrunk case as a workload that kidx sim replays to the overflow.
//
// Seed 1 finds it at the 6th case and shrinks it to 4 steps under 3.7.0 (the per-append era
// 3.7-4.0.0): index.interval.bytes 0, segment.index.bytes 12 (1 offset slot; 1 time slot, which
// TimeIndex.isFull keeps for onBecomeInactiveSegment), max.message.bytes 150, one append of two
// 68-byte batches, a roll, then the clean with a 64-byte read buffer. Worked out by hand:
//   - the source segment took the two batches in one append (counter 0: no entry) and got its
//     closing time entry at the roll: offset index 0 bytes, time index 12 <= 12, one group;
//   - Cleaner.cleanInto: 68 > 64, nothing read, growBuffers to min(128, 150) = 128; the
//     128-byte read holds batch 0 only (136 > 128): the first LogSegment.append (counter 0, no
//     entry); then batch 1 alone: counter 68 > 0, OffsetIndex.append (1, 68) fits its one
//     slot, TimeIndex.maybeAppend finds the time index full (0 entries >= 1 - 1) and throws
//     "Attempt to append to a full time index (size = 0).", at the clean step (step 3).
//
// The chunks split what was one append in the source into two in the cleaned segment: under
// the per-append rule the cleaner's read buffer adds entries the source never had.
func TestCheckCleanFindsOverflowAndReplays(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, code := runKidx(t, "check", "--clean", "--seed", "1", "--checks", "100", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, row := range []string{
		"CleanedFirstBatchNeverIndexed  invariant  100    holds",
		"CleanedScanBound               invariant  100    holds",
		"CleanedIndexIgnoresChunks      invariant  100    holds",
		"CleanedIndexNeverOverflows     question   6      finding",
		"FINDING CleanedIndexNeverOverflows: the clean step threw: time-index-overflow (Attempt to append to a full time index (size = 0).)",
		"minimal counterexample (4 steps)",
		"seed 1 (replay: --seed 1)",
	} {
		if !strings.Contains(stdout, row) {
			t.Errorf("output lacks %q:\n%s", row, stdout)
		}
	}
	path := filepath.Join(dir, "CleanedIndexNeverOverflows.json")
	if !strings.Contains(stdout, "replay: kidx sim --format json --workload "+path) {
		t.Errorf("no replay line for %s:\n%s", path, stdout)
	}
	stdout, stderr, code = runKidx(t, "sim", "--format", "json", "--workload", path)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr)
	}
	var sim struct {
		KafkaVersion string `json:"kafkaVersion"`
		Events       []struct {
			Kind    string `json:"kind"`
			Step    int    `json:"step"`
			Message string `json:"message"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(stdout), &sim); err != nil {
		t.Fatal(err)
	}
	if sim.KafkaVersion != "3.7.0" || len(sim.Events) != 1 || sim.Events[0].Kind != "time-index-overflow" || sim.Events[0].Step != 3 ||
		sim.Events[0].Message != "Attempt to append to a full time index (size = 0)." {
		t.Errorf("replay: want 3.7.0's time-index-overflow at step 3, got %s %+v", sim.KafkaVersion, sim.Events)
	}
}

// --property names one cleaned-segment property; --format json gives the kinds and results
// as --replicas does.
func TestCheckCleanPropertyJSON(t *testing.T) {
	stdout, stderr, code := runKidx(t, "check", "--clean", "--property", "CleanedScanBound", "--seed", "3", "--checks", "50", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Seed       uint64   `json:"seed"`
		Eras       []string `json:"eras"`
		Clean      bool     `json:"clean"`
		Properties []struct {
			Name, Kind, Result, Kafka string
			Cases                     int
			Counterexample            any
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed != 3 || !doc.Clean || strings.Join(doc.Eras, " ") != "3.7-4.0.0 3.9.1-4.0.x 4.1-4.4 4.5-trunk" || len(doc.Properties) != 1 {
		t.Fatalf("%s", stdout)
	}
	p := doc.Properties[0]
	if p.Name != "CleanedScanBound" || p.Kind != "invariant" || p.Result != "holds" || p.Cases != 50 || p.Counterexample != nil ||
		!strings.Contains(p.Kafka, "KAFKA-806") {
		t.Errorf("%+v", p)
	}
}

// Flags that pick another kind of run, or an era the clean generator draws itself, are
// refused with --clean (usage error, exit 2), as is a property that is not a cleaned-segment
// one.
func TestCheckCleanRefusedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--replicas"}, "--replicas does not apply"},
		{[]string{"--exhaustive"}, "--exhaustive does not apply"},
		{[]string{"--rule", "per-append"}, "--rule does not apply"},
		{[]string{"--era-spec", fixASpec}, "--era-spec does not apply"},
		{[]string{"--max-len", "3"}, "--max-len does not apply"},
		{[]string{"--property", "ScanBound"}, `--property "ScanBound" with --clean: want one of CleanedFirstBatchNeverIndexed, CleanedScanBound`},
	} {
		_, stderr, code := runKidx(t, append([]string{"check", "--clean", "--checks", "1"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	// Without --clean its properties are unknown names.
	if _, _, code := runKidx(t, "check", "--property", "CleanedScanBound", "--checks", "1"); code != 2 {
		t.Errorf("--property CleanedScanBound without --clean: exit %d", code)
	}
}
