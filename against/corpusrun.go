package against

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"kidx/corpus"
)

// CorpusDivergence is a divergence on a case of a corpus on disk: its directory, and what
// diverged first.
type CorpusDivergence struct {
	Dir        string
	Divergence *Divergence
}

// CorpusReport is RunCorpus's outcome.
type CorpusReport struct {
	Cases int
	// Asked are the case (RunCorpus) or partition (RunDir) directories asked, in order.
	Asked       []string
	Queries     int64
	Elapsed     time.Duration
	Divergences []CorpusDivergence
}

// RunCorpus runs r on every case of a corpus kidx corpus wrote (dir holds case directories),
// or on one case directory (dir holds expected.json), and compares the answers with the
// case's expected.json; a case directory with a queries.json (a shrunk case) is asked those
// queries only. fields are the parts of a position answer compared (0: all). Nothing in dir
// is written.
func RunCorpus(ctx context.Context, dir string, r Reader, fields Fields) (*CorpusReport, error) {
	cases, err := caseDirs(dir)
	if err != nil {
		return nil, err
	}
	rep := &CorpusReport{}
	start := time.Now()
	for _, cd := range cases {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		exp, w, err := corpus.ReadCase(cd)
		if err != nil {
			return rep, err
		}
		q := questionsFor(exp, r)
		q.Fields = fields
		if q, err = restrictTo(cd, q); err != nil {
			return rep, err
		}
		c := &corpus.Case{Dir: cd, Workload: w, Expected: exp}
		d, err := ask(ctx, c, q, r)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", cd, err)
		}
		rep.Cases++
		rep.Asked = append(rep.Asked, cd)
		rep.Queries += int64(len(q.Queries))
		if d != nil {
			d.Case, d.Cases, d.CaseList = int64(exp.Case), 1, []int64{int64(exp.Case)}
			rep.Divergences = append(rep.Divergences, CorpusDivergence{Dir: cd, Divergence: d})
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// caseDirs are the case directories of dir, by name.
func caseDirs(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "expected.json")); err == nil {
		return []string{dir}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "expected.json")); err == nil {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no case directory (a directory with expected.json) in it", dir)
	}
	slices.Sort(out)
	return out, nil
}

// restrictTo keeps the questions a case's queries.json asks, when it has one; each must be
// one of the case's lookups (expected.json holds kidx's answer to it).
func restrictTo(caseDir string, q Questions) (Questions, error) {
	data, err := os.ReadFile(filepath.Join(caseDir, QueriesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return q, nil
	}
	if err != nil {
		return q, err
	}
	var req Request
	if err := json.Unmarshal(data, &req); err != nil {
		return q, fmt.Errorf("%s: %w", filepath.Join(caseDir, QueriesFile), err)
	}
	// The release, view and fields stay the case's: only the queries are cut.
	out := Questions{Rules: q.Rules, Fields: q.Fields}
	for _, want := range req.Queries {
		i := slices.Index(q.Queries, want)
		if i < 0 {
			return q, fmt.Errorf("%s: query %+v is not among expected.json's lookups", filepath.Join(caseDir, QueriesFile), want)
		}
		out.Queries, out.Want = append(out.Queries, q.Queries[i]), append(out.Want, q.Want[i])
	}
	return out, nil
}
