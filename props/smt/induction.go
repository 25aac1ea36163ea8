package smt

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kidx/model"
)

// lemma is a strengthening invariant: a state predicate proved together with the property
// (the conjunction is what is k-inductive), so it is proved too, not assumed.
type lemma struct {
	says string
	f    func(j int) string
}

// obligation is one property of the system, proved by k-induction (docs/proofs-parametric.md).
type obligation struct {
	name, kind, says string
	assumptions      []string
	sys              System
	// rule is the append rule the replay runs (PerBatch for single-batch appends, where
	// both rules coincide); variant names the two-batch obligations ("per-append-two-batch",
	// "per-batch-two-batch").
	rule    model.AppendRule
	variant string
	// era is the candidate era the replay runs (nil: the rule's), for a candidate's obligation.
	era    *model.Era
	copies []copyOf
	// params constrains the parameters beyond Kafka's ranges ("" for none).
	params string
	// assume constrains step i's inputs beyond their ranges (nil for none).
	assume func(i int) string
	// prop is the claim about step i: state i, the step's values, state i+1.
	prop   func(i int) string
	lemmas []lemma
	maxK   int
	// smallFirst: search for a counterexample with small values first (segment.bytes at most
	// 5000, at most 4 records per batch, no offset gaps), for a readable workload; a
	// violation found there is one in the full ranges, and without one the full ranges are
	// searched and proved as usual.
	smallFirst bool
	// replay confirms a counterexample through model (props' own check of the property).
	replay func(cx *Counterexample, o *obligation) (bool, string)
}

// planItem is a piece of an obligation's script: text to send, or a check-sat.
type planItem struct {
	text  string
	check *checkPoint
}

type checkPoint struct {
	base bool
	// nonVacuous: a check whose answer must be sat (the premises have a model), or the proof
	// would hold vacuously.
	nonVacuous bool
	length     int // base: the path length checked; step: k
	// expect is the answer that means "holds" (unsat), written into emitted files.
	comment string
}

func and(parts []string) string {
	switch len(parts) {
	case 0:
		return "true"
	case 1:
		return parts[0]
	}
	return "(and " + strings.Join(parts, " ") + ")"
}

func (o *obligation) lemmasAt(j int) string {
	var ps []string
	for _, l := range o.lemmas {
		ps = append(ps, l.f(j))
	}
	return and(ps)
}

// plan writes the k-induction of o at depth k: the base case (every path of length n <= k
// from the initial state satisfies the property and the lemmas; one check per length, so
// a path that cannot be extended is not missed) and the inductive step (any k+1
// transitions whose first k satisfy them satisfy them at the last).
func (o *obligation) plan(k int) []planItem {
	var decl script
	header(&decl, fmt.Sprintf("kidx parametric proof obligation %s (%s): k-induction with k = %d", o.name, o.kind, k), o.copies)
	decl.f("; %s", o.says)
	for _, a := range o.assumptions {
		decl.f("; assumption: %s", a)
	}
	for _, l := range o.lemmas {
		decl.f("; strengthening invariant: %s", l.says)
	}
	if o.params != "" {
		decl.f("(assert %s)", o.params)
	}
	trans := make([]string, k+1)
	for i := 0; i <= k; i++ {
		var t script
		o.sys.declareStep(&decl, &t, o.copies, i)
		if o.assume != nil {
			t.f("(assert %s)", o.assume(i))
		}
		trans[i] = t.String()
	}
	var inits []string
	for _, c := range o.copies {
		inits = append(inits, initial(c))
	}
	if len(o.copies) > 1 { // the copies run the same log: the same first offset
		inits = append(inits, fmt.Sprintf("(= %s %s)", o.copies[0].v("next", 0), o.copies[1].v("next", 0)))
	}
	items := []planItem{{text: decl.String()}}
	var base script
	base.f("; BASE CASE: from the initial state, every path of length n = 0..%d", k)
	base.f("(push 1)")
	base.f("(assert %s)", and(inits))
	base.f("(push 1)")
	base.f("(assert (not %s))", o.lemmasAt(0))
	items = append(items, planItem{text: base.String()}, planItem{check: &checkPoint{base: true, length: 0,
		comment: "; expected unsat: the lemmas hold in the initial state"}})
	for n := 1; n <= k; n++ {
		var t script
		t.f("(pop 1)")
		t.WriteString(trans[n-1])
		t.f("(push 1)")
		t.f("(assert (not (and %s %s)))", o.prop(n-1), o.lemmasAt(n))
		items = append(items, planItem{text: t.String()}, planItem{check: &checkPoint{base: true, length: n,
			comment: fmt.Sprintf("; expected unsat: no path of length %d violates the property or a lemma", n)}})
	}
	items = append(items, planItem{text: "(pop 1)\n"}, planItem{check: &checkPoint{base: true, nonVacuous: true, length: k,
		comment: fmt.Sprintf("; expected sat: a path of length %d exists (the proof is not vacuous)", k)}})
	var step script
	step.f("(pop 1)")
	step.f("; INDUCTIVE STEP: %d+1 transitions from any state; the first %d satisfy the property and lemmas", k, k)
	step.f("(push 1)")
	for i := 0; i <= k; i++ {
		step.WriteString(trans[i])
	}
	for j := 0; j <= k; j++ {
		step.f("(assert %s)", o.lemmasAt(j))
	}
	for i := 0; i < k; i++ {
		step.f("(assert %s)", o.prop(i))
	}
	items = append(items, planItem{text: step.String()}, planItem{check: &checkPoint{nonVacuous: true, length: k,
		comment: "; expected sat: the step's premises have a model (the proof is not vacuous)"}})
	step.Reset()
	step.f("(assert (not (and %s %s)))", o.prop(k), o.lemmasAt(k+1))
	items = append(items, planItem{text: step.String()}, planItem{check: &checkPoint{length: k,
		comment: "; expected unsat: the property and the lemmas are preserved"}}, planItem{text: "(pop 1)\n"})
	return items
}

