package against

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kidx/corpus"
	"kidx/fuzz"
	"kidx/model"
)

// Options configure a campaign of generated cases against a reader.
type Options struct {
	Seed     uint64
	Cases    int64         // cases to run; 0: until Duration has passed
	Duration time.Duration // with Cases 0: no new case starts after this long
	Workers  int           // cases at once (<= 0: the number of CPUs)
	// Rule and KafkaVersion pick the writer's rule as kidx corpus does (corpus.Options);
	// Release and IndexView whose answers the reader is held to (corpus.Options: "" takes
	// KafkaVersion's line, else the rule's).
	Rule, KafkaVersion string
	Release, IndexView string
	// DamageKinds are the damage kinds drawn (corpus.Options: nil every kind, empty none).
	DamageKinds []string
	Reader      Reader
	// Out is where shrunk cases are written (it must exist); "" leaves divergences unshrunk.
	Out string
	// ShrinkBudget is the most candidate cases one shrink tries (<= 0: DefaultShrinkBudget).
	ShrinkBudget int
	// Fields are the parts of a position answer compared (0: all).
	Fields Fields
	// Scratch is where cases are written while they run ("" : fuzz.TempRoot(), tmpfs where
	// there is one); each case is removed once its answers are compared.
	Scratch string
	// Progress, when set, is called after each case with the cases run and the divergent ones.
	Progress func(cases, divergent int64)
}

// Report is a campaign's outcome.
type Report struct {
	Seed    uint64
	Cases   int64
	Queries int64
	// Divergent is the number of cases on which the reader failed or answered otherwise.
	Divergent int64
	Elapsed   time.Duration
	// Divergences are the first case of each group of divergences (Divergence.Key: kind,
	// damage kind and kidx's reason; a reader with one bug diverges on many cases the same
	// way), by case number.
	Divergences []*Divergence
}

// Divergence is a case on which the reader failed (Failure) or answered a query otherwise
// (Mismatch) than kidx.
type Divergence struct {
	Kind string // a Mismatch kind or a Failure kind
	// Reason is kidx's reason for its answer to the mismatched query (Answer.Reason: the rule
	// or Java class that decided it), "" for a plain answer and for a failure.
	Reason string
	Case   int64
	Cases  int64 // the cases (with --dir: the queries) of the group
	// CaseList are the group's case numbers, ascending (Run's groups; one case elsewhere).
	CaseList []int64
	Damage   *corpus.Damage // the case's damage; nil for an undamaged case
	Mismatch *Mismatch      // the case's first mismatch
	Failure  *Failure
	// mismatches are every mismatch of the case, for Shrink to keep the group's own.
	mismatches []Mismatch
	Workload   model.Workload
	Plan       corpus.Plan
	Queries    int // the case's query count
	Shrunk     *Shrunk
}

// Key is what divergences are grouped by: the kind, the damage kind of the case and kidx's
// reason, so that a reader's bug and a deliberate difference from one of Kafka's rules never
// share a group (issue 24): "hit on batch-header-byte-flip (kidx: short-v2-header)".
func (d *Divergence) Key() string {
	k := d.Kind
	if d.Damage != nil {
		k += " on " + d.Damage.Kind
	}
	if d.Reason != "" {
		k += " (kidx: " + d.Reason + ")"
	}
	return k
}

