package smt

import (
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
