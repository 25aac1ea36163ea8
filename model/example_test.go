package model_test

import (
	"fmt"

	"kidx/model"
)

// The seed post's segment 4740 (docs/background.md): four batches, the per-batch rule at the default interval,
// and the lookup of offset 4930.
func ExampleSegment_Lookup() {
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 65536
	l, err := model.NewLog(cfg, model.PerBatch, model.LogOptions{StartOffset: 4740})
	if err != nil {
		panic(err)
	}
	for _, b := range []model.Batch{{Records: 79, Bytes: 16350}, {Records: 79, Bytes: 16350}, {Records: 79, Bytes: 16350}, {Records: 23, Bytes: 4799}} {
		if err := l.Append(b); err != nil {
			panic(err)
		}
	}
	fmt.Println(l.Active().OffsetIndex().All())
	r, _ := l.Active().Lookup(4930)
	fmt.Printf("start %d, hit %d-%d at %d, %d bytes, %d hops\n", r.Index.Position, r.Hit.BaseOffset, r.Hit.LastOffset, r.Hit.Position, r.ScanBytes, r.Hops)
	// Output:
	// [{4897 16350} {4976 32700} {4999 49050}]
	// start 16350, hit 4898-4976 at 32700, 16350 bytes, 2 hops
}

// The three regimes of the seed post (docs/background.md): the plateau (interval below the batch size), thinning,
// and the cliff (interval at least segment.bytes: an empty index). By hand for the cliff:
// each full segment scans 79×16350×(0+1+2+3) bytes, the last 5003100, over 5000 offsets.
func ExampleStatStream() {
	for _, interval := range []int64{4096, 20000, 1048576} {
		cfg := model.DefaultConfig()
		cfg.SegmentBytes, cfg.IndexIntervalBytes = 65536, interval
		s, err := model.NewStatStream(cfg, 0, false, nil)
		if err != nil {
			panic(err)
		}
		for range 63 {
			s.Add(16350, 79, model.NoTimestamp)
		}
		s.Add(4799, 23, model.NoTimestamp)
		st := s.Close()
		fmt.Printf("interval %d: max scan %d B, mean %.1f B, max hops %d\n", interval, st.MaxScanBytes, st.MeanScanBytes(), st.MaxHops)
	}
	// Output:
	// interval 4096: max scan 16350 B, mean 12059.8 B, max hops 2
	// interval 20000: max scan 32700 B, mean 16245.4 B, max hops 3
	// interval 1048576: max scan 49050 B, mean 24250.3 B, max hops 4
}
