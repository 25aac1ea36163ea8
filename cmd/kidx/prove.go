package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/props"
)

func init() { registerCommand(newProveCmd) }

// Default space of kidx prove: small enough to reach its fixpoint in seconds on 2 cores
// (docs/proofs.md gives the figures); the flags widen it.
const (
	proveAlphabet   = "68,100,4096"
	proveIntervals  = "0,100,4096,4300"
	proveSegments   = "1000,4300"
	proveIndexBytes = "24,10485760"
)

// proveOptions is kidx prove's flags.
type proveOptions struct {
	rule, alphabet, intervals, segments, indexBytes, format, out string
	maxAppend                                                    int
	maxStates                                                    int64
	modelPath                                                    bool
	restarts, recovers, parametric                               bool
	emitSMT                                                      string
	eraSpec                                                      string
	replicas                                                     replicaFlags // --replicas (prove_replicas.go)

	spaceFlag string // Complete: the first flag given of explicitSpaceFlags, "" when none
	ruleGiven bool   // Complete: --rule was given

	// Validate: --era-spec's candidate, nil without it.
	era *model.Era

	// Validate: the rules to prove under and the space (its Rule set per proof).
	rules []model.AppendRule
	space props.ProveOptions
}

func newProveCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &proveOptions{}
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Prove the properties for workloads of any length over a finite space (explicit-state fixpoint)",
		Long: `prove explores, breadth first, every abstract state of the log that the space's workloads
reach: appends of 1..--max-append batches whose sizes come from --alphabet (the k-th size with
k+1 records, timestamps increasing by 1 ms per batch), for every index.interval.bytes in
--intervals, segment.bytes in --segments and segment.index.bytes in --index-bytes. The
abstract state is the part of the model's state that decides every future step and verdict
(docs/proofs.md). Every property is checked on every transition, on the concrete workload
that reaches it; when no new state is left (the fixpoint), an invariant never violated holds
for every workload of ANY length over the space, under the assumptions docs/proofs.md lists
(one process lifetime unless --restarts adds clean restarts and --recovers unclean ones,
whose LogSegment.recover rebuilds the indexes; no time-based rolls).

Results: an invariant or question is "proved" or has a shortest counterexample ("violated",
"finding"); a sometimes property (a hazard: an index-full roll, a mid-append overflow, the
cliff) has a shortest "witness", or is "violated" when the whole space never reaches it.
"unknown" means --max-states stopped the exploration. Counterexamples and witnesses are
printed and, with --out DIR, written as workload files that kidx sim --workload replays.

--era-spec proves a candidate era (a proposed patch, docs/model.md "Candidate eras") on a base
of per-batch or per-append instead of the rules: under either fix of the follower overflow
NoIndexOverflowMidAppend is an invariant (fix (a): for appends of at most
segment.index.bytes/12 batches, its assumption), under fix (b) ScanBound is a question
(docs/proofs.md, "Candidate eras"). Candidates take the model path (slower than the fast
path). --parametric takes fix (a) alone on per-batch (examples/eras/fix-a-roll-on-index-room.json)
and proves NoIndexOverflowMidAppend for it for every configuration
(docs/proofs-parametric.md, "Candidate eras"). With --parametric, --out DIR writes each
refuted claim's counterexample (z3's model made a concrete workload) as
DIR/NAME[.VARIANT].parametric.json, which kidx sim --workload replays, and beside it
NAME[.VARIANT].parametric.counterexample.json (the compared configuration of a two-copy
claim, whether the model confirmed it, what its replay said).

Exit 0 when every invariant is proved, 1 when one is violated or the exploration was cut
short, 2 on a usage error.`,
		Example: `  kidx prove
  kidx prove --rule per-append --format json
  kidx prove --alphabet 68,100,700 --segments 600,1000 --intervals 0,100,700 --max-append 2 --out /tmp/proof
  kidx prove --era-spec examples/eras/fix-a-roll-on-index-room.json --alphabet 68,100 --intervals 0,100 --segments 1000 --index-bytes 24,36
  kidx prove --parametric --out /tmp/cex`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	cmd.Flags().StringVar(&o.rule, "rule", "both", "append rule: per-batch, per-append or both")
	cmd.Flags().StringVar(&o.alphabet, "alphabet", proveAlphabet, "batch sizes (at least 68, the smallest batch)")
	cmd.Flags().IntVar(&o.maxAppend, "max-append", 2, "batches per append, 1..3 (appends of 1..k batches)")
	cmd.Flags().StringVar(&o.intervals, "intervals", proveIntervals, "index.interval.bytes values")
	cmd.Flags().StringVar(&o.segments, "segments", proveSegments, "segment.bytes values")
	cmd.Flags().StringVar(&o.indexBytes, "index-bytes", proveIndexBytes, "segment.index.bytes values (small ones make the index fill)")
	cmd.Flags().BoolVar(&o.restarts, "restarts", false, "add a clean broker restart to the steps (the byte counter restarts at 0 mid-segment)")
	cmd.Flags().BoolVar(&o.recovers, "recovers", false, "add an unclean restart to the steps (LogSegment.recover rebuilds the indexes per batch); decides RecoveryRebuildsSameIndex and RecoverOverflow")
	cmd.Flags().BoolVar(&o.modelPath, "model-path", false, "step every state with the model and check every property with its own check (the reference, about 100x slower; docs/proofs.md)")
	cmd.Flags().Int64Var(&o.maxStates, "max-states", 20_000_000, "stop a config's exploration past this many states (its open properties are then unknown)")
	registerFormat(cmd.Flags(), &o.format, textOrJSON, " (docs/proofs.md)")
	cmd.Flags().StringVar(&o.out, "out", "", "directory to write each counterexample and witness to as a replayable workload file (created if missing; with --parametric each refuted claim's, NAME[.VARIANT].parametric.json)")
	cmd.Flags().BoolVar(&o.parametric, "parametric", false, "prove for every configuration by k-induction with z3 instead (docs/proofs-parametric.md)")
	cmd.Flags().StringVar(&o.emitSMT, "emit-smt", "", "with --parametric: write each proof obligation as an SMT-LIB 2 file into DIR")
	registerEraSpec(cmd, &o.eraSpec)
	registerReplicaFlags(cmd, &o.replicas, proveReplicasUsage)
	return cmd
}

