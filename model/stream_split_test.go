package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// A stream standing for a set of index.interval.bytes values (SetIntervalRange), split with
// Clone wherever AddBatchesUntilSplit stops, gives for each value exactly the run of a stream
// of that value alone: the same segments, totals and rejections, in every era StatStream
// runs, with time rolls, small indexes and rejections. The reference is one plain stream per
// value (itself held equal to Log by TestStatStreamMatchesLog).
func TestStatStreamSplitMatchesSingleStreams(t *testing.T) {
	eras := []Era{}
	for _, e := range Eras {
		if StreamSupports(e) {
			eras = append(eras, e)
		}
	}
	splits := 0
	for seed := uint64(1); seed <= 1500; seed++ {
		r := rand.New(rand.NewPCG(seed, 41))
		cfg, steps := randomSteps(r)
		if r.IntN(5) == 0 {
			cfg.SegmentMs = int64(1 + r.IntN(20))
		}
		era := eras[r.IntN(len(eras))]
		var bytes, records []int32
		var ts []int64
		for _, s := range steps {
			for _, b := range s.Append {
				bytes, records, ts = append(bytes, int32(b.Bytes)), append(records, int32(b.Records)), append(ts, b.MaxTimestamp)
			}
		}
		// Values around the batch sizes, where checks part.
		values := map[int64]bool{0: true}
		for range 1 + r.IntN(8) {
			v := int64(r.IntN(3 * int(max(cfg.SegmentBytes/4, 1))))
			if len(bytes) > 0 && r.IntN(2) == 0 {
				v = int64(bytes[r.IntN(len(bytes))]) + int64(r.IntN(3)) - 1
			}
			values[max(v, 0)] = true
		}
		var vs []int64
		for v := range values {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })

		want := map[int64]string{}
		for _, v := range vs {
			c := cfg
			c.IndexIntervalBytes = v
			st, err := NewStatStream(c, 3, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.SetEra(era); err != nil {
				t.Fatal(err)
			}
			st.AddBatches(bytes, records, ts)
			total := st.Close()
			want[v] = summaryKey(st.Summaries(), total, st.Rejected())
		}

		// One stream for all the values, split as it goes; chunks of random length.
		type part struct {
			vals []int64
			st   *StatStream
		}
		st, err := NewStatStream(cfg, 3, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SetEra(era); err != nil {
			t.Fatal(err)
		}
		parts := []*part{{vs, st}}
		for from := 0; from < len(bytes); {
			to := min(len(bytes), from+1+r.IntN(40))
			var next []*part
			var feed func(p *part, at int)
			feed = func(p *part, at int) {
				p.st.SetIntervalRange(p.vals[0], p.vals[len(p.vals)-1])
				n, c := p.st.AddBatchesUntilSplit(bytes[at:to], records[at:to], ts[at:to])
				if at+n == to {
					next = append(next, p)
					return
				}
				// Values below c add an entry at this check; c and above do not.
				k := sort.Search(len(p.vals), func(i int) bool { return p.vals[i] >= c })
				if k == 0 || k == len(p.vals) {
					t.Fatalf("seed %d: split at %d does not part %v", seed, c, p.vals)
				}
				splits++
				upper := &part{p.vals[k:], p.st.Clone(nil)}
				p.vals = p.vals[:k]
				feed(p, at+n)
				feed(upper, at+n)
			}
			for _, p := range parts {
				feed(p, from)
			}
			parts, from = next, to
		}
		for _, p := range parts {
			total := p.st.Close()
			got := summaryKey(p.st.Summaries(), total, p.st.Rejected())
			for _, v := range p.vals {
				if got != want[v] {
					t.Fatalf("seed %d, era %s, index.interval.bytes=%d (in %v):\nsplit  %s\nsingle %s", seed, era.ID, v, p.vals, got, want[v])
				}
			}
		}
	}
	if splits < 1000 {
		t.Fatalf("only %d splits in 1500 workloads: the test does not exercise them", splits)
	}
	t.Logf("%d splits", splits)
}

func summaryKey(s []SegmentSummary, total ScanStats, rejected int64) string {
	return fmt.Sprint(slices.Clone(s), total, rejected)
}
