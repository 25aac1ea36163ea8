package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/props"
)

// cleanFlags is check's --clean: the properties of cleaned segments instead of the
// single-log ones.
type cleanFlags struct {
	on    bool
	flags *pflag.FlagSet
	// properties are the cleaned-segment properties --property names (all when none).
	properties []*props.CleanProperty
}

const checkCleanUsage = "check the properties of the segments a log-cleaner pass writes (CleanedFirstBatchNeverIndexed, CleanedScanBound, CleanedIndexIgnoresChunks, CleanedIndexNeverOverflows) on workloads ending in a clean step, drawn by rapid over the eras the clean step models (docs/props.md, \"Cleaned segments\")"

// registerCleanFlag adds --clean to check.
func registerCleanFlag(cmd *cobra.Command, f *cleanFlags) {
	cmd.Flags().BoolVar(&f.on, "clean", false, checkCleanUsage)
	f.flags = cmd.Flags()
}

// cleanRefusedFlags are check's flags that pick what --clean's generator draws itself (the
// era: each case draws one of the four the clean step models) or another kind of run.
var cleanRefusedFlags = []string{"replicas", "exhaustive", "alphabet", "max-len", "rule", "era-spec"}

// validate refuses the flags that do not apply to --clean and parses --property as the
// names of cleaned-segment properties.
func (f *cleanFlags) validate(names []string) error {
	for _, n := range cleanRefusedFlags {
		if f.flags.Changed(n) {
			return usageErr("--clean checks the cleaned-segment properties with rapid over the eras the clean step models: --%s does not apply", n)
		}
	}
	for _, group := range names {
		for _, n := range splitComma(group) {
			p, ok := props.CleanPropertyByName(strings.TrimSpace(n))
			if !ok {
				return usageErr("--property %q with --clean: want one of %s", n, strings.Join(props.CleanPropertyNames(), ", "))
			}
			f.properties = append(f.properties, p)
		}
	}
	if len(f.properties) == 0 {
		f.properties = props.CleanProperties
	}
	return nil
}

// runClean is kidx check --clean: each cleaned-segment property through rapid, its shrunk
// counterexample a replayable workload ending in the clean step.
func (o *checkOptions) runClean(stdout, stderr io.Writer) error {
	ps := o.clean.properties
	results, err := o.runRapidProperties(stderr, len(ps), func(i int, onCase func()) (props.Result, error) {
		return props.CheckClean(ps[i], props.CleanOptions{Checks: o.checks, Seed: o.seed, OnCase: onCase})
	})
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeCheckCleanJSON(stdout, o.seed, results); err != nil {
			return err
		}
	} else {
		writeCheckCleanText(stdout, o.seed, results, o.out)
	}
	return violatedExit(results)
}

func writeCheckCleanJSON(w io.Writer, seed uint64, results []props.Result) error {
	type doc struct {
		Schema     string         `json:"schema"`
		Seed       uint64         `json:"seed"`
		Eras       []string       `json:"eras"`
		Clean      bool           `json:"clean"`
		Properties []propertyJSON `json:"properties"`
	}
	d := doc{Schema: checkCleanSchema, Seed: seed, Eras: model.CleanEras(), Clean: true}
	var err error
	d.Properties, err = propertiesJSON(results, func(name string) string { p, _ := props.CleanPropertyByName(name); return p.Kafka }, false)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

func writeCheckCleanText(w io.Writer, seed uint64, results []props.Result, out string) {
	fmt.Fprintf(w, "kidx check --clean: eras %s (one drawn per case), rapid, seed %d (replay: --seed %d)\n\n", strings.Join(model.CleanEras(), ", "), seed, seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "property\tkind\tcases\tresult\ttime\t\n")
	for _, res := range results {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", res.Property, res.Kind, res.Cases, res.Outcome, res.Elapsed.Round(time.Millisecond))
	}
	tw.Flush()
	for _, res := range results {
		c := res.Counterexample
		if c == nil {
			continue
		}
		wl := writeCounterexampleHead(w, res)
		fmt.Fprintf(w, "  minimal counterexample (%d steps): %s\n", len(c.Workload.Steps), wl)
		if out != "" {
			// kidx sim's text table streams segments and refuses a clean step; its JSON keeps
			// every segment and lists the events. No "kidx write" line: the generator's
			// workloads roll by hand ({"roll": true}), which kidx write refuses.
			fmt.Fprintf(w, "  replay: kidx sim --format json --workload %s\n", printsafe.Name(filepath.Join(out, res.Property+".json")))
		}
	}
}
