package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"kidx/fuzz"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
)

// crashFlags are diff's --crash options (docs/crash.md).
type crashFlags struct {
	on        bool
	workload  string
	maxPoints int
}

// diffCrashReopen is the reload `kidx diff --crash` checks: nil means segment.LoadAfterCrash.
// Tests plant a broken one to see the divergence path end to end.
var diffCrashReopen fuzz.ReopenFunc

// runCrash is `kidx diff --crash`: crash exploration of one workload file or of generated
// cases. Findings (Kafka's own hazards) exit 0; a divergence exits 1.
func (o *diffOptions) runCrash(stdout, stderr io.Writer) error {
	co := fuzz.CrashCampaignOptions{Seed: o.seed, Cases: o.cases, Workers: o.workers, Gen: o.genOptions(),
		Crash: fuzz.CrashOptions{MaxPoints: o.crash.maxPoints, Reopen: diffCrashReopen}}
	total := o.cases
	if o.crash.workload != "" {
		w, err := readCrashWorkload(o.crash.workload)
		if err != nil {
			return err
		}
		co.Workload, total = &w, 1
	}
	meter := startProgress(stderr, "cases", total)
	defer meter.Done()
	co.Progress = func(n, divs int64) {
		meter.Note(plural(int(divs), "divergence"))
		meter.Set(n)
	}
	rep, err := fuzz.RunCrashCampaign(co)
	meter.Done()
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("harness failure (seed %d): %w", o.seed, err)}
	}
	if co.Workload != nil && rep.Skipped > 0 {
		return usageErr("--workload %s: not comparable: crash exploration needs a workload the model and the file writer both accept", o.crash.workload)
	}
	files, err := writeReproductions(o.outDir, rep.Divergences)
	if err != nil {
		return err
	}
	if err := renderDiffCrash(stdout, o.format, rep, files); err != nil {
		return err
	}
	if len(rep.Divergences) > 0 {
		return problemsFound
	}
	return nil
}

// readCrashWorkload reads --workload: the one workload --crash explores.
func readCrashWorkload(path string) (model.Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return model.Workload{}, usageErr("--workload: %v", err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		return model.Workload{}, usageErr("--workload %s: %v", path, err)
	}
	return w, nil
}

// renderDiffCrash writes the report: JSON, or a summary line, each finding with its workload
// and each divergence with its reproduction file.
func renderDiffCrash(w io.Writer, format string, rep *fuzz.CrashReport, files []string) error {
	if format == "json" {
		// fuzz.CrashReport's keys follow the schema and the verdict (findings are Kafka's own
		// hazards and leave it "agree").
		doc := struct {
			Schema string `json:"schema"`
			Result string `json:"result"`
			*fuzz.CrashReport
		}{diffCrashSchema, diffResult(len(rep.Divergences)), rep}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintf(w, "seed %d: %s (%d skipped as not comparable), %s in %s, %s, %s\n",
		rep.Seed, english.Plural(rep.Cases, "case"), rep.Skipped, english.Plural(rep.CrashPoints, "crash point"),
		rep.Elapsed.Round(time.Millisecond), english.Plural(int64(len(rep.Divergences)), "divergence"), english.Plural(int64(len(rep.Findings)), "finding"))
	for _, f := range rep.Findings {
		wl, _ := f.Workload.MarshalJSON()
		fmt.Fprintf(w, "finding (%s): %s\n  workload: %s\n", f.Kind, f.Message, wl)
	}
	for i, d := range rep.Divergences {
		fmt.Fprintf(w, "divergence (%s): %s\nreproduction: %s\n", d.Kind, d.What, printsafe.Name(files[i]))
	}
	return nil
}
