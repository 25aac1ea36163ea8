package main

import (
	"fmt"
	"io"

	"kidx/internal/english"
	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

// simTextColumns are sim's text table: header and fixed width of each column. Widths are
// fixed (not fitted to the rows, as a tabwriter would) so that rows print as segments end and
// sim's text output keeps no per-batch or per-segment memory (issue 11, defect 9: --records
// 100G reached 3.4 GB in 6 s). A wider value widens its own row only.
var simTextColumns = []struct {
	head  string
	width int
}{
	{"base offset", 12}, {"size", 12}, {"batches", 9}, {"entries", 9}, {"time entries", 14},
	{"max scan B", 12}, {"mean scan B", 13}, {"max hops", 10}, {"max reads", 11}, {"roll", 0},
}

// simTextRow formats one row of simTextColumns: the numbers right-aligned, the roll reason
// last and left-aligned.
func simTextRow(cells ...string) string {
	line := ""
	for i, c := range cells {
		if simTextColumns[i].width == 0 {
			line += "  " + c
			continue
		}
		line += fmt.Sprintf("%*s", simTextColumns[i].width, c)
	}
	return line + "\n"
}

// simSegmentRow is one segment's row of simTextColumns.
func simSegmentRow(s model.SegmentSummary) string {
	roll := string(s.RollReason)
	if roll == "" {
		roll = "-"
	}
	return simTextRow(fmt.Sprint(s.BaseOffset), fmt.Sprint(s.SizeBytes), fmt.Sprint(s.BatchCount),
		fmt.Sprint(s.OffsetIndexEntries), fmt.Sprint(s.TimeIndexEntries), fmt.Sprint(s.Scan.MaxScanBytes),
		fmt.Sprintf("%.1f", s.Scan.MeanScanBytes()), fmt.Sprint(s.Scan.MaxHops), fmt.Sprint(s.Scan.MaxHeaderReads), roll)
}

// writeSimTextStream runs src through the reference model (its events are the text's) and
// prints each segment's row the moment the segment is final, then the summary: memory is one
// segment's, whatever the workload's length, and one append's when noRecovers says src has no
// recover or crash step (a replay of a log directory: sim.RunOptions.NoRecovers).
func writeSimTextStream(w io.Writer, src sim.Source, cfg model.Config, era model.Era, startOffset int64, source, version string, noRecovers bool) error {
	fmt.Fprintf(w, "kidx sim: %s; %s; index.interval.bytes=%d segment.bytes=%d segment.index.bytes=%d\n\n",
		source, eraLabel(era, version), cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.SegmentIndexBytes)
	heads := make([]string, len(simTextColumns))
	for i, c := range simTextColumns {
		heads[i] = c.head
	}
	fmt.Fprint(w, simTextRow(heads...))
	var segs int
	var indexable int64
	res, err := sim.Run(src, cfg, era.Rule(), sim.RunOptions{StartOffset: startOffset, Era: era, Timestamps: true, ReferenceModel: true, NoRecovers: noRecovers,
		OnSegment: func(s model.SegmentSummary) {
			segs++
			indexable += max(int64(s.BatchCount)-1, 0)
			fmt.Fprint(w, simSegmentRow(s))
		}})
	if err != nil {
		return usageErr("%v", err)
	}
	total := res.Scan
	fmt.Fprintf(w, "\nsummary: %s, %s, %s, %s; "+
		"scan max %d B, mean %.1f B; hops max %d, mean %.2f; header reads max %d, mean %.2f\n",
		plural(segs, "segment"), english.Plural(int64(total.Lookups), "offset"), english.Plural(int64(res.OffsetIndexEntries), "offset-index entry"),
		english.Plural(int64(res.TimeIndexEntries), "time-index entry"), total.MaxScanBytes, total.MeanScanBytes(), total.MaxHops, total.MeanHops(),
		total.MaxHeaderReads, total.MeanHeaderReads())
	fmt.Fprintf(w, "index density: %s\n", densityWords(indexable, res.OffsetIndexEntries, era.Rule() == model.PerBatch, cfg.IndexIntervalBytes))
	if len(res.Events) > 0 {
		fmt.Fprintf(w, "events:\n")
		for _, e := range res.Events {
			fmt.Fprintf(w, "  step %d: %s: %s\n", e.Step, e.Kind, e.Message)
		}
		if res.Stopped {
			fmt.Fprintf(w, "  (Kafka throws there: the simulation stopped, segments show the state before that step)\n")
		}
	}
	return nil
}

// writeBaselineText says, after a --from-logdir run's report, whether the replay gives back
// the real index, and the replay's notes.
func writeBaselineText(w io.Writer, baseline *reports.Baseline) {
	if baseline == nil {
		return
	}
	if baseline.Reproduces {
		fmt.Fprintf(w, "baseline reproduces the real index: %s (%s replayed, the files' segment boundaries)\n", baseline.Verdict(), english.Plural(int64(baseline.Restarts), "restart"))
	} else {
		fmt.Fprintf(w, "baseline reproduces the real index: %s\n", baseline.Verdict())
	}
	for _, n := range baseline.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// eraLabel names the era a run follows: "rule per-batch (era 4.1-4.4)", or with a release
// "Kafka 1.1.1 (era 0.11-1.1, rule per-append)".
func eraLabel(era model.Era, version string) string {
	if version != "" {
		return fmt.Sprintf("Kafka %s (era %s, rule %s)", version, era.ID, era.Rule())
	}
	return fmt.Sprintf("rule %s (era %s)", era.Rule(), era.ID)
}

// densityWords says where the index stands between its densest possible form (every batch
// but the first of each segment indexed: the per-batch rule cannot do more) and an empty
// index, from the figures alone: indexable is the batches after each segment's first.
func densityWords(indexable, entries int64, perBatch bool, interval int64) string {
	switch {
	case indexable == 0:
		return "no segment has more than one batch, so no index entry is possible"
	case entries == 0:
		return fmt.Sprintf("cliff: every offset index is empty (0 of the %s after each segment's first); every lookup walks from byte 0", english.Plural(indexable, "batch"))
	case entries >= indexable:
		return fmt.Sprintf("plateau: every batch but each segment's first is indexed (%s); a smaller interval cannot add any", english.Plural(entries, "entry"))
	case !perBatch && interval == 0:
		return fmt.Sprintf("plateau: index.interval.bytes=0 indexes every append but each segment's first (%s); under the per-append rule "+
			"an append gets one entry, however many batches it holds", english.Plural(entries, "entry"))
	case !perBatch:
		// Per-append, an append of several batches gets one entry: fewer entries than
		// batches is the densest such a workload allows (issue 11, defect 5).
		return fmt.Sprintf("%d of the %s after each segment's first are indexed; under the per-append rule an append gets at most one entry, "+
			"however many batches it holds, so with multi-batch appends this may already be the densest index (index.interval.bytes=0 shows it)",
			entries, english.Plural(indexable, "batch"))
	}
	return fmt.Sprintf("thinning: %d of the %s after each segment's first are indexed", entries, english.Plural(indexable, "batch"))
}

// builtinSource streams the built-in generator's batches (generatedWorkload's, the same
// ones) without holding them.
type builtinSource struct{ batchBytes, batchRecords, records int64 }

func (b *builtinSource) Describe() string {
	return fmt.Sprintf("generator: %s, %d per batch, %d-byte batches", english.Plural(b.records, "record"), b.batchRecords, b.batchBytes)
}

func (b *builtinSource) Open() (sim.Stream, error) { return &builtinStream{src: *b}, nil }

type builtinStream struct {
	src builtinSource
	off int64
}

func (s *builtinStream) Next(dst []model.Step) (int, error) {
	n := 0
	for ; n < len(dst) && s.off < s.src.records; n++ {
		b := builtinBatch(s.src.batchBytes, s.src.batchRecords, s.src.records, s.off)
		dst[n] = model.AppendStep(b)
		s.off += b.Records
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
