package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"kidx/fuzz"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
)

func init() { registerCommand(newDiffCmd) }

// diffFileLog is the file side `kidx diff` checks: nil means segment.CreateLog. Tests plant a
// broken writer here to see the divergence path end to end.
var diffFileLog fuzz.NewFileLog

// The schemas of diff's documents (docs/schema): the campaign, --crash, --against.
const (
	diffSchema        = "kidx.diff/1"
	diffCrashSchema   = "kidx.diff.crash/1"
	diffAgainstSchema = "kidx.diff.against/1"
)

// The verdict of a diff document's "result": every side agreed, or some divergence.
const (
	diffAgree    = "agree"
	diffDiverged = "diverged"
)

// diffResult is the verdict of a run that found n divergences.
func diffResult(n int) string {
	if n > 0 {
		return diffDiverged
	}
	return diffAgree
}

// diffReport is the --format json output.
type diffReport struct {
	Schema string `json:"schema"`
	// Result is the verdict: diffAgree, or diffDiverged when Divergences is not empty.
	Result string `json:"result"`
	Seed   uint64 `json:"seed"`
	// Candidate is the --era-spec era's ID, when the campaign ran one.
	Candidate      string           `json:"candidate,omitempty"`
	Cases          int64            `json:"cases"`
	CasesPerSecond float64          `json:"casesPerSecond"`
	Divergences    []diffDivergence `json:"divergences"`
}

type diffDivergence struct {
	Workload model.Workload `json:"workload"`
	What     string         `json:"what"`
	Kind     string         `json:"kind"`
	File     string         `json:"file,omitempty"`
}

// diffOptions is kidx diff's flags: the differential campaign's, --crash's and --against's.
type diffOptions struct {
	duration time.Duration
	// againstOnlyGiven is the first --against-only flag given (Complete); without --against it
	// is a usage error.
	againstOnlyGiven string
	cases            int64
	seed             uint64
	rule             string
	workers          int
	outDir           string
	format           string
	steps            int
	realFS           bool
	crash            crashFlags
	against          againstFlags
	eraSpec          string

	era *model.Era // Validate: the --era-spec candidate

	// Complete: the flags given on the command line (--against refuses some of them), and
	// whether kidx drew the seed (Run says it).
	seedGiven, ruleGiven, realFilesGiven, maxStepsGiven bool
	seedDrawn                                           bool
}

func newDiffCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [--duration 60s | --cases N] [--crash | --against CMD]",
		Short: "Differential campaign: the model against the file-backed implementation on generated workloads",
		Long: `diff generates workloads near every edge of the index policy (intervals around the batch
size, segments a few batches long, segment.index.bytes small enough to overflow, equal and
decreasing timestamps, multi-batch appends, restarts, recoveries), runs each through the
model and through segment files (written, closed, reopened, read back), and compares
segments, batches, .index/.timeindex bytes, the lookup of every offset, time lookups and
events. Every run prints its seed and is replayable with --seed. On a divergence it shrinks
the workload, writes it as a workload file (--out DIR, default a new temporary directory),
prints the path and exits 1. --era-spec FILE runs every case under a candidate era (a proposed
patch, docs/model.md "Candidate eras") on both sides: the model runs the era, the writer its
knobs; the cases take its base era's rule, so --rule is refused beside it.

By default the segment files live in an in-memory filesystem: the same writer, the same
bytes compared, several times as many cases per second; use it for long campaigns.
--real-files writes them to a temporary directory (tmpfs when /dev/shm exists) and reads
them back as kidx reads a user's directory (directory scan, mapped .log): slower; use it to
check the OS path too.

With --crash, diff explores crashes instead (docs/crash.md): each workload is written on an
in-memory filesystem and crashed before every write and sync (sampled, from the seed, when
there are more than --crash-points), keeping each file's synced bytes and a drawn prefix of
the rest; the crashed directory is reloaded as Kafka 2.3+ does after an unclean shutdown
(every segment from the recovery point on recovered, a torn tail truncated, the segments
after it deleted), the rest of the workload runs on it, and the result is compared with the
model given the same crash step. Kafka's own hazards (a rebuild that overflows a small index,
a rolled segment's untrimmed index that 0.8.0 refuses, an index entry past the truncated log)
are findings: reported, with a shrunk workload, exit 0. A divergence exits 1.
--workload explores one workload file instead of generated cases; a workload that already
has crash steps (a finding's or a divergence's) is replayed instead: each crash step cuts the
files as it says and reloads them.

With --against 'CMD ARGS', diff fuzzes another program's index reader instead
(docs/against.md): each generated case is a partition kidx corpus would write (one in four
damaged on purpose), and CMD is run on it as a shell command line with the partition
directory as its last argument and a JSON list of offset lookups on stdin; it prints one JSON
answer per lookup (phase 1's start position and phase 2's hit position, or an error at a file
and byte). Every answer is compared with kidx's. A crash (non-zero exit), a hang (past
--timeout) or output outside the protocol is a finding about the reader. The first case of
each kind of divergence is shrunk to a small workload and one query and written as a case
directory under --out (the partition, workload.json, expected.json, queries.json); divergences
exit 1. --corpus DIR runs CMD over a corpus kidx corpus wrote (or one case directory, e.g. a
shrunk one) instead of generated cases; --dir DIR asks CMD about a partition directory, or
every partition of a log directory, kidx did not write (a real broker's, of any release), with
kidx's readers giving the answers. Divergences are grouped by kind, damage kind and the rule
that decided kidx's answer, each group listing its cases. --compare hit holds a reader with
another index policy to the hit alone; --copy gives the reader a private copy of each
partition (for storage layers that write into their directory); --format junit writes JUnit
XML.`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", 0, "run for this long (e.g. 60s)")
	f.Int64Var(&o.cases, "cases", 0, "run this many cases")
	f.Uint64Var(&o.seed, "seed", 0, "campaign seed (default: random, printed); case i of a seed is always the same workload")
	f.StringVar(&o.rule, "rule", "", "append rule of every case: per-batch or per-append (default: both)")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "parallel workers")
	f.StringVar(&o.outDir, "out", "", "directory for reproduction files (default: a new temporary directory)")
	registerFormat(f, &o.format, textOrJSON, " (with --against also junit: JUnit XML for a reader's CI)")
	f.IntVar(&o.steps, "max-steps", 40, "most steps per generated workload")
	f.BoolVar(&o.crash.on, "crash", false, "explore crashes at every write and sync point instead (docs/crash.md)")
	f.StringVar(&o.crash.workload, "workload", "", "with --crash: explore this workload file instead of generated cases")
	f.IntVar(&o.crash.maxPoints, "crash-points", 64, "with --crash: most crash points per workload; more are sampled from the seed")
	f.StringVar(&o.against.command, "against", "", "fuzz this reader instead: a shell command line, run with the partition directory as its last argument (docs/against.md)")
	f.DurationVar(&o.against.timeout, "timeout", 10*time.Second, "with --against: the reader's time limit per case; past it the reader is killed (a hang)")
	f.StringVar(&o.against.corpusDir, "corpus", "", "with --against: run the reader over this kidx corpus directory (or one case directory) instead of generated cases")
	f.StringVar(&o.against.dir, "dir", "", "with --against: ask the reader about this partition directory, or every partition of this log directory, one run (and one --timeout) per partition (a real broker's: kidx's readers give the answers; nothing is written there)")
	f.StringVar(&o.against.kafkaVersion, "kafka-version", "", "with --against: the Kafka release X.Y.Z whose lookup answers the reader is held to (its release line, docs/against.md), and whose rule generated cases are written by, as kidx corpus --kafka-version (default: both rules, each case answered by its rule's line; --dir: 4.1+; refused with --corpus, whose expected.json names its release)")
	f.StringVar(&o.against.indexView, "index-view", "running", "with --against: the index entries Kafka's phase 1 searches: running (a running broker's valid entries) or reopened (every slot of the file, as a broker that reopens it); refused with --corpus, whose expected.json names its view")
	f.IntVar(&o.against.shrinkBudget, "shrink-budget", 0, "with --against: most candidate cases one shrink runs the reader on (default 300)")
	addAgainstServeFlags(f, &o.against.serve)
	f.StringVar(&o.against.compare, "compare", "start,hit,hops", "with --against: the parts of a position answer compared, a comma-separated list of start, hit, hops (hops only when the reader gives them); errors are always compared")
	f.BoolVar(&o.against.copy, "copy", false, "with --against: give the reader a private copy of each partition (zero blocks left sparse; --dir and --corpus: in $TMPDIR), removed after each run, even after a hang")
	registerEraSpec(cmd, &o.eraSpec)
	f.BoolVar(&o.realFS, "real-files", false, "write each case to real files in a temporary directory, not in memory (slower; also checks the OS path)")
	return cmd
}

