package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

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
	var written map[string]string // property result's WorkloadFile -> its path under --out
	if o.out != "" {
		if written, err = writeParametricWorkloads(o.out, rep); err != nil {
			return err
		}
	}
	if o.era != nil && o.format != "json" {
		fmt.Fprintf(stdout, "%s: NoIndexOverflowMidAppend is fix (a)'s invariant (appends of at most segment.index.bytes/12 batches); the other proofs hold as for per-batch, their free rolls covering the fix's\n\n", o.era)
	}
	if err := renderParametric(stdout, o.format, rep, o.era, written, o.eraSpec); err != nil {
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
	Schema string `json:"schema"`
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
	// WorkloadFile is where --out wrote the counterexample's workload.
	WorkloadFile string `json:"workloadFile,omitempty"`
}

// writeParametricWorkloads is --out with --parametric: each refuted claim's counterexample
// as a workload file (smt.WriteWorkloads). It returns each written workload's path by its
// file name.
func writeParametricWorkloads(dir string, rep smt.Report) (map[string]string, error) {
	if _, err := smt.WriteWorkloads(dir, rep); err != nil {
		return nil, usageErr("--out: %v", err)
	}
	written := map[string]string{}
	for _, r := range rep.Properties {
		if r.Counterexample != nil {
			written[r.WorkloadFile()] = filepath.Join(dir, r.WorkloadFile())
		}
	}
	return written, nil
}

// renderParametric writes the report: JSON, or props/smt's text and the replay of each
// workload --out wrote.
func renderParametric(w io.Writer, format string, rep smt.Report, era *model.Era, written map[string]string, eraSpec string) error {
	if format != "json" {
		if err := rep.WriteText(w); err != nil {
			return err
		}
		writeParametricReplays(w, rep, written, eraSpec)
		return nil
	}
	doc := parametricJSON{Schema: proveParametricSchema, Method: rep.Method, Rule: "both", Solver: rep.Solver, Ranges: rep.Ranges, Seconds: rep.Seconds,
		Properties: []parametricPropertyJSON{}}
	if era != nil {
		doc.Era = era.ID
	}
	for _, r := range rep.Properties {
		doc.Properties = append(doc.Properties, parametricPropertyJSON{Name: r.Name, Kind: r.Kind, Result: r.Verdict(), Rules: r.Rules,
			Appends: r.Appends, Seconds: r.Seconds, K: r.K, Says: r.Says, Counterexample: r.Counterexample, WorkloadFile: written[r.WorkloadFile()]})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// writeParametricReplays lists the workloads --out wrote, each with the kidx sim line that
// replays it (and, for a claim over two configurations, the second run to compare with); a
// counterexample of the candidate's own obligation replays under --era-spec.
func writeParametricReplays(w io.Writer, rep smt.Report, written map[string]string, eraSpec string) {
	if len(written) == 0 {
		return
	}
	fmt.Fprintf(w, "\ncounterexamples written as workloads (kidx sim replays them):\n")
	for _, r := range rep.Properties {
		path, ok := written[r.WorkloadFile()]
		if !ok {
			continue
		}
		cx := r.Counterexample
		spec := ""
		if cx.Candidate() {
			spec = eraSpecArg(eraSpec)
		}
		fmt.Fprintf(w, "  %s (%s): kidx sim %s--format json --workload %s\n", r.Name, r.Appends, spec, printsafe.Name(path))
		if c, ok := cx.Compare["index.interval.bytes"]; ok {
			fmt.Fprintf(w, "    compare with: kidx sim %s--format json --workload %s --config index.interval.bytes=%d\n", spec, printsafe.Name(path), c[1])
		}
		if !cx.Confirmed {
			fmt.Fprintf(w, "    NOT confirmed by model: the workload may not show the violation (a bug to report)\n")
		}
	}
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