// explicitSpaceFlags bound the explicit-state space: the parametric proofs take none of them.
// In this order the first one given is named.
var explicitSpaceFlags = []string{"rule", "alphabet", "max-append", "intervals", "segments", "index-bytes", "restarts", "recovers", "max-states", "model-path"}

func (o *proveOptions) Complete(cmd *cobra.Command, _ []string) error {
	for _, f := range explicitSpaceFlags {
		if cmd.Flags().Changed(f) {
			o.spaceFlag = f
			break
		}
	}
	o.ruleGiven = cmd.Flags().Changed("rule")
	return nil
}

func (o *proveOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	if o.eraSpec != "" {
		if o.ruleGiven {
			return usageErr("--era-spec and --rule both pick the era: give one")
		}
		e, err := readEraSpec(o.eraSpec)
		if err != nil {
			return err
		}
		o.era = &e
	}
	if o.parametricAsked() {
		if err := o.parametricEra(); err != nil {
			return err
		}
		if o.spaceFlag != "" {
			return usageErr("--%s bounds the explicit-state space: the parametric proofs cover every value (drop --%s)", o.spaceFlag, o.spaceFlag)
		}
		return nil
	}
	var err error
	if o.rules, err = parseProveRules(o.rule); err != nil {
		return err
	}
	if o.era != nil {
		o.rules = []model.AppendRule{o.era.Rule()}
	}
	alpha, err := parseAlphabet(o.alphabet)
	if err != nil {
		return err
	}
	o.space = props.ProveOptions{Era: o.era, Alphabet: alpha, MaxAppend: o.maxAppend, MaxStates: o.maxStates, Restarts: o.restarts, Recovers: o.recovers, ModelPath: o.modelPath}
	if o.space.Intervals, err = parseInt64s("--intervals", o.intervals); err != nil {
		return err
	}
	if o.space.Segments, err = parseInt64s("--segments", o.segments); err != nil {
		return err
	}
	if o.space.IndexBytes, err = parseInt64s("--index-bytes", o.indexBytes); err != nil {
		return err
	}
	if o.maxStates < 1 {
		return usageErr("--max-states %d: want at least 1", o.maxStates)
	}
	if err := o.space.Validate(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// parametricAsked reports whether the parametric proofs are asked for (--emit-smt implies
// --parametric).
func (o *proveOptions) parametricAsked() bool { return o.parametric || o.emitSMT != "" }

// parseProveRules is --rule: one rule, or both.
func parseProveRules(rule string) ([]model.AppendRule, error) {
	if rule == "both" {
		return []model.AppendRule{model.PerBatch, model.PerAppend}, nil
	}
	r, err := model.ParseRule(rule)
	if err != nil {
		return nil, usageErr("--rule: %v (or both)", err)
	}
	return []model.AppendRule{r}, nil
}

func (o *proveOptions) Run(stdout, _ io.Writer) error {
	if o.replicas.on {
		return o.runReplicas(stdout)
	}
	if o.parametricAsked() {
		return o.runParametric(stdout)
	}
	proofs, err := o.prove()
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeProofWorkloads(o.out, proofs); err != nil {
			return err
		}
	}
	if err := renderProve(stdout, o.format, proofs, o.out, o.eraSpec); err != nil {
		return err
	}
	for _, pf := range proofs {
		for _, r := range pf.Results {
			if r.Kind == props.Invariant && r.Result != props.Proved {
				return problemsFound
			}
		}
	}
	return nil
}

// prove explores the space once per rule.
func (o *proveOptions) prove() ([]*props.Proof, error) {
	var proofs []*props.Proof
	space := o.space
	for _, r := range o.rules {
		space.Rule = r
		// The space was validated: an error here is the fast path disagreeing with the
		// model, a kidx bug.
		pf, err := props.Prove(space)
		if err != nil {
			return nil, err
		}
		proofs = append(proofs, pf)
	}
	return proofs, nil
}

// renderProve writes the proofs: docs/proofs.md's JSON, or each rule's report in words.
func renderProve(w io.Writer, format string, proofs []*props.Proof, out, eraSpec string) error {
	if format == "json" {
		return writeProveJSON(w, proofs)
	}
	for i, pf := range proofs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeProveText(w, pf, out, eraSpec)
	}
	return nil
}

