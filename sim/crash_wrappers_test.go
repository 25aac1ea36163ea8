package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/model"
)

// A crash step (docs/contract.md §3) names byte counts of the workload's own segments, which a
// wrapper that regroups appends or adds restarts changes: the wrappers refuse it with an error
// rather than panic (follower indexed the step's first batch) or drop it.
func TestWrappersRefuseCrashSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.json")
	w := `{"steps": [{"append": [{"records": 1, "bytes": 78}]},
	  {"crash": {"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 40, "indexBytes": 0, "timeIndexBytes": 0}]}},
	  {"append": [{"records": 1, "bytes": 78}]}]}`
	if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"follower:fetch=50000,workload:path=" + path, "restarts:every=1,workload:path=" + path} {
		src, err := NewGenerator(spec, Limits{Batches: 10}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := src.Open()
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]model.Step, 8)
		for err == nil {
			_, err = st.Next(buf)
		}
		if !strings.Contains(err.Error(), "a crash step cannot go through follower(...) or restarts(...)") {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

// follower(...) over a workload with a roll step (an operator's roll): the roll passes
// through between fetches; before, the wrapper read the roll step's first batch and panicked.
func TestFollowerPassesRollThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roll.json")
	w := `{"steps": [{"append": [{"records": 1, "bytes": 78}]}, {"roll": true}, {"append": [{"records": 1, "bytes": 78}]}]}`
	if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewGenerator("follower:fetch=50000,workload:path="+path, Limits{Batches: 10}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Step
	buf := make([]model.Step, 8)
	for {
		n, err := st.Next(buf)
		for _, s := range buf[:n] {
			s.Append = slices.Clone(s.Append)
			got = append(got, s)
		}
		if err != nil {
			break
		}
	}
	if len(got) < 3 || !got[1].Roll || len(got[0].Append) != 1 || len(got[2].Append) != 1 {
		t.Fatalf("steps %+v, want the append, the roll, the append", got)
	}
}

// A clean step, and a recover step from a recovery point (docs/contract.md §3), name the
// workload's own segments and batches: the wrappers refuse them too, rather than pass on a
// step they would turn into something else (a recover of the active segment only, or an
// empty append).
func TestWrappersRefuseCleanAndRecoveryPointSteps(t *testing.T) {
	for _, step := range []string{`{"clean": {"drop": [0]}}`, `{"recover": true, "recoveryPoint": 0}`} {
		path := filepath.Join(t.TempDir(), "clean.json")
		w := `{"steps": [{"append": [{"records": 1, "bytes": 78}]}, {"roll": true}, ` + step + `, {"append": [{"records": 1, "bytes": 78}]}]}`
		if err := os.WriteFile(path, []byte(w), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{"follower:fetch=50000,workload:path=" + path, "restarts:every=1,workload:path=" + path} {
			src, err := NewGenerator(spec, Limits{Batches: 10}, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := src.Open()
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]model.Step, 8)
			for err == nil {
				_, err = st.Next(buf)
			}
			if !strings.Contains(err.Error(), `a clean step, or a recover step with a "recoveryPoint", cannot go through follower(...) or restarts(...)`) {
				t.Errorf("%s %s: %v", step, spec, err)
			}
		}
	}
}
