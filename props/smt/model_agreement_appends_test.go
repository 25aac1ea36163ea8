package smt

import (
	"math/rand/v2"
	"testing"

	"kidx/model"
)

// appendTracker is what the harness keeps for two-batch appends: the counter's latest
// reset, and the previous and largest append (model reads batches, the rule appends).
type appendTracker struct{ resetPos, lastAppend, maxAppend int64 }

func (tr appendTracker) state(l *model.Log) State {
	st := abstraction(l, tr.resetPos)
	st.PrevBatch, st.MaxBatch = 0, tr.maxAppend
	if st.Size > 0 {
		st.PrevBatch = tr.lastAppend
	}
	return st
}

// randomAppend draws an append of one or two batches.
func randomAppend(r *rand.Rand, p Params) Input {
	in := randomInput(r, p)
	if in.Bytes >= 2*MinBatchBytes && r.IntN(2) == 0 {
		in.SecondAt = MinBatchBytes + r.Int64N(in.Bytes-2*MinBatchBytes+1)
		in.Records = max(in.Records, 2) + r.Int64N(3)
		in.FirstRecords = 1 + r.Int64N(in.Records-1)
	} else {
		in.FirstRecords = in.Records
	}
	return in
}

// appendStep applies a one- or two-batch append (or a restart) to the model; it observes
// the lookup cost of the append's last batch.
func appendStep(t *testing.T, l *model.Log, in Input, tr appendTracker, lookups bool) (appendTracker, Observed) {
	t.Helper()
	if in.Restart {
		if err := l.Restart(); err != nil {
			t.Fatal(err)
		}
		tr.resetPos = l.Active().Size()
		return tr, Observed{}
	}
	var obs Observed
	segs, before, events := l.SegmentCount(), l.Active().Size(), len(l.Events())
	if in.Roll && in.Bytes <= l.Config().SegmentBytes {
		if err := l.Roll(0); err != nil {
			t.Fatal(err)
		}
	}
	batches := []model.Batch{{Records: in.Records, Bytes: in.Bytes}}
	if in.SecondAt > 0 {
		batches = []model.Batch{{Records: in.FirstRecords, Bytes: in.SecondAt}, {Records: in.Records - in.FirstRecords, Bytes: in.Bytes - in.SecondAt}}
	}
	if in.Gap > 0 {
		batches[0].BaseOffset = l.NextOffset() + in.Gap
	}
	if err := l.Append(batches...); err != nil {
		t.Fatal(err)
	}
	obs.Rejected = len(l.Events()) > events
	obs.Rolled = before > 0 && l.SegmentCount() > segs
	if obs.Rolled || l.Active().Size() == in.Bytes {
		tr.resetPos = 0
	}
	if !obs.Rejected {
		tr.lastAppend, tr.maxAppend = in.Bytes, max(tr.maxAppend, in.Bytes)
	}
	if lookups && !obs.Rejected {
		observeLastBatch(t, l, &obs)
	}
	return tr, obs
}

// twoBatchWalks runs random walks of one- and two-batch appends through model.Log under rule
// with mutant m, counting the two-batch appends written and the entries added.
func twoBatchWalks(t *testing.T, r *rand.Rand, n int, rule model.AppendRule, m model.Mutant) (walks []walk, twos, entries int) {
	for range n {
		p := randomParams(r)
		w := walk{rule: rule, run: EvalRun{Params: p, Start: r.Int64N(3) * 1000}}
		cfg := model.DefaultConfig()
		cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.MaxMessageBytes = p.Interval, p.SegmentBytes, p.MaxBatch
		l, err := model.NewLog(cfg, rule, model.LogOptions{KeepSegments: true, StartOffset: w.run.Start, Mutant: m})
		if err != nil {
			t.Fatal(err)
		}
		var tr appendTracker
		for range 1 + r.IntN(12) {
			in := randomAppend(r, p)
			entriesBefore := l.Active().OffsetIndex().Entries()
			var obs Observed
			tr, obs = appendStep(t, l, in, tr, m == model.Exact)
			if in.SecondAt > 0 && !obs.Rejected {
				twos++
			}
			if l.Active().OffsetIndex().Entries() > entriesBefore {
				entries++
			}
			w.run.Inputs = append(w.run.Inputs, in)
			st := abstraction(l, tr.resetPos)
			if rule == model.PerAppend {
				st = tr.state(l)
			}
			w.after = append(w.after, st)
			w.obs = append(w.obs, obs)
		}
		walks = append(walks, w)
	}
	return walks, twos, entries
}

// TestTwoBatchEncodingAgreesWithModel is issue 12's Build item 2 for appends of one or two
// batches, under each rule: whole runs evaluated in the encoding give model's state after
// every step, and the lookup cost of each append's last batch. Under per-append the previous
// and largest "batch" of the state are appends; under per-batch they are batches.
func TestTwoBatchEncodingAgreesWithModel(t *testing.T) {
	z := needZ3(t)
	for _, rule := range []model.AppendRule{model.PerAppend, model.PerBatch} {
		t.Run(rule.String(), func(t *testing.T) {
			walks, twos, entries := twoBatchWalks(t, rand.New(rand.NewPCG(12, 4+uint64(rule))), 400, rule, model.Exact)
			sys := System{Restarts: true, Rolls: true, TwoBatchAppends: true, Rule: rule}
			if bad := runDisagreement(t, z, sys, walks, true); bad != "" {
				t.Fatal(bad)
			}
			if twos < 300 || entries < 200 {
				t.Fatalf("weak sample: %d two-batch appends, %d entries", twos, entries)
			}
			t.Logf("%d walks agree (%d two-batch appends, %d entries)", len(walks), twos, entries)
		})
	}
}

// TestTwoBatchMutantEncodings: with two-batch appends, under each rule, every mutant the
// encoding knows breaks the rule as model's mutant does (what the segment and its index show
// agrees), and differs from Kafka's rule.
func TestTwoBatchMutantEncodings(t *testing.T) {
	z := needZ3(t)
	for _, rule := range []model.AppendRule{model.PerAppend, model.PerBatch} {
		for _, m := range model.Mutants {
			sys := System{Mutant: m, Restarts: true, Rolls: true, TwoBatchAppends: true, Rule: rule}
			if sys.check() != nil {
				continue
			}
			t.Run(rule.String()+"/"+m.String(), func(t *testing.T) {
				walks, _, _ := twoBatchWalks(t, rand.New(rand.NewPCG(uint64(m), 9+uint64(rule))), 25, rule, m)
				if bad := runDisagreement(t, z, sys, walks, false); bad != "" {
					t.Fatal(bad)
				}
				exact, _, _ := twoBatchWalks(t, rand.New(rand.NewPCG(uint64(m), 11+uint64(rule))), 25, rule, model.Exact)
				if runDisagreement(t, z, sys, exact, false) == "" {
					t.Fatalf("the %s encoding agrees with Kafka's rule on 25 random runs", m)
				}
			})
		}
	}
}
