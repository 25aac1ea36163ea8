package reports

import (
	"math/rand/v2"
	"strings"
	"testing"

	"kidx/model"
	"kidx/sim"
)

// exposurePoint runs one what-if point of count batches of size bytes (timestamps growing)
// under cfg and era.
func exposurePoint(t *testing.T, cfg model.Config, era model.Era, size int64) *Point {
	t.Helper()
	rep, err := RunWhatIf(WhatIfOptions{
		Source: &sim.FixedSource{Count: 200, Bytes: size, Records: 1, TimestampBase: 1_700_000_000_000},
		Base:   cfg, Eras: []model.Era{era},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Points[0]
}

// Issue 23, "exposure answers derived by hand": whatif's per-point follower-overflow exposure
// for the issue's three configurations and Kafka's defaults. By hand (S = 1 GiB =
// 1073741824; the time index holds segment.index.bytes/12 - 1 entries, TimeIndex.isFull; an
// entry every floor(I/b)+1 batches of b bytes; full when capacity × spacing + b <= S):
//
//   - I 4096, index 4096, 5070 B: 340 entries, spacing 5070, full at 340×5070+5070 = 1728870.
//     Remedies whatever the batches (entries >= 4097 apart, last batch >= 68):
//     segment.index.bytes 3144984 (model.SegmentIndexBytesNeverFull, hand-worked in
//     docs/kafka-hazards.md §4); index.interval.bytes floor((S-68)/340) = 3158063
//     (340×3158064 = 1073741760 > S-68 = 1073741756); segment.bytes 340×4097+67 = 1393047.
//   - I 4096, index 1 MiB, 5070 B: 87380 entries, full at 87381×5070 = 443021670; interval
//     floor(1073741756/87380) = 12288; segment.bytes 87380×4097+67 = 357995927.
//   - I 100, index 10 MiB, 1024 B: spacing 1024 (every batch), 873812 entries, full at
//     873813×1024 = 894784512; segment.index.bytes 127573296 (docs/kafka-hazards.md §4);
//     interval floor(1073741756/873812) = 1228; segment.bytes 873812×101+67 = 88255079.
//   - Kafka's defaults (I 4096, index 10 MiB), 1024 B: spacing 5×1024 = 5120, full at
//     873812×5120+1024 = 4473918464 > S: not exposed.
func TestWhatIfExposureIssue23Configurations(t *testing.T) {
	const gib = 1073741824
	for _, c := range []struct {
		name                 string
		interval, index      int64
		batch                int64
		exposed              bool
		spacing, full        int64
		remedyIndex, remedyI int64
		remedyS              int64
	}{
		{"reproduction", 4096, 4096, 5070, true, 5070, 1728870, 3144984, 3158063, 1393047},
		{"1 MiB index", 4096, 1048576, 5070, true, 5070, 443021670, 3144984, 12288, 357995927},
		{"interval 100, 1 KB batches", 100, 10485760, 1024, true, 1024, 894784512, 127573296, 1228, 88255079},
		{"Kafka's defaults", 4096, 10485760, 1024, false, 5120, 4473918464, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := model.DefaultConfig()
			cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = gib, c.interval, c.index
			p := exposurePoint(t, cfg, model.EraForRule(model.PerBatch), c.batch)
			e := p.Exposure
			if e.Exposed != c.exposed || e.Index != "time" || e.SpacingBytes != c.spacing || e.FullAtBytes != c.full || !e.ExactSpacing {
				t.Fatalf("exposure %+v, want exposed %v, time index, spacing %d, full at %d, exact", e, c.exposed, c.spacing, c.full)
			}
			if e.Remedy != (ExposureRemedy{c.remedyIndex, c.remedyI, c.remedyS}) {
				t.Errorf("remedy %+v, want %d, %d, %d", e.Remedy, c.remedyIndex, c.remedyI, c.remedyS)
			}
			notes := strings.Join(p.Recommendations, " ")
			doc := pointDoc(p)
			if !c.exposed {
				if e.Cell() != "no" || strings.Contains(notes, "xposed") || doc.FollowerOverflow.Exposed || doc.FollowerOverflow.Sentence != "" {
					t.Errorf("a healthy point speaks of exposure: %q %q %+v", e.Cell(), notes, doc.FollowerOverflow)
				}
				return
			}
			want := "raise segment.index.bytes to at least " + itoa(c.remedyIndex) + ", or index.interval.bytes to at least " +
				itoa(c.remedyI) + ", or lower segment.bytes to at most " + itoa(c.remedyS)
			s := e.Sentence(cfg, p.Era.String())
			if e.Cell() != "exposed" || !strings.Contains(s, want) || !strings.Contains(s, `"Attempt to append to a full time index"`) ||
				!strings.Contains(s, "Kafka 3.9.1, 4.0.1 and 4.1+") || doc.FollowerOverflow.Sentence != s || doc.FollowerOverflow.Remedy == nil {
				t.Errorf("cell %q, sentence %q lacks %q; JSON %+v", e.Cell(), s, want, doc.FollowerOverflow)
			}
			// The run's 200 batches fill no index (the reproduction's segment rolls at 341):
			// the exposure comes from the batch sizes and is said as a note.
			if p.IndexFullRolls == 0 && !strings.Contains(notes, want) {
				t.Errorf("notes lack the remedy %q: %q", want, notes)
			}
		})
	}
}

// Under the per-append rule (Kafka 3.7-4.0.0) one append makes one entry, so a follower's
// fetch cannot throw; only LogSegment.recover, which indexes per batch in every release, can
// overflow a follower's segment: the same exposure, said as recovery's.
func TestWhatIfExposurePerAppendIsRecoveryOnly(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.SegmentIndexBytes = 1048576
	p := exposurePoint(t, cfg, model.EraForRule(model.PerAppend), 5070)
	s := p.Exposure.Sentence(cfg, p.Era.String())
	if !p.Exposure.Exposed || p.Exposure.PerBatch || !strings.Contains(s, "recovery's index overflow only") ||
		!strings.Contains(s, "a follower's fetch cannot throw") || strings.Contains(s, "3.9.1") {
		t.Errorf("per-append exposure %+v: %q", p.Exposure, s)
	}
}

// The closest entries of mixed sizes, by hand: sizes {100, 250} under I = 300: the sums
// above 300 are 350 (100+250), 400, ...; the bound max(I+1, 100) = 301 is not reachable and
// the smallest size alone gives 400. Sizes {68, 1000} under I = 4096: 1000a + 68b for
// a = 0..4 gives 4148, 4128, 4108, 4156, 4136: 4108.
func TestClosestSpacingMixedSizes(t *testing.T) {
	for _, c := range []struct {
		sizes    []int64
		interval int64
		want     int64
	}{
		{[]int64{100, 250}, 300, 350},
		{[]int64{1000, 68}, 4096, 4108},
		{[]int64{5070}, 4096, 5070},
		{[]int64{5070}, 0, 5070},
		{[]int64{1024, 1024}, 100, 1024},
	} {
		var s batchSizes
		for _, n := range c.sizes {
			s.add(n)
		}
		if got, exact := closestSpacing(c.interval, &s); got != c.want || !exact {
			t.Errorf("sizes %v, I %d: %d (exact %v), want %d", c.sizes, c.interval, got, exact, c.want)
		}
	}
	// More distinct sizes than tracked: the bound max(I+1, smallest), said as inexact.
	var many batchSizes
	for n := int64(200); n < 200+maxDistinctSizes+1; n++ {
		many.add(n * 3)
	}
	if got, exact := closestSpacing(4096, &many); got != 4097 || exact {
		t.Errorf("many sizes: %d (exact %v), want the bound 4097, inexact", got, exact)
	}
}

// The money-changing spacing against brute force: the smallest sum above I of any multiset of
// the sizes, by a table of reachable sums up to I + the largest size.
func TestClosestSpacingBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 4))
	for range 300 {
		var s batchSizes
		var largest int64
		for range 1 + rng.IntN(4) {
			n := 68 + rng.Int64N(400)
			s.add(n)
			largest = max(largest, n)
		}
		interval := rng.Int64N(3000)
		reach := make([]bool, interval+largest+1)
		reach[0] = true
		want := int64(-1)
		for v := int64(1); v < int64(len(reach)) && want < 0; v++ {
			for _, d := range s.distinct {
				if v >= d && reach[v-d] {
					reach[v] = true
				}
			}
			if reach[v] && v > interval {
				want = v
			}
		}
		if got, exact := closestSpacing(interval, &s); got != want || !exact {
			t.Fatalf("sizes %v, I %d: %d (exact %v), brute force %d", s.distinct, interval, got, exact, want)
		}
	}
}

