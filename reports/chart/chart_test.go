package chart

import (
	"encoding/xml"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

var update = flag.Bool("update", false, "rewrite the golden SVG under testdata/reports")

// seedWorkload is the seed experiment's workload (docs/background.md): 5000 records, 79 per
// batch, 16350-byte batches (the last, of 23 records, 4760 bytes).
func seedWorkload() *sim.WorkloadSource {
	var batches []model.Batch
	for off := int64(0); off < 5000; off += 79 {
		n := min(79, 5000-off)
		size := int64(16350)
		if n < 79 {
			size = 16350 * n / 79
		}
		batches = append(batches, model.Batch{Records: n, Bytes: size, MaxTimestamp: 1_700_000_000_000 + off})
	}
	return &sim.WorkloadSource{Name: "seed", Workload: model.BatchesWorkload(batches)}
}

func seedBase() model.Config {
	base := model.DefaultConfig()
	base.SegmentBytes = 65536
	return base
}

// seedReport is `kidx whatif` with no arguments: the exact interval sweep plus the seed's
// four values, segment.bytes=65536.
func seedReport(t testing.TB) *reports.WhatIf {
	return runSeed(t, true, []reports.Sweep{{Key: "index.interval.bytes", Values: []int64{1, 4096, 20000, 1048576}}})
}

func runSeed(t testing.TB, exact bool, sweeps []reports.Sweep) *reports.WhatIf {
	t.Helper()
	rep, err := reports.RunWhatIf(reports.WhatIfOptions{
		Source:         seedWorkload(),
		Base:           seedBase(),
		Sweeps:         sweeps,
		Scale:          reports.Scale{Partitions: 1000, MaxMapCount: reports.DefaultMaxMapCount},
		ExactIntervals: exact,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The scan chart of the seed experiment is byte-identical to the golden SVG (gonum/plot is
// deterministic). testdata/reports/README.md says how it was produced and checked.
func TestWhatIfScanChartGolden(t *testing.T) {
	figs, err := WhatIf(seedReport(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 4 {
		t.Fatalf("%d figures", len(figs))
	}
	for _, f := range figs {
		wellFormed(t, f)
	}
	golden := filepath.Join("..", "..", "testdata", "reports", "seed-scan-vs-interval.svg")
	if *update {
		if err := os.WriteFile(golden, []byte(figs[0].SVG), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if figs[0].SVG != string(want) {
		t.Errorf("scan chart differs from %s (run with -update after checking the new chart by eye)", golden)
	}
}

func wellFormed(t *testing.T, f reports.Figure) {
	t.Helper()
	if !strings.Contains(f.SVG, "<svg") {
		t.Fatalf("%s: not SVG", f.Title)
	}
	dec := xml.NewDecoder(strings.NewReader(f.SVG))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: %v", f.Title, err)
			}
			return
		}
	}
}

// Issue 11, defect 7: regime bands sat at geometric midpoints between the swept values (the
// cliff band began near 145 KB). They are the exact pieces now. By hand, for 16350-byte batches
// in 65536-byte segments (4 batches each; an entry goes in once more than I bytes have passed
// since the last one, LogSegment.append): I < 16350 indexes batches 2-4 of every segment
// (plateau); 16350 <= I < 49050 indexes one batch per segment (thinning); I >= 49050 needs
// more than 3 × 16350 bytes and a segment holds no 5th batch: no entry (cliff, at 49050).
func TestRegimeBandsAtExactEdges(t *testing.T) {
	rep := seedReport(t)
	bands := regimeBands(pieceSteps(rep))
	want := []band{{1, 16349, reports.Plateau, 0}, {16350, 49049, reports.Thinning, 16350}, {49050, math.MaxInt32, reports.Cliff, 49050}}
	if len(bands) != len(want) {
		t.Fatalf("bands %+v, want %+v", bands, want)
	}
	for i := range want {
		if bands[i] != want[i] {
			t.Errorf("band %d: %+v, want %+v", i, bands[i], want[i])
		}
	}
	// Every band edge is a piece's lowest value.
	for _, b := range bands[1:] {
		if pc := rep.PieceOf(b.Lo); pc == nil || pc.Min != b.Lo {
			t.Errorf("band edge %d is not a piece's Min (%+v)", b.Lo, pc)
		}
	}
	// Independently of the pieces: the model run on either side of each edge.
	entries := func(I int64) int64 {
		cfg := seedBase()
		cfg.IndexIntervalBytes = I
		res, err := sim.Run(seedWorkload(), cfg, model.PerBatch, sim.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res.OffsetIndexEntries
	}
	for _, c := range []struct{ I, entries int64 }{{16349, 48}, {16350, 16}, {49049, 16}, {49050, 0}} {
		if got := entries(c.I); got != c.entries {
			t.Errorf("index.interval.bytes=%d: %d entries, want %d", c.I, got, c.entries)
		}
	}
}

// Issue 11, defect 7: lines joined 4 points straight, so a step looked like a ramp. The scan
// line is the step function: horizontal over each piece, vertical exactly at each edge, never
// both at once. Max scan by hand: one batch (16350) on the plateau, two (32700) while one entry
// per segment sits on the 3rd batch, three (49050) from I=32700 (the entry on the 4th) on.
func TestStepLineJumpsAtEdges(t *testing.T) {
	steps := pieceSteps(seedReport(t))
	line := stepLine(steps, func(s step) float64 { return s.Max })
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		if a.X != b.X && a.Y != b.Y {
			t.Errorf("a ramp from %+v to %+v", a, b)
		}
	}
	type jump struct{ at, from, to float64 }
	var jumps []jump
	for i := 1; i < len(line); i++ {
		if line[i-1].X == line[i].X {
			jumps = append(jumps, jump{line[i].X, line[i-1].Y, line[i].Y})
		}
	}
	want := []jump{{16350, 16350, 32700}, {32700, 32700, 49050}, {49050, 49050, 49050}}
	if len(jumps) != len(want) {
		t.Fatalf("edges %+v, want %+v", jumps, want)
	}
	for i := range want {
		if jumps[i] != want[i] {
			t.Errorf("edge %d: %+v, want %+v", i, jumps[i], want[i])
		}
	}
	if line[0].X != 1 || line[len(line)-1].X != intervalAxisMax {
		t.Errorf("the line spans %v..%v, want 1..2^31", line[0].X, line[len(line)-1].X)
	}
	// The mean jumps at 49050 (the cliff), where the max does not: 121251600 / 5000 offsets.
	mean := stepLine(steps, func(s step) float64 { return s.Mean })
	if last := mean[len(mean)-1].Y; last != 24250.32 {
		t.Errorf("mean scan at the cliff %v, want 24250.32", last)
	}
}

// Issue 11, defect 7: the CDF chart drew 1 and 4096 (the same curve) and left out one that
// differs. It starts from the base config (4096) and adds the farthest curves: by hand, the
// CDFs (fraction of offsets at or below 0, 16350, 32700, 49050 bytes) are 4096: .2624, 1;
// 20000: .256, .7504, 1; 32700: .256, .5088, .7616, 1; 1048576: .2528, .5056, .7584, 1. So
// 1048576 is farthest (0.4944 at 16350), then 20000 (0.2448 from 1048576); 1 equals 4096 and
// 32700 is within 0.0032 of 1048576: neither is drawn.
func TestCDFPicksCurvesThatDiffer(t *testing.T) {
	rep := seedReport(t)
	var got []int64
	for _, p := range cdfPoints(rep) {
		got = append(got, p.Config.IndexIntervalBytes)
	}
	want := []int64{4096, 1048576, 20000}
	if len(got) != len(want) {
		t.Fatalf("CDF of %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("CDF of %v, want %v", got, want)
		}
	}
}

// Issue 11, defect 7: a grid sweep had no scan-against-parameter chart. Two keys give a
// heatmap with a cell per point, each labelled with its max and p99 scan bytes.
func TestGridHeatmap(t *testing.T) {
	rep := runSeed(t, false, []reports.Sweep{{Key: "index.interval.bytes", Values: []int64{1, 20000, 1048576}},
		{Key: "segment.bytes", Values: []int64{65536, 1048576}}})
	figs, err := WhatIf(rep)
	if err != nil {
		t.Fatal(err)
	}
	var heat *reports.Figure
	for i := range figs {
		wellFormed(t, figs[i])
		if strings.HasPrefix(figs[i].Title, "Max scan bytes against index.interval.bytes and segment.bytes") {
			heat = &figs[i]
		}
	}
	if heat == nil {
		t.Fatalf("no heatmap among %d figures", len(figs))
	}
	// At segment.bytes=65536: 16.0 KiB, 31.9 KiB, 47.9 KiB (the plateau, one entry per
	// segment, none).
	for _, cell := range []string{"16.0 KiB", "31.9 KiB", "47.9 KiB"} {
		if !strings.Contains(heat.SVG, ">"+cell+"<") {
			t.Errorf("no cell labelled %s", cell)
		}
	}
}

// Without the exact pieces, nothing is known between two swept values: the scan chart draws
// markers only, and no regime bands.
func TestSampledSweepDrawsMarkersOnly(t *testing.T) {
	rep := runSeed(t, false, []reports.Sweep{{Key: "index.interval.bytes", Values: []int64{1, 4096, 20000, 1048576}}})
	figs, err := WhatIf(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(figs[0].Title, "markers") || strings.Contains(figs[0].SVG, "plateau:") {
		t.Errorf("sampled sweep: %q draws bands or lines", figs[0].Title)
	}
	// A line is an open unfilled path through three points or more (axes and ticks have two,
	// glyphs are closed).
	for _, m := range regexp.MustCompile(`<path d="([^"]*)" style="fill:none`).FindAllStringSubmatch(figs[0].SVG, -1) {
		if strings.Count(m[1], "L") >= 2 && !strings.HasSuffix(m[1], "Z") {
			t.Errorf("sampled sweep: the scan chart joins points with a line: %.120s", m[1])
		}
	}
	// The exact sweep's chart does draw lines: the check can see one.
	exact, err := WhatIf(seedReport(t))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, m := range regexp.MustCompile(`<path d="([^"]*)" style="fill:none`).FindAllStringSubmatch(exact[0].SVG, -1) {
		if strings.Count(m[1], "L") >= 2 && !strings.HasSuffix(m[1], "Z") {
			lines++
		}
	}
	if lines < 3 {
		t.Errorf("the exact chart has %d lines, want max, p99 and mean", lines)
	}
}

func ExampleWhatIf() {
	// figs, err := chart.WhatIf(report) gives the SVG charts that
	// report.WriteHTML(w, figs) inlines.
}

// Issue 11, charts: log axes where the figures span decades. Partitions whose mean scan is
// about 4 KiB (index.interval.bytes=0, random batches) beside one without an index (max
// 49050) span more than 10x: the analyze chart is drawn on a log axis in powers of two, as
// markers.
func TestAnalyzeChartLogWhenDecades(t *testing.T) {
	root := t.TempDir()
	for i, c := range []string{"random-i0-per-batch", "blog-i1048576"} {
		dst := filepath.Join(root, "t-"+string(rune('0'+i)))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join("..", "..", "testdata", "kafka-golden", c, "files")
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, err := reports.AnalyzeDir(root, reports.AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	figs, err := Analyze(a)
	if err != nil || len(figs) != 1 {
		t.Fatalf("%d figures, %v", len(figs), err)
	}
	wellFormed(t, figs[0])
	if !strings.Contains(figs[0].SVG, ">scan bytes (log)<") || !strings.Contains(figs[0].SVG, ">4 KiB<") {
		t.Errorf("the analyze chart is not on a log axis of powers of two")
	}
}
