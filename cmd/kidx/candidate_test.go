package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/fuzz"
	"kidx/segment"
	"kidx/segment/vfs"
)

// The shipped candidate eras (docs/kafka-hazards.md §6).
const (
	fixASpec = "../../examples/eras/fix-a-roll-on-index-room.json"
	fixBSpec = "../../examples/eras/fix-b-skip-entry-when-full.json"
)

// followerWorkload writes issue 23's reproduction as a workload file: the follower's fetches of
// 206 batches, a clean restart, 135 and 206 batches, then one more (docs/kafka-hazards.md).
func followerWorkload(t *testing.T) string {
	t.Helper()
	ts := int64(1)
	chunk := func(n int) string {
		var bs []string
		for range n {
			bs = append(bs, fmt.Sprintf(`{"records": 1, "bytes": 5070, "maxTimestamp": %d}`, ts))
			ts++
		}
		return `{"origin": "replication", "append": [` + strings.Join(bs, ",") + `]}`
	}
	w := `{"config": {"index.interval.bytes": 4096, "segment.bytes": 1073741824, "segment.index.bytes": 4096}, "rule": "per-batch",
"steps": [` + chunk(206) + `, {"restart": true}, ` + chunk(135) + `, ` + chunk(206) + `, ` + chunk(1) + `]}`
	path := filepath.Join(t.TempDir(), "follower.json")
	if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// kidx write --era-spec writes a candidate with its knobs (issue 23): the reproduction throws
// at the third fetch as released; fix (a) rolls before it at 341, fix (b) rolls at the fourth
// fetch, at 547 (worked by hand in testdata/scenarios/follower-overflow.txt).
func TestWriteEraSpec(t *testing.T) {
	w := followerWorkload(t)
	for _, c := range []struct {
		spec     string
		segments []int64
		events   int
	}{{"", []int64{0}, 1}, {fixASpec, []int64{0, 341}, 0}, {fixBSpec, []int64{0, 547}, 0}} {
		args := []string{"write", "--workload", w, "--dir", filepath.Join(t.TempDir(), "p-0"), "--format", "json"}
		if c.spec != "" {
			args = append(args, "--era-spec", c.spec)
		}
		out, errOut, code := runKidx(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var res segment.WriteResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Segments, c.segments) || len(res.Events) != c.events {
			t.Errorf("%q: segments %v, %d events; want %v and %d", c.spec, res.Segments, len(res.Events), c.segments, c.events)
		}
	}
	// A candidate whose base era writes files otherwise is refused, as its release would be.
	spec := filepath.Join(t.TempDir(), "on-2.0.json")
	if err := os.WriteFile(spec, []byte(`{"id": "fix-a-on-2.0", "base": "2.0.0", "rollWhenAppendLacksIndexRoom": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runKidx(t, "write", "--workload", w, "--dir", filepath.Join(t.TempDir(), "p-0"), "--era-spec", spec); code != 2 ||
		!strings.Contains(errOut, "fix-a-on-2.0") {
		t.Errorf("candidate on 2.0.0: exit %d %q, want 2 naming it", code, errOut)
	}
}

// kidx diff --era-spec runs the campaign under the candidate on both sides: clean, with the
// candidate in the report; usage errors with --rule, --crash and a base the writer does not write.
func TestDiffEraSpec(t *testing.T) {
	for _, spec := range []string{fixASpec, fixBSpec} {
		out, errOut, code := runKidx(t, "diff", "--cases", "200", "--seed", "3", "--workers", "2", "--era-spec", spec, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s %s", spec, code, out, errOut)
		}
		var rep diffReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(filepath.Base(spec), ".json"); rep.Candidate != want || rep.Cases != 200 {
			t.Errorf("%s: candidate %q, %d cases; want %q and 200", spec, rep.Candidate, rep.Cases, want)
		}
	}
	on20 := filepath.Join(t.TempDir(), "on-2.0.json")
	if err := os.WriteFile(on20, []byte(`{"id": "fix-a-on-2.0", "base": "2.0.0", "rollWhenAppendLacksIndexRoom": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--era-spec", fixASpec, "--rule", "per-batch"},
		{"--era-spec", fixASpec, "--crash"},
		{"--era-spec", on20},
		{"--era-spec", filepath.Join(t.TempDir(), "missing.json")},
	} {
		args = append([]string{"diff", "--cases", "1", "--seed", "1"}, args...)
		if _, errOut, code := runKidx(t, args...); code != 2 || !strings.Contains(errOut, "era-spec") && !strings.Contains(errOut, "fix-a-on-2.0") {
			t.Errorf("%v: exit %d %q, want a usage error", args, code, errOut)
		}
	}
}

// The campaign sees a candidate's knob: files written as released disagree with the model
// under fix (a), and the text output says how to replay it (the workload names only a rule).
func TestDiffEraSpecFindsMissingKnob(t *testing.T) {
	diffFileLog = func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (fuzz.FileLog, error) {
		cfg.Candidate = segment.Candidate{}
		return segment.CreateLogFS(fsys, dir, cfg, rule, start)
	}
	defer func() { diffFileLog = nil }()
	out, errOut, code := runKidx(t, "diff", "--cases", "400", "--seed", "7", "--workers", "2", "--era-spec", fixASpec, "--out", t.TempDir())
	if code != 1 || !strings.Contains(out, "under candidate fix-a-roll-on-index-room") || !strings.Contains(out, "replay: kidx sim --era-spec "+fixASpec+" --workload ") {
		t.Fatalf("exit %d, want 1 with the candidate and the replay line: %s %s", code, out, errOut)
	}
}