// Run generates cases (package corpus) from o.Seed, runs o.Reader on each and compares its
// answers with kidx's; it shrinks the first case of each kind of divergence into o.Out. ctx
// cancels the campaign (a case running is then not counted). An error is the harness's own
// (a case that could not be written, a reader that cannot be run); the reader's failures are
// in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Reader == nil {
		return nil, errors.New("against: no reader")
	}
	if o.Cases <= 0 && o.Duration <= 0 {
		return nil, errors.New("against: neither a case count nor a duration")
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if o.Cases > 0 {
		workers = int(min(int64(workers), o.Cases))
	}
	scratch, err := os.MkdirTemp(scratchRoot(o.Scratch), "kidx-against-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	co := corpus.Options{Seed: o.Seed, Rule: o.Rule, KafkaVersion: o.KafkaVersion, Release: o.Release, IndexView: o.IndexView, DamageKinds: o.DamageKinds,
		AnswersOnly: true}
	rep := &Report{Seed: o.Seed}
	var (
		next, done, divergent, queries atomic.Int64
		mu                             sync.Mutex
		groups                         = map[string]*Divergence{}
		firstErr                       error
		errCase                        = int64(-1)
		stop                           atomic.Bool
		wg                             sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(o.Duration)
	for range workers {
		wg.Go(func() {
			for !stop.Load() && ctx.Err() == nil {
				i := next.Add(1) - 1
				if (o.Cases > 0 && i >= o.Cases) || (o.Cases <= 0 && time.Now().After(deadline)) {
					return
				}
				d, nq, err := runCase(ctx, scratch, co, int(i), o.Reader, o.Fields)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					mu.Lock()
					if errCase < 0 || i < errCase {
						firstErr, errCase = fmt.Errorf("case %d: %w", i, err), i
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				queries.Add(int64(nq))
				if d != nil {
					divergent.Add(1)
					mu.Lock()
					if g, ok := groups[d.Key()]; !ok || d.Case < g.Case {
						if ok {
							d.Cases, d.CaseList = g.Cases, g.CaseList
						}
						groups[d.Key()] = d
					}
					g := groups[d.Key()]
					g.Cases++
					g.CaseList = append(g.CaseList, d.Case)
					mu.Unlock()
				}
				n := done.Add(1)
				if o.Progress != nil {
					o.Progress(n, divergent.Load())
				}
			}
		})
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	rep.Cases, rep.Queries, rep.Divergent = done.Load(), queries.Load(), divergent.Load()
	if firstErr != nil {
		return rep, firstErr
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	for _, d := range groups {
		slices.Sort(d.CaseList)
		rep.Divergences = append(rep.Divergences, d)
	}
	slices.SortFunc(rep.Divergences, func(a, b *Divergence) int {
		return cmp.Or(cmp.Compare(a.Case, b.Case), cmp.Compare(a.Key(), b.Key()))
	})
	if o.Out == "" {
		return rep, nil
	}
	for _, d := range rep.Divergences {
		s, err := Shrink(ctx, d, o.Reader, ShrinkOptions{Out: o.Out, Scratch: scratch, Budget: o.ShrinkBudget, SampleSeed: o.Seed, Fields: o.Fields})
		if err != nil {
			return rep, fmt.Errorf("shrinking case %d (%s): %w", d.Case, d.Key(), err)
		}
		d.Shrunk = s
	}
	return rep, nil
}

func scratchRoot(s string) string {
	if s != "" {
		return s
	}
	return fuzz.TempRoot()
}

// runCase writes case i, asks the reader its questions and compares; nil when the reader
// answered every query as kidx does. nq is the number of queries asked.
func runCase(ctx context.Context, scratch string, co corpus.Options, i int, r Reader, fields Fields) (*Divergence, int, error) {
	c, err := corpus.WriteCase(scratch, co, i)
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(c.Dir)
	q := questionsFor(c.Expected, r)
	q.Fields = fields
	d, err := ask(ctx, c, q, r)
	if d != nil {
		d.Case = int64(i)
	}
	return d, len(q.Queries), err
}

// ask runs r on case c's partition with q and judges the answers: nil when they all agree.
func ask(ctx context.Context, c *corpus.Case, q Questions, r Reader) (*Divergence, error) {
	part, err := filepath.Abs(filepath.Join(c.Dir, corpus.Partition))
	if err != nil {
		return nil, err
	}
	d := &Divergence{Damage: c.Expected.Damage, Workload: c.Workload, Plan: c.Plan, Queries: len(q.Queries)}
	answers, err := r.Answer(ctx, part, q.Rules, q.Queries)
	var f *Failure
	switch {
	case errors.As(err, &f):
		d.Kind, d.Failure = f.Kind, f
		return d, nil
	case err != nil:
		return nil, err
	}
	if len(answers) != len(q.Queries) {
		// An in-process Reader's slip; a Command's output was counted when read.
		f := &Failure{Kind: FailProtocol, What: fmt.Sprintf("%d answers for %d queries", len(answers), len(q.Queries))}
		d.Kind, d.Failure = f.Kind, f
		return d, nil
	}
	ms := Compare(q, answers)
	if len(ms) == 0 {
		return nil, nil
	}
	d.Kind, d.Reason, d.Mismatch, d.mismatches = ms[0].Kind, ms[0].Want.Reason, &ms[0], ms
	return d, nil
}