func parseInt64s(flag, s string) ([]int64, error) {
	var out []int64
	for _, f := range splitComma(s) {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usageErr("%s %q: %q is not an integer", flag, s, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// proveJSON is docs/proofs.md's JSON, one document per rule.
type proveJSON struct {
	Schema string `json:"schema"`
	Method string `json:"method"`
	Rule   string `json:"rule"`
	// Era is the candidate's ID under --era-spec (Rule is then its base's rule).
	Era         string              `json:"era,omitempty"`
	Space       proveSpaceJSON      `json:"space"`
	States      int64               `json:"states"`
	Visits      int64               `json:"visits"`
	Transitions int64               `json:"transitions"`
	Diameter    int                 `json:"diameter"`
	Seconds     float64             `json:"seconds"`
	Properties  []proofPropertyJSON `json:"properties"`
}

type proveSpaceJSON struct {
	Alphabet          []int64 `json:"alphabet"`
	MaxAppend         int     `json:"maxAppend"`
	Intervals         []int64 `json:"index.interval.bytes"`
	Segments          []int64 `json:"segment.bytes"`
	SegmentIndexBytes []int64 `json:"segment.index.bytes"`
	Restarts          bool    `json:"restarts"`
	Recovers          bool    `json:"recovers"`
}

type proofPropertyJSON struct {
	Name           string        `json:"name"`
	Kind           string        `json:"kind"`
	Result         string        `json:"result"`
	Counterexample *proofCexJSON `json:"counterexample"`
}

type proofCexJSON struct {
	Workload json.RawMessage     `json:"workload"`
	Compare  map[string][2]int64 `json:"compare"`
}

func proofDoc(pf *props.Proof) (proveJSON, error) {
	o := pf.Options
	doc := proveJSON{Schema: proveSchema, Method: "fixpoint", Rule: o.Rule.String(),
		Space:  proveSpaceJSON{Alphabet: o.Alphabet, MaxAppend: o.MaxAppend, Intervals: o.Intervals, Segments: o.Segments, SegmentIndexBytes: o.IndexBytes, Restarts: o.Restarts, Recovers: o.Recovers},
		States: pf.States, Visits: pf.Visits, Transitions: pf.Transitions, Diameter: pf.Diameter, Seconds: pf.Elapsed.Seconds(),
		Properties: []proofPropertyJSON{}}
	if o.Era != nil {
		doc.Era = o.Era.ID
	}
	for _, r := range pf.Results {
		pj := proofPropertyJSON{Name: r.Property.Name, Kind: string(r.Kind), Result: r.Result}
		if c := r.Counterexample; c != nil {
			wl, err := c.Workload.MarshalJSON()
			if err != nil {
				return doc, err
			}
			pj.Counterexample = &proofCexJSON{Workload: wl, Compare: c.Compare}
		}
		doc.Properties = append(doc.Properties, pj)
	}
	return doc, nil
}

// The schemas of prove's documents (docs/schema): the fixpoint, --parametric, --replicas.
const (
	proveSchema           = "kidx.prove/1"
	proveParametricSchema = "kidx.prove.parametric/1"
	proveReplicasSchema   = "kidx.prove.replicas/1"
)

// writeProveJSON writes one document per rule's proof, each on its own line (JSON Lines:
// --rule both gives two), each naming its schema.
func writeProveJSON(w io.Writer, proofs []*props.Proof) error {
	enc := json.NewEncoder(w)
	for _, pf := range proofs {
		d, err := proofDoc(pf)
		if err != nil {
			return err
		}
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

// writeProveText writes one rule's proof in words: the space and its assumptions, how the
// exploration ended, each property's result, the properties left to kidx check, and each
// counterexample or witness.
func writeProveText(w io.Writer, pf *props.Proof, out, eraSpec string) {
	writeProveSpace(w, pf)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "property\tkind\tresult\tsays\t\n")
	for _, r := range pf.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Property.Name, r.Kind, r.Result, proofSays(r))
	}
	tw.Flush()
	writeNotProved(w, pf)
	for _, r := range pf.Results {
		c := r.Counterexample
		if c == nil {
			continue
		}
		wl, _ := c.Workload.MarshalJSON()
		fmt.Fprintf(w, "\n%s %s (%s, the shortest): %s\n", strings.ToUpper(r.Result), r.Property.Name, english.Plural(int64(len(c.Workload.Steps)), "step"), c.Explanation)
		fmt.Fprintf(w, "  workload: %s\n", wl)
		if out != "" {
			fmt.Fprintf(w, "  replay: kidx sim %s--workload %s\n", eraSpecArg(eraSpec), printsafe.Name(filepath.Join(out, proofFileName(r.Property.Name, pf.Options))))
		}
	}
}

// writeProveSpace is the head of a proof's text: the space explored, the assumptions, and
// whether the fixpoint was reached.
func writeProveSpace(w io.Writer, pf *props.Proof) {
	o := pf.Options
	if o.Era != nil {
		fmt.Fprintf(w, "kidx prove: %s, method fixpoint (explicit-state, breadth first, the model path)\n", o.Era)
		fmt.Fprintf(w, "%s\n", candidateClaims(o.Era))
	} else {
		fmt.Fprintf(w, "kidx prove: rule %s, method fixpoint (explicit-state, breadth first)\n", o.Rule)
	}
	fmt.Fprintf(w, "space: appends of 1..%d batches of %s bytes (the k-th size with k+1 records, timestamps +1 ms per batch),\n",
		o.MaxAppend, joinInt64s(o.Alphabet))
	fmt.Fprintf(w, "       index.interval.bytes in {%s}, segment.bytes in {%s}, segment.index.bytes in {%s}\n",
		joinInt64s(o.Intervals), joinInt64s(o.Segments), joinInt64s(o.IndexBytes))
	switch {
	case o.Restarts || o.Recovers:
		var kinds []string
		if o.Restarts {
			kinds = append(kinds, "a clean restart")
		}
		if o.Recovers {
			kinds = append(kinds, "an unclean restart (LogSegment.recover rebuilds the indexes)")
		}
		fmt.Fprintf(w, "steps: the appends and %s between any two (ScanBound's premise leaves out a segment restarted or recovered after its first batch)\n", strings.Join(kinds, " or "))
		if !o.Recovers {
			fmt.Fprintf(w, "assumptions: no recover steps, no time-based rolls, Kafka's exact rules\n")
		} else {
			fmt.Fprintf(w, "assumptions: no time-based rolls, Kafka's exact rules\n")
		}
	default:
		fmt.Fprintf(w, "assumptions: one process lifetime (no restart or recover steps), no time-based rolls, Kafka's exact rules\n")
	}
	if pf.Complete {
		fmt.Fprintf(w, "fixpoint reached: %d states (%d visits: a state once per smaller segment size), %d transitions, diameter %d, %.2f s\n",
			pf.States, pf.Visits, pf.Transitions, pf.Diameter, pf.Elapsed.Seconds())
		fmt.Fprintf(w, "a proved property holds for every workload of ANY length over this space\n\n")
	} else {
		fmt.Fprintf(w, "NO fixpoint: stopped at --max-states after %d states, %d transitions, depth %d, %.2f s; nothing below is proved\n\n",
			pf.States, pf.Transitions, pf.Diameter, pf.Elapsed.Seconds())
	}
}

// writeNotProved lists the properties the fixpoint does not decide, with why.
func writeNotProved(w io.Writer, pf *props.Proof) {
	var skipped []string
	decided := map[string]bool{}
	for _, r := range pf.Results {
		decided[r.Property.Name] = true
	}
	for _, name := range props.Names() {
		if _, ok := props.NotProved[name]; ok && !decided[name] {
			skipped = append(skipped, name)
		}
	}
	fmt.Fprintf(w, "\nnot decided by the fixpoint (kidx check covers them):\n")
	for _, name := range skipped {
		fmt.Fprintf(w, "  %s: %s\n", name, props.NotProved[name])
	}
}

// proofSays is a result in words.
func proofSays(r props.ProofResult) string {
	switch r.Result {
	case props.Proved:
		return "holds on every transition of every reachable state"
	case props.Violated:
		if r.Kind == props.Sometimes {
			return "unreachable: no workload of the space reaches it"
		}
		return "a counterexample below (a bug in kidx or in the theory)"
	case props.Finding:
		return "false: a counterexample below"
	case props.Witness:
		return "reachable: a witness below"
	}
	return "not decided: the exploration was cut short"
}

// proofFileName names a proof's workload file by the property and the rule, or the candidate
// era's ID.
func proofFileName(property string, o props.ProveOptions) string {
	if o.Era != nil {
		return property + "." + o.Era.ID + ".json"
	}
	return property + "." + o.Rule.String() + ".json"
}

// writeProofWorkloads writes each counterexample and witness as DIR/<property>.<rule>.json,
// each file atomically (a temporary file renamed into place).
func writeProofWorkloads(dir string, proofs []*props.Proof) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("--out %s: %v", dir, err)
	}
	for _, pf := range proofs {
		for _, r := range pf.Results {
			if r.Counterexample == nil {
				continue
			}
			data, err := r.Counterexample.Workload.MarshalJSON()
			if err != nil {
				return err
			}
			if err := writeFileAtomic(filepath.Join(dir, proofFileName(r.Property.Name, pf.Options)), append(data, '\n')); err != nil {
				return usageErr("--out: %v", err)
			}
		}
	}
	return nil
}

func joinInt64s(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ", ")
}
