package fuzz

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"kidx/model"
)

// pcgSource adapts math/rand/v2 to Source.
type pcgSource struct{ r *rand.Rand }

func (s pcgSource) Intn(n int) int { return s.r.IntN(n) }

// CaseWorkload is case number i of the campaign with the given seed: the same (seed, i)
// always gives the same workload, whatever the number of workers.
func CaseWorkload(seed uint64, i int64, g GenOptions) model.Workload {
	return Generate(pcgSource{rand.New(rand.NewPCG(seed, uint64(i)))}, g)
}

// CampaignOptions configure RunCampaign.
type CampaignOptions struct {
	Seed     uint64
	Cases    int64         // stop after this many cases (0: no limit)
	Duration time.Duration // stop after this long (0: no limit)
	Workers  int           // <= 0: runtime.NumCPU()
	Gen      GenOptions
	Check    Options
	// ShrinkBudget is the number of checks Shrink may spend on a divergence (0: 2000).
	ShrinkBudget int
	// Progress, if set, is called about every 100 ms with the counts so far.
	Progress func(cases, divergences int64)
}

// CampaignResult is what RunCampaign found.
type CampaignResult struct {
	Seed        uint64
	Cases       int64 // cases checked (skipped ones included)
	Skipped     int64
	Elapsed     time.Duration
	Divergences []*Divergence // shrunk; the campaign stops at the first one
	FirstCase   int64         // case number of the first divergence (-1 when none)
}

// RunCampaign checks generated workloads on o.Workers goroutines until o.Cases cases ran,
// o.Duration passed, ctx is done, or a divergence is found (which is then shrunk).
func RunCampaign(ctx context.Context, o CampaignOptions) (*CampaignResult, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		next, done, skipped, found atomic.Int64
		mu                         sync.Mutex
		first                      *Divergence
		firstCase                  = int64(-1)
		fatal                      error
		wg                         sync.WaitGroup
	)
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if o.Cases > 0 && i >= o.Cases {
					return
				}
				d, err := Check(CaseWorkload(o.Seed, i, o.Gen), &o.Check)
				done.Add(1)
				switch {
				case errors.Is(err, ErrSkip):
					skipped.Add(1)
				case err != nil:
					mu.Lock()
					fatal = errors.Join(fatal, err)
					mu.Unlock()
					stop()
				case d != nil:
					found.Add(1)
					mu.Lock()
					if firstCase < 0 || i < firstCase {
						first, firstCase = d, i
					}
					mu.Unlock()
					stop()
				}
			}
		}()
	}
	if o.Progress != nil {
		tick := time.NewTicker(100 * time.Millisecond)
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
	loop:
		for {
			select {
			case <-tick.C:
				o.Progress(done.Load(), found.Load())
			case <-finished:
				break loop
			}
		}
		tick.Stop()
		o.Progress(done.Load(), found.Load())
	} else {
		wg.Wait()
	}
	res := &CampaignResult{Seed: o.Seed, Cases: done.Load(), Skipped: skipped.Load(), Elapsed: time.Since(start), FirstCase: firstCase}
	if first != nil {
		res.Divergences = []*Divergence{Shrink(first, &o.Check, o.ShrinkBudget)}
	}
	return res, fatal
}
