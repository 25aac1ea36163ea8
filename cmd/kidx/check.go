package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kidx/internal/printsafe"
	"kidx/internal/rapidenv"
	"kidx/model"
	"kidx/props"
)

func init() { registerCommand(newCheckCmd) }

// checkOptions is kidx check's flags.
type checkOptions struct {
	checks, maxLen   int
	seed             uint64
	exhaustive       bool
	alphabet, format string
	rule, out        string
	eraSpec          string
	names            []string

	seedGiven, checksGiven bool // Complete: given on the command line, not left to rapid's environment
	ruleGiven              bool

	// Validate: what the flags say, parsed.
	appendRule model.AppendRule
	era        *model.Era // --era-spec's candidate, nil without it
	properties []*props.Property
	batchSizes []int64 // --exhaustive's alphabet

	replicas replicaFlags // --replicas (check_replicas.go)
	clean    cleanFlags   // --clean (check_clean.go)
}

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check every property of docs/contract.md §6 with rapid (shrunk counterexamples) or exhaustively",
		Long: `check runs the properties of docs/contract.md §6 on random workloads drawn by rapid (batch sizes,
record counts, timestamps, append groupings, restarts, configs at the edges) and shrinks every
failure to a minimal counterexample. Invariants must hold (a failure exits 1); questions are
claims that can be false (a counterexample is a finding, exit 0).

--exhaustive checks every workload of up to --max-len batches over --alphabet, under every
grouping into appends, for a set of intervals and segment sizes, and reports the states checked.

Each counterexample is printed and, with --out DIR, written as a workload file that
kidx sim --workload replays. The seed is printed; --seed replays a run. rapid's RAPID_CHECKS
and RAPID_SEED are honoured when --checks / --seed are not given.

--era-spec checks a candidate era (a proposed patch, docs/model.md "Candidate eras") instead
of a rule: under either fix of the follower overflow NoIndexOverflowMidAppend becomes an
invariant (fix (a): for appends of at most segment.index.bytes/12 batches), and under fix (b)
ScanBound a question (docs/proofs.md, "Candidate eras"). Its counterexamples replay with
kidx sim --era-spec FILE --workload.

--clean checks the properties of the segments one pass of the log cleaner writes (a workload
ending in a clean step, each case under one of the eras the clean step models); --property
then names those, and --rule, --era-spec, --exhaustive and --replicas are refused.`,
		Example: `  kidx check
  kidx check --rule per-append --checks 10000 --out /tmp/cex
  kidx check --property ScanBound --property Plateau --seed 5 --format json
  kidx check --exhaustive --max-len 5
  kidx check --era-spec examples/eras/fix-a-roll-on-index-room.json --property NoIndexOverflowMidAppend
  kidx check --clean --seed 1 --out /tmp/cex`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	cmd.Flags().IntVar(&o.checks, "checks", 0, "rapid cases per property (default: RAPID_CHECKS, else 10000)")
	cmd.Flags().Uint64Var(&o.seed, "seed", 0, "rapid seed (default: RAPID_SEED, else random; printed)")
	cmd.Flags().BoolVar(&o.exhaustive, "exhaustive", false, "check every workload of a bounded space instead of random ones")
	cmd.Flags().StringVar(&o.alphabet, "alphabet", "68,100,4095,4096,4097,16350", "exhaustive: batch sizes (at least 68, the smallest batch)")
	cmd.Flags().IntVar(&o.maxLen, "max-len", 7, "exhaustive: batches per workload")
	cmd.Flags().StringArrayVar(&o.names, "property", nil, "property to check (repeatable; default all): "+strings.Join(props.Names(), ", ")+
		"; with --clean: "+strings.Join(props.CleanPropertyNames(), ", "))
	cmd.Flags().StringVar(&o.rule, "rule", "per-batch", "append rule: per-batch or per-append")
	registerEraSpec(cmd, &o.eraSpec)
	registerFormat(cmd.Flags(), &o.format, textOrJSON, " (docs/contract.md §9)")
	cmd.Flags().StringVar(&o.out, "out", "", "directory to write each counterexample to as a replayable workload file")
	registerReplicaFlags(cmd, &o.replicas, checkReplicasUsage)
	registerCleanFlag(cmd, &o.clean)
	return cmd
}

