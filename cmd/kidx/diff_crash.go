package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"kidx/fuzz"
	"kidx/internal/english"
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

// runDiffCrash is `kidx diff --crash`: crash exploration of one workload file or of generated
// cases. Findings (Kafka's own hazards) exit 0; a divergence exits 1.
func runDiffCrash(stdout, stderr io.Writer, cf crashFlags, seed uint64, cases int64, workers int, gen fuzz.GenOptions, outDir, format string) error {
	o := fuzz.CrashCampaignOptions{Seed: seed, Cases: cases, Workers: workers, Gen: gen,
		Crash: fuzz.CrashOptions{MaxPoints: cf.maxPoints, Reopen: diffCrashReopen}}
	if cf.workload != "" {
		data, err := os.ReadFile(cf.workload)
		if err != nil {
			return usageErr("--workload: %v", err)
		}
		w, err := model.ParseWorkload(data)
		if err != nil {
			return usageErr("--workload %s: %v", cf.workload, err)
		}
		o.Workload = &w
	}
	total := cases
	if o.Workload != nil {
		total = 1
	}
	meter := startProgress(stderr, "cases", total)
	defer meter.Done()
	o.Progress = func(n, divs int64) {
		meter.Note(plural(int(divs), "divergence"))
		meter.Set(n)
	}
	rep, err := fuzz.RunCrashCampaign(o)
	meter.Done()
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("harness failure (seed %d): %w", seed, err)}
	}
	if o.Workload != nil && rep.Skipped > 0 {
		return usageErr("--workload %s: not comparable: crash exploration needs a workload the model and the file writer both accept", cf.workload)
	}
	var files []string
	for _, d := range rep.Divergences {
		path, err := writeReproduction(outDir, d)
		if err != nil {
			return err
		}
		files = append(files, path)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "seed %d: %s (%d skipped as not comparable), %s in %s, %s, %s\n",
			seed, english.Plural(rep.Cases, "case"), rep.Skipped, english.Plural(rep.CrashPoints, "crash point"),
			rep.Elapsed.Round(time.Millisecond), english.Plural(int64(len(rep.Divergences)), "divergence"), english.Plural(int64(len(rep.Findings)), "finding"))
		for _, f := range rep.Findings {
			wl, _ := f.Workload.MarshalJSON()
			fmt.Fprintf(stdout, "finding (%s): %s\n  workload: %s\n", f.Kind, f.Message, wl)
		}
		for i, d := range rep.Divergences {
			fmt.Fprintf(stdout, "divergence (%s): %s\nreproduction: %s\n", d.Kind, d.What, files[i])
		}
	}
	if len(rep.Divergences) > 0 {
		return problemsFound
	}
	return nil
}
