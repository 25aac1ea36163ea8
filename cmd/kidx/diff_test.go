package main

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"kidx/fuzz"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// docs/contract.md §8: a clean campaign exits 0; a drawn seed is printed (every run replayable); --format json
// has the keys.
func TestDiffCleanJSON(t *testing.T) {
	out, errOut, code := runKidx(t, "diff", "--cases", "60", "--seed", "5", "--workers", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// A given --seed is not printed back (issue 11, defect 5); the JSON report carries it.
	if strings.Contains(errOut, "replay with") {
		t.Fatalf("seed line for a given --seed: %q", errOut)
	}
	var rep struct {
		Seed           *uint64           `json:"seed"`
		Cases          *int64            `json:"cases"`
		CasesPerSecond *float64          `json:"casesPerSecond"`
		Divergences    []json.RawMessage `json:"divergences"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Seed == nil || *rep.Seed != 5 || rep.Cases == nil || *rep.Cases != 60 || rep.CasesPerSecond == nil || *rep.CasesPerSecond <= 0 ||
		rep.Divergences == nil || len(rep.Divergences) != 0 {
		t.Fatalf("report %s", out)
	}
}

// docs/contract.md §8 exit 2: usage errors name the flag.
func TestDiffUsage(t *testing.T) {
	for _, args := range [][]string{{"diff"}, {"diff", "--cases", "-1"}, {"diff", "--cases", "1", "--rule", "x"},
		{"diff", "--cases", "1", "--workers", "0"}, {"diff", "--cases", "1", "--format", "xml"}} {
		if _, errOut, code := runKidx(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
}

// On a divergence `kidx diff` writes a reproduction, prints its path and exits 1 (issue 5),
// and the file replays the divergence. The file side here is a planted bug:
// index.interval.bytes shifted by one, which turns Kafka's strict '>' into '>='.
func TestDiffDivergenceWritesReproduction(t *testing.T) {
	broken := func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (fuzz.FileLog, error) {
		if cfg.IndexIntervalBytes > 0 {
			cfg.IndexIntervalBytes--
		}
		return segment.CreateLogFS(fsys, dir, cfg, rule, start)
	}
	diffFileLog = broken
	defer func() { diffFileLog = nil }()
	dir := t.TempDir()
	out, errOut, code := runKidx(t, "diff", "--cases", "2000", "--seed", "9", "--out", dir, "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s %s", code, out, errOut)
	}
	var rep struct {
		Divergences []struct {
			Workload json.RawMessage `json:"workload"`
			What     string          `json:"what"`
			File     string          `json:"file"`
		} `json:"divergences"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Divergences) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	d := rep.Divergences[0]
	if _, err := model.ParseWorkload(d.Workload); err != nil || d.What == "" {
		t.Fatalf("workload %s does not parse (%v) or no what", d.Workload, err)
	}
	if !strings.HasPrefix(d.File, dir) {
		t.Fatalf("reproduction %q not under --out %s", d.File, dir)
	}
	if _, err := os.Stat(d.File); err != nil {
		t.Fatal(err)
	}
	again, err := fuzz.Replay(d.File, &fuzz.Options{NewLog: broken})
	if err != nil || again == nil {
		t.Fatalf("replay: %v %+v", err, again)
	}
}

// Issue 13, item 2: `kidx diff` writes in memory by default and --real-files selects real
// files. The writer hook sees which filesystem each case was given.
func TestDiffRealFilesFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		real bool
	}{{nil, false}, {[]string{"--real-files"}, true}} {
		var mu sync.Mutex
		kinds := map[string]int{}
		diffFileLog = func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (fuzz.FileLog, error) {
			mu.Lock()
			if fsys == vfs.OS {
				kinds["os"]++
			} else if _, ok := fsys.(*vfs.MemFS); ok {
				kinds["memory"]++
			} else {
				kinds["other"]++
			}
			mu.Unlock()
			return segment.CreateLogFS(fsys, dir, cfg, rule, start)
		}
		args := append([]string{"diff", "--cases", "20", "--seed", "5", "--workers", "2"}, c.args...)
		_, errOut, code := runKidx(t, args...)
		diffFileLog = nil
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		want := "memory"
		if c.real {
			want = "os"
		}
		if kinds[want] == 0 || len(kinds) != 1 {
			t.Fatalf("%v: the writer was given %v, want only %s", args, kinds, want)
		}
	}
}
