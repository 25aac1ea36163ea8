package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"kidx/against"
	"kidx/fuzz"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/segment"
)

// againstFlags are diff's --against options (docs/against.md).
type againstFlags struct {
	command      string
	timeout      time.Duration
	corpusDir    string
	dir          string
	kafkaVersion string
	indexView    string
	shrinkBudget int
	serve        againstServeFlags // --serve, --protocol, --damage (diff_against_serve.go)
	compare      string            // --compare: the fields of a position answer compared
	copy         bool              // --copy: the reader gets a private copy of each partition

	fields         against.Fields // Validate: --compare parsed
	indexViewGiven bool           // Complete: --index-view was given (--corpus refuses it)
}

// asked reports whether --against, --corpus or --dir was given: the --against mode, whose
// flags validateAgainst checks.
func (f againstFlags) asked() bool { return f.command != "" || f.readsCases() }

// readsCases reports whether the cases exist already (--corpus, --dir) rather than being
// generated.
func (f againstFlags) readsCases() bool { return f.corpusDir != "" || f.dir != "" }

// validateAgainst refuses --against combinations that mean nothing.
func (o *diffOptions) validateAgainst() error {
	ag := o.against
	switch {
	case ag.command == "":
		return usageErr("--corpus and --dir need --against CMD")
	case ag.corpusDir != "" && ag.dir != "":
		return usageErr("--corpus and --dir: give one")
	case strings.TrimSpace(ag.command) == "":
		return usageErr("--against: an empty command")
	case o.crash.on || o.crash.workload != "":
		return usageErr("--against and --crash are two campaigns: give one")
	case o.realFilesGiven || o.maxStepsGiven:
		return usageErr("--real-files and --max-steps belong to the differential campaign, not --against")
	case ag.timeout <= 0:
		return usageErr("--timeout %s: want a positive duration", ag.timeout)
	case ag.corpusDir != "" && (ag.kafkaVersion != "" || ag.indexViewGiven):
		return usageErr("--corpus reads cases whose expected.json names the release and index view its answers are for; --kafka-version and --index-view go with generated cases and --dir")
	case ag.readsCases() && (o.duration > 0 || o.cases > 0 || o.seedGiven || o.ruleGiven):
		return usageErr("--corpus and --dir read cases that exist: --cases, --duration, --seed and --rule make cases, and do not go with them")
	case !ag.readsCases() && o.duration == 0 && o.cases == 0:
		return usageErr("diff --against needs --duration D, --cases N, --corpus DIR or --dir PARTITION")
	case ag.kafkaVersion != "" && o.ruleGiven:
		return usageErr("--rule and --kafka-version both pick the rule: give one")
	}
	f, err := against.ParseFields(ag.compare)
	if err != nil {
		return usageErr("--compare: %v", err)
	}
	o.against.fields = f
	return o.against.serve.validate(ag.readsCases())
}

// diffAgainstReader replaces the external command in tests (an in-process reader): nil means
// against.Command on --against.
var diffAgainstReader against.Reader

// againstCopyScratch is where --copy makes its copies; tests set it. "": generated cases'
// copies next to the cases (fuzz.TempRoot), a real partition's in os.TempDir().
var againstCopyScratch string

// againstReport is --against's --format json output.
type againstReport struct {
	Schema string `json:"schema"`
	// Result is the verdict: diffAgree, or diffDiverged when a case diverged.
	Result         string              `json:"result"`
	Seed           *uint64             `json:"seed,omitempty"` // generated cases only (0 is a seed)
	Corpus         string              `json:"corpus,omitempty"`
	Dir            string              `json:"dir,omitempty"`
	Cases          int64               `json:"cases"`
	Queries        int64               `json:"queries"`
	DivergentCases int64               `json:"divergentCases"`
	CasesPerSecond float64             `json:"casesPerSecond"`
	Divergences    []againstDivergence `json:"divergences"`
	Command        string              `json:"command"`
	Timeout        string              `json:"timeout"`
	Compare        string              `json:"compare"` // the fields of a position answer compared
	// asked are the case or partition directories asked (--corpus, --dir): JUnit's passing
	// test cases.
	asked []string
}