func (o *checkOptions) Complete(cmd *cobra.Command, _ []string) error {
	o.seedGiven, o.checksGiven = cmd.Flags().Changed("seed"), cmd.Flags().Changed("checks")
	o.ruleGiven = cmd.Flags().Changed("rule")
	return nil
}

// Validate also takes the seed and the number of checks from rapid's RAPID_SEED and
// RAPID_CHECKS when the flags do not give them: a malformed value is a usage error, checked
// in its place among the flags' checks.
func (o *checkOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	if o.clean.on {
		if err := o.clean.validate(o.names); err != nil {
			return err
		}
	}
	if o.eraSpec != "" && o.ruleGiven {
		return usageErr("--era-spec and --rule both pick the era: give one")
	}
	r, err := model.ParseRule(o.rule)
	if err != nil {
		return usageErr("--rule: %v", err)
	}
	o.appendRule = r
	if o.eraSpec != "" {
		e, err := readEraSpec(o.eraSpec)
		if err != nil {
			return err
		}
		o.era, o.appendRule = &e, e.Rule()
	}
	if !o.clean.on {
		if o.properties, err = parseProperties(o.names); err != nil {
			return err
		}
	}
	if err := o.resolveSeed(); err != nil {
		return err
	}
	if len(rapidenv.Malformed) > 0 {
		p := rapidenv.Malformed[0]
		return usageErr("%s=%q: want %s (rapid reads it)", p.Name, p.Value, p.Want)
	}
	if err := o.resolveChecks(); err != nil {
		return err
	}
	if !o.exhaustive {
		return nil
	}
	if o.batchSizes, err = parseAlphabet(o.alphabet); err != nil {
		return err
	}
	if o.maxLen < 1 || o.maxLen > 12 {
		return usageErr("--max-len %d: want 1..12", o.maxLen)
	}
	return nil
}

// parseProperties is the properties --property names (each flag a comma-separated list), all
// of them when none is named.
func parseProperties(names []string) ([]*props.Property, error) {
	var ps []*props.Property
	for _, group := range names {
		for _, n := range splitComma(group) {
			p, ok := props.ByName(strings.TrimSpace(n))
			if !ok {
				return nil, usageErr("--property %q: want one of %s", n, strings.Join(props.Names(), ", "))
			}
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return props.All(), nil
	}
	return ps, nil
}

// resolveSeed picks the seed when --seed is not given: RAPID_SEED, else a random one.
func (o *checkOptions) resolveSeed() error {
	if o.seedGiven {
		return nil
	}
	v, ok := os.LookupEnv("RAPID_SEED")
	if !ok {
		o.seed = rand.Uint64()>>1 | 1
		return nil
	}
	seed, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return usageErr("RAPID_SEED=%q: %v", v, err)
	}
	o.seed = seed
	return nil
}

// resolveChecks picks the number of cases per property: --checks, else RAPID_CHECKS, else
// defaultChecks.
func (o *checkOptions) resolveChecks() error {
	if o.checksGiven {
		if o.checks < 1 {
			// 0 is rapid's "use the default" (100 cases): never what --checks 0 asks.
			return usageErr("--checks %d: want at least 1", o.checks)
		}
		return nil
	}
	v, ok := os.LookupEnv("RAPID_CHECKS")
	if !ok {
		o.checks = defaultChecks
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		// rapid would run its default of 100 cases on 0 or a malformed value.
		return usageErr("RAPID_CHECKS=%q: want a number of cases, at least 1", v)
	}
	o.checks = n
	return nil
}

func (o *checkOptions) Run(stdout, stderr io.Writer) error {
	if o.replicas.on {
		return o.runReplicas(stdout, stderr)
	}
	if o.clean.on {
		return o.runClean(stdout, stderr)
	}
	results, err := o.check(stderr)
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeCounterexamples(o.out, results); err != nil {
			return err
		}
	}
	if err := renderCheck(stdout, o, results); err != nil {
		return err
	}
	for _, res := range results {
		if res.Outcome == props.Violated {
			return problemsFound
		}
	}
	return nil
}

