package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/against"
)

// readerScript writes a shell script reader into a temporary directory of t.
func readerScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "reader.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// noHitReader answers every query "start 0, no hit" (a reader that finds nothing): it counts
// the queries of the request with tr and grep.
const noHitReader = `n=$(tr ',' '\n' | grep -c '"offset"'); i=0; while [ $i -lt $n ]; do echo '{"start":0,"hit":-1}'; i=$((i+1)); done`

type againstJSON struct {
	Seed           *uint64 `json:"seed"`
	Cases          int64   `json:"cases"`
	Queries        int64   `json:"queries"`
	DivergentCases int64   `json:"divergentCases"`
	Divergences    []struct {
		Kind     string         `json:"kind"`
		Damage   string         `json:"damage"`
		Reason   string         `json:"reason"`
		Case     int64          `json:"case"`
		Cases    int64          `json:"cases"`
		CaseList []int64        `json:"caseList"`
		Query    *against.Query `json:"query"`
		Kidx     string         `json:"kidx"`
		Reader   string         `json:"reader"`
		Stderr   string         `json:"stderr"`
		Dir      string         `json:"dir"`
		Shrunk   *struct {
			Dir     string          `json:"dir"`
			Steps   int             `json:"steps"`
			Queries []against.Query `json:"queries"`
			Reader  string          `json:"reader"`
			Tried   int             `json:"tried"`
		} `json:"shrunk"`
	} `json:"divergences"`
}

func runAgainst(t *testing.T, wantCode int, args ...string) againstJSON {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"diff", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("kidx diff %v: exit %d, want %d\n%s\n%s", args, code, wantCode, out, errOut)
	}
	var rep againstJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("kidx diff %v: %v\n%s", args, err, out)
	}
	return rep
}

// docs/against.md, "Output and exit status": a reader that answers every query as kidx does
// exits 0, one that does not exits 1 with its divergences grouped, the first case of each
// shrunk to a directory that --corpus replays.
func TestDiffAgainstJSONAndExit(t *testing.T) {
	diffAgainstReader = against.KidxReader{}
	rep := runAgainst(t, 0, "--against", "in-process", "--cases", "30", "--seed", "5")
	diffAgainstReader = nil
	if rep.Cases != 30 || rep.Queries < 30 || rep.DivergentCases != 0 || rep.Divergences == nil || rep.Seed == nil || *rep.Seed != 5 {
		t.Fatalf("kidx's own reader: %+v", rep)
	}
	diffAgainstReader = against.KidxReader{}
	zero := runAgainst(t, 0, "--against", "in-process", "--cases", "2", "--seed", "0")
	diffAgainstReader = nil
	if zero.Seed == nil || *zero.Seed != 0 {
		t.Fatalf("--seed 0: the report's seed is %v, want 0", zero.Seed)
	}
	sh := readerScript(t, noHitReader)
	out := t.TempDir()
	rep = runAgainst(t, 1, "--against", sh, "--cases", "4", "--seed", "5", "--out", out, "--shrink-budget", "40")
	if rep.DivergentCases != 4 || len(rep.Divergences) == 0 {
		t.Fatalf("no-hit reader: %+v", rep)
	}
	d := rep.Divergences[0]
	for _, x := range rep.Divergences {
		if x.Kind == against.MismatchHit && x.Damage == "" {
			d = x
			break
		}
	}
	if d.Kind != against.MismatchHit || d.Query == nil || !strings.Contains(d.Reader, "no hit") || d.Shrunk == nil || len(d.Shrunk.Queries) != 1 {
		t.Fatalf("first divergence %+v", d)
	}
	// The shrunk case: one append of one batch is the least a hit needs.
	if d.Shrunk.Steps != 1 {
		t.Errorf("shrunk to %d steps, want 1", d.Shrunk.Steps)
	}
	replay := runAgainst(t, 1, "--against", sh, "--corpus", d.Shrunk.Dir)
	if replay.Cases != 1 || replay.Queries != 1 || len(replay.Divergences) != 1 || replay.Divergences[0].Kind != against.MismatchHit {
		t.Fatalf("replay of %s: %+v", d.Shrunk.Dir, replay)
	}
	diffAgainstReader = against.KidxReader{}
	runAgainst(t, 0, "--against", "in-process", "--corpus", d.Shrunk.Dir)
	diffAgainstReader = nil
}

// Issue 14: "a crash or hang of CMD is a finding, not a kidx error": a hanging reader is
// killed at --timeout and reported as a hang (exit 1), its case shrunk.
func TestDiffAgainstHangingReader(t *testing.T) {
	sh := readerScript(t, `sleep 30`)
	rep := runAgainst(t, 1, "--against", sh, "--cases", "1", "--seed", "2", "--timeout", "200ms", "--out", t.TempDir(), "--shrink-budget", "8")
	if len(rep.Divergences) != 1 || rep.Divergences[0].Kind != against.FailHang || !strings.Contains(rep.Divergences[0].Reader, "time limit of 200ms") {
		t.Fatalf("%+v", rep)
	}
	if s := rep.Divergences[0].Shrunk; s == nil || s.Dir == "" || len(s.Queries) != 1 {
		t.Fatalf("hang not shrunk to one query: %+v", s)
	}
	crash := readerScript(t, `echo 'Traceback: boom' >&2; exit 1`)
	rep = runAgainst(t, 1, "--against", crash, "--cases", "2", "--seed", "2")
	if len(rep.Divergences) == 0 || rep.Divergences[0].Kind != against.FailCrash || !strings.Contains(rep.Divergences[0].Stderr, "Traceback: boom") {
		t.Fatalf("crashing reader: %+v", rep)
	}
}

// A reader the shell cannot run, and flags that mean nothing together, are usage errors (2).
func TestDiffAgainstUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--against", filepath.Join(t.TempDir(), "no-such-reader"), "--cases", "1", "--seed", "1"},
		{"--against", "x", "--crash", "--cases", "1"},
		{"--corpus", t.TempDir()},
		{"--against", "x"},
		{"--against", "  ", "--cases", "1"},
		{"--against", "x", "--corpus", t.TempDir(), "--cases", "3"},
		{"--against", "x", "--corpus", t.TempDir(), "--dir", t.TempDir()},
		{"--against", "x", "--cases", "1", "--timeout", "0s"},
		{"--against", "x", "--cases", "1", "--real-files"},
		{"--against", "x", "--cases", "1", "--kafka-version", "2.8.0"},
		{"--against", "x", "--cases", "1", "--compare", "position"},
		{"--against", "x", "--cases", "1", "--compare", ""},
		{"--against", "x", "--corpus", t.TempDir(), "--index-view", "running"},
		{"--against", "x", "--corpus", t.TempDir(), "--kafka-version", "4.1.0"},
		{"--cases", "1", "--format", "junit"},
		// --against's own flags mean nothing to the differential campaign: refused, not ignored.
		{"--cases", "1", "--serve"},
		{"--cases", "1", "--protocol", "2"},
		{"--cases", "1", "--damage", "none"},
		{"--cases", "1", "--copy"},
		{"--cases", "1", "--index-view", "reopened"},
	} {
		_, errOut, code := runKidx(t, append([]string{"diff"}, args...)...)
		if code != 2 || errOut == "" {
			t.Errorf("kidx diff %v: exit %d (%q), want 2 with a message", args, code, errOut)
		}
	}
}
