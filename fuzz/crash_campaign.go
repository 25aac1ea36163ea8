package fuzz

import (
	"errors"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"kidx/model"
)

// CrashCampaignOptions configure RunCrashCampaign.
type CrashCampaignOptions struct {
	Seed    uint64
	Cases   int64 // generated workloads (ignored when Workload is set)
	Workers int   // <= 0: runtime.NumCPU()
	Gen     GenOptions
	// Workload, when set, is explored alone instead of generated cases.
	Workload *model.Workload
	Crash    CrashOptions
	// ShrinkBudget bounds the explorations spent shrinking each finding kind (0: 200).
	ShrinkBudget int
	// Progress, if set, is called after each case with the counts so far.
	Progress func(cases, divergences int64)
}

// CrashReport is the `kidx diff --crash` result (docs/crash.md).
type CrashReport struct {
	Seed        uint64         `json:"seed"`
	Cases       int64          `json:"cases"`
	Skipped     int64          `json:"skipped"`
	CrashPoints int64          `json:"crashPoints"`
	Divergences []*Divergence  `json:"divergences"`
	Findings    []CrashFinding `json:"findings"`
	Elapsed     time.Duration  `json:"-"`
}

// RunCrashCampaign explores the crashes of o.Workload, or of o.Cases generated workloads
// (case i of a seed is CaseWorkload(seed, i), each explored with the crash seed seed+i). The
// first finding of each kind is shrunk; the campaign stops at its first divergence, which is
// shrunk when the crash step's replay (Check) reproduces it.
func RunCrashCampaign(o CrashCampaignOptions) (*CrashReport, error) {
	start := time.Now()
	rep := &CrashReport{Seed: o.Seed, Divergences: []*Divergence{}, Findings: []CrashFinding{}}
	type outcome struct {
		seed uint64
		base model.Workload
		res  *CrashResult
		err  error
	}
	explore := func(i int64, w model.Workload) outcome {
		co := o.Crash
		co.Seed = o.Seed + uint64(i)
		if slices.ContainsFunc(w.Steps, func(s model.Step) bool { return s.Crash != nil }) {
			res, err := ReplayCrash(w)
			return outcome{co.Seed, w, res, err}
		}
		res, err := ExploreCrashes(w, &co)
		return outcome{co.Seed, w, res, err}
	}
	var outs []outcome
	if o.Workload != nil {
		outs = append(outs, explore(0, *o.Workload))
	} else {
		workers := o.Workers
		if workers <= 0 {
			workers = runtime.NumCPU()
		}
		outs = make([]outcome, o.Cases)
		var next, divs, done int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					stop := i >= o.Cases || divs > 0
					mu.Unlock()
					if stop {
						return
					}
					out := explore(i, CrashCaseWorkload(o.Seed, i, o.Gen))
					mu.Lock()
					outs[i] = out
					done++
					if out.res != nil && len(out.res.Divergences) > 0 {
						divs++
					}
					if o.Progress != nil {
						o.Progress(done, divs)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	firstOf := map[string]int{}
	for _, out := range outs {
		if out.res == nil && out.err == nil {
			continue // not run: the campaign stopped at a divergence
		}
		rep.Cases++
		if errors.Is(out.err, ErrSkip) {
			rep.Skipped++
			continue
		}
		if out.err != nil {
			return nil, out.err
		}
		rep.CrashPoints += int64(out.res.Explored)
		if len(out.res.Divergences) > 0 && len(rep.Divergences) == 0 {
			d := out.res.Divergences[0]
			if nd, err := Check(d.Workload, nil); err == nil && nd != nil && nd.Kind == d.Kind {
				d = Shrink(nd, nil, 0)
			}
			rep.Divergences = append(rep.Divergences, d)
		}
		for _, f := range out.res.Findings {
			if _, ok := firstOf[f.Kind]; ok {
				continue
			}
			firstOf[f.Kind] = len(rep.Findings)
			if out.res.Points == 1 && slices.ContainsFunc(out.base.Steps, func(s model.Step) bool { return s.Crash != nil }) {
				rep.Findings = append(rep.Findings, f) // a replay: nothing to shrink
				continue
			}
			co := o.Crash
			co.Seed = out.seed
			rep.Findings = append(rep.Findings, ShrinkFinding(out.base, f, &co, o.ShrinkBudget))
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// CrashCaseWorkload is case i of a crash campaign: CaseWorkload(seed, i), and for every other
// case a flush.messages drawn from 1 to 200, so that the writer also syncs inside segments
// (UnifiedLog.append's flush) and a crash has more durable bytes to keep.
func CrashCaseWorkload(seed uint64, i int64, g GenOptions) model.Workload {
	w := CaseWorkload(seed, i, g)
	if i%2 == 1 {
		rng := rand.New(rand.NewPCG(seed, uint64(i)^0x666c757368))
		cfg := make(map[string]int64, len(w.Config)+1)
		maps.Copy(cfg, w.Config)
		cfg["flush.messages"] = 1 + rng.Int64N(200)
		w.Config = cfg
	}
	return w
}
