package props

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kidx/model"
)

// exhaustiveShared is what the workers of one Exhaustive call share.
type exhaustiveShared struct {
	ps      []*Property
	o       ExhaustiveOptions
	start   time.Time
	jobs    []exhaustiveJob
	results []jobResult // parallel to jobs, each written by the worker that ran the job
	next    atomic.Int64
	// firstFail[i] is the smallest job index known to hold a counterexample of property i.
	// A later job skips the property: the merge takes the earlier job's counterexample and
	// never reads the later job's figures for it.
	firstFail []atomic.Int64

	states   atomic.Int64
	onStateM sync.Mutex // OnState is called by one worker at a time
}

// jobResult is one job's outcome per property: the states it was checked on (up to and
// including its first counterexample), and that counterexample.
type jobResult struct {
	states  []int64
	cex     []*Counterexample
	elapsed []time.Duration
}

// nodeRuns caches one workload prefix's model state under one config.
type nodeRuns struct {
	partial *partialRun // the log after the prefix, not closed (extended by the children)
	run     *Run        // the workload's run
	rec     *Run        // the run of the workload followed by a recovery
}

// exhaustiveWalker walks jobs of one Exhaustive call on one goroutine.
type exhaustiveWalker struct {
	sh *exhaustiveShared
	ps []*Property
	o  ExhaustiveOptions

	// The runs are cached per config k = segment*len(intervals) + interval. intervals are
	// the options' intervals followed by those the properties' variant runs ask for (0 for
	// Plateau, the next larger interval for the comparisons); any other variant is
	// simulated from scratch.
	intervals []int64
	cfgs      []model.Config // per segment, with interval 0
	mainIdx   []int          // o.Intervals[i] is intervals[mainIdx[i]]
	compare   []int64        // Compare of the states at o.Intervals[i]

	// batches never grows past its capacity, so its first element is the walker's identity
	// in exhaustiveRegistry: simulate recognizes a workload of this walk by it.
	batches []model.Batch
	steps   []model.Step
	// nodes[n][k] caches steps[:n] under config k; nodes[0] is the empty log. saved[b]
	// holds the last step's nodes while the walk joins the b-th batch to it, for the
	// siblings after.
	nodes, saved [][]nodeRuns

	job   int
	res   *jobResult
	dead  []bool // per property: nothing left to check in this job
	open  int
	local int64 // states not yet added to sh.states
	c     Case
}

// exhaustiveRegistry maps the first batch of a walker's workload to the walker, for
// simulate (exhaustiveCached); exhaustiveWalkers counts its entries so that simulate
// outside an exhaustive run pays one atomic load.
var (
	exhaustiveRegistry sync.Map // *model.Batch -> *exhaustiveWalker
	exhaustiveWalkers  atomic.Int64
)

func newExhaustiveWalker(sh *exhaustiveShared) *exhaustiveWalker {
	o := sh.o
	w := &exhaustiveWalker{sh: sh, ps: sh.ps, o: o,
		batches: make([]model.Batch, 0, o.MaxLen), steps: make([]model.Step, 0, o.MaxLen),
		nodes: make([][]nodeRuns, o.MaxLen+1), saved: make([][]nodeRuns, o.MaxLen+1),
		dead: make([]bool, len(sh.ps))}
	add := func(I int64) int {
		if i := slices.Index(w.intervals, I); i >= 0 {
			return i
		}
		w.intervals = append(w.intervals, I)
		return len(w.intervals) - 1
	}
	for _, I := range o.Intervals {
		w.mainIdx = append(w.mainIdx, add(I))
	}
	for _, I := range o.Intervals {
		w.compare = append(w.compare, nextInterval(o.Intervals, I))
		add(w.compare[len(w.compare)-1])
	}
	add(0)
	for _, S := range o.Segments {
		cfg := model.DefaultConfig()
		cfg.SegmentBytes, cfg.IndexIntervalBytes = S, 0
		w.cfgs = append(w.cfgs, cfg)
	}
	configs := len(w.cfgs) * len(w.intervals)
	for n := range w.nodes {
		w.nodes[n], w.saved[n] = make([]nodeRuns, configs), make([]nodeRuns, configs)
	}
	// The walker's identity: batches[0]'s address, stable since batches never reallocates.
	w.batches = w.batches[:1]
	exhaustiveRegistry.Store(&w.batches[0], w)
	exhaustiveWalkers.Add(1)
	w.batches = w.batches[:0]
	return w
}

// release unregisters the walker and reports its last states to OnState's count.
func (w *exhaustiveWalker) release() {
	exhaustiveRegistry.Delete(&w.batches[:1][0])
	exhaustiveWalkers.Add(-1)
	w.sh.states.Add(w.local)
}

