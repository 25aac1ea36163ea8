package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/props/smt"
)

// runParametric is `kidx prove --parametric`: props/smt's k-induction proofs, for every
// index.interval.bytes, segment.bytes and batch size (docs/proofs-parametric.md). Exit 1 when
// an invariant is not proved, 2 without z3.
func (o *proveOptions) runParametric(stdout io.Writer) error {
	rep, err := smt.Prove(context.Background(), smt.Options{RollOnIndexRoom: o.era != nil})
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
	if o.era != nil && o.format != "json" {
		fmt.Fprintf(stdout, "%s: NoIndexOverflowMidAppend is fix (a)'s invariant (appends of at most segment.index.bytes/12 batches); the other proofs hold as for per-batch, their free rolls covering the fix's\n\n", o.era)
	}
	if err := renderParametric(stdout, o.format, rep, o.era); err != nil {
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
	Method string `json:"method"`
	Rule   string `json:"rule"`
	// Era is the candidate's ID under --era-spec (fix (a) only).
	Era        string                   `json:"era,omitempty"`
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
func renderParametric(w io.Writer, format string, rep smt.Report, era *model.Era) error {
	if format != "json" {
		return rep.WriteText(w)
	}
	doc := parametricJSON{Method: rep.Method, Rule: "both", Solver: rep.Solver, Ranges: rep.Ranges, Seconds: rep.Seconds,
		Properties: []parametricPropertyJSON{}}
	if era != nil {
		doc.Era = era.ID
	}
	for _, r := range rep.Properties {
		doc.Properties = append(doc.Properties, parametricPropertyJSON{Name: r.Name, Kind: r.Kind, Result: r.Verdict(), Rules: r.Rules,
			Appends: r.Appends, Seconds: r.Seconds, K: r.K, Says: r.Says, Counterexample: r.Counterexample})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// parametricEra checks --era-spec with --parametric: the SMT system encodes candidate fix (a)
// (System.RollOnIndexRoom) on per-batch's era and no other knob (docs/proofs-parametric.md,
// "Candidate eras").
func (o *proveOptions) parametricEra() error {
	e := o.era
	if e == nil {
		return nil
	}
	if !e.RollWhenAppendLacksIndexRoom || e.SkipEntryWhenIndexFull || e.Candidate != model.EraForRule(model.PerBatch).ID {
		return usageErr("--era-spec %s with --parametric: the SMT system encodes fix (a) (rollWhenAppendLacksIndexRoom alone) on base %s only; prove candidate %s with the fixpoint (drop --parametric)",
			printsafe.Name(o.eraSpec), model.EraForRule(model.PerBatch).ID, e.ID)
	}
	return nil
}
