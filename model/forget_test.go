package model

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// forgetRun is what a log run shows of itself: every segment's summary and index entries as
// it finished, the runs of equal cost, the totals and the events.
type forgetRun struct {
	summaries []SegmentSummary
	entries   []string
	runs      map[[2]int64]int64
	scan      ScanStats
	events    []Event
	lo, hi    int64
}

func runLogForTest(cfg Config, era Era, steps []Step, forget bool) (forgetRun, error) {
	out := forgetRun{runs: map[[2]int64]int64{}}
	addRun := func(count, scanBytes, hops int64) {
		if count > 0 {
			out.runs[[2]int64{scanBytes, hops}] += count
		}
	}
	opts := LogOptions{StartOffset: 5, Era: era, ForgetRolled: true, OnSegmentDone: func(s *Segment) {
		out.summaries = append(out.summaries, s.Summarize())
		out.entries = append(out.entries, fmt.Sprint(s.OffsetIndex().All(), s.TimeIndex().All()))
		if !forget {
			s.Runs(addRun)
		}
	}}
	if forget {
		opts.ForgetBatches, opts.OnRun = true, addRun
	}
	l, err := NewLog(cfg, era.Rule(), opts)
	if err != nil {
		return out, err
	}
	for _, st := range steps {
		if l.Stopped() {
			break
		}
		if err := l.Apply(st); err != nil {
			return out, err
		}
	}
	if err := l.Close(); err != nil {
		return out, err
	}
	out.scan, out.events = l.Scan(), l.Events()
	out.lo, out.hi = l.IntervalRange()
	return out, nil
}

// Issue 27: a log that keeps only the last append's batches (ForgetBatches) gives exactly
// what the log that keeps them all gives: every segment's summary and index entries, the
// runs of every cost (Segment.Runs walks the kept batches again at the end; the forgetting
// log hands them on as it appends), the totals, the events (index overflows roll an append
// back, its runs with it) and the interval range, in every era, with restarts, forced rolls,
// multi-batch appends and offset gaps. The reference is the log that keeps its batches.
func TestForgetBatchesMatchesKeepingLog(t *testing.T) {
	overflows := 0
	for seed := uint64(1); seed <= 1500; seed++ {
		r := rand.New(rand.NewPCG(seed, 27))
		cfg, raw := randomSteps(r)
		era := Eras[r.IntN(len(Eras))]
		var steps []Step
		next := int64(5)
		for _, st := range raw {
			if st.Recover {
				continue // a recover reads every batch: refused (TestForgetBatchesRefusesRecover)
			}
			if r.IntN(15) == 0 {
				steps = append(steps, Step{Roll: true, RollBaseOffset: next + int64(r.IntN(3))})
			}
			for i := range st.Append {
				if r.IntN(8) == 0 { // a gap, as compaction leaves
					next += int64(1 + r.IntN(4))
					st.Append[i].BaseOffset = next
				}
				next += st.Append[i].Records
			}
			steps = append(steps, st)
		}
		keep, err1 := runLogForTest(cfg, era, steps, false)
		forget, err2 := runLogForTest(cfg, era, steps, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("seed %d: errors differ: keeping %v, forgetting %v", seed, err1, err2)
		}
		if err1 != nil {
			continue
		}
		if len(keep.events) > 0 && keep.events[len(keep.events)-1].Kind != EventRejected {
			overflows++
		}
		if !slices.Equal(keep.summaries, forget.summaries) || !slices.Equal(keep.entries, forget.entries) {
			t.Fatalf("seed %d (%s, cfg %+v): segments differ:\nkeeping    %+v %v\nforgetting %+v %v", seed, era.ID, cfg, keep.summaries, keep.entries, forget.summaries, forget.entries)
		}
		if !maps.Equal(keep.runs, forget.runs) || keep.scan != forget.scan || keep.lo != forget.lo || keep.hi != forget.hi {
			t.Fatalf("seed %d (%s): runs or totals differ:\nkeeping    %v %+v [%d,%d]\nforgetting %v %+v [%d,%d]", seed, era.ID, keep.runs, keep.scan, keep.lo, keep.hi, forget.runs, forget.scan, forget.lo, forget.hi)
		}
		if !slices.Equal(keep.events, forget.events) {
			t.Fatalf("seed %d: events differ: %v vs %v", seed, keep.events, forget.events)
		}
	}
	if overflows == 0 {
		t.Fatal("no workload overflowed an index: the rollback of an aborted append went untested")
	}
}

// Issue 27: the bound itself. 100,000 one-batch appends into one segment leave the
// forgetting log holding one batch (the last append's), with the count, the last offset and
// the largest batch still right (worked out by hand: offsets 0..99,999, batch i is 61 bytes,
// or 70 for the batch at 50,000).
func TestForgetBatchesHoldsOneAppend(t *testing.T) {
	cfg := DefaultConfig()
	l, err := NewLog(cfg, PerBatch, LogOptions{ForgetBatches: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100_000 {
		size := int64(61)
		if i == 50_000 {
			size = 70
		}
		if err := l.Append(Batch{Records: 1, Bytes: size, MaxTimestamp: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	a := l.Active()
	if got := len(a.Batches()); got != 1 {
		t.Fatalf("the active segment holds %d batches, want 1 (the last append's)", got)
	}
	if cap(a.Batches()) > 16 {
		t.Fatalf("the batch buffer grew to %d", cap(a.Batches()))
	}
	sum := a.Summarize()
	if sum.BatchCount != 100_000 || sum.LastOffset != 99_999 || sum.MaxBatchBytes != 70 || sum.SizeBytes != 99_999*61+70 {
		t.Fatalf("summary %+v", sum)
	}
}

// A recover or a crash step reads every batch of the segment (LogSegment.recover, the
// truncation): a ForgetBatches log refuses them with an error, never a wrong answer.
func TestForgetBatchesRefusesRecover(t *testing.T) {
	l, err := NewLog(DefaultConfig(), PerBatch, LogOptions{ForgetBatches: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Batch{Records: 1, Bytes: 100}); err != nil {
		t.Fatal(err)
	}
	if err := l.Recover(); err == nil {
		t.Fatal("Recover: no error")
	}
	if err := l.Crash(Crash{}); err == nil {
		t.Fatal("Crash: no error")
	}
	if _, err := NewLog(DefaultConfig(), PerBatch, LogOptions{ForgetBatches: true, Mutant: MutantGreaterOrEqual}); err == nil {
		t.Fatal("a mutant with ForgetBatches: no error")
	}
}
