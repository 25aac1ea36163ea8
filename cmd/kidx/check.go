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

	"kidx/internal/rapidenv"
	"kidx/model"
	"kidx/props"
)

func init() { registerCommand(newCheckCmd) }

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		checks, maxLen   int
		seed             uint64
		exhaustive       bool
		alphabet, format string
		rule, out        string
		names            []string
	)
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
and RAPID_SEED are honoured when --checks / --seed are not given.`,
		Example: `  kidx check
  kidx check --rule per-append --checks 10000 --out /tmp/cex
  kidx check --property ScanBound --property Plateau --seed 5 --format json
  kidx check --exhaustive --max-len 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := formatFlag(format, "text", "json"); err != nil {
				return err
			}
			r, err := model.ParseRule(rule)
			if err != nil {
				return usageErr("--rule: %v", err)
			}
			var ps []*props.Property
			for _, group := range names {
				for _, n := range splitComma(group) {
					p, ok := props.ByName(strings.TrimSpace(n))
					if !ok {
						return usageErr("--property %q: want one of %s", n, strings.Join(props.Names(), ", "))
					}
					ps = append(ps, p)
				}
			}
			if len(ps) == 0 {
				ps = props.All()
			}
			if !cmd.Flags().Changed("seed") {
				if v, ok := os.LookupEnv("RAPID_SEED"); ok {
					if seed, err = strconv.ParseUint(v, 0, 64); err != nil {
						return usageErr("RAPID_SEED=%q: %v", v, err)
					}
				} else {
					seed = rand.Uint64()>>1 | 1
				}
			}
			if len(rapidenv.Malformed) > 0 {
				p := rapidenv.Malformed[0]
				return usageErr("%s=%q: want %s (rapid reads it)", p.Name, p.Value, p.Want)
			}
			if !cmd.Flags().Changed("checks") {
				v, ok := os.LookupEnv("RAPID_CHECKS")
				if !ok {
					checks = defaultChecks
				} else if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 {
					// rapid would run its default of 100 cases on 0 or a malformed value.
					return usageErr("RAPID_CHECKS=%q: want a number of cases, at least 1", v)
				} else {
					checks = n
				}
			} else if checks < 1 {
				// 0 is rapid's "use the default" (100 cases): never what --checks 0 asks.
				return usageErr("--checks %d: want at least 1", checks)
			}
			total := int64(checks) * int64(len(ps))
			if exhaustive {
				total = -1 // the states of the space are counted as they are explored
			}
			meter := startProgress(stderr, "cases", total)
			defer meter.Done()
			var results []props.Result
			if exhaustive {
				alpha, err := parseAlphabet(alphabet)
				if err != nil {
					return err
				}
				if maxLen < 1 || maxLen > 12 {
					return usageErr("--max-len %d: want 1..12", maxLen)
				}
				results = props.Exhaustive(ps, props.ExhaustiveOptions{Rule: r, Alphabet: alpha, MaxLen: maxLen,
					OnState: func(n int64) { meter.Add(4096) }})
			} else {
				for _, p := range ps {
					res, err := props.Check(p, props.Options{Rule: r, Checks: checks, Seed: seed, OnCase: func() { meter.Add(1) }})
					if err != nil {
						meter.Done()
						return err
					}
					results = append(results, res)
				}
			}
			meter.Done()
			if out != "" {
				if err := writeCounterexamples(out, results); err != nil {
					return err
				}
			}
			if format == "json" {
				err = writeCheckJSON(stdout, seed, r, results, exhaustive)
			} else {
				writeCheckText(stdout, seed, r, results, exhaustive, out)
			}
			if err != nil {
				return err
			}
			for _, res := range results {
				if res.Outcome == props.Violated {
					return problemsFound
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&checks, "checks", 0, "rapid cases per property (default: RAPID_CHECKS, else 10000)")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "rapid seed (default: RAPID_SEED, else random; printed)")
	cmd.Flags().BoolVar(&exhaustive, "exhaustive", false, "check every workload of a bounded space instead of random ones")
	cmd.Flags().StringVar(&alphabet, "alphabet", "68,100,4095,4096,4097,16350", "exhaustive: batch sizes (at least 68, the smallest batch)")
	cmd.Flags().IntVar(&maxLen, "max-len", 7, "exhaustive: batches per workload")
	cmd.Flags().StringArrayVar(&names, "property", nil, "property to check (repeatable; default all): "+strings.Join(props.Names(), ", "))
	cmd.Flags().StringVar(&rule, "rule", "per-batch", "append rule: per-batch or per-append")
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json (docs/contract.md §9)")
	cmd.Flags().StringVar(&out, "out", "", "directory to write each counterexample to as a replayable workload file")
	return cmd
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

// checkJSON is docs/contract.md §9.
type checkJSON struct {
	Seed       uint64         `json:"seed"`
	Rule       string         `json:"rule"`
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

func writeCheckJSON(w io.Writer, seed uint64, r model.AppendRule, results []props.Result, exhaustive bool) error {
	doc := checkJSON{Seed: seed, Rule: r.String(), Properties: []propertyJSON{}}
	for _, res := range results {
		p, _ := props.ByName(res.Property)
		pj := propertyJSON{Name: res.Property, Kind: string(res.Kind), Cases: int64(res.Cases), Result: res.Outcome,
			Seconds: res.Elapsed.Seconds(), Kafka: p.Kafka}
		if exhaustive {
			pj.Cases, pj.States = res.States, res.States
		}
		if c := res.Counterexample; c != nil {
			wl, err := c.Workload.MarshalJSON()
			if err != nil {
				return err
			}
			pj.Counterexample = &cexJSON{Workload: wl, Explanation: c.Explanation, Compare: c.Compare}
		}
		doc.Properties = append(doc.Properties, pj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func writeCheckText(w io.Writer, seed uint64, r model.AppendRule, results []props.Result, exhaustive bool, out string) {
	mode := fmt.Sprintf("rapid, seed %d (replay: --seed %d)", seed, seed)
	if exhaustive {
		mode = "exhaustive"
	}
	fmt.Fprintf(w, "kidx check: rule %s, %s\n\n", r, mode)
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
		label := "FINDING"
		if res.Outcome == props.Violated {
			label = "VIOLATED"
		}
		wl, _ := c.Workload.MarshalJSON()
		fmt.Fprintf(w, "\n%s %s: %s\n", label, res.Property, c.Explanation)
		if len(c.Compare) > 0 {
			for k, v := range c.Compare {
				fmt.Fprintf(w, "  compares %s %d and %d\n", k, v[0], v[1])
			}
		}
		fmt.Fprintf(w, "  minimal counterexample: %s\n", wl)
		if out != "" {
			fmt.Fprintf(w, "  replay: kidx sim --workload %s\n", filepath.Join(out, res.Property+".json"))
		}
	}
}

// writeCounterexamples writes each counterexample as DIR/<property>.json: the docs/contract.md §3
// workload, plus "compare" when it compares configurations (docs/contract.md §9), and the explanation.
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
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			return usageErr("--out: %v", err)
		}
		if len(c.Compare) > 0 || c.Explanation != "" {
			meta, _ := json.MarshalIndent(cexJSON{Workload: data, Explanation: c.Explanation, Compare: c.Compare}, "", "  ")
			if err := os.WriteFile(filepath.Join(dir, res.Property+".counterexample.json"), append(meta, '\n'), 0o644); err != nil {
				return usageErr("--out: %v", err)
			}
		}
	}
	return nil
}
