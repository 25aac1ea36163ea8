package reports

import (
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/model"
	"kidx/segment"
)

// Analyze's header reads (docs/contract.md §5) on files whose every lookup is counted by hand. Five
// 100-byte batches of 3 records at index.interval.bytes=150, per-batch: B0 0-2@0, B1 3-5@100,
// B2 6-8@200, B3 9-11@300, B4 12-14@400. The counter passes 150 before B2 (200) and again
// before B4 (200): entries 8@200 and 14@400.
//
// Hops (Kafka to 4.0, the first batch whose last offset >= o): 0-2: 1 each; 3-5: 2 (from 0);
// 6-7: 3 (from 0, no entry <= 7); 8: 1; 9-11: 2 (from B2); 12-13: 3 (from B2); 14: 1.
// Total 3+6+6+1+6+6+1 = 29, max 3.
//
// Kafka 4.1's searchForOffsetFromPosition returns at a batch whose base offset is the target,
// else reads on to the first batch whose base offset is past it, or the end of the file:
// 0: B0 (=) 1; 1, 2: B0 B1 2; 3: B0 B1(=) 2; 4, 5: B0-B2 3; 6: B0-B2(=) 3; 7: B0-B3 4;
// 8: B2 B3 2; 9: B2 B3(=) 2; 10, 11: B2-B4 3; 12: B2-B4(=) 3; 13: B2-B4, end 3; 14: B4, end 1.
// Total 1+2+2+2+3+3+3+4+2+2+3+3+3+3+1 = 37, max 4.
//
// With segment.bytes=300 the log rolls before B3 (300 > 300-100): segment 0 holds B0-B2 with
// the entry 8@200, segment 9 holds B3 and B4 with none. Hops: 0-2: 1; 3-5: 2; 6-7: 3; 8: 1;
// 9-11: 1; 12-14: 2: total 25, max 3. Reads: 0: 1; 1, 2: 2; 3: 2; 4, 5: 3; 6: B0-B2(=) 3;
// 7: B0-B2, end 3; 8: B2, end 1; 9: B3(=) 1; 10, 11: B3 B4 2; 12: B3 B4(=) 2; 13, 14: B3 B4,
// end 2: total 1+2+2+2+3+3+3+3+1+1+2+2+2+2+2 = 31, max 3.
func TestAnalyzeHeaderReadsByHand(t *testing.T) {
	perBatch, perAppend := model.EraForRule(model.PerBatch), model.EraForRule(model.PerAppend)
	for _, c := range []struct {
		segmentBytes          int64
		hops, maxHops         int64
		reads41, maxReads41   int64
		entries, segmentsWant int
	}{
		{1 << 20, 29, 3, 37, 4, 2, 1},
		{300, 25, 3, 31, 3, 1, 2},
	} {
		dir := filepath.Join(t.TempDir(), "topic-0")
		cfg := segment.DefaultConfig()
		cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.SegmentMs = 150, c.segmentBytes, 0
		l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < 5; i++ {
			segmenttest.AppendSized(t, l, 3*i, 3, 100, 1700000000000+3*i)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			name       string
			era        *model.Era
			total, max int64
			forWhat    string
		}{
			{"no release", nil, c.reads41, c.maxReads41, "4.1+"},
			{"4.1-4.4", &perBatch, c.reads41, c.maxReads41, "4.1+"},
			{"3.7-4.0.0", &perAppend, c.hops, c.maxHops, "before 4.1"},
		} {
			a, err := AnalyzeDir(dir, AnalyzeOptions{HeaderReads: r.era})
			if err != nil {
				t.Fatal(err)
			}
			p := a.Partitions[0]
			if p.Segments != c.segmentsWant || p.OffsetIndexEntries != int64(c.entries) {
				t.Fatalf("segment.bytes=%d: %d segments, %d entries; want %d, %d", c.segmentBytes, p.Segments, p.OffsetIndexEntries, c.segmentsWant, c.entries)
			}
			s := p.Scan
			if s.Lookups != 15 || s.TotalHops != c.hops || s.MaxHops != c.maxHops {
				t.Fatalf("segment.bytes=%d: %d lookups, hops %d max %d; want 15, %d, %d", c.segmentBytes, s.Lookups, s.TotalHops, s.MaxHops, c.hops, c.maxHops)
			}
			if s.TotalHeaderReads != r.total || s.MaxHeaderReads != r.max || a.HeaderReadsFor != r.forWhat || a.HeaderReadsBoth != (r.era == nil) {
				t.Errorf("segment.bytes=%d, %s: header reads %d max %d for %q (both %v); want %d, %d for %q",
					c.segmentBytes, r.name, s.TotalHeaderReads, s.MaxHeaderReads, a.HeaderReadsFor, a.HeaderReadsBoth, r.total, r.max, r.forWhat)
			}
		}
	}
}
