package props

import (
	"time"

	"kidx/model"
)

// exhaustiveReference is the original, unoptimized Exhaustive, kept as the oracle of
// TestExhaustiveMatchesReference: it replays every workload from scratch for every config.
// It checks the properties on every workload of up to MaxLen batches over the
// alphabet, under every grouping of consecutive batches into appends, for every interval
// and segment size: a state is one (workload, config) pair. It proves an invariant (and
// answers a question "yes") within that space, or returns the first counterexample found
// in depth-first order, which is minimal in length.
//
// Workloads share prefixes: the depth-first walk extends the previous workload by one batch,
// either as a new append or joined to the last one, so every (sequence, grouping) is
// visited exactly once.
func exhaustiveReference(ps []*Property, o ExhaustiveOptions) []Result {
	if len(o.Alphabet) == 0 {
		o.Alphabet = DefaultAlphabet
	}
	if o.MaxLen == 0 {
		o.MaxLen = 7
	}
	if len(o.Intervals) == 0 {
		o.Intervals = DefaultIntervals
	}
	if len(o.Segments) == 0 {
		o.Segments = DefaultSegments
	}
	start := time.Now()
	res := make([]Result, len(ps))
	open := len(ps)
	for i, p := range ps {
		res[i] = Result{Property: p.Name, Kind: p.KindFor(o.Rule), Outcome: Holds}
	}
	var states int64
	steps := make([]model.Step, 0, o.MaxLen)
	batches := make([]model.Batch, 0, o.MaxLen) // backing store: appends are windows of it
	check := func() {
		for _, S := range o.Segments {
			for _, I := range o.Intervals {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes, cfg.IndexIntervalBytes = S, I
				c := &Case{Steps: steps, Config: cfg, Rule: o.Rule, Mutant: o.Mutant, Compare: nextInterval(o.Intervals, I)}
				states++
				for i, p := range ps {
					if res[i].Counterexample != nil {
						continue
					}
					res[i].States++
					if v := evaluate(p, c); v != nil {
						w := c.Workload()
						w.Steps = cloneSteps(steps)
						res[i].Counterexample = &Counterexample{Workload: w, Explanation: v.Explanation, Compare: v.Compare}
						res[i].Outcome = outcome(res[i].Kind, true)
						res[i].Elapsed = time.Since(start)
						open--
					}
				}
				if o.OnState != nil && states%4096 == 0 {
					o.OnState(states)
				}
			}
		}
	}
	var walk func()
	walk = func() {
		if len(batches) == o.MaxLen || open == 0 {
			return
		}
		for k, b := range o.Alphabet {
			batch := model.Batch{Records: max(1, model.PossibleRecords(b, 1+int64(k))), Bytes: b, MaxTimestamp: 1_700_000_000_000 + int64(len(batches))}
			batches = append(batches, batch)
			// b as a new append
			steps = append(steps, model.Step{Append: batches[len(batches)-1 : len(batches) : len(batches)]})
			check()
			walk()
			steps = steps[:len(steps)-1]
			// b joined to the last append (a follower's multi-batch append)
			if len(steps) > 0 {
				last := steps[len(steps)-1]
				steps[len(steps)-1].Append = batches[len(batches)-len(last.Append)-1 : len(batches) : len(batches)]
				check()
				walk()
				steps[len(steps)-1] = last
			}
			batches = batches[:len(batches)-1]
		}
	}
	walk()
	for i := range res {
		if res[i].Counterexample == nil {
			res[i].Elapsed = time.Since(start)
		}
	}
	return res
}