// againstOnlyFlags mean something only with --against (the differential campaign would
// ignore them silently).
var againstOnlyFlags = []string{"kafka-version", "index-view", "timeout", "shrink-budget", "serve", "protocol", "damage", "compare", "copy"}

func (o *diffOptions) Complete(cmd *cobra.Command, _ []string) error {
	flags := cmd.Flags()
	o.seedGiven, o.ruleGiven = flags.Changed("seed"), flags.Changed("rule")
	o.realFilesGiven, o.maxStepsGiven = flags.Changed("real-files"), flags.Changed("max-steps")
	o.against.indexViewGiven = flags.Changed("index-view")
	for _, name := range againstOnlyFlags {
		if flags.Changed(name) && o.againstOnlyGiven == "" {
			o.againstOnlyGiven = name
		}
	}
	// Cases read from disk (--corpus, --dir) are not drawn from a seed.
	if !o.seedGiven && !o.against.readsCases() {
		o.seed, o.seedDrawn = rand.Uint64(), true
	}
	return nil
}

// diffAgainstFormats are the --format values diff accepts with --against only, beside
// textOrJSON; completion offers them when --against is given.
var diffAgainstFormats = []string{"junit"}

func (o *diffOptions) Validate() error {
	formats := textOrJSON
	if o.against.asked() {
		formats = slices.Concat(formats, diffAgainstFormats) // a reader's CI reads JUnit XML
	}
	if err := formatFlag(o.format, formats...); err != nil {
		return err
	}
	if o.duration < 0 || o.cases < 0 {
		return usageErr("--duration and --cases must not be negative")
	}
	if o.crash.workload != "" && !o.crash.on {
		return usageErr("--workload needs --crash (the differential campaign replays a workload with kidx diff's reproduction files: kidx sim, kidx write)")
	}
	if o.crash.on && o.duration > 0 {
		return usageErr("--crash runs --cases N or --workload W, not --duration")
	}
	if o.against.asked() {
		if err := o.validateAgainst(); err != nil {
			return err
		}
	} else if o.againstOnlyGiven != "" {
		return usageErr("--%s goes with --against CMD", o.againstOnlyGiven)
	} else if o.duration == 0 && o.cases == 0 && o.crash.workload == "" {
		return usageErr("diff needs --duration D or --cases N")
	}
	if o.rule != "" {
		if _, err := model.ParseRule(o.rule); err != nil {
			return usageErr("--rule: %v", err)
		}
	}
	if o.eraSpec != "" {
		if err := o.validateEraSpec(); err != nil {
			return err
		}
	}
	if o.workers <= 0 {
		return usageErr("--workers %d: want at least 1", o.workers)
	}
	if o.steps <= 0 {
		return usageErr("--max-steps %d: want at least 1", o.steps)
	}
	return nil
}

func (o *diffOptions) Run(stdout, stderr io.Writer) error {
	if o.seedDrawn {
		// Only a seed kidx drew needs saying (issue 11, defect 5).
		fmt.Fprintf(stderr, "kidx diff: seed %d (replay with --seed %d)\n", o.seed, o.seed)
	}
	switch {
	case o.against.command != "":
		return o.runAgainst(stdout, stderr)
	case o.crash.on:
		return o.runCrash(stdout, stderr)
	}
	return o.runCampaign(stdout, stderr)
}

// genOptions is what the generated workloads are drawn with.
func (o *diffOptions) genOptions() fuzz.GenOptions {
	return fuzz.GenOptions{Rule: o.rule, MaxSteps: o.steps, Clean: true}
}

// progressTotal is the number of cases the progress meter counts to: under --duration it is
// not known (-1).
func (o *diffOptions) progressTotal() int64 {
	if o.cases == 0 {
		return -1
	}
	return o.cases
}

