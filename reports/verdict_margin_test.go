package reports

import (
	"testing"

	"kidx/model"
)

// marginPoint is a point with only the figures the verdict's margin weighs: 10 batches of
// 1000 B (a mean batch of 1000 B), its longest and p99 walks, index-full rolls.
func marginPoint(maxScan, p99 int64, rolls int) *Point {
	return &Point{Batches: 10, LogBytes: 10000, IndexFullRolls: rolls,
		Scan:  model.ScanStats{Lookups: 100, MaxScanBytes: maxScan, TotalHops: 100},
		ScanQ: map[Quantile]int64{P99: p99},
		Maps:  Maps{Maps: 2 * int64(1+rolls), MaxMapCount: DefaultMaxMapCount}}
}

// Issue 22, item 8: a change is named only when a figure falls by 10 % and one unit (one mean
// batch for a walk), and the words never say a walk is cut that did not move by the margin.
// By hand, against a configuration walking up to 20000 B (p99 10000 B):
func TestVerdictMarginWords(t *testing.T) {
	base := marginPoint(20000, 10000, 0)
	for _, c := range []struct {
		name     string
		q        *Point
		improves bool
		effects  string
		costs    string
	}{
		// p99 -12 B: neither 10 % (1000 B) nor one batch (1000 B).
		{"12 B", marginPoint(20000, 9988, 0), false,
			"leaves the longest walk at 19.5 KiB and moves the p99 walk by only 12 B, to 9988 B", ""},
		// The longest walk -1999 B is one batch but under 10 % of 20000; p99 -1000 B is both.
		{"p99 only", marginPoint(18001, 9000, 0), true,
			"cuts the p99 walk from 10000 B to 9000 B and moves the longest walk by only 1999 B, to 17.6 KiB", ""},
		// -2000 B on 20000 is exactly 10 % and two batches: a cut.
		{"both", marginPoint(18000, 9000, 0), true,
			"cuts the longest walk from 19.5 KiB to 17.6 KiB and the p99 walk from 10000 B to 9000 B", ""},
		// p99 down 1000 B, but 3 index-full rolls (and 6 more maps) are its cost.
		{"rolls", marginPoint(20000, 9000, 3), true,
			"cuts the p99 walk from 10000 B to 9000 B and leaves the longest walk at 19.5 KiB",
			"raises index-full rolls from 0 to 3 and memory maps from 2 to 8"},
		// A walk that grows by the margin is never a change worth naming.
		{"longer", marginPoint(22000, 9000, 0), false,
			"cuts the p99 walk from 10000 B to 9000 B", "raises the longest walk from 19.5 KiB to 21.5 KiB"},
	} {
		if got := improves(base, c.q); got != c.improves {
			t.Errorf("%s: improves %v, want %v", c.name, got, c.improves)
		}
		effects, costs := effectWords(base, c.q)
		if effects != c.effects || costs != c.costs {
			t.Errorf("%s: effects %q, costs %q\nwant %q, %q", c.name, effects, costs, c.effects, c.costs)
		}
	}
	// A longer walk for a shorter p99 is a trade the verdict states and does not name.
	if !savesButLengthens(base, marginPoint(22000, 9000, 0)) || savesButLengthens(base, marginPoint(20000, 9000, 0)) {
		t.Error("savesButLengthens: wrong on the longer walk or on a plain saving")
	}
	if got, want := marginWords(base, marginPoint(20000, 9000, 0)), "at least 10 % and at least one mean batch of 1000 B"; got != want {
		t.Errorf("margin %q, want %q", got, want)
	}
	// Fewer index-full rolls clear the margin on their own (one roll), walks unchanged.
	if !improves(marginPoint(20000, 10000, 3), base) {
		t.Error("3 index-full rolls to none is not named")
	}
	if got, want := marginWords(marginPoint(20000, 10000, 3), base), "at least 10 % and at least one roll or one segment's two maps"; got != want {
		t.Errorf("margin %q, want %q", got, want)
	}
}

// The verdict's list of index-full rolls: every rolling point by name up to five, the rest as a
// range; the points without any; "every point" when they all roll alike; nothing when none does.
func TestVerdictRollsList(t *testing.T) {
	sweep := func(rolls ...int) *WhatIf {
		r := &WhatIf{Sweeps: []Sweep{{Key: "segment.index.bytes"}}}
		for i, n := range rolls {
			p := marginPoint(1000, 1000, n)
			p.Config = model.DefaultConfig()
			p.Config.SegmentIndexBytes = int64(4096 * (i + 1))
			r.Points = append(r.Points, p)
		}
		return r
	}
	r := sweep(29, 14, 9, 7, 5, 4, 3, 0)
	want := " Index-full rolls (segments closed before segment.bytes because an index filled): 29 at segment.index.bytes=4096, " +
		"14 at segment.index.bytes=8192, 9 at segment.index.bytes=12288, 7 at segment.index.bytes=16384, 5 at " +
		"segment.index.bytes=20480, 3 to 4 at 2 more points; none at segment.index.bytes=32768 (this configuration)."
	if got := r.rollsWords(r.Points[7]); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	r = sweep(2, 2)
	if got, want := r.rollsWords(r.Points[0]), " Index-full rolls (segments closed before segment.bytes because an index filled): 2 at every point."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if r = sweep(0, 0); r.rollsWords(r.Points[0]) != "" {
		t.Errorf("no rolls, yet %q", r.rollsWords(r.Points[0]))
	}
}
