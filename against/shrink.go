package against

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kidx/corpus"
	"kidx/fuzz"
	"kidx/internal/english"
	"kidx/model"
)

// DefaultShrinkBudget is the most candidate cases a shrink writes and runs the reader on:
// each costs one run of the reader (a Python reader's start-up is tens of milliseconds).
const DefaultShrinkBudget = 300

// ShrinkOptions configure Shrink.
type ShrinkOptions struct {
	Out        string // where the shrunk case is written (must exist)
	Scratch    string // where candidates are written ("": fuzz.TempRoot())
	Budget     int    // <= 0: DefaultShrinkBudget
	SampleSeed uint64 // the offsets sampled in a large case (corpus.WriteWorkloadCase)
	Fields     Fields // the parts of a position answer compared (0: all)
}

// sameGroupAs reports whether got (a candidate's divergence) still shows d's: the same
// failure kind, or a mismatch of d's kind for which kidx gives d's reason (not necessarily
// the candidate's first mismatch); got.Mismatch becomes that one.
func (got *Divergence) sameGroupAs(d *Divergence) bool {
	if d.Mismatch == nil {
		return got.Mismatch == nil && got.Kind == d.Kind
	}
	for i, m := range got.mismatches {
		if m.Kind == d.Kind && m.Want.Reason == d.Reason {
			got.Kind, got.Reason, got.Mismatch = m.Kind, m.Want.Reason, &got.mismatches[i]
			return true
		}
	}
	return false
}

// withShrinkTimeout is r with a hang's shorter time limit for the shrink's candidates
// (Command.shrinkTimeout), through a CopyingReader; another reader is r.
func withShrinkTimeout(r Reader) Reader {
	switch r := r.(type) {
	case *Command:
		return &Command{Line: r.Line, Timeout: r.shrinkTimeout(), Protocol: r.Protocol}
	case *CopyingReader:
		return &CopyingReader{Reader: withShrinkTimeout(r.Reader), Scratch: r.Scratch}
	}
	return r
}

// Shrunk is a divergence reduced: a case written into its own directory (the partition,
// workload.json, expected.json, and queries.json, the request that shows the divergence),
// with the divergence it still shows.
type Shrunk struct {
	Dir      string
	Workload model.Workload
	Queries  []Query
	Kind     string
	Mismatch *Mismatch
	Failure  *Failure
	Tried    int // candidate cases run
}

// QueriesFile is the request a shrunk case's divergence needs, in its directory; a case
// directory with one is asked those queries only (RunCorpus).
const QueriesFile = "queries.json"