// runJob checks job j's node, and its subtree if the job has one.
func (w *exhaustiveWalker) runJob(j int) {
	job := w.sh.jobs[j]
	w.job = j
	w.res = &w.sh.results[j]
	w.res.states = make([]int64, len(w.ps))
	w.res.cex = make([]*Counterexample, len(w.ps))
	w.res.elapsed = make([]time.Duration, len(w.ps))
	clear(w.dead)
	w.open = len(w.ps)
	w.refreshDead()
	if w.open == 0 {
		return
	}
	// The job's prefix, built as the walk builds it: batch i has timestamp base+i, and a
	// joined batch widens the last append's window of batches.
	w.batches, w.steps = w.batches[:0], w.steps[:0]
	for i, k := range job.ks {
		w.batches = append(w.batches, exhaustiveBatch(w.o.Alphabet, k, i))
		n := len(w.batches)
		if job.joined[i] {
			last := w.steps[len(w.steps)-1]
			w.steps[len(w.steps)-1].Append = w.batches[n-len(last.Append)-1 : n : n]
		} else {
			w.steps = append(w.steps, model.Step{Append: w.batches[n-1 : n : n]})
		}
	}
	for n := 1; n < len(w.nodes); n++ {
		clear(w.nodes[n])
	}
	w.check()
	if job.subtree {
		w.walk()
	}
}

// exhaustiveBatch is the k-th size of the alphabet as the i-th batch: k+1 records, or as
// many as the size holds, so that every batch can exist (AlphabetError refuses sizes that
// hold none; the model runs them with 1 record, as arithmetic).
func exhaustiveBatch(alphabet []int64, k, i int) model.Batch {
	return model.Batch{Records: max(1, model.PossibleRecords(alphabet[k], 1+int64(k))), Bytes: alphabet[k], MaxTimestamp: 1_700_000_000_000 + int64(i)}
}

// refreshDead marks the properties an earlier job has a counterexample of.
func (w *exhaustiveWalker) refreshDead() {
	for i := range w.ps {
		if !w.dead[i] && w.sh.firstFail[i].Load() < int64(w.job) {
			w.dead[i] = true
			w.open--
		}
	}
}

// walk is the sequential walk's recursion: every extension of the current workload by one
// batch, as a new append and joined to the last one, each checked and then extended.
func (w *exhaustiveWalker) walk() {
	if len(w.batches) == w.o.MaxLen || w.open == 0 {
		return
	}
	for k := range w.o.Alphabet {
		w.batches = append(w.batches, exhaustiveBatch(w.o.Alphabet, k, len(w.batches)))
		n := len(w.batches)
		// k as a new append
		w.steps = append(w.steps, model.Step{Append: w.batches[n-1 : n : n]})
		d := len(w.steps)
		clear(w.nodes[d])
		w.check()
		w.walk()
		w.steps = w.steps[:d-1]
		// k joined to the last append (a follower's multi-batch append). nodes[d-1] is
		// the prefix with the unjoined last append, which the next siblings extend again:
		// set it aside rather than recompute it. saved is indexed by the batch count, which
		// is unique per recursion level (the step count is not: a joined workload's
		// subtree joins again at the same step count).
		if d-1 > 0 {
			last := w.steps[d-2]
			w.steps[d-2].Append = w.batches[n-len(last.Append)-1 : n : n]
			w.nodes[d-1], w.saved[n] = w.saved[n], w.nodes[d-1]
			clear(w.nodes[d-1])
			w.check()
			w.walk()
			w.steps[d-2] = last
			w.nodes[d-1], w.saved[n] = w.saved[n], w.nodes[d-1]
		}
		w.batches = w.batches[:n-1]
	}
}

// check evaluates the open properties on the current workload under every config, in the
// sequential walk's order (segments, then intervals).
func (w *exhaustiveWalker) check() {
	n := len(w.steps)
	for si, S := range w.o.Segments {
		for ii, I := range w.o.Intervals {
			w.local++
			if w.local == 4096 {
				w.flushStates()
			}
			if w.open == 0 {
				continue
			}
			cfg := w.cfgs[si]
			cfg.SegmentBytes, cfg.IndexIntervalBytes = S, I
			// One Case per walker: the properties do not keep it.
			w.c = Case{Steps: w.steps, Config: cfg, Rule: w.o.Rule, Era: w.o.Era, Mutant: w.o.Mutant, Compare: w.compare[ii],
				run: w.run(n, si*len(w.intervals)+w.mainIdx[ii])}
			for i, p := range w.ps {
				if w.dead[i] {
					continue
				}
				w.res.states[i]++
				if v := evaluate(p, &w.c); v != nil {
					wl := w.c.Workload()
					wl.Steps = cloneSteps(w.steps)
					w.res.cex[i] = &Counterexample{Workload: wl, Explanation: v.Explanation, Compare: v.Compare}
					w.res.elapsed[i] = time.Since(w.sh.start)
					w.dead[i] = true
					w.open--
					for {
						f := w.sh.firstFail[i].Load()
						if f <= int64(w.job) || w.sh.firstFail[i].CompareAndSwap(f, int64(w.job)) {
							break
						}
					}
				}
			}
		}
	}
	w.refreshDead()
}