// check checks every property, exhaustively or with rapid, showing progress on stderr.
func (o *checkOptions) check(stderr io.Writer) ([]props.Result, error) {
	total := int64(o.checks) * int64(len(o.properties))
	if o.exhaustive {
		total = -1 // the states of the space are counted as they are explored
	}
	meter := startProgress(stderr, "cases", total)
	defer meter.Done()
	if o.exhaustive {
		return props.Exhaustive(o.properties, props.ExhaustiveOptions{Rule: o.appendRule, Era: o.era, Alphabet: o.batchSizes, MaxLen: o.maxLen,
			OnState: func(n int64) { meter.Add(4096) }}), nil
	}
	var results []props.Result
	for _, p := range o.properties {
		res, err := props.Check(p, props.Options{Rule: o.appendRule, Era: o.era, Checks: o.checks, Seed: o.seed, OnCase: func() { meter.Add(1) }})
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// renderCheck writes the results: docs/contract.md §9's JSON, or a table and each
// counterexample.
func renderCheck(w io.Writer, o *checkOptions, results []props.Result) error {
	if o.format == "json" {
		return writeCheckJSON(w, o.seed, o.appendRule, o.era, results, o.exhaustive)
	}
	writeCheckText(w, o.seed, o.appendRule, o.era, o.eraSpec, results, o.exhaustive, o.out)
	return nil
}

// defaultChecks is enough for every question to be found with the default settings, and
// runs in about a second.
const defaultChecks = 10000

func parseAlphabet(s string) ([]int64, error) {
	var out []int64
	for _, f := range splitComma(s) {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usageErr("--alphabet %q: %q is not an integer", s, f)
		}
		if err := props.AlphabetError([]int64{v}); err != nil {
			return nil, usageErr("--alphabet %q: %v", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// The schemas of check's documents (docs/schema): the default and --exhaustive runs share one
// shape; --clean and --replicas have their own.
const (
	checkSchema         = "kidx.check/1"
	checkCleanSchema    = "kidx.check.clean/1"
	checkReplicasSchema = "kidx.check.replicas/1"
)

// checkJSON is docs/contract.md §9.
type checkJSON struct {
	Schema string `json:"schema"`
	Seed   uint64 `json:"seed"`
	Rule   string `json:"rule"`
	// Era is the candidate's ID under --era-spec (Rule is then its base's rule).
	Era        string         `json:"era,omitempty"`
	Properties []propertyJSON `json:"properties"`
}

type propertyJSON struct {
	Name           string   `json:"name"`
	Kind           string   `json:"kind"`
	Cases          int64    `json:"cases"`
	States         int64    `json:"states,omitempty"`
	Result         string   `json:"result"`
	Counterexample *cexJSON `json:"counterexample"`
	Seconds        float64  `json:"seconds"`
	Kafka          string   `json:"kafka"`
}

type cexJSON struct {
	Workload    json.RawMessage     `json:"workload"`
	Explanation string              `json:"explanation"`
	Compare     map[string][2]int64 `json:"compare,omitempty"`
}

// propertiesJSON is each result as the check documents print it (kidx.check/1,
// kidx.check.clean/1, kidx.check.replicas/1); kafka gives the Kafka rule a property pins.
func propertiesJSON(results []props.Result, kafka func(property string) string, exhaustive bool) ([]propertyJSON, error) {
	out := []propertyJSON{}
	for _, res := range results {
		pj := propertyJSON{Name: res.Property, Kind: string(res.Kind), Cases: int64(res.Cases), Result: res.Outcome,
			Seconds: res.Elapsed.Seconds(), Kafka: kafka(res.Property)}
		if exhaustive {
			pj.Cases, pj.States = res.States, res.States
		}
		if c := res.Counterexample; c != nil {
			wl, err := c.Workload.MarshalJSON()
			if err != nil {
				return nil, err
			}
			pj.Counterexample = &cexJSON{Workload: wl, Explanation: c.Explanation, Compare: c.Compare}
		}
		out = append(out, pj)
	}
	return out, nil
}

func writeCheckJSON(w io.Writer, seed uint64, r model.AppendRule, era *model.Era, results []props.Result, exhaustive bool) error {
	doc := checkJSON{Schema: checkSchema, Seed: seed, Rule: r.String(), Properties: []propertyJSON{}}
	if era != nil {
		doc.Era = era.ID
	}
	var err error
	doc.Properties, err = propertiesJSON(results, func(name string) string { p, _ := props.ByName(name); return p.Kafka }, exhaustive)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func writeCheckText(w io.Writer, seed uint64, r model.AppendRule, era *model.Era, eraSpec string, results []props.Result, exhaustive bool, out string) {
	mode := fmt.Sprintf("rapid, seed %d (replay: --seed %d)", seed, seed)
	if exhaustive {
		mode = "exhaustive"
	}
	if era != nil {
		fmt.Fprintf(w, "kidx check: %s, %s\n", era, mode)
		fmt.Fprintf(w, "%s\n\n", candidateClaims(era))
	} else {
		fmt.Fprintf(w, "kidx check: rule %s, %s\n\n", r, mode)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	col := "cases"
	if exhaustive {
		col = "states"
	}
	fmt.Fprintf(tw, "property\tkind\t%s\tresult\ttime\t\n", col)
	for _, res := range results {
		n := int64(res.Cases)
		if exhaustive {
			n = res.States
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", res.Property, res.Kind, n, res.Outcome, res.Elapsed.Round(time.Millisecond))
	}
	tw.Flush()
	for _, res := range results {
		c := res.Counterexample
		if c == nil {
			continue
		}
		wl := writeCounterexampleHead(w, res)
		if len(c.Compare) > 0 {
			for k, v := range c.Compare {
				fmt.Fprintf(w, "  compares %s %d and %d\n", k, v[0], v[1])
			}
		}
		fmt.Fprintf(w, "  minimal counterexample: %s\n", wl)
		if out != "" {
			fmt.Fprintf(w, "  replay: kidx sim %s--workload %s\n", eraSpecArg(eraSpec), printsafe.Name(filepath.Join(out, res.Property+".json")))
		}
	}
}

// writeCounterexampleHead writes a counterexample's first line, FINDING (a question's) or
// VIOLATED (an invariant's), and returns its workload as JSON.
func writeCounterexampleHead(w io.Writer, res props.Result) []byte {
	label := "FINDING"
	if res.Outcome == props.Violated {
		label = "VIOLATED"
	}
	fmt.Fprintf(w, "\n%s %s: %s\n", label, res.Property, res.Counterexample.Explanation)
	wl, _ := res.Counterexample.Workload.MarshalJSON()
	return wl
}

// writeCounterexamples writes each counterexample as DIR/<property>.json: the docs/contract.md §3
// workload, plus "compare" when it compares configurations (docs/contract.md §9), and the
// explanation. Each file is written atomically (a temporary file renamed into place).
func writeCounterexamples(dir string, results []props.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("--out %s: %v", dir, err)
	}
	for _, res := range results {
		c := res.Counterexample
		if c == nil {
			continue
		}
		data, err := c.Workload.MarshalJSON()
		if err != nil {
			return err
		}
		path := filepath.Join(dir, res.Property+".json")
		if err := writeFileAtomic(path, append(data, '\n')); err != nil {
			return usageErr("--out: %v", err)
		}
		if len(c.Compare) > 0 || c.Explanation != "" {
			meta, _ := json.MarshalIndent(cexJSON{Workload: data, Explanation: c.Explanation, Compare: c.Compare}, "", "  ")
			if err := writeFileAtomic(filepath.Join(dir, res.Property+".counterexample.json"), append(meta, '\n')); err != nil {
				return usageErr("--out: %v", err)
			}
		}
	}
	return nil
}

// candidateClaims says what checking or proving a candidate era claims (docs/proofs.md,
// "Candidate eras"): the kinds KindUnder changes, and fix (a)'s assumption.
func candidateClaims(era *model.Era) string {
	var claims []string
	if era.RollWhenAppendLacksIndexRoom && !era.SkipEntryWhenIndexFull {
		claims = append(claims, "NoIndexOverflowMidAppend is an invariant for appends of at most segment.index.bytes/12 batches (fix (a)'s assumption; MidAppendOverflow shows larger ones)")
	}
	if era.SkipEntryWhenIndexFull {
		claims = append(claims, "NoIndexOverflowMidAppend is an invariant, ScanBound a question (fix (b) skips due entries)")
	}
	if len(claims) == 0 {
		return "candidate era: the properties keep their kinds"
	}
	return "candidate era: " + strings.Join(claims, "; ")
}

// eraSpecArg is the --era-spec argument a replay needs, "" without one.
func eraSpecArg(path string) string {
	if path == "" {
		return ""
	}
	return "--era-spec " + printsafe.Name(path) + " "
}
