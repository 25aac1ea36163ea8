package props

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kidx/model"
)

// ExhaustiveOptions bound an exhaustive run.
type ExhaustiveOptions struct {
	Rule model.AppendRule
	// Era, when set, is a candidate era run in place of Rule's (Rule is then Era.Rule()).
	Era       *model.Era
	Alphabet  []int64 // batch sizes (default DefaultAlphabet)
	MaxLen    int     // batches per workload (default 7)
	Intervals []int64 // index.interval.bytes values (default DefaultIntervals)
	Segments  []int64 // segment.bytes values (default DefaultSegments)
	Mutant    model.Mutant
	// OnState, if set, is called every 4096 states (progress bars), from the walk's
	// goroutines but never by two at once.
	OnState func(states int64)
}

// Default spaces of an exhaustive run: intervals at and around the alphabet's edges, and
// segments that hold one, two and four of the largest batches.
var (
	DefaultIntervals = []int64{0, 100, 4095, 4096, 4097, 16350}
	DefaultSegments  = []int64{16350, 32700, 65400}
)

// Exhaustive checks the properties on every workload of up to MaxLen batches over the
// alphabet, under every grouping of consecutive batches into appends, for every interval
// and segment size: a state is one (workload, config) pair. It proves an invariant (and
// answers a question "yes") within that space, or returns the first counterexample found
// in depth-first order (not necessarily the shortest: the walk goes deep before it tries
// shallow siblings).
//
// Workloads share prefixes: the depth-first walk extends the previous workload by one batch,
// either as a new append or joined to the last one, so every (sequence, grouping) is
// visited exactly once. The walk keeps each prefix's model state per config and extends it
// by one step (exhaustive_walk.go), and the runs the properties ask for are computed once
// per (workload, config) and shared.
//
// The space is cut into jobs, subtrees of the walk in depth-first order, that run on
// GOMAXPROCS goroutines. The results are merged in job order, so they are those of one
// sequential walk whatever the scheduling: a property's counterexample is the first in
// depth-first order, and its States count every state before it.
func Exhaustive(ps []*Property, o ExhaustiveOptions) []Result {
	defaultSpace(&o.Alphabet, &o.Intervals, &o.Segments)
	if o.Era != nil {
		o.Rule = o.Era.Rule()
	}
	if o.MaxLen == 0 {
		o.MaxLen = 7
	}
	start := time.Now()
	res := make([]Result, len(ps))
	for i, p := range ps {
		res[i] = Result{Property: p.Name, Kind: KindUnder(p, o.Rule, o.Era), Outcome: Holds}
	}
	workers := runtime.GOMAXPROCS(0)
	// A few jobs per worker balance the load (subtrees differ in cost: large batches roll);
	// each job replays its short prefix once.
	cut := 1
	for cut < 3 && cut < o.MaxLen && exhaustiveNodes(len(o.Alphabet), cut) < 16*workers {
		cut++
	}
	jobs := exhaustiveJobs(len(o.Alphabet), o.MaxLen, cut)
	sh := &exhaustiveShared{ps: ps, o: o, start: start, jobs: jobs, results: make([]jobResult, len(jobs)),
		firstFail: make([]atomic.Int64, len(ps))}
	for i := range sh.firstFail {
		sh.firstFail[i].Store(math.MaxInt64)
	}
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			w := newExhaustiveWalker(sh)
			defer w.release()
			for {
				j := int(sh.next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				w.runJob(j)
			}
		})
	}
	wg.Wait()
	for j := range jobs {
		jr := &sh.results[j]
		for i := range res {
			if res[i].Counterexample != nil {
				continue
			}
			res[i].States += jr.states[i]
			if cx := jr.cex[i]; cx != nil {
				res[i].Counterexample = cx
				res[i].Outcome = outcome(res[i].Kind, true)
				res[i].Elapsed = jr.elapsed[i]
			}
		}
	}
	for i := range res {
		if res[i].Counterexample == nil {
			res[i].Elapsed = time.Since(start)
		}
	}
	return res
}

// exhaustiveNodes is the number of workloads of exactly n batches: |A|^n sequences times
// 2^(n-1) groupings.
func exhaustiveNodes(alphabet, n int) int {
	out := 1
	for i := range n {
		out *= alphabet
		if i > 0 {
			out *= 2
		}
	}
	return out
}

// exhaustiveJob is one node of the walk: its batches (alphabet indexes) and whether each
// batch joined the previous append. A job checks the node's own states and, when subtree is
// set, every extension of it.
type exhaustiveJob struct {
	ks      []int
	joined  []bool
	subtree bool
}

// exhaustiveJobs lists the walk's nodes down to depth cut in depth-first (pre)order, the
// nodes at depth cut with their subtrees: concatenated, their states are the sequential
// walk's, in its order.
func exhaustiveJobs(alphabet, maxLen, cut int) []exhaustiveJob {
	var out []exhaustiveJob
	var ks []int
	var joined []bool
	var gen func()
	gen = func() {
		if len(ks) == maxLen {
			return
		}
		for k := range alphabet {
			// As the walk: k as a new append, then k joined to the last append.
			for _, join := range []bool{false, true} {
				if join && len(ks) == 0 {
					continue
				}
				ks, joined = append(ks, k), append(joined, join)
				out = append(out, exhaustiveJob{ks: slices.Clone(ks), joined: slices.Clone(joined), subtree: len(ks) == cut})
				if len(ks) < cut {
					gen()
				}
				ks, joined = ks[:len(ks)-1], joined[:len(joined)-1]
			}
		}
	}
	gen()
	return out
}

// defaultSpace fills the parts of a space (exhaustive or fixpoint) left empty with the
// defaults: DefaultAlphabet, DefaultIntervals, DefaultSegments.
func defaultSpace(alphabet, intervals, segments *[]int64) {
	if len(*alphabet) == 0 {
		*alphabet = DefaultAlphabet
	}
	if len(*intervals) == 0 {
		*intervals = DefaultIntervals
	}
	if len(*segments) == 0 {
		*segments = DefaultSegments
	}
}

// nextInterval is the next larger interval of the space (a comparison partner), or I+1.
func nextInterval(is []int64, I int64) int64 {
	best := I + 1
	for _, x := range is {
		if x > I && (best == I+1 || x < best) {
			best = x
		}
	}
	return best
}

func cloneSteps(steps []model.Step) []model.Step {
	out := make([]model.Step, len(steps))
	for i, s := range steps {
		out[i] = model.Step{Append: append([]model.Batch(nil), s.Append...), Restart: s.Restart, Recover: s.Recover}
	}
	return out
}