// flushStates adds the walker's states to the shared count and reports it to OnState,
// which is called once per 4096 states as in a sequential walk.
func (w *exhaustiveWalker) flushStates() {
	total := w.sh.states.Add(w.local)
	w.local = 0
	if w.o.OnState != nil {
		w.sh.onStateM.Lock()
		w.o.OnState(total)
		w.sh.onStateM.Unlock()
	}
}

// partial returns the log after steps[:n] under config k, extending the prefix's.
func (w *exhaustiveWalker) partial(n, k int) *partialRun {
	nr := &w.nodes[n][k]
	if nr.partial == nil {
		if n == 0 {
			cfg := w.cfgs[k/len(w.intervals)]
			cfg.IndexIntervalBytes = w.intervals[k%len(w.intervals)]
			nr.partial = newPartialRun(0, cfg, w.o.Rule, w.o.Era, w.o.Mutant)
		} else {
			nr.partial = w.partial(n-1, k).extend(w.steps[n-1])
		}
	}
	return nr.partial
}

// run returns the run of steps[:n] under config k. A workload of MaxLen batches has no
// extensions: its run is made from the prefix's log in one copy, without keeping its own.
func (w *exhaustiveWalker) run(n, k int) *Run {
	nr := &w.nodes[n][k]
	if nr.run == nil {
		if nr.partial == nil && n == w.o.MaxLen {
			q := w.partial(n-1, k).fork()
			q.apply(w.steps[n-1])
			nr.run = q.finish()
		} else {
			nr.run = w.partial(n, k).fork().finish()
		}
	}
	return nr.run
}

// recoverRun returns the run of steps[:n] followed by a recovery under config k.
func (w *exhaustiveWalker) recoverRun(n, k int) *Run {
	nr := &w.nodes[n][k]
	if nr.rec == nil {
		var q *partialRun
		if nr.partial == nil && n == w.o.MaxLen {
			q = w.partial(n-1, k).fork()
			q.apply(w.steps[n-1])
		} else {
			q = w.partial(n, k).fork()
		}
		q.apply(model.Step{Recover: true})
		nr.rec = q.finish()
	}
	return nr.rec
}

// exhaustiveCached returns the cached run of a simulate call inside an exhaustive walk: the
// walker's current workload (or it followed by a recovery, RecoveryRebuildsSameIndex's
// replay) under a config the walker caches. Anything else is nil, and simulated.
func exhaustiveCached(steps []model.Step, start int64, cfg model.Config, rule model.AppendRule, era *model.Era, mutant model.Mutant) *Run {
	if exhaustiveWalkers.Load() == 0 || len(steps) == 0 || len(steps[0].Append) == 0 {
		return nil
	}
	v, ok := exhaustiveRegistry.Load(&steps[0].Append[0])
	if !ok {
		return nil
	}
	w := v.(*exhaustiveWalker)
	n := len(w.steps)
	recover := false
	switch {
	case len(steps) == n:
	case len(steps) == n+1 && steps[n].Recover && !steps[n].Restart && len(steps[n].Append) == 0:
		recover = true
	default:
		return nil
	}
	if start != 0 || rule != w.o.Rule || era != w.o.Era || mutant != w.o.Mutant {
		return nil
	}
	// Same windows of the walker's batches, which only the walker changes: same workload.
	for i, s := range steps[:n] {
		ws := w.steps[i]
		if s.Restart || s.Recover || len(s.Append) != len(ws.Append) || &s.Append[0] != &ws.Append[0] {
			return nil
		}
	}
	k := w.config(cfg)
	if k < 0 {
		return nil
	}
	if recover {
		return w.recoverRun(n, k)
	}
	return w.run(n, k)
}

// config is the cache index of cfg, or -1.
func (w *exhaustiveWalker) config(cfg model.Config) int {
	ii := slices.Index(w.intervals, cfg.IndexIntervalBytes)
	if ii < 0 {
		return -1
	}
	cfg.IndexIntervalBytes = 0
	for si, base := range w.cfgs {
		if cfg == base {
			return si*len(w.intervals) + ii
		}
	}
	return -1
}