// BenchmarkBatchSizesAddChunk is what the exposure adds to whatif's fast pass: one look at
// each batch size of a chunk (uniform: one comparison each; lognormal-like: past 16 distinct
// sizes only the smallest is kept).
func BenchmarkBatchSizesAddChunk(b *testing.B) {
	uniform := make([]int32, chunk)
	mixed := make([]int32, chunk)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range uniform {
		uniform[i] = 16350
		mixed[i] = int32(68 + rng.IntN(65536))
	}
	for _, c := range []struct {
		name  string
		sizes []int32
	}{{"uniform", uniform}, {"mixed", mixed}} {
		b.Run(c.name, func(b *testing.B) {
			var s batchSizes
			for b.Loop() {
				s.addChunk(c.sizes)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.sizes)), "ns/batch")
		})
	}
}

// BenchmarkClosestSpacingWorst is the exact spacing at its bounds: 16 distinct sizes, the
// smallest maxResidueModulus bytes (a shortest path over 262144 residues), computed once per
// workload ("first"), then one scan of the residues per point ("per point").
func BenchmarkClosestSpacingWorst(b *testing.B) {
	sizes := func() *batchSizes {
		var s batchSizes
		for i := range int64(maxDistinctSizes) {
			s.add(maxResidueModulus + 1000*i + 7*i*i)
		}
		return &s
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			if _, exact := closestSpacing(4_000_000, sizes()); !exact {
				b.Fatal("inexact")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/workload")
	})
	b.Run("per point", func(b *testing.B) {
		s := sizes()
		for b.Loop() {
			if _, exact := closestSpacing(4_000_000, s); !exact {
				b.Fatal("inexact")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "us/point")
	})
}

// An era the stream cannot run (before 0.10.2's overflow roll) goes through sim.Run point by
// point: the batch sizes are then read in a pass of their own, and the answer is the same
// (0.10.1 has a time index: 1048576/12 - 1 = 87380 entries, full at 87381 × 5070 = 443021670).
func TestWhatIfExposureSlowPathEra(t *testing.T) {
	era, err := model.EraForKafkaVersion("0.10.1.1")
	if err != nil {
		t.Fatal(err)
	}
	if model.StreamSupports(era) {
		t.Fatal("0.10.1 runs in the stream: the test no longer takes the slow path")
	}
	cfg := model.DefaultConfig()
	cfg.SegmentIndexBytes = 1048576
	p := exposurePoint(t, cfg, era, 5070)
	if e := p.Exposure; !e.Exposed || e.Entries != 87380 || e.FullAtBytes != 443021670 || e.PerBatch {
		t.Errorf("exposure %+v", e)
	}
}