// Script is o's k-induction at depth k as one SMT-LIB 2 file: the checks' expected answers
// are in comments before each (check-sat).
func (o *obligation) script(k int) string {
	var b strings.Builder
	for _, it := range o.plan(k) {
		if it.check != nil {
			b.WriteString(it.check.comment + "\n(check-sat)\n")
			continue
		}
		b.WriteString(it.text)
	}
	return b.String()
}

// attempt is the outcome of one depth.
type attempt struct {
	result  string // proved, violated, unknown, or "" (not k-inductive: try a deeper k)
	note    string
	cx      *Counterexample
	answers []string // z3's check-sat answers, in order, up to the deciding one
}

// prove runs o at depths 1..maxK until the base case fails (violated), the step holds
// (proved), or z3 answers unknown.
func (o *obligation) prove(ctx context.Context, z Solver) (Result, error) {
	start := time.Now()
	res := Result{Name: o.name, Kind: o.kind, Rules: o.rules(), Appends: o.appends(), Says: o.says, Assumptions: o.assumptions, ob: o}
	for _, l := range o.lemmas {
		res.Strengthening = append(res.Strengthening, l.says)
	}
	if o.smallFirst {
		small := *o
		small.smallFirst = false
		small.says = o.says + " [searched first with segment.bytes <= 5000, at most 4 records per batch, no offset gaps]"
		small.params = and(nonEmpty(o.params, "(<= S 5000)"))
		small.assume = func(i int) string {
			extra := fmt.Sprintf("(and (<= %s 4) (= %s 0))", inName("r", i), inName("g", i))
			if o.assume != nil {
				return and([]string{o.assume(i), extra})
			}
			return extra
		}
		r, err := small.prove(ctx, z)
		if err != nil {
			return r, err
		}
		if r.Result == Violated {
			r.Says = o.says
			r.Seconds = time.Since(start).Seconds()
			r.Note += " (searched with segment.bytes <= 5000 first, for small values)"
			return r, nil
		}
	}
	for k := 1; k <= o.maxK; k++ {
		a, err := o.attemptAt(ctx, z, k)
		if err != nil {
			return res, fmt.Errorf("%s, k = %d: %w", o.name, k, err)
		}
		res.K, res.answers = k, a.answers
		if a.result != "" {
			res.Result, res.Note, res.Counterexample = a.result, a.note, a.cx
			break
		}
		res.Result, res.Note = Unknown, fmt.Sprintf("not k-inductive up to k = %d, and no counterexample of length <= %d", k, k)
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

func (o *obligation) attemptAt(ctx context.Context, z Solver, k int) (attempt, error) {
	s, err := z.start(ctx)
	if err != nil {
		return attempt{}, err
	}
	defer s.close()
	a, err := o.runPlan(s, k)
	a.answers = s.answers
	return a, err
}

func (o *obligation) runPlan(s *session, k int) (attempt, error) {
	for _, it := range o.plan(k) {
		if it.check == nil {
			if err := s.send(it.text); err != nil {
				return attempt{}, err
			}
			continue
		}
		ans, err := s.checkSat()
		if err != nil {
			return attempt{}, err
		}
		switch {
		case it.check.nonVacuous && ans != answerSat:
			return attempt{result: Unknown, note: fmt.Sprintf("vacuous: the %s case's premises have no model (%s)", caseName(it.check.base), ans)}, nil
		case it.check.nonVacuous:
			continue
		case ans == answerUnknown:
			return attempt{result: Unknown, note: fmt.Sprintf("z3 answered unknown (%s case, length %d)", caseName(it.check.base), it.check.length)}, nil
		case ans == answerSat && it.check.base:
			return o.counterexample(s, it.check.length)
		case ans == answerSat:
			return attempt{}, nil // not k-inductive at this k
		}
		if !it.check.base {
			return attempt{result: Proved, note: fmt.Sprintf("k-induction with k = %d", k)}, nil
		}
	}
	return attempt{}, fmt.Errorf("the plan has no inductive step")
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (o *obligation) rules() []string {
	if o.sys.TwoBatchAppends {
		return []string{o.sys.Rule.String()}
	}
	return []string{"per-batch", "per-append"}
}

func (o *obligation) appends() string {
	if o.sys.TwoBatchAppends {
		return "one or two batches"
	}
	return "one batch"
}

func caseName(base bool) string {
	if base {
		return "base"
	}
	return "step"
}
