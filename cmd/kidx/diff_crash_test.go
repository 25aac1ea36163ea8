package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/fuzz"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 13: `kidx diff --crash --workload W --format json` gives {"cases", "crashPoints",
// "divergences", "findings": [{"kind", "message", "workload"}]}; a finding is Kafka's
// behaviour, exit 0. The golden smallindex-per-append workload meets the recover overflow,
// and the finding's workload parses with its crash step.
func TestDiffCrashWorkloadJSON(t *testing.T) {
	w := filepath.Join("..", "..", "testdata", "kafka-golden", "smallindex-per-append", "workload.json")
	out, errOut, code := runKidx(t, "diff", "--crash", "--workload", w, "--seed", "13", "--crash-points", "24", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	var rep struct {
		Cases       *int64            `json:"cases"`
		CrashPoints *int64            `json:"crashPoints"`
		Divergences []json.RawMessage `json:"divergences"`
		Findings    []struct {
			Kind     string          `json:"kind"`
			Message  string          `json:"message"`
			Workload json.RawMessage `json:"workload"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Cases == nil || *rep.Cases != 1 || rep.CrashPoints == nil || *rep.CrashPoints == 0 || rep.Divergences == nil || len(rep.Divergences) != 0 {
		t.Fatalf("report %s", out)
	}
	overflow := false
	for _, f := range rep.Findings {
		wl, err := model.ParseWorkload(f.Workload)
		if err != nil || f.Message == "" {
			t.Errorf("finding %s: workload does not parse (%v) or no message", f.Kind, err)
			continue
		}
		hasCrash := false
		for _, s := range wl.Steps {
			hasCrash = hasCrash || s.Crash != nil
		}
		if !hasCrash {
			t.Errorf("finding %s: its workload has no crash step", f.Kind)
		}
		if f.Kind != fuzz.FindingRecoverOverflow {
			continue
		}
		overflow = true
		// The finding's workload replays: kidx diff --crash --workload on it runs the crash step
		// through the files and the model, which agree, and meets the same overflow.
		path := filepath.Join(t.TempDir(), "finding.json")
		if err := os.WriteFile(path, f.Workload, 0o644); err != nil {
			t.Fatal(err)
		}
		out2, errOut2, code := runKidx(t, "diff", "--crash", "--workload", path, "--seed", "1", "--format", "json")
		if code != 0 || !strings.Contains(out2, `"kind": "recover-overflow"`) || !strings.Contains(out2, `"divergences": []`) {
			t.Errorf("replay of the finding: exit %d: %s %s", code, out2, errOut2)
		}
	}
	if !overflow {
		t.Errorf("no recover-overflow finding in %s", out)
	}
}

// A divergence exits 1 and is written as a reproduction; here the reload is planted to rebuild
// with index.interval.bytes one larger than the workload's.
func TestDiffCrashDivergenceExits1(t *testing.T) {
	diffCrashReopen = func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, rp int64, step int) (*segment.Log, *segment.CrashLoad, error) {
		cfg.IndexIntervalBytes++ // the bug
		return segment.LoadAfterCrash(fsys, dir, cfg, rule, rp, step)
	}
	defer func() { diffCrashReopen = nil }()
	out, errOut, code := runKidx(t, "diff", "--crash", "--cases", "20", "--seed", "3", "--workers", "2", "--out", t.TempDir(), "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s %s", code, out, errOut)
	}
	var rep struct {
		Divergences []struct {
			Kind string `json:"kind"`
		} `json:"divergences"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Divergences) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
}

// docs/contract.md §8 exit 2: --workload without --crash, --crash with --duration.
func TestDiffCrashUsage(t *testing.T) {
	for _, args := range [][]string{{"diff", "--workload", "w.json"}, {"diff", "--crash", "--duration", "1s"}, {"diff", "--crash", "--workload", "/nonexistent.json"}} {
		if _, errOut, code := runKidx(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
}
