package smt

import (
	"context"
	"math/rand/v2"
	"testing"

	"kidx/model"
)

// indexWalk is a random walk of one- and two-batch appends (no restarts) through model.Log
// under per-batch, or candidate fix (a), with segment.index.bytes small enough to fill: the
// states after every step, and whether the step overflowed an index (Kafka threw). A walk
// ends at its overflow: the model's log stops there.
type indexWalk struct {
	run       EvalRun
	after     []State
	rejected  []bool
	overflow  []bool
	indexFull int // steps that rolled because an index was full or lacked room
}

func indexWalks(t *testing.T, r *rand.Rand, n int, era model.Era) []indexWalk {
	t.Helper()
	var out []indexWalk
	for range n {
		p := randomParams(r)
		p.IndexBytes = pick(r, int64(12), 16, 23, 24, 36, 40, 48, 100, 12+r.Int64N(200), model.DefaultSegmentIndexBytes)
		w := indexWalk{run: EvalRun{Params: p, Start: r.Int64N(3) * 1000}}
		cfg := model.DefaultConfig()
		cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.MaxMessageBytes, cfg.SegmentIndexBytes = p.Interval, p.SegmentBytes, p.MaxBatch, p.IndexBytes
		l, err := model.NewLog(cfg, era.Rule(), model.LogOptions{KeepSegments: true, StartOffset: w.run.Start, Era: era})
		if err != nil {
			t.Fatal(err)
		}
		var resetPos int64
		ts := int64(1_700_000_000_000)
		for range 1 + r.IntN(16) {
			in := randomAppend(r, p)
			in.Restart = false
			events, segs := len(l.Events()), l.SegmentCount()
			if in.Roll && in.Bytes <= cfg.SegmentBytes {
				if err := l.Roll(0); err != nil {
					t.Fatal(err)
				}
			}
			segsAfterForce := l.SegmentCount()
			batches := []model.Batch{{Records: in.Records, Bytes: in.Bytes}}
			if in.SecondAt > 0 {
				batches = []model.Batch{{Records: in.FirstRecords, Bytes: in.SecondAt}, {Records: in.Records - in.FirstRecords, Bytes: in.Bytes - in.SecondAt}}
			}
			if in.Gap > 0 {
				batches[0].BaseOffset = l.NextOffset() + in.Gap
			}
			for j := range batches {
				batches[j].MaxTimestamp = ts
				ts++
			}
			if err := l.Append(batches...); err != nil {
				t.Fatal(err)
			}
			var rejected, overflow bool
			for _, e := range l.Events()[events:] {
				switch e.Kind {
				case model.EventOffsetIndexFull, model.EventTimeIndexFull:
					overflow = true
				default:
					rejected = true
				}
			}
			if l.SegmentCount() > segsAfterForce {
				switch l.Segments()[len(l.Segments())-2].RollReason() {
				case model.RollOffsetIndexFull, model.RollTimeIndexFull, model.RollIndexRoom:
					w.indexFull++
				}
			}
			if l.SegmentCount() > segs || l.Active().Size() == in.Bytes {
				resetPos = 0
			}
			w.run.Inputs = append(w.run.Inputs, in)
			w.after = append(w.after, abstraction(l, resetPos))
			w.rejected, w.overflow = append(w.rejected, rejected), append(w.overflow, overflow)
			if overflow {
				break
			}
		}
		out = append(out, w)
	}
	return out
}

// Issue 23: the encoding of segment.index.bytes (System.IndexBytes) and of fix (a)'s roll
// (System.RollOnIndexRoom) against model.Log: whole runs evaluated in the SMT text give the
// model's state after every step (entries, counter, sizes, offsets) and the same overflows,
// under per-batch and under the candidate. The walks must reach index-full rolls and
// overflows, or the comparison would not test what it claims.
func TestIndexBytesEncodingAgreesWithModel(t *testing.T) {
	z := needZ3(t)
	for _, tc := range []struct {
		name string
		era  model.Era
		sys  System
	}{
		{"per-batch", model.EraForRule(model.PerBatch), System{Rolls: true, TwoBatchAppends: true, Rule: model.PerBatch, IndexBytes: true}},
		{"fix-a", FixAEra(), System{Rolls: true, TwoBatchAppends: true, Rule: model.PerBatch, IndexBytes: true, RollOnIndexRoom: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walks := indexWalks(t, rand.New(rand.NewPCG(23, uint64(len(tc.name)))), 200, tc.era)
			runs := make([]EvalRun, len(walks))
			for i, w := range walks {
				runs[i] = w.run
			}
			got, err := tc.sys.EvalRuns(context.Background(), z, runs)
			if err != nil {
				t.Fatal(err)
			}
			overflows, fullRolls := 0, 0
			for k, w := range walks {
				fullRolls += w.indexFull
				for i, g := range got[k] {
					if w.overflow[i] {
						overflows++
						// Fix (a)'s claim on the model's side: only an append past its
						// assumption (more than segment.index.bytes/12 batches) overflows.
						if in := w.run.Inputs[i]; tc.sys.RollOnIndexRoom && (in.SecondAt == 0 || w.run.Params.IndexBytes >= 24) {
							t.Errorf("walk %d, step %d: fix (a) overflowed on an append within its assumption: %+v, segment.index.bytes %d", k, i, in, w.run.Params.IndexBytes)
						}
					}
					// After an overflow Kafka stopped the log; the model's state is the one
					// rolled back, the encoding's is not compared.
					same := g.Observed.Overflow == w.overflow[i] && g.Observed.Rejected == w.rejected[i] && (w.overflow[i] || g.After == w.after[i])
					if !same {
						t.Fatalf("walk %d (%+v, start %d), step %d of %+v: encoding\n %+v %+v\nmodel\n %+v overflow %v rejected %v",
							k, w.run.Params, w.run.Start, i, w.run.Inputs, g.After, g.Observed, w.after[i], w.overflow[i], w.rejected[i])
					}
				}
			}
			t.Logf("%d walks agree: %d index-full or index-room rolls, %d overflows", len(walks), fullRolls, overflows)
			if fullRolls < 50 || overflows < 5 {
				t.Fatalf("weak sample: %d index rolls, %d overflows", fullRolls, overflows)
			}
		})
	}
}
