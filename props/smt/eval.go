package smt

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// EvalCase is one concrete step to evaluate in the encoding.
type EvalCase struct {
	Params Params
	Before State
	Input  Input
}

// EvalResult is the encoding's successor of an EvalCase.
type EvalResult struct {
	After    State
	Observed Observed
}

func smtInt(v int64) string {
	if v < 0 {
		return fmt.Sprintf("(- %d)", -v)
	}
	return strconv.FormatInt(v, 10)
}

func smtBool(v bool) string { return strconv.FormatBool(v) }

// Eval evaluates concrete steps in the SMT encoding itself: z3 is given the transition's
// text, a concrete state, parameters and input, and asked for the successor (get-value).
// This is how the encoding is checked against model (third implementation against the
// first): no Go mirror of the transition stands between them. One z3 process serves all
// cases, each inside push/pop.
func (s System) Eval(ctx context.Context, z Solver, cases []EvalCase) ([]EvalResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	c := copyOf{}
	var w script
	header(&w, "kidx: concrete evaluation of one step", []copyOf{c})
	s.declareStep(&w, &w, []copyOf{c}, 0)
	names := resultNames(c, 0, s.IndexBytes)
	query := "(get-value (" + strings.Join(names, " ") + "))"
	for _, k := range cases {
		w.f("(push 1)")
		eq := func(name, v string) { w.f("(assert (= %s %s))", name, v) }
		eq(c.interval(), smtInt(k.Params.Interval))
		eq("S", smtInt(k.Params.SegmentBytes))
		eq("M", smtInt(k.Params.MaxBatch))
		if s.IndexBytes {
			eq("X", smtInt(k.Params.IndexBytes))
		}
		for j, v := range k.Before.ints() {
			eq(c.v(intFields[j], 0), smtInt(v))
		}
		eq(c.v("fresh", 0), smtBool(k.Before.Fresh))
		eq(inName("b", 0), smtInt(k.Input.Bytes))
		eq(inName("r", 0), smtInt(k.Input.Records))
		eq(inName("g", 0), smtInt(k.Input.Gap))
		eq(inName("restart", 0), smtBool(k.Input.Restart))
		eq(inName("force", 0), smtBool(k.Input.Roll))
		if s.TwoBatchAppends {
			eq(inName("d", 0), smtInt(k.Input.SecondAt))
			eq(inName("r1", 0), smtInt(k.Input.FirstRecords))
		}
		w.f("(check-sat-using (then simplify solve-eqs smt))")
		w.f("%s", query)
		w.f("(pop 1)")
	}
	answers, err := z.run(ctx, w.String())
	if err != nil {
		return nil, err
	}
	out := make([]EvalResult, len(cases))
	for i := range cases {
		if len(answers) < 2 {
			return nil, fmt.Errorf("case %d: z3 answered too little", i)
		}
		a, err := answerOf(answers[0])
		if err != nil {
			return nil, err
		}
		if a != answerSat {
			return nil, fmt.Errorf("case %d (%+v): the encoding has no successor (%s)", i, cases[i], a)
		}
		list, err := values(answers[1])
		if err != nil {
			return nil, err
		}
		vals, err := named(names, list)
		if err != nil {
			return nil, err
		}
		answers = answers[2:]
		if out[i], err = readResult(vals, c, 0, s.IndexBytes); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EvalRun is a whole run to evaluate in the encoding: from the empty log (first offset
// Start), the inputs in order.
type EvalRun struct {
	Params Params
	Start  int64
	Inputs []Input
}

// EvalRuns evaluates whole runs in the SMT encoding from its own initial state: z3 is given
// the initial condition, the transitions and the inputs, and asked for every state. Unlike
// Eval, no state is supplied from outside, so the encoding's counter evolves by its own rule.
func (s System) EvalRuns(ctx context.Context, z Solver, runs []EvalRun) ([][]EvalResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	c := copyOf{}
	var w script
	header(&w, "kidx: concrete evaluation of whole runs", []copyOf{c})
	var runNames [][]string
	for _, run := range runs {
		w.f("(push 1)")
		var names []string
		for i, in := range run.Inputs {
			s.declareStep(&w, &w, []copyOf{c}, i)
			eq := func(name, v string) { w.f("(assert (= %s %s))", name, v) }
			eq(inName("b", i), smtInt(in.Bytes))
			eq(inName("r", i), smtInt(in.Records))
			eq(inName("g", i), smtInt(in.Gap))
			eq(inName("restart", i), smtBool(in.Restart))
			eq(inName("force", i), smtBool(in.Roll))
			if s.TwoBatchAppends {
				eq(inName("d", i), smtInt(in.SecondAt))
				eq(inName("r1", i), smtInt(in.FirstRecords))
			}
			names = append(names, resultNames(c, i, s.IndexBytes)...)
		}
		w.f("(assert %s)", initial(c))
		w.f("(assert (= %s %s))", c.v("next", 0), smtInt(run.Start))
		w.f("(assert (= %s %s))", c.interval(), smtInt(run.Params.Interval))
		w.f("(assert (= S %s))", smtInt(run.Params.SegmentBytes))
		w.f("(assert (= M %s))", smtInt(run.Params.MaxBatch))
		if s.IndexBytes {
			w.f("(assert (= X %s))", smtInt(run.Params.IndexBytes))
		}
		// The run is determined by its inputs: simplification and equation solving find it
		// without search (plain check-sat in incremental mode is ten times slower here).
		w.f("(check-sat-using (then simplify solve-eqs smt))")
		w.f("(get-value (%s))", strings.Join(names, " "))
		w.f("(pop 1)")
		runNames = append(runNames, names)
	}
	answers, err := z.run(ctx, w.String())
	if err != nil {
		return nil, err
	}
	out := make([][]EvalResult, len(runs))
	for k, run := range runs {
		if len(answers) < 2 {
			return nil, fmt.Errorf("run %d: z3 answered too little", k)
		}
		if a, err := answerOf(answers[0]); err != nil || a != answerSat {
			return nil, fmt.Errorf("run %d (%+v): the encoding has no such run (%s, %v)", k, run, a, err)
		}
		list, err := values(answers[1])
		if err != nil {
			return nil, err
		}
		vals, err := named(runNames[k], list)
		if err != nil {
			return nil, err
		}
		answers = answers[2:]
		for i := range run.Inputs {
			r, err := readResult(vals, c, i, s.IndexBytes)
			if err != nil {
				return nil, err
			}
			out[k] = append(out[k], r)
		}
	}
	return out, nil
}

// resultNames are the terms readResult reads for step i; ov adds the overflow
// (System.IndexBytes).
func resultNames(c copyOf, i int, ov bool) []string {
	var names []string
	for _, f := range intFields {
		names = append(names, c.v(f, i+1))
	}
	names = append(names, c.v("fresh", i+1), c.v("roll", i), inName("rej", i), c.v("entry", i), c.v("scan", i), c.v("hops", i))
	if ov {
		names = append(names, c.v("ov", i))
	}
	return names
}

// readResult reads state i+1 and step i's observations from get-value's answer.
func readResult(vals map[string]sexpr, c copyOf, i int, ov bool) (EvalResult, error) {
	ints := make([]int64, len(intFields))
	var err error
	for j, f := range intFields {
		if ints[j], err = intValue(vals[c.v(f, i+1)]); err != nil {
			return EvalResult{}, err
		}
	}
	bools := make([]bool, 4)
	for j, name := range []string{c.v("fresh", i+1), c.v("roll", i), inName("rej", i), c.v("entry", i)} {
		if bools[j], err = boolValue(vals[name]); err != nil {
			return EvalResult{}, err
		}
	}
	scan, err := intValue(vals[c.v("scan", i)])
	if err != nil {
		return EvalResult{}, err
	}
	hops, err := intValue(vals[c.v("hops", i)])
	if err != nil {
		return EvalResult{}, err
	}
	r := EvalResult{After: stateFromInts(ints, bools[0]),
		Observed: Observed{Rolled: bools[1], Rejected: bools[2], Entry: bools[3], Scan: scan, Hops: hops}}
	if ov {
		if r.Observed.Overflow, err = boolValue(vals[c.v("ov", i)]); err != nil {
			return EvalResult{}, err
		}
	}
	return r, nil
}
