package reports

import (
	"testing"

	"kidx/model"
	"kidx/sim"
)

// seedWorkload is the seed post's experiment (docs/background.md): 5000 records, 79 per batch, 16350-byte batches
// (the last, partial batch of 23 records shrinks in proportion), timestamps 1700000000000 +
// base offset.
func seedWorkload() model.Workload {
	var batches []model.Batch
	for off := int64(0); off < 5000; off += 79 {
		n := min(79, 5000-off)
		size := int64(16350)
		if n < 79 {
			size = max(16350*n/79, 61)
		}
		batches = append(batches, model.Batch{Records: n, Bytes: size, MaxTimestamp: 1_700_000_000_000 + off})
	}
	return model.BatchesWorkload(batches)
}

func seedOptions() WhatIfOptions {
	base := model.DefaultConfig()
	base.SegmentBytes = 65536
	return WhatIfOptions{
		Source: &sim.WorkloadSource{Name: "seed", Workload: seedWorkload()},
		Base:   base,
		Sweeps: []Sweep{{Key: "index.interval.bytes", Values: []int64{1, 4096, 20000, 1048576}}},
		Scale:  Scale{Partitions: 1, MaxMapCount: DefaultMaxMapCount},
	}
}

// The seed post's three regimes (docs/background.md): 1 and 4096 on the plateau (byte-identical indexes), 20000
// thinning (one entry per full segment, at batch 3), 1048576 over a 64 KiB segment the cliff.
// The figures are the model's own (model.Simulate of the same workload), and the
// hand-derivable ones are checked by value.
func TestSeedExperiment(t *testing.T) {
	rep, err := RunWhatIf(seedOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]Regime{1: Plateau, 4096: Plateau, 20000: Thinning, 1048576: Cliff}
	for _, p := range rep.Points {
		I := p.Config.IndexIntervalBytes
		if p.Regime != want[I] {
			t.Errorf("I=%d: regime %s, want %s", I, p.Regime, want[I])
		}
		l, err := model.Simulate(p.Config, model.PerBatch, 0, seedWorkload().Steps, true)
		if err != nil {
			t.Fatal(err)
		}
		var entries, timeEntries int64
		for _, s := range l.Segments() {
			entries += int64(s.OffsetIndex().Entries())
			timeEntries += int64(s.TimeIndex().Entries())
		}
		if p.Scan != l.Scan() || p.Segments != l.SegmentCount() || p.OffsetIndexEntries != entries || p.TimeIndexEntries != timeEntries {
			t.Errorf("I=%d: scan %+v segs %d entries %d/%d; model %+v %d %d/%d", I, p.Scan, p.Segments, p.OffsetIndexEntries,
				p.TimeIndexEntries, l.Scan(), l.SegmentCount(), entries, timeEntries)
		}
		// Quantiles against a brute-force list of every offset's cost.
		var costs []int64
		for _, s := range l.Segments() {
			for o := s.BaseOffset(); o <= s.LastOffset(); o++ {
				r, ok := s.Lookup(o)
				if !ok {
					t.Fatalf("offset %d not found", o)
				}
				costs = append(costs, r.ScanBytes)
			}
		}
		sortInt64(costs)
		for _, q := range ReportedQuantiles {
			if got, want := p.ScanQ[q], costs[rankOf(q, int64(len(costs)))-1]; got != want {
				t.Errorf("I=%d p%d: %d, brute force %d", I, q, got, want)
			}
		}
	}
	// Hand-derived figures from the post: 16 segments of 4 batches; 48 entries on the plateau;
	// one entry per segment at 20000 (16); none at 1 MiB; max scan one batch on the plateau,
	// two batches at 20000 (offsets of batch 3 below its entry start at byte 0), three at 1 MiB.
	byI := map[int64]*Point{}
	for _, p := range rep.Points {
		byI[p.Config.IndexIntervalBytes] = p
	}
	for I, w := range map[int64]struct{ entries, maxScan, limit int64 }{
		1: {48, 16350, 16351}, 4096: {48, 16350, 20446}, 20000: {16, 32700, 36350}, 1048576: {0, 49050, 65536},
	} {
		p := byI[I]
		if p.Segments != 16 || p.OffsetIndexEntries != w.entries || p.Scan.MaxScanBytes != w.maxScan || p.BoundLimit != w.limit || p.Scan.Lookups != 5000 {
			t.Errorf("I=%d: %d segments, %d entries, max scan %d, bound %d; want 16, %d, %d, %d", I, p.Segments,
				p.OffsetIndexEntries, p.Scan.MaxScanBytes, p.BoundLimit, w.entries, w.maxScan, w.limit)
		}
	}
	if byI[4096].BoundSlack != 4096 {
		t.Errorf("docs/contract.md §10 example: slack %d, want 4096", byI[4096].BoundSlack)
	}
}

func sortInt64(a []int64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
