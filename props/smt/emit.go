package smt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// EmitSMT writes each proof obligation of rep as DIR/NAME.smt2 (NAME.per-append-two-batch.smt2
// and NAME.per-batch-two-batch.smt2 for the two-batch systems), at the depth k its proof
// used: a standalone SMT-LIB 2 script (QF_LIA, push/pop, no solver-specific command) that
// any SMT-LIB solver re-checks. Before each (check-sat) a comment says which answer means
// the property holds; the header says what kidx concluded. Each file is written atomically
// (a temporary file renamed into place). It returns the paths written.
func EmitSMT(dir string, rep Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, r := range rep.Properties {
		o := r.ob
		if o == nil {
			return paths, fmt.Errorf("%s: the result does not come from Prove", r.Name)
		}
		text := fmt.Sprintf("; kidx's result: %s (%s)\n; z3's answers at this depth: %s\n", r.Result, r.Note, strings.Join(r.answers, " ")) +
			o.script(max(r.K, 1))
		name := r.Name
		if o.variant != "" {
			name += "." + o.variant
		}
		path := filepath.Join(dir, name+".smt2")
		if err := writeAtomic(path, []byte(text)); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
	}
	return werr
}

var expectedRE = regexp.MustCompile(`(?m)^; expected (sat|unsat):`)

// ExpectedAnswers lists, for an emitted script, the answer of each check-sat that means the
// property holds (and the proof is not vacuous), in order.
func ExpectedAnswers(script string) []string {
	var out []string
	for _, m := range expectedRE.FindAllStringSubmatch(script, -1) {
		out = append(out, m[1])
	}
	return out
}

// WorkloadFile names the file WriteWorkloads writes a refuted claim's counterexample to:
// NAME.parametric.json, NAME.VARIANT.parametric.json for the two-batch systems (as EmitSMT
// names the obligation's script). "parametric" keeps the name apart from kidx check's
// NAME.json and the fixpoint's NAME.RULE.json when they share a directory.
func (r Result) WorkloadFile() string {
	name := r.Name
	if r.ob != nil && r.ob.variant != "" {
		name += "." + r.ob.variant
	}
	return name + ".parametric.json"
}

// CounterexampleFile names the file beside WorkloadFile that keeps what the workload alone
// does not say: the second configuration of a two-copy claim ("compare"), whether the model
// confirmed it and what its replay said.
func (r Result) CounterexampleFile() string {
	return strings.TrimSuffix(r.WorkloadFile(), ".json") + ".counterexample.json"
}

// WriteWorkloads writes each refuted claim's counterexample (z3's model turned into a
// concrete workload, Counterexample) as DIR/WorkloadFile(): the docs/contract.md §3 workload
// `kidx sim --workload` replays, as the fixpoint's --out writes; and beside it
// CounterexampleFile(), the whole Counterexample. A result without a counterexample (proved,
// or unknown: no model to read) writes nothing. DIR is created if missing; each file is
// written atomically (a temporary file renamed into place). It returns the paths written.
func WriteWorkloads(dir string, rep Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, r := range rep.Properties {
		cx := r.Counterexample
		if cx == nil {
			continue
		}
		wl, err := cx.Workload.MarshalJSON()
		if err != nil {
			return paths, fmt.Errorf("%s: %w", r.Name, err)
		}
		meta, err := json.MarshalIndent(cx, "", "  ")
		if err != nil {
			return paths, fmt.Errorf("%s: %w", r.Name, err)
		}
		for _, f := range []struct {
			name string
			data []byte
		}{{r.WorkloadFile(), wl}, {r.CounterexampleFile(), meta}} {
			path := filepath.Join(dir, f.name)
			if err := writeAtomic(path, append(f.data, '\n')); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}