type againstDivergence struct {
	Kind   string `json:"kind"`
	Damage string `json:"damage,omitempty"`
	// Reason is kidx's reason for its answer (the rule or Java class that decided it).
	Reason string `json:"reason,omitempty"`
	Case   int64  `json:"case"`
	Cases  int64  `json:"cases"`
	// CaseList are the group's case numbers (not with --dir, where Cases counts queries).
	CaseList []int64        `json:"caseList,omitempty"`
	Query    *against.Query `json:"query,omitempty"`
	Kidx     string         `json:"kidx,omitempty"`
	Reader   string         `json:"reader"`
	Stderr   string         `json:"stderr,omitempty"`
	Dir      string         `json:"dir,omitempty"`
	Shrunk   *againstShrunk `json:"shrunk,omitempty"`
}

type againstShrunk struct {
	Dir     string          `json:"dir"`
	Steps   int             `json:"steps"`
	Queries []against.Query `json:"queries"`
	Kidx    string          `json:"kidx,omitempty"`
	Reader  string          `json:"reader"`
	Tried   int             `json:"tried"`
}

// runAgainst is `kidx diff --against CMD`: generated cases (or a corpus on disk) through an
// external reader. Divergences exit 1; a reader that cannot be run, or a harness failure,
// exits 2.
func (o *diffOptions) runAgainst(stdout, stderr io.Writer) error {
	r, closeReader := o.against.serve.reader(o.against.command, o.against)
	defer closeReader()
	if o.against.copy {
		scratch := againstCopyScratch
		if scratch == "" && !o.against.readsCases() {
			// Generated cases are small and already on tmpfs: their copies go there too (under
			// 1 ms a case, 2.4 ms on disk). A real partition's copy goes to $TMPDIR, not RAM.
			scratch = fuzz.TempRoot()
		}
		r = &against.CopyingReader{Reader: r, Scratch: scratch}
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stopSignals()
	rep := againstReport{Command: o.against.command, Timeout: o.against.timeout.String(), Compare: o.against.fields.String(), Divergences: []againstDivergence{}}
	var err error
	if o.against.readsCases() {
		err = o.against.runOnCases(ctx, r, &rep)
	} else {
		err = o.runAgainstGenerated(ctx, stderr, r, &rep)
	}
	if err != nil {
		return err
	}
	if err := renderAgainst(stdout, rep, o.format); err != nil {
		return err
	}
	if rep.DivergentCases > 0 {
		return problemsFound
	}
	return nil
}

// dirRules are --dir's answers' release line and index view: --kafka-version's line, else 4.1+.
func (f againstFlags) dirRules() (segment.ReadRules, error) {
	rules := segment.ReadRules{Release: segment.Release41}
	var err error
	if rules.View, err = segment.ParseIndexView(f.indexView); err != nil {
		return rules, usageErr("--index-view: %v", err)
	}
	if f.kafkaVersion != "" {
		v, err := model.ParseKafkaVersion(f.kafkaVersion)
		if err != nil {
			return rules, usageErr("--kafka-version: %v", err)
		}
		rules.Release = segment.ReadReleaseFor(v.Major, v.Minor, v.Patch)
	}
	return rules, nil
}

// runOnCases runs the reader over the cases that exist (--dir or --corpus) and fills rep.
func (f againstFlags) runOnCases(ctx context.Context, r against.Reader, rep *againstReport) error {
	var cr *against.CorpusReport
	var err error
	if f.dir != "" {
		rules, rerr := f.dirRules()
		if rerr != nil {
			return rerr
		}
		cr, err = against.RunDir(ctx, f.dir, rules, r, f.fields)
		rep.Dir = f.dir
	} else {
		cr, err = against.RunCorpus(ctx, f.corpusDir, r, f.fields)
		rep.Corpus = f.corpusDir
	}
	if err != nil {
		return againstErr(err)
	}
	rep.Cases, rep.Queries, rep.asked = int64(cr.Cases), cr.Queries, cr.Asked
	dirs := map[string]bool{}
	for _, cd := range cr.Divergences {
		dirs[cd.Dir] = true
	}
	rep.DivergentCases = int64(len(dirs))
	if s := cr.Elapsed.Seconds(); s > 0 {
		rep.CasesPerSecond = float64(cr.Cases) / s
	}
	for _, cd := range cr.Divergences {
		ad := divergenceOut(cd.Divergence)
		ad.Dir = cd.Dir
		rep.Divergences = append(rep.Divergences, ad)
	}
	return nil
}

// runAgainstGenerated runs the reader over generated cases, shrinking the first case of each
// kind of divergence into --out, and fills rep.
func (o *diffOptions) runAgainstGenerated(ctx context.Context, stderr io.Writer, r against.Reader, rep *againstReport) error {
	outDir := o.outDir
	if outDir == "" {
		dir, err := os.MkdirTemp("", "kidx-against-")
		if err != nil {
			return err
		}
		outDir = dir
		// Nothing to keep when nothing diverged: the directory kidx made goes (Remove refuses
		// a directory with shrunk cases in it).
		defer os.Remove(dir)
	} else if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	meter := startProgress(stderr, "cases", o.progressTotal())
	defer meter.Done()
	ao := against.Options{Seed: o.seed, Cases: o.cases, Duration: o.duration, Workers: o.workers, Rule: o.rule, Reader: r, Out: outDir, IndexView: o.against.indexView, DamageKinds: o.against.serve.damageKinds,
		ShrinkBudget: o.against.shrinkBudget, Fields: o.against.fields, Progress: func(n, divs int64) {
			meter.Note(english.Plural(divs, "divergent case"))
			meter.Set(n)
		}}
	if o.against.kafkaVersion != "" {
		rule, err := corpusRule(o.against.kafkaVersion)
		if err != nil {
			return err
		}
		ao.Rule, ao.KafkaVersion = rule, o.against.kafkaVersion
	}
	res, err := against.Run(ctx, ao)
	meter.Done()
	if err != nil {
		return againstErr(fmt.Errorf("seed %d: %w", o.seed, err))
	}
	rep.Seed, rep.Cases, rep.Queries, rep.DivergentCases = &o.seed, res.Cases, res.Queries, res.Divergent
	if s := res.Elapsed.Seconds(); s > 0 {
		rep.CasesPerSecond = float64(res.Cases) / s
	}
	for _, d := range res.Divergences {
		rep.Divergences = append(rep.Divergences, divergenceOut(d))
	}
	return nil
}

// againstErr is exit 2: a reader the shell cannot start is a usage error, anything else the
// harness's failure.
func againstErr(err error) error {
	if errors.Is(err, against.ErrCannotRun) {
		return usageErr("--against: %v", err)
	}
	return &exitError{code: 2, err: fmt.Errorf("harness failure: %w", err)}
}

func divergenceOut(d *against.Divergence) againstDivergence {
	ad := againstDivergence{Kind: d.Kind, Reason: d.Reason, Case: d.Case, Cases: d.Cases, CaseList: d.CaseList}
	if d.Damage != nil {
		ad.Damage = d.Damage.Kind
	}
	if m := d.Mismatch; m != nil {
		q := m.Query
		ad.Query, ad.Kidx, ad.Reader = &q, m.Want.String(), m.Got.String()
	}
	if f := d.Failure; f != nil {
		ad.Reader, ad.Stderr = f.What, f.Stderr
	}
	if s := d.Shrunk; s != nil {
		as := &againstShrunk{Dir: s.Dir, Steps: len(s.Workload.Steps), Queries: s.Queries, Tried: s.Tried}
		if s.Mismatch != nil {
			as.Kidx, as.Reader = s.Mismatch.Want.String(), s.Mismatch.Got.String()
		}
		if s.Failure != nil {
			as.Reader = s.Failure.What
		}
		ad.Shrunk = as
	}
	return ad
}

// renderAgainst writes the report: JSON, or a summary line and each kind of divergence.
func renderAgainst(w io.Writer, rep againstReport, format string) error {
	switch format {
	case "json":
		rep.Schema, rep.Result = diffAgainstSchema, diffResult(int(rep.DivergentCases))
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case "junit":
		return renderAgainstJUnit(w, rep)
	}
	renderAgainstSummary(w, rep)
	for _, d := range rep.Divergences {
		renderAgainstDivergence(w, rep, d)
	}
	return nil
}

// renderAgainstSummary is the report's first line: where the cases came from and what came of
// them.
func renderAgainstSummary(w io.Writer, rep againstReport) {
	var from string
	switch {
	case rep.Seed != nil:
		from = fmt.Sprintf("seed %d", *rep.Seed)
	case rep.Corpus != "":
		from = rep.Corpus
	case rep.Dir != "":
		from = rep.Dir
	}
	if rep.Dir != "" {
		verdict := "every answer agrees"
		if rep.DivergentCases > 0 {
			verdict = english.Plural(int64(len(rep.Divergences)), "group") + " of divergence in " + english.Plural(rep.DivergentCases, "partition")
		}
		fmt.Fprintf(w, "%s: %s, %s against %s: %s\n", from, english.Plural(rep.Cases, "partition"), english.Plural(rep.Queries, "query"), rep.Command, verdict)
		return
	}
	fmt.Fprintf(w, "%s: %s, %s against %s, %.0f cases/s: %s\n", from, english.Plural(rep.Cases, "case"),
		english.Plural(rep.Queries, "query"), rep.Command, rep.CasesPerSecond, english.Plural(rep.DivergentCases, "divergent case"))
}

// renderAgainstDivergence is one kind of divergence: its first case, the query, both answers
// and the shrunk case.
func renderAgainstDivergence(w io.Writer, rep againstReport, d againstDivergence) {
	what := d.group()
	switch {
	case rep.Dir != "":
		// One partition: the count is of the queries that diverged so.
		fmt.Fprintf(w, "\n%s: %s\n  partition: %s\n", what, english.Plural(d.Cases, "query"), printsafe.Name(d.Dir))
	default:
		fmt.Fprintf(w, "\n%s: %s, first case %d\n", what, english.Plural(d.Cases, "case"), d.Case)
	}
	if len(d.CaseList) > 1 {
		fmt.Fprintf(w, "  cases:   %s\n", caseListText(d.CaseList))
	}
	if d.Dir != "" && rep.Dir == "" {
		fmt.Fprintf(w, "  case:    %s\n", printsafe.Name(d.Dir))
	}
	if d.Query != nil {
		fmt.Fprintf(w, "  query:   %s\n  kidx:    %s\n", d.Query, d.Kidx)
	}
	fmt.Fprintf(w, "  reader:  %s\n", d.Reader)
	if d.Stderr != "" {
		fmt.Fprintf(w, "  stderr:  %s\n", indentTail(d.Stderr, 6))
	}
	if s := d.Shrunk; s != nil {
		fmt.Fprintf(w, "  shrunk to %s and %s (%s tried): %s\n", english.Plural(int64(s.Steps), "step"),
			english.Plural(int64(len(s.Queries)), "query"), english.Plural(int64(s.Tried), "candidate"), s.Dir)
		if len(s.Queries) == 1 {
			fmt.Fprintf(w, "    query:  %s\n", s.Queries[0])
		}
		if s.Kidx != "" {
			fmt.Fprintf(w, "    kidx:   %s\n", s.Kidx)
		}
		fmt.Fprintf(w, "    reader: %s\n", s.Reader)
	}
}

// group is the divergence's group in words: kind, damage kind, kidx's reason
// (against.Divergence.Key).
func (d againstDivergence) group() string {
	what := d.Kind
	if d.Damage != "" {
		what += " on " + d.Damage
	}
	if d.Reason != "" {
		what += " (kidx: " + d.Reason + ")"
	}
	return what
}

// caseListShown is how many of a group's case numbers the text report prints.
const caseListShown = 20

// caseListText is a group's case numbers, the first caseListShown of them and how many more.
func caseListText(cases []int64) string {
	var b strings.Builder
	for i, c := range cases[:min(len(cases), caseListShown)] {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, c)
	}
	if more := len(cases) - caseListShown; more > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}

// indentTail is the last n lines of s, indented under a report line.
func indentTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n           ")
}
