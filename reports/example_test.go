package reports_test

import (
	"fmt"

	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

// The seed post's experiment (docs/background.md) at two intervals: on the plateau at 4096, thinning at 20000.
func ExampleRunWhatIf() {
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 65536
	rep, err := reports.RunWhatIf(reports.WhatIfOptions{
		Source: &sim.FixedSource{Count: 64, Bytes: 16350, Records: 79, TimestampBase: 1_700_000_000_000},
		Base:   cfg,
		Sweeps: []reports.Sweep{{Key: "index.interval.bytes", Values: []int64{4096, 20000}}},
	})
	if err != nil {
		panic(err)
	}
	for _, p := range rep.Points {
		fmt.Println(p.Config.IndexIntervalBytes, p.Regime, p.OffsetIndexEntries, p.Scan.MaxScanBytes, p.ScanQ[reports.P99])
	}
	// Output:
	// 4096 plateau 48 16350 16350
	// 20000 thinning 16 32700 32700
}

func ExampleParseSweep() {
	s, err := reports.ParseSweep("index.interval.bytes=64..1024*2")
	fmt.Println(s.Key, s.Values, err)
	// Output: index.interval.bytes [64 128 256 512 1024] <nil>
}
