package smt

import (
	"fmt"

	"kidx/model"
	"kidx/props"
)

// Counterexample is a solver's model of a failed base case turned into a workload that
// `kidx sim --workload` replays, with the second configuration of a two-copy claim.
type Counterexample struct {
	Workload model.Workload `json:"workload"`
	// Compare names the two configurations of a claim over two copies (docs/contract.md §9
	// "compare"), nil otherwise.
	Compare map[string][2]int64 `json:"compare"`
	// Confirmed: replaying Workload through model, props' own check of the property
	// reports the violation (Replay is what it said).
	Confirmed bool   `json:"confirmed"`
	Replay    string `json:"replay"`
	// Length is the number of transitions (workload steps, a roll and its append counted
	// once): the shortest the search found, with small values first for questions.
	Length int `json:"length"`

	propsCase *props.Case
}

// Candidate reports whether the counterexample runs under a candidate era (fix (a)'s
// obligation): its workload names the base's rule, so a replay needs the era's spec.
func (c *Counterexample) Candidate() bool { return c.propsCase != nil && c.propsCase.Era != nil }

// counterexample reads the solver's model after a satisfiable base case of length n.
func (o *obligation) counterexample(s *session, n int) (attempt, error) {
	c0 := o.copies[0]
	names := []string{"S", "M", c0.v("next", 0)}
	if o.sys.IndexBytes {
		names = append(names, "X")
	}
	for _, c := range o.copies {
		names = append(names, c.interval())
	}
	for i := range n {
		names = append(names, inName("b", i), inName("r", i), inName("g", i), inName("restart", i),
			inName("force", i), inName("rej", i), c0.v("next", i))
		if o.sys.TwoBatchAppends {
			names = append(names, inName("d", i), inName("r1", i))
		}
	}
	propAt := ""
	if n > 0 {
		propAt = o.prop(n - 1)
		names = append(names, propAt)
	}
	for _, l := range o.lemmas {
		names = append(names, l.f(n))
	}
	vals, err := s.getValues(names)
	if err != nil {
		return attempt{}, err
	}
	readInt := func(name string) (int64, error) { return intValue(vals[name]) }
	readBool := func(name string) (bool, error) { return boolValue(vals[name]) }

	cfg := model.DefaultConfig()
	var errs []error
	get := func(name string) int64 {
		v, err := readInt(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return v
	}
	getB := func(name string) bool {
		v, err := readBool(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return v
	}
	cfg.SegmentBytes, cfg.MaxMessageBytes = get("S"), get("M")
	cfg.IndexIntervalBytes = get(c0.interval())
	if o.sys.IndexBytes {
		cfg.SegmentIndexBytes = get("X")
	}
	start := get(c0.v("next", 0))
	// With segment.index.bytes encoded the time index has an entry per offset entry: the
	// batches' timestamps rise, 1 ms apart (System.IndexBytes).
	ts, stamp := int64(1_700_000_000_000), o.sys.IndexBytes
	var steps []model.Step
	for i := range n {
		if getB(inName("restart", i)) {
			steps = append(steps, model.Step{Restart: true})
			continue
		}
		if getB(inName("force", i)) && !getB(inName("rej", i)) {
			steps = append(steps, model.Step{Roll: true})
		}
		batches := []model.Batch{{Records: get(inName("r", i)), Bytes: get(inName("b", i))}}
		if o.sys.TwoBatchAppends {
			if d := get(inName("d", i)); d > 0 {
				r1 := get(inName("r1", i))
				batches = []model.Batch{{Records: r1, Bytes: d}, {Records: batches[0].Records - r1, Bytes: batches[0].Bytes - d}}
			}
		}
		if g := get(inName("g", i)); g > 0 {
			batches[0].BaseOffset = get(c0.v("next", i)) + g
		}
		for j := range batches {
			if stamp {
				batches[j].MaxTimestamp = ts
				ts++
			}
		}
		steps = append(steps, model.AppendStep(batches...))
	}
	if len(errs) > 0 {
		return attempt{}, fmt.Errorf("reading the solver's model: %v", errs)
	}
	failedLemmas := ""
	for j, l := range o.lemmas {
		if ok, err := boolValue(vals[l.f(n)]); err == nil && !ok {
			failedLemmas += fmt.Sprintf(" [%d] %s", j, l.says)
		}
	}
	if n == 0 || propAt != "" && getB(propAt) {
		// Only a strengthening invariant fails: the property may still hold, the proof
		// does not go through.
		return attempt{result: Unknown, note: fmt.Sprintf("a strengthening invariant is false after %d steps:%s", n, failedLemmas)}, nil
	}
	pc := &props.Case{Steps: steps, StartOffset: start, Config: cfg, Rule: o.rule, Era: o.era, Mutant: o.sys.Mutant}
	cx := &Counterexample{propsCase: pc, Length: n}
	if len(o.copies) > 1 {
		i2 := get(o.copies[1].interval())
		pc.Compare = i2
		cx.Compare = map[string][2]int64{"index.interval.bytes": {cfg.IndexIntervalBytes, i2}}
	}
	cx.Workload = pc.Workload()
	if o.replay != nil {
		cx.Confirmed, cx.Replay = o.replay(cx, o)
	}
	note := fmt.Sprintf("counterexample of %d steps found by the base case", n)
	if !cx.Confirmed {
		note += "; NOT confirmed by model: the encoding and model disagree, a bug to report"
	}
	return attempt{result: Violated, note: note, cx: cx}, nil
}

// replayWith confirms a counterexample with props' check of p on the workload's case.
func replayWith(p *props.Property) func(cx *Counterexample, o *obligation) (bool, string) {
	return func(cx *Counterexample, o *obligation) (bool, string) {
		v := p.Check(cx.propsCase)
		if v == nil {
			return false, fmt.Sprintf("props.%s holds on the replayed workload", p.Name)
		}
		return true, v.Explanation
	}
}
