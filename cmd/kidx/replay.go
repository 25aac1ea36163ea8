package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

// logDirReplay replays a real partition as `kidx explain` infers it (docs/explain.md,
// "Replaying what was inferred"): --kafka-version/--rule and --config index.interval.bytes,
// when given, are what the operator knows and narrow the inference. keepRolls is false when
// the caller sets or sweeps segment.bytes or segment.ms: the segments then come from those,
// not from the files' boundaries.
//
// The settings the files show (sim.ReplaySetting) are the replay's config; each the files
// cannot show and the operator did not give (--config, or one of swept) is a warning in
// Baseline.Warnings and a note in the report (issue 11, defect 6). Given values win.
func (f *modelFlags) logDirReplay(dir, topic string, partition int, keepRolls bool, swept ...string) (*sim.LogDirReplay, *reports.Baseline, error) {
	opts := sim.ReplayOptions{Interval: -1}
	if f.rule != "" && f.kafkaVersion != "" {
		return nil, nil, usageErr("--rule and --kafka-version both pick the rule: give one")
	}
	switch {
	case f.kafkaVersion != "":
		e, err := model.EraForKafkaVersion(f.kafkaVersion)
		if err != nil {
			return nil, nil, usageErr("--kafka-version: %v", err)
		}
		opts.Era = e
	case f.rule != "":
		r, err := model.ParseRule(f.rule)
		if err != nil {
			return nil, nil, usageErr("--rule: %v", err)
		}
		opts.Era = model.EraForRule(r)
	}
	for _, group := range f.configs {
		for _, kv := range splitComma(group) {
			if k, v, ok := cutEq(kv); ok && k == "index.interval.bytes" {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
				if err != nil || n < 0 {
					return nil, nil, usageErr("--config index.interval.bytes=%s: want an integer from 0 to 2147483647", v)
				}
				opts.Interval = n
			}
		}
	}
	r, err := sim.ReplayLogDir(dir, topic, partition, opts)
	if err != nil {
		return nil, nil, usageErr("--from-logdir %s: %v", dir, err)
	}
	ok, detail, err := r.Check()
	if err != nil {
		return nil, nil, usageErr("--from-logdir %s: %v", dir, err)
	}
	b := &reports.Baseline{Dir: r.Dir, Reproduces: ok && r.Compared > 0, Detail: detail, Era: r.Era.ID, Interval: r.Interval, Restarts: r.Restarts,
		Unindexed: len(r.Unindexed), Compared: r.Compared, Notes: r.Notes}
	for _, st := range r.Settings {
		given := f.hasConfig(st.Key) || slices.Contains(swept, st.Key)
		switch {
		case given && st.FromFiles && st.Lo != st.Hi:
			b.Notes = append(b.Notes, fmt.Sprintf("%s is given; the files put it in [%d, %d]", st.Key, st.Lo, st.Hi))
		case given:
		case st.FromFiles:
			b.Notes = append(b.Notes, st.Note())
		default:
			b.Notes = append(b.Notes, st.Note()+"; give --config "+st.Key+"=...")
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s not known from the files: %s; give --config %s=...", st.Key, st.Assumed(), st.Key))
		}
	}
	if !keepRolls {
		r.DropRolls()
		b.Notes = append(b.Notes, "segment.bytes or segment.ms is set: the segments come from it, not from the files' boundaries (the baseline check above used the files')")
	}
	// The detail and notes name the partition's files: one line each, whatever the names hold
	// (issue 27 item 6; docs/cli.md, "Names and input in the output").
	b.Detail = printsafe.Line(b.Detail)
	for i := range b.Notes {
		b.Notes[i] = printsafe.Line(b.Notes[i])
	}
	return r, b, nil
}

// warnReplay says on stderr which settings a replay assumed (Baseline.Warnings).
func warnReplay(stderr io.Writer, b *reports.Baseline) {
	for _, w := range b.Warnings {
		fmt.Fprintf(stderr, "kidx: warning: %s\n", w)
	}
}

// maxCleanedIntervals bounds the intervals the cleaned segments' figures are given at: the
// baseline's and the first values of the index.interval.bytes sweep (a note a value, not a table).
const maxCleanedIntervals = 8

// cleanedNotes says, per cleaned segment of the replay (issue 25), what index.interval.bytes
// does to it: each replayed alone, as the cleaner writes it, at the baseline's interval and at
// the values of the index.interval.bytes sweep (sweeps, the --sweep flags as given; one that
// does not parse is left to the sweep's own check), or 0 (the plateau) when nothing sweeps it. Cleaned segments hold fewer, larger or
// sparser batches than the segments they replaced, so their figures are given apart.
func cleanedNotes(r *sim.LogDirReplay, b *reports.Baseline, sweeps []string) error {
	if len(r.Cleaned) == 0 {
		return nil
	}
	intervals := []int64{r.Interval}
	for _, s := range sweeps {
		s = strings.Replace(s, "index.interval.bytes=exact,", "index.interval.bytes=", 1)
		sw, err := reports.ParseSweep(s)
		if err != nil || sw.Key != "index.interval.bytes" {
			continue
		}
		for _, v := range sw.Values {
			if !slices.Contains(intervals, v) && len(intervals) < maxCleanedIntervals {
				intervals = append(intervals, v)
			}
		}
	}
	if len(intervals) == 1 && r.Interval != 0 {
		// No sweep of the interval: 0 too, the plateau every point's reference run defines.
		intervals = append(intervals, 0)
	}
	figs, err := r.CleanedFigures(intervals)
	if err != nil {
		return usageErr("--from-logdir %s: the cleaned segments: %v", r.Dir, err)
	}
	for i := 0; i < len(figs); i += len(intervals) {
		f := figs[i]
		var at []string
		for j, g := range figs[i : i+len(intervals)] {
			mean := 0.0
			if g.Scan.Lookups > 0 {
				mean = float64(g.Scan.TotalScanBytes) / float64(g.Scan.Lookups)
			}
			label := fmt.Sprintf("index.interval.bytes=%d", g.Interval)
			if j == 0 {
				label += " (the baseline's)"
			}
			at = append(at, fmt.Sprintf("%s: %d offset-index and %d time-index entries, scan max %d B, mean %.1f B",
				label, g.Entries, g.TimeEntries, g.Scan.MaxScanBytes, mean))
		}
		b.Notes = append(b.Notes, fmt.Sprintf("cleaned segment %d (%d batches, %d bytes, written by the log cleaner), replayed alone: %s",
			f.BaseOffset, f.Batches, f.Bytes, strings.Join(at, "; ")))
	}
	if r.Era.Rule() == model.PerAppend {
		b.Notes = append(b.Notes, "under the per-append rule a cleaned segment's entries depend on how the cleaner's read buffer chunked its source segments, which the cleaned files do not show: the replay groups its batches as kidx explain found them, at every interval")
	}
	return nil
}
