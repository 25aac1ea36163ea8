package against

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
// candidate with d's plan (its rule, and the same kind of damage), then cuts the queries to
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
	s := &Shrunk{}
	n := 0
	// A hang costs its whole time limit per candidate that still hangs: an external reader's
	// candidates get a limit of a few times its slowest normal run (Command.shrinkTimeout),
	// and the result is checked again under the full limit (below).
	full := r
	if c, ok := r.(*Command); ok && d.Kind == FailHang {
		r = &Command{Line: c.Line, Timeout: c.shrinkTimeout()}
	}
	var harnessErr error
	// try writes w as a case and runs r on it: the divergence of d's kind it shows, or nil.
	try := func(dir string, w model.Workload, queries func(Questions) Questions) (*corpus.Case, Questions, *Divergence) {
		n++
		c, err := corpus.WriteWorkloadCase(dir, fmt.Sprintf("candidate-%d", n), w, d.Plan, o.SampleSeed)
		if err != nil {
			if !errors.Is(err, corpus.ErrUnusable) && !errors.Is(err, corpus.ErrDamageDoesNotFit) && harnessErr == nil {
				harnessErr = err
			}
			return nil, Questions{}, nil
		}
		q := QuestionsOf(c.Expected)
		if queries != nil {
			q = queries(q)
		}
		got, err := ask(ctx, c, q, r)
		if err != nil && harnessErr == nil {
			harnessErr = err
		}
		if got == nil || !sameKind(got, d.Kind) {
			return c, q, nil
		}
		return c, q, got
	}
	best := fuzz.ShrinkWorkload(d.Workload, o.Budget, func(w model.Workload) bool {
		if harnessErr != nil || ctx.Err() != nil {
			return false
		}
		c, _, got := try(scratch, w, nil)
		if c != nil {
			os.RemoveAll(c.Dir)
		}
		return got != nil
	})
	// Then the config: each key dropped (Kafka's default) while the divergence stays, so that
	// the case says only what it needs.
	keys := slices.Sorted(maps.Keys(best.Config))
	for _, k := range keys {
		if harnessErr != nil || ctx.Err() != nil || n >= 2*o.Budget {
			break
		}
		w := best
		w.Config = maps.Clone(best.Config)
		delete(w.Config, k)
		c, _, got := try(scratch, w, nil)
		if c != nil {
			os.RemoveAll(c.Dir)
		}
		if got != nil {
			best = w
		}
	}
	if harnessErr != nil {
		return nil, harnessErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The queries: for a mismatch, the first query of the kind alone (a reader's answer to
	// one query should not depend on the others; when it does, all are kept); for a failure,
	// halves of the list while a half still fails.
	c, q, got := try(scratch, best, nil)
	if got == nil && r != full {
		// Slow under the shorter limit, not hanging under the full one: the case as found.
		r, best = full, d.Workload
		c, q, got = try(scratch, best, nil)
	}
	if got == nil {
		return nil, fmt.Errorf("the shrunk workload no longer shows the %s divergence (the reader is not deterministic?)", d.Kind)
	}
	pick := q.Queries
	if got.Mismatch != nil {
		one := got.Mismatch.Index
		only := func(q Questions) Questions {
			return Questions{Queries: q.Queries[one : one+1], Want: q.Want[one : one+1]}
		}
		if c2, _, got2 := try(scratch, best, only); got2 != nil {
			pick, got = q.Queries[one:one+1], got2
			os.RemoveAll(c2.Dir)
		}
	} else {
		// Each round halves the list: at most 2 runs per halving.
		lo, hi := 0, len(q.Queries)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			progressed := false
			for _, r := range [][2]int{{lo, mid}, {mid, hi}} {
				part := func(q Questions) Questions {
					return Questions{Queries: q.Queries[r[0]:r[1]], Want: q.Want[r[0]:r[1]]}
				}
				if c2, _, got2 := try(scratch, best, part); got2 != nil {
					lo, hi, got, progressed = r[0], r[1], got2, true
					os.RemoveAll(c2.Dir)
					break
				} else if c2 != nil {
					os.RemoveAll(c2.Dir)
				}
			}
			if !progressed {
				break
			}
		}
		pick = q.Queries[lo:hi]
	}
	os.RemoveAll(c.Dir)
	if r != full {
		// The hang, checked under the full limit; else the case and queries as found.
		r = full
		lo, hi := slices.Index(q.Queries, pick[0]), slices.Index(q.Queries, pick[len(pick)-1])+1
		part := func(q Questions) Questions { return Questions{Queries: q.Queries[lo:hi], Want: q.Want[lo:hi]} }
		c2, _, got2 := try(scratch, best, part)
		if got2 == nil {
			if c2 != nil {
				os.RemoveAll(c2.Dir)
			}
			best = d.Workload
			if c2, q, got2 = try(scratch, best, nil); got2 == nil {
				return nil, fmt.Errorf("the %s divergence does not show again (the reader is not deterministic?)", d.Kind)
			}
			pick = q.Queries
		}
		got = got2
		os.RemoveAll(c2.Dir)
	}
	if harnessErr != nil {
		return nil, harnessErr
	}
	s.Workload, s.Queries, s.Kind, s.Mismatch, s.Failure, s.Tried = best, pick, got.Kind, got.Mismatch, got.Failure, n
	if s.Dir, err = writeShrunk(o.Out, d, s, o.SampleSeed); err != nil {
		return nil, err
	}
	return s, nil
}

// sameKind reports whether got diverges with kind.
func sameKind(got *Divergence, kind string) bool { return got.Kind == kind }

// writeShrunk writes s's case into a new directory of out named after its kind and a hash of
// its workload, queries and plan (two damages of one workload are two cases): the partition and answers (corpus.WriteWorkloadCase), the request
// (queries.json, the partition given as "t-0": run the reader from the directory) and what
// diverged (divergence.txt).
func writeShrunk(out string, d *Divergence, s *Shrunk, sampleSeed uint64) (string, error) {
	wl, err := s.Workload.MarshalJSON()
	if err != nil {
		return "", err
	}
	req, err := json.MarshalIndent(Request{Protocol: ProtocolVersion, Partition: corpus.Partition, Queries: s.Queries}, "", "  ")
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
		fmt.Fprintf(&b, "query: segment %s, offset %d\nkidx:   %s\nreader: %s\n", m.Query.Segment, m.Query.Offset, m.Want, m.Got)
	}
	if f := s.Failure; f != nil {
		fmt.Fprintf(&b, "reader: %s\n", f.What)
		if f.Stderr != "" {
			fmt.Fprintf(&b, "its stderr ends:\n%s\n", strings.TrimRight(f.Stderr, "\n"))
		}
	}
	return b.String()
}
