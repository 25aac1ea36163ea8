package smt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"kidx/model"
)

// abstraction reads the system's State off a model.Log. The counter is not exported by
// model; it is, by Kafka's rule (docs/kafka.md §2.2), the bytes appended since the later of the
// latest entry's position and the latest counter reset (segment start or restart), which the
// harness tracks as resetPos. A wrong counter in the encoding still shows: it decides the
// entries, which are read from the model's offset index.
func abstraction(l *model.Log, resetPos int64) State {
	a := l.Active()
	st := State{Size: a.Size(), NextOffset: l.NextOffset()}
	bs := a.Batches()
	st.Batches = int64(len(bs))
	if len(bs) > 0 {
		st.PrevBatch = bs[len(bs)-1].Size
	}
	es := a.OffsetIndex().All()
	st.Entries = int64(len(es))
	if len(es) > 0 {
		e := es[len(es)-1]
		st.EntryPos, st.EntryOffset = e.Position, e.Offset
		for j, b := range bs {
			if b.Position == e.Position {
				st.EntryBatch = int64(j)
			}
		}
	}
	st.Counter = st.Size - max(st.EntryPos, resetPos)
	st.Fresh = st.Counter == 0
	scan := l.Scan()
	st.MaxScan, st.MaxHops = scan.MaxScanBytes, scan.MaxHops
	for _, s := range l.Segments() {
		for _, b := range s.Batches() {
			st.MaxBatch = max(st.MaxBatch, b.Size)
		}
	}
	return st
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func randomParams(r *rand.Rand) Params {
	p := Params{
		Interval:     pick(r, 0, 1, 60, 61, 100, 128, r.Int64N(200), r.Int64N(400), r.Int64N(400), r.Int64N(1500), math.MaxInt32),
		SegmentBytes: pick(r, 14, 60, 61, 122, 200, 14+r.Int64N(600), 14+r.Int64N(2000), 14+r.Int64N(2000), 14+r.Int64N(4000), math.MaxInt32),
		MaxBatch:     pick(r, 61, 62, 61+r.Int64N(300), 61+r.Int64N(1000), 61+r.Int64N(1000), math.MaxInt32),
	}
	return p
}

func randomInput(r *rand.Rand, p Params) Input {
	in := Input{Records: 1, Restart: r.IntN(10) == 0, Roll: r.IntN(10) == 0}
	switch r.IntN(10) {
	case 0:
		in.Bytes = p.MaxBatch
	case 1:
		in.Bytes = min(p.MaxBatch, max(MinBatchBytes, p.SegmentBytes+pick(r, int64(-1), 0, 1)))
	default:
		in.Bytes = MinBatchBytes + r.Int64N(min(p.MaxBatch-MinBatchBytes+1, 400))
	}
	switch r.IntN(5) {
	case 0:
		in.Records = 2 + r.Int64N(3)
	case 1:
		in.Records = 1 + r.Int64N(1000)
	}
	if r.IntN(6) == 0 {
		in.Gap = 1 + r.Int64N(5)
	}
	return in
}

// modelStep applies in to the model the way the system reads it: a restart step, or an
// append of one batch, preceded by a "roll" step when Roll is set and the batch is not
// rejected (UnifiedLog.append rejects before maybeRoll). It returns the new resetPos and
// what the step did.
func modelStep(t *testing.T, l *model.Log, in Input, resetPos int64, lookups bool) (int64, Observed) {
	t.Helper()
	if in.Restart {
		if err := l.Restart(); err != nil {
			t.Fatal(err)
		}
		return l.Active().Size(), Observed{}
	}
	var obs Observed
	segs, before, events := l.SegmentCount(), l.Active().Size(), len(l.Events())
	if in.Roll && in.Bytes <= l.Config().SegmentBytes {
		if err := l.Roll(0); err != nil {
			t.Fatal(err)
		}
	}
	b := model.Batch{Records: in.Records, Bytes: in.Bytes}
	if in.Gap > 0 {
		b.BaseOffset = l.NextOffset() + in.Gap
	}
	if err := l.Append(b); err != nil {
		t.Fatal(err)
	}
	obs.Rejected = len(l.Events()) > events
	obs.Rolled = before > 0 && l.SegmentCount() > segs
	if obs.Rolled {
		resetPos = 0
	}
	if lookups && !obs.Rejected {
		observeLastBatch(t, l, &obs)
	}
	return resetPos, obs
}

type agreementCase struct {
	rule  model.AppendRule
	case_ EvalCase
	after State
	obs   Observed
}

// agreementCases runs random walks through model.Log (with mutant m) and records each
// step's abstract state before and after.
func agreementCases(t *testing.T, r *rand.Rand, walks int, m model.Mutant) []agreementCase {
	var out []agreementCase
	for w := range walks {
		rule := pick(r, model.PerBatch, model.PerAppend)
		p := randomParams(r)
		cfg := model.DefaultConfig()
		cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.MaxMessageBytes = p.Interval, p.SegmentBytes, p.MaxBatch
		l, err := model.NewLog(cfg, rule, model.LogOptions{KeepSegments: true, StartOffset: r.Int64N(3) * 1000, Mutant: m})
		if err != nil {
			t.Fatalf("walk %d: %v", w, err)
		}
		var resetPos int64
		for range 1 + r.IntN(14) {
			before := abstraction(l, resetPos)
			in := randomInput(r, p)
			var obs Observed
			resetPos, obs = modelStep(t, l, in, resetPos, m == model.Exact)
			out = append(out, agreementCase{rule, EvalCase{Params: p, Before: before, Input: in}, abstraction(l, resetPos), obs})
		}
	}
	return out
}

// indexVisible is the part of a state read off the segment and its index alone: a mutant's
// counter, lookups and entry batch follow the mutant's own rule, not the harness's
// reading of Kafka's.
func indexVisible(st State) State {
	st.Counter, st.Fresh, st.MaxScan, st.MaxHops, st.EntryBatch = 0, false, 0, 0, 0
	return st
}

// disagreement evaluates the cases in sys's encoding and describes the first one whose
// successor differs from the model's ("" when all agree), with counts of the branches taken.
func disagreement(t *testing.T, z Solver, sys System, cases []agreementCase, exact bool) (string, [3]int) {
	evals := make([]EvalCase, len(cases))
	for i, c := range cases {
		evals[i] = c.case_
	}
	got, err := sys.Eval(context.Background(), z, evals)
	if err != nil {
		t.Fatal(err)
	}
	var n [3]int // rolls, entries, rejections
	for i, g := range got {
		w, c := cases[i], cases[i].case_
		if exact && g.After != w.after || !exact && indexVisible(g.After) != indexVisible(w.after) {
			return fmt.Sprintf("case %d (%v, %+v, %+v from %+v): encoding's next state\n %+v\nmodel's\n %+v",
				i, w.rule, c.Params, c.Input, c.Before, g.After, w.after), n
		}
		if g.Observed.Rejected != w.obs.Rejected || (c.Before.Size > 0 && g.Observed.Rolled != w.obs.Rolled) ||
			(exact && !w.obs.Rejected && !c.Input.Restart && (g.Observed.Scan != w.obs.Scan || g.Observed.Hops != w.obs.Hops)) {
			return fmt.Sprintf("case %d (%v, %+v, %+v from %+v): encoding observed %+v, model %+v",
				i, w.rule, c.Params, c.Input, c.Before, g.Observed, w.obs), n
		}
		if g.Observed.Rolled && c.Before.Size > 0 {
			n[0]++
		}
		if g.Observed.Entry {
			n[1]++
		}
		if g.Observed.Rejected {
			n[2]++
		}
	}
	return "", n
}

// TestEncodingAgreesWithModel is item 2 of issue 12 (Build): the encoding is a third
// implementation of Kafka's rule, so random concrete steps evaluated in the SMT text itself
// (z3's get-value on the transition, no Go mirror in between) must give model.Log's next
// state and the lookup cost of the appended batch, under both rules (one batch per append:
// the rules coincide).
func TestEncodingAgreesWithModel(t *testing.T) {
	z := needZ3(t)
	walks := 400
	if testing.Short() {
		walks = 60
	}
	cases := agreementCases(t, rand.New(rand.NewPCG(12, 2)), walks, model.Exact)
	bad, n := disagreement(t, z, System{Restarts: true, Rolls: true}, cases, true)
	if bad != "" {
		t.Fatal(bad)
	}
	// The random cases must reach every branch, or the agreement says little.
	if n[0] < 50 || n[1] < 50 || n[2] < 20 {
		t.Fatalf("weak sample: %d cases, %d rolls, %d entries, %d rejections", len(cases), n[0], n[1], n[2])
	}
	t.Logf("%d concrete steps agree (%d rolls, %d entries, %d rejections)", len(cases), n[0], n[1], n[2])
}

// walk is a random run through model.Log: the run for EvalRuns and the model's state and
// observations after each step.
type walk struct {
	rule  model.AppendRule
	run   EvalRun
	after []State
	obs   []Observed
}

func randomWalks(t *testing.T, r *rand.Rand, n int, m model.Mutant) []walk {
	var out []walk
	for range n {
		w := walk{rule: pick(r, model.PerBatch, model.PerAppend)}
		p := randomParams(r)
		w.run = EvalRun{Params: p, Start: r.Int64N(3) * 1000}
		cfg := model.DefaultConfig()
		cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.MaxMessageBytes = p.Interval, p.SegmentBytes, p.MaxBatch
		l, err := model.NewLog(cfg, w.rule, model.LogOptions{KeepSegments: true, StartOffset: w.run.Start, Mutant: m})
		if err != nil {
			t.Fatal(err)
		}
		var resetPos int64
		for range 1 + r.IntN(14) {
			in := randomInput(r, p)
			var obs Observed
			resetPos, obs = modelStep(t, l, in, resetPos, m == model.Exact)
			w.run.Inputs = append(w.run.Inputs, in)
			w.after = append(w.after, abstraction(l, resetPos))
			w.obs = append(w.obs, obs)
		}
		out = append(out, w)
	}
	return out
}

// runDisagreement evaluates the walks' runs in sys's encoding from its initial state and
// describes the first step whose state differs from the model's ("" when all agree).
func runDisagreement(t *testing.T, z Solver, sys System, walks []walk, exact bool) string {
	runs := make([]EvalRun, len(walks))
	for i, w := range walks {
		runs[i] = w.run
	}
	got, err := sys.EvalRuns(context.Background(), z, runs)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range walks {
		for i, g := range got[k] {
			a, b := g.After, w.after[i]
			if !exact {
				a, b = indexVisible(a), indexVisible(b)
			}
			cost := exact && !w.obs[i].Rejected && !w.run.Inputs[i].Restart &&
				(g.Observed.Scan != w.obs[i].Scan || g.Observed.Hops != w.obs[i].Hops)
			if a != b || g.Observed.Rejected != w.obs[i].Rejected || cost {
				return fmt.Sprintf("walk %d (%v, %+v, start %d), step %d of %+v: encoding\n %+v %+v\nmodel\n %+v %+v",
					k, w.rule, w.run.Params, w.run.Start, i, w.run.Inputs, g.After, g.Observed, w.after[i], w.obs[i])
			}
		}
	}
	return ""
}

// TestEncodingRunsAgreeWithModel: whole runs evaluated in the encoding from its own initial
// state (no state supplied from outside) give the model's state after every step.
func TestEncodingRunsAgreeWithModel(t *testing.T) {
	z := needZ3(t)
	walks := randomWalks(t, rand.New(rand.NewPCG(12, 3)), 400, model.Exact)
	if bad := runDisagreement(t, z, System{Restarts: true, Rolls: true}, walks, true); bad != "" {
		t.Fatal(bad)
	}
}

// TestMutantEncodingsAgreeWithMutantModels: each mutant the encoding knows is encoded as
// model.Mutant breaks the rule (the same random runs agree with the mutant model, on what
// the segment and its index show), and differs from Kafka's rule (the exact model
// disagrees on some run): the mutants the proofs must catch are the model's, not look-alikes.
func TestMutantEncodingsAgreeWithMutantModels(t *testing.T) {
	z := needZ3(t)
	for _, m := range model.Mutants {
		sys := System{Mutant: m, Restarts: true, Rolls: true}
		if sys.check() != nil {
			continue
		}
		t.Run(m.String(), func(t *testing.T) {
			if bad := runDisagreement(t, z, sys, randomWalks(t, rand.New(rand.NewPCG(uint64(m), 7)), 40, m), false); bad != "" {
				t.Fatal(bad)
			}
			if runDisagreement(t, z, sys, randomWalks(t, rand.New(rand.NewPCG(uint64(m), 8)), 40, model.Exact), false) == "" {
				t.Fatalf("the %s encoding agrees with Kafka's rule on 40 random runs", m)
			}
		})
	}
}

// observeLastBatch sets obs's scan and hops to the largest of the lookups of the active
// segment's last batch's first and last offsets.
func observeLastBatch(t *testing.T, l *model.Log, obs *Observed) {
	t.Helper()
	a := l.Active()
	last := a.Batches()[len(a.Batches())-1]
	for _, o := range []int64{last.BaseOffset, last.LastOffset} {
		lr, ok := a.Lookup(o)
		if !ok {
			t.Fatalf("lookup of offset %d of the new batch failed", o)
		}
		obs.Scan, obs.Hops = max(obs.Scan, lr.ScanBytes), max(obs.Hops, lr.Hops)
	}
}