// runCampaign is the differential campaign: the model against the file-backed implementation.
// A divergence exits 1.
func (o *diffOptions) runCampaign(stdout, stderr io.Writer) error {
	opts := fuzz.CampaignOptions{Seed: o.seed, Cases: o.cases, Duration: o.duration, Workers: o.workers,
		Gen: o.genOptions(), Check: fuzz.Options{NewLog: diffFileLog, RealFiles: o.realFS, Era: o.era}}
	meter := startProgress(stderr, "cases", o.progressTotal())
	defer meter.Done()
	opts.Progress = func(n, divs int64) {
		meter.Note(plural(int(divs), "divergence"))
		meter.Set(n)
	}
	res, err := fuzz.RunCampaign(context.Background(), opts)
	meter.Done()
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("harness failure (seed %d): %w", o.seed, err)}
	}
	files, err := writeReproductions(o.outDir, res.Divergences)
	if err != nil {
		return err
	}
	rep := diffReport{Seed: o.seed, Cases: res.Cases, Divergences: []diffDivergence{}}
	if o.era != nil {
		rep.Candidate = o.era.ID
	}
	if s := res.Elapsed.Seconds(); s > 0 {
		rep.CasesPerSecond = float64(res.Cases) / s
	}
	for i, d := range res.Divergences {
		rep.Divergences = append(rep.Divergences, diffDivergence{Workload: d.Workload, What: d.What, Kind: d.Kind, File: files[i]})
	}
	if err := renderDiff(stdout, o.format, rep, res, o.workers, o.eraSpec); err != nil {
		return err
	}
	if len(rep.Divergences) > 0 {
		return problemsFound
	}
	return nil
}

// renderDiff writes the campaign's report: JSON, or a summary line and each divergence with
// its reproduction file.
func renderDiff(w io.Writer, format string, rep diffReport, res *fuzz.CampaignResult, workers int, eraSpec string) error {
	if format == "json" {
		rep.Schema, rep.Result = diffSchema, diffResult(len(rep.Divergences))
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	under := ""
	if rep.Candidate != "" {
		under = " under candidate " + rep.Candidate
	}
	fmt.Fprintf(w, "seed %d%s: %s (%d skipped as not comparable) in %s, %.0f cases/s, %s, %s\n",
		rep.Seed, under, english.Plural(res.Cases, "case"), res.Skipped, res.Elapsed.Round(time.Millisecond), rep.CasesPerSecond,
		english.Plural(int64(workers), "worker"), english.Plural(int64(len(rep.Divergences)), "divergence"))
	for _, d := range rep.Divergences {
		fmt.Fprintf(w, "divergence (%s) at case %d: %s\nreproduction: %s\n", d.Kind, res.FirstCase, d.What, printsafe.Name(d.File))
		if eraSpec != "" {
			// The workload file names a rule, not the candidate: the replay needs the spec.
			fmt.Fprintf(w, "replay: kidx sim --era-spec %s --workload %s\n", printsafe.Name(eraSpec), printsafe.Name(d.File))
		}
	}
	return nil
}

// writeReproductions writes each divergence as a replayable workload file (writeReproduction)
// and returns their paths, in order.
func writeReproductions(outDir string, divs []*fuzz.Divergence) ([]string, error) {
	var files []string
	for _, d := range divs {
		path, err := writeReproduction(outDir, d)
		if err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// writeReproduction writes d as a replayable workload file in outDir, or in a new temporary
// directory when outDir is "", and returns its path.
func writeReproduction(outDir string, d *fuzz.Divergence) (string, error) {
	if outDir == "" {
		dir, err := os.MkdirTemp("", "kidx-diff-")
		if err != nil {
			return "", err
		}
		outDir = dir
	}
	return fuzz.WriteReproduction(outDir, d)
}

// isTerminal reports whether w is a character device (a terminal), without x/term.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// validateEraSpec reads --era-spec: the campaign runs that candidate on both sides (the
// model's era, the writer's segment.Candidate), so it must be an era the writer writes (a
// candidate on one of the two current eras, writerRule) and it replaces --rule. --crash and
// --against do not take it: their file sides are Kafka as released.
func (o *diffOptions) validateEraSpec() error {
	switch {
	case o.ruleGiven:
		return usageErr("--era-spec and --rule both pick the rule: give one (the candidate's base era sets it)")
	case o.crash.on || o.against.asked():
		return usageErr("--era-spec runs the differential campaign under a candidate; --crash and --against do not take it")
	}
	era, err := readEraSpec(o.eraSpec)
	if err != nil {
		return err
	}
	if _, err := writerRule(era, "", model.DefaultConfig(), nil); err != nil {
		return err
	}
	o.era, o.rule = &era, era.Rule().String()
	return nil
}