// Shrink reduces d's case while r still diverges on it the same way (the same kind): it drops
// workload steps and batches and simplifies batches (fuzz.ShrinkWorkload), writing each
// candidate with d's plan (its rule, and the same kind of damage) and dropping the config keys
// it does not need, then cuts the queries to
// the one that diverges (for a mismatch), or to as few as still crash or hang the reader.
func Shrink(ctx context.Context, d *Divergence, r Reader, o ShrinkOptions) (*Shrunk, error) {
	if o.Budget <= 0 {
		o.Budget = DefaultShrinkBudget
	}
	scratch, err := os.MkdirTemp(scratchRoot(o.Scratch), "kidx-shrink-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	n := 0
	// A hang costs its whole time limit per candidate that still hangs: an external reader's
	// candidates get a limit of a few times its slowest normal run (Command.shrinkTimeout),
	// and the result is checked again under the full limit (below).
	// (limited, not r != full: a Reader need not be comparable, KidxReader is not.)
	full, limited := r, false
	if d.Kind == FailHang {
		r = withShrinkTimeout(r)
		limited = true
	}
	var harnessErr error
	// try writes w as a case, asks r the questions of it that queries keeps (nil: all) and
	// returns the divergence of d's kind it shows, or nil; the case is removed.
	try := func(w model.Workload, queries func(Questions) Questions) (Questions, *Divergence) {
		n++
		c, err := corpus.WriteWorkloadCase(scratch, fmt.Sprintf("candidate-%d", n), w, d.Plan, o.SampleSeed)
		if err != nil {
			if !errors.Is(err, corpus.ErrUnusable) && !errors.Is(err, corpus.ErrDamageDoesNotFit) && harnessErr == nil {
				harnessErr = err
			}
			return Questions{}, nil
		}
		defer os.RemoveAll(c.Dir)
		q := questionsFor(c.Expected, r)
		q.Fields = o.Fields
		if queries != nil {
			q = queries(q)
		}
		got, err := ask(ctx, c, q, r)
		if err != nil && harnessErr == nil {
			harnessErr = err
		}
		if got == nil || !got.sameGroupAs(d) {
			return q, nil
		}
		return q, got
	}
	// The last candidate that diverged, so that the search's result is not run once more.
	var lastQ Questions
	var last *Divergence
	keep := func(w model.Workload) bool {
		if harnessErr != nil || ctx.Err() != nil {
			return false
		}
		q, got := try(w, nil)
		if got != nil {
			lastQ, last = q, got
		}
		return got != nil
	}
	best := fuzz.ShrinkWorkload(d.Workload, o.Budget, keep)
	if harnessErr != nil {
		return nil, harnessErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, got := lastQ, last
	if got == nil {
		q, got = try(best, nil) // nothing smaller diverged: the case as found
	}
	if got == nil && limited {
		// Slow under the shorter limit, not hanging under the full one: the case as found.
		r, best, limited = full, d.Workload, false
		q, got = try(best, nil)
	}
	if got == nil {
		return nil, fmt.Errorf("the shrunk workload no longer shows the %s divergence (the reader is not deterministic?)", d.Kind)
	}
	// The queries: for a mismatch, the first query of the kind alone (a reader's answer to
	// one query should not depend on the others; when it does, all are kept); for a failure,
	// halves of the list while a half still fails (at most 2 runs per halving).
	span := func(lo, hi int) func(Questions) Questions {
		return func(q Questions) Questions {
			return Questions{Rules: q.Rules, Queries: q.Queries[lo:hi], Want: q.Want[lo:hi], Fields: q.Fields}
		}
	}
	lo, hi := 0, len(q.Queries)
	if got.Mismatch != nil {
		one := got.Mismatch.Index
		if _, got2 := try(best, span(one, one+1)); got2 != nil {
			lo, hi, got = one, one+1, got2
		}
	} else {
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if _, got2 := try(best, span(lo, mid)); got2 != nil {
				hi, got = mid, got2
			} else if _, got2 := try(best, span(mid, hi)); got2 != nil {
				lo, got = mid, got2
			} else {
				break
			}
		}
	}
	if limited {
		// The hang, checked under the full limit; else the case and queries as found.
		r = full
		if _, got2 := try(best, span(lo, hi)); got2 != nil {
			got = got2
		} else {
			best = d.Workload
			if q, got = try(best, nil); got == nil {
				return nil, fmt.Errorf("the %s divergence does not show again (the reader is not deterministic?)", d.Kind)
			}
			lo, hi = 0, len(q.Queries)
		}
	}
	if harnessErr != nil {
		return nil, harnessErr
	}
	s := &Shrunk{Workload: best, Queries: q.Queries[lo:hi], Kind: got.Kind, Mismatch: got.Mismatch, Failure: got.Failure, Tried: n}
	if s.Dir, err = writeShrunk(o.Out, d, s, o.SampleSeed); err != nil {
		return nil, err
	}
	return s, nil
}

// writeShrunk writes s's case into a new directory of out named after its kind and a hash of
// its workload, queries and plan (two damages of one workload are two cases): the partition and answers (corpus.WriteWorkloadCase), the request
// (queries.json, the partition given as "t-0": run the reader from the directory) and what
// diverged (divergence.txt).
func writeShrunk(out string, d *Divergence, s *Shrunk, sampleSeed uint64) (string, error) {
	wl, err := s.Workload.MarshalJSON()
	if err != nil {
		return "", err
	}
	req, err := json.MarshalIndent(Request{Protocol: protocolOf(s.Queries), Partition: corpus.Partition, Release: d.Plan.Rules.Release.String(),
		IndexView: d.Plan.Rules.View.String(), Queries: s.Queries}, "", "  ")
	if err != nil {
		return "", err
	}
	plan, err := json.Marshal(d.Plan)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(slices.Concat(wl, req, plan))
	name := "against-" + s.Kind + "-" + hex.EncodeToString(sum[:5])
	if _, err := os.Stat(filepath.Join(out, name)); err == nil {
		return filepath.Join(out, name), nil // the same case, shrunk before
	}
	c, err := corpus.WriteWorkloadCase(out, name, s.Workload, d.Plan, sampleSeed)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, QueriesFile), append(req, '\n'), 0o644); err != nil {
		return "", err
	}
	return c.Dir, os.WriteFile(filepath.Join(c.Dir, "divergence.txt"), []byte(s.Describe()), 0o644)
}

// Describe says what a shrunk case shows, in a few lines.
func (s *Shrunk) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s divergence, %s, %s\n", s.Kind, english.Plural(int64(len(s.Workload.Steps)), "step"), english.Plural(int64(len(s.Queries)), "query"))
	if m := s.Mismatch; m != nil {
		fmt.Fprintf(&b, "query: %s\nkidx:   %s\nreader: %s\n", m.Query, m.Want, m.Got)
	}
	if f := s.Failure; f != nil {
		fmt.Fprintf(&b, "reader: %s\n", f.What)
		if f.Stderr != "" {
			fmt.Fprintf(&b, "its stderr ends:\n%s\n", strings.TrimRight(f.Stderr, "\n"))
		}
	}
	return b.String()
}
