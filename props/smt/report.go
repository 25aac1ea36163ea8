package smt

import (
	"context"
	"fmt"
	"slices"
	"time"

	"kidx/model"
)

// The results of a proof.
const (
	Proved   = "proved"
	Violated = "violated"
	Unknown  = "unknown"
)

// Result is one property's proof.
type Result struct {
	Name string `json:"name"`
	// Kind is "invariant" (must hold) or "question" (a claim that may be false: violated
	// is then a finding).
	Kind string `json:"kind"`
	// Rules are the append rules the proof covers: both, since with one batch per append
	// they coincide (docs/kafka.md §2.2).
	Rules []string `json:"rules"`
	// Appends is the shape of the appends: "one batch" (both rules), or "one or two batches"
	// (the rule in Rules).
	Appends string  `json:"appends"`
	Result  string  `json:"result"`
	Seconds float64 `json:"seconds"`
	// K is the depth of the k-induction that decided (proved), or of the last one tried.
	K int `json:"k"`
	// Says is the claim in words, with its parameter ranges; Assumptions are its premises;
	// Strengthening lists the invariants proved with it to make it inductive.
	Says           string          `json:"says"`
	Assumptions    []string        `json:"assumptions"`
	Strengthening  []string        `json:"strengthening"`
	Note           string          `json:"note"`
	Counterexample *Counterexample `json:"counterexample"`

	// answers are z3's check-sat answers at depth K, up to the deciding one (EmitSMT's files
	// give the same when re-checked).
	answers []string
	// ob is the obligation that decided: for a question searched with small values first,
	// the restricted one (EmitSMT writes that one, so that its answers are the same).
	ob *obligation
}

// Verdict is the result in `kidx check`'s words (docs/contract.md §9): a violated question is
// a "finding", anything else its Result.
func (r Result) Verdict() string {
	if r.Kind == "question" && r.Result == Violated {
		return "finding"
	}
	return r.Result
}

// Ranges are the parameter ranges every proof covers.
var Ranges = map[string][2]int64{
	"index.interval.bytes": {0, maxInt32},
	"segment.bytes":        {14, maxInt32},
	"batch.bytes":          {MinBatchBytes, maxInt32},
	"batch.records":        {1, maxInt32},
	// Only the follower overflow's obligations read it (System.IndexBytes): a segment needs
	// at least one time-index entry's 12 bytes.
	"segment.index.bytes": {12, maxInt32},
}

// Report is a run of the parametric proofs.
type Report struct {
	Method     string              `json:"method"` // "k-induction"
	Solver     string              `json:"solver"`
	Ranges     map[string][2]int64 `json:"ranges"`
	Seconds    float64             `json:"seconds"`
	Properties []Result            `json:"properties"`
}

// Options select what Prove proves.
type Options struct {
	// Solver is the z3 to use; the zero value finds z3 on PATH (ErrNoZ3 when there is none).
	Solver Solver
	// Properties names the properties to prove (nil: all of Names()).
	Properties []string
	// Mutant proves the claims of a deliberately broken rule (tests: each mutant must
	// make a proof fail); model.Exact is Kafka.
	Mutant model.Mutant
	// RollOnIndexRoom proves the claims under candidate fix (a) (FixAEra): the follower
	// overflow's question becomes the fix's invariant (docs/proofs-parametric.md).
	RollOnIndexRoom bool
}

// Names lists the properties Prove knows, in order.
func Names() []string {
	var out []string
	for _, o := range obligations(model.Exact) {
		if !slices.Contains(out, o.name) {
			out = append(out, o.name)
		}
	}
	return out
}

// Prove proves each selected property for every configuration by k-induction with z3.
func Prove(ctx context.Context, opts Options) (Report, error) {
	z := opts.Solver
	if z.Path == "" {
		var err error
		if z, err = FindZ3(); err != nil {
			return Report{}, err
		}
	}
	if err := (System{Mutant: opts.Mutant}).check(); err != nil {
		return Report{}, err
	}
	version, err := z.Version()
	if err != nil {
		return Report{}, err
	}
	obs, err := selected(opts)
	if err != nil {
		return Report{}, err
	}
	start := time.Now()
	rep := Report{Method: "k-induction", Solver: version, Ranges: Ranges}
	for _, o := range obs {
		r, err := o.prove(ctx, z)
		if err != nil {
			return rep, err
		}
		rep.Properties = append(rep.Properties, r)
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func selected(opts Options) ([]*obligation, error) {
	all := obligations(opts.Mutant)
	if opts.RollOnIndexRoom {
		all = candidateObligations(opts.Mutant)
	}
	if opts.Properties == nil {
		return all, nil
	}
	var out []*obligation
	for _, name := range opts.Properties {
		found := false
		for _, o := range all {
			if o.name == name {
				out = append(out, o)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no parametric proof of %q (known: %v)", name, Names())
		}
	}
	return out, nil
}
