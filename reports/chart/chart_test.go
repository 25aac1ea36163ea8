package chart

import (
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

var update = flag.Bool("update", false, "rewrite the golden SVG under testdata/reports")

// seedReport is the seed post's experiment (as `kidx whatif` with no arguments runs it).
func seedReport(t testing.TB) *reports.WhatIf {
	var batches []model.Batch
	for off := int64(0); off < 5000; off += 79 {
		n := min(79, 5000-off)
		size := int64(16350)
		if n < 79 {
			size = 16350 * n / 79
		}
		batches = append(batches, model.Batch{Records: n, Bytes: size, MaxTimestamp: 1_700_000_000_000 + off})
	}
	base := model.DefaultConfig()
	base.SegmentBytes = 65536
	rep, err := reports.RunWhatIf(reports.WhatIfOptions{
		Source: &sim.WorkloadSource{Name: "seed", Workload: model.BatchesWorkload(batches)},
		Base:   base,
		Sweeps: []reports.Sweep{{Key: "index.interval.bytes", Values: []int64{1, 4096, 20000, 1048576}}},
		Scale:  reports.Scale{Partitions: 1000, MaxMapCount: reports.DefaultMaxMapCount},
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
		if !strings.Contains(f.SVG, "<svg") {
			t.Fatalf("%s: not SVG", f.Title)
		}
		dec := xml.NewDecoder(strings.NewReader(f.SVG))
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s: %v", f.Title, err)
				}
				break
			}
		}
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

func ExampleWhatIf() {
	// figs, err := chart.WhatIf(report) gives the four SVG charts that
	// report.WriteHTML(w, figs) inlines.
}
