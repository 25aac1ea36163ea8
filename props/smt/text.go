package smt

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteText writes the report for a terminal: per property what it says in words, for which
// rules and appends, under which assumptions, how it was proved (k, the strengthening
// invariants) and how long it took; a counterexample as its configuration, its steps and what
// the replay through model said.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Parametric proofs by %s with %s: %d obligations in %.2f s\n", r.Method, r.Solver, len(r.Properties), r.Seconds)
	var ranges []string
	for _, k := range slices.Sorted(maps.Keys(r.Ranges)) {
		ranges = append(ranges, fmt.Sprintf("%s %d..%d", k, r.Ranges[k][0], r.Ranges[k][1]))
	}
	fmt.Fprintf(&b, "for every %s\n", strings.Join(ranges, ", "))
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "\n%s (%s; %s; %s): %s", p.Name, p.Kind, strings.Join(p.Rules, ", "), p.Appends, strings.ToUpper(p.Verdict()))
		switch p.Result {
		case Proved:
			fmt.Fprintf(&b, " by k-induction, k = %d", p.K)
		case Violated:
			if p.Counterexample != nil {
				fmt.Fprintf(&b, ", counterexample of %d steps", p.Counterexample.Length)
			}
		}
		fmt.Fprintf(&b, ", %.2f s\n  says: %s\n", p.Seconds, p.Says)
		for _, a := range p.Assumptions {
			fmt.Fprintf(&b, "  assuming: %s\n", a)
		}
		for _, l := range p.Strengthening {
			fmt.Fprintf(&b, "  strengthened by: %s\n", l)
		}
		if p.Result == Unknown {
			fmt.Fprintf(&b, "  not decided: %s\n", p.Note)
		}
		if cx := p.Counterexample; cx != nil {
			cfg := cx.Workload.Config
			fmt.Fprintf(&b, "  counterexample: index.interval.bytes=%d segment.bytes=%d", cfg["index.interval.bytes"], cfg["segment.bytes"])
			if c, ok := cx.Compare["index.interval.bytes"]; ok {
				fmt.Fprintf(&b, " (compared with index.interval.bytes=%d)", c[1])
			}
			fmt.Fprintf(&b, ", %d steps:", len(cx.Workload.Steps))
			for _, st := range cx.Workload.Steps {
				switch {
				case st.Restart:
					b.WriteString(" restart")
				case st.Roll:
					b.WriteString(" roll")
				default:
					var sizes []string
					for _, bt := range st.Append {
						sizes = append(sizes, fmt.Sprintf("%d B/%d", bt.Bytes, bt.Records))
					}
					fmt.Fprintf(&b, " [%s]", strings.Join(sizes, ", "))
				}
			}
			confirmed := "confirmed by model"
			if !cx.Confirmed {
				confirmed = "NOT confirmed by model"
			}
			fmt.Fprintf(&b, "\n  replayed, %s: %s\n", confirmed, cx.Replay)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
