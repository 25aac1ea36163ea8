package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/props"
)

// replicaFlags are --replicas and the era it runs under, shared by check and prove: --rule,
// or a candidate from the command's --era-spec.
type replicaFlags struct {
	on    bool
	flags *pflag.FlagSet
}

// registerReplicaFlags adds --replicas to check or prove, which have --era-spec already.
func registerReplicaFlags(cmd *cobra.Command, f *replicaFlags, usage string) {
	cmd.Flags().BoolVar(&f.on, "replicas", false, usage)
	f.flags = cmd.Flags()
}

// eraSpec is the command's --era-spec.
func (f *replicaFlags) eraSpec() string { return f.flags.Lookup("era-spec").Value.String() }

// eras picks the eras a replicated run is under: the candidate of --era-spec, else the
// rules' eras (model.EraForRule: per-batch is 4.1-4.4, per-append 3.7-4.0.0).
func (f *replicaFlags) eras(rules []model.AppendRule) ([]model.Era, error) {
	if p := f.eraSpec(); p != "" {
		if f.flags.Changed("rule") {
			return nil, usageErr("--era-spec and --rule both pick the era: give one")
		}
		e, err := readEraSpec(p)
		if err != nil {
			return nil, err
		}
		return []model.Era{e}, nil
	}
	var out []model.Era
	for _, r := range rules {
		out = append(out, model.EraForRule(r))
	}
	return out, nil
}

const checkReplicasUsage = "check the replicated properties (FollowerAppendNeverOverflows, LeaderAppendNeverOverflows, ReplicaRecoverNeverOverflows) on replicated workloads drawn by rapid, under --rule or --era-spec (docs/props.md, \"Replicas\")"

// runReplicas is kidx check --replicas: each replicated property through rapid, its shrunk
// counterexample a replayable replicated workload.
func (o *checkOptions) runReplicas(stdout, stderr io.Writer) error {
	if o.exhaustive || len(o.names) > 0 {
		return usageErr("--replicas checks the replicated properties with rapid: --exhaustive and --property do not apply (kidx prove --replicas is the exhaustive search)")
	}
	eras, err := o.replicas.eras([]model.AppendRule{o.appendRule})
	if err != nil {
		return err
	}
	era := eras[0]
	ps := props.ReplicaProperties()
	results, err := o.runRapidProperties(stderr, len(ps), func(i int, onCase func()) (props.Result, error) {
		return props.CheckReplicas(ps[i], props.ReplicaOptions{Era: era, Checks: o.checks, Seed: o.seed, OnCase: onCase})
	})
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeCheckReplicasJSON(stdout, o.seed, era, results); err != nil {
			return err
		}
	} else {
		writeCheckReplicasText(stdout, o.seed, era, results, o.out, o.replicas.eraSpec())
	}
	return violatedExit(results)
}

// runRapidProperties checks n properties with rapid (check runs property i, calling onCase per
// case), with one progress meter over all of them, and writes the counterexamples to --out.
func (o *checkOptions) runRapidProperties(stderr io.Writer, n int, check func(i int, onCase func()) (props.Result, error)) ([]props.Result, error) {
	meter := startProgress(stderr, "cases", int64(o.checks)*int64(n))
	results := make([]props.Result, 0, n)
	for i := range n {
		res, err := check(i, func() { meter.Add(1) })
		if err != nil {
			meter.Done()
			return nil, err
		}
		results = append(results, res)
	}
	meter.Done()
	if o.out != "" {
		if err := writeCounterexamples(o.out, results); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// violatedExit is check's exit for rapid results: 1 (problemsFound) when an invariant failed.
func violatedExit(results []props.Result) error {
	for _, res := range results {
		if res.Outcome == props.Violated {
			return problemsFound
		}
	}
	return nil
}

func replicaPropertyKafka(name string) string {
	for _, p := range props.ReplicaProperties() {
		if p.Name == name {
			return p.Kafka
		}
	}
	return ""
}

func writeCheckReplicasJSON(w io.Writer, seed uint64, era model.Era, results []props.Result) error {
	type doc struct {
		Schema     string         `json:"schema"`
		Seed       uint64         `json:"seed"`
		Era        string         `json:"era"`
		Candidate  string         `json:"candidate,omitempty"`
		Replicas   bool           `json:"replicas"`
		Properties []propertyJSON `json:"properties"`
	}
	d := doc{Schema: checkReplicasSchema, Seed: seed, Era: era.ID, Candidate: era.Candidate, Replicas: true}
	var err error
	d.Properties, err = propertiesJSON(results, replicaPropertyKafka, false)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

func writeCheckReplicasText(w io.Writer, seed uint64, era model.Era, results []props.Result, out, eraSpec string) {
	fmt.Fprintf(w, "kidx check --replicas: era %s, rapid, seed %d (replay: --seed %d)\n\n", eraName(era), seed, seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "property\tkind\tcases\tresult\ttime\t\n")
	for _, res := range results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", res.Property, res.Kind, res.Cases, res.Outcome, res.Elapsed.Round(time.Millisecond))
	}
	tw.Flush()
	if era.RollWhenAppendLacksIndexRoom {
		fmt.Fprintf(w, "\nfix (a) is checked within its assumption: no fetch brings more batches than the time index has slots (segment.index.bytes/12).\n")
	}
	replay := ""
	if eraSpec != "" {
		replay = " --era-spec " + printsafe.Name(eraSpec)
	}
	for _, res := range results {
		c := res.Counterexample
		if c == nil {
			continue
		}
		wl := writeCounterexampleHead(w, res)
		fmt.Fprintf(w, "  minimal counterexample (%d steps): %s\n", len(c.Workload.Steps), wl)
		if out != "" {
			f := printsafe.Name(filepath.Join(out, res.Property+".json"))
			fmt.Fprintf(w, "  replay: kidx sim --workload %s%s; files: kidx write --workload %s%s --dir DIR\n", f, replay, f, replay)
		}
	}
}

// eraName names an era in output, a candidate with its base.
func eraName(e model.Era) string {
	if e.Candidate != "" {
		return fmt.Sprintf("%s (candidate on %s)", e.ID, e.Candidate)
	}
	return fmt.Sprintf("%s (%s)", e.ID, e.Rule())
}
