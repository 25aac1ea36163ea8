package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"kidx/internal/printsafe"
	"kidx/props/smt"
)

// runParametric is `kidx prove --parametric`: props/smt's k-induction proofs, for every
// index.interval.bytes, segment.bytes and batch size (docs/proofs-parametric.md). Exit 1 when
// an invariant is not proved, 2 without z3.
func (o *proveOptions) runParametric(stdout io.Writer) error {
	rep, err := smt.Prove(context.Background(), smt.Options{})
	if errors.Is(err, smt.ErrNoZ3) {
		return usageErr("%v", err)
	}
	if err != nil {
		return err
	}
	if o.emitSMT != "" {
		if _, err := smt.EmitSMT(o.emitSMT, rep); err != nil {
			return usageErr("--emit-smt: %v", err)
		}
	}
	if err := renderParametric(stdout, o.format, rep); err != nil {
		return err
	}
	for _, r := range rep.Properties {
		if r.Kind == "invariant" && r.Result != smt.Proved {
			return problemsFound
		}
	}
	return nil
}

// parametricJSON is docs/proofs-parametric.md's JSON. "rule" is "both": one run proves each
// property for every rule it applies to, which the property's "rules" lists.
type parametricJSON struct {
	Method     string                   `json:"method"`
	Rule       string                   `json:"rule"`
	Solver     string                   `json:"solver"`
	Ranges     map[string][2]int64      `json:"ranges"`
	Seconds    float64                  `json:"seconds"`
	Properties []parametricPropertyJSON `json:"properties"`
}

type parametricPropertyJSON struct {
	Name           string              `json:"name"`
	Kind           string              `json:"kind"`
	Result         string              `json:"result"`
	Rules          []string            `json:"rules"`
	Appends        string              `json:"appends"`
	Seconds        float64             `json:"seconds"`
	K              int                 `json:"k"`
	Says           string              `json:"says"`
	Counterexample *smt.Counterexample `json:"counterexample"`
}

// renderParametric writes the report: JSON, or props/smt's text.
func renderParametric(w io.Writer, format string, rep smt.Report) error {
	if format != "json" {
		return rep.WriteText(w)
	}
	doc := parametricJSON{Method: rep.Method, Rule: "both", Solver: rep.Solver, Ranges: rep.Ranges, Seconds: rep.Seconds,
		Properties: []parametricPropertyJSON{}}
	for _, r := range rep.Properties {
		doc.Properties = append(doc.Properties, parametricPropertyJSON{Name: r.Name, Kind: r.Kind, Result: r.Verdict(), Rules: r.Rules,
			Appends: r.Appends, Seconds: r.Seconds, K: r.K, Says: r.Says, Counterexample: r.Counterexample})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// parametricEra refuses --era-spec with --parametric: the SMT system has no index capacity
// (segment.index.bytes) yet, which both fixes of the follower overflow are about
// (docs/proofs-parametric.md, "Candidate eras"); the fixpoint proves them.
func (o *proveOptions) parametricEra() error {
	if o.era == nil {
		return nil
	}
	return usageErr("--era-spec %s with --parametric: the SMT system does not encode segment.index.bytes, which candidate %s changes the rules of; prove it with the fixpoint (drop --parametric)",
		printsafe.Name(o.eraSpec), o.era.ID)
}
