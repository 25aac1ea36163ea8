package props

import (
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"kidx/model"
)

// The invariants of cleaned segments over random clean cases (CleanCaseGen): a few hundred
// cases, well under a second.
func TestCleanedSegmentInvariants(t *testing.T) {
	for _, p := range CleanProperties {
		if p.Kind != Invariant {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				c := CleanCaseGen().Draw(t, "case")
				r, err := c.Run()
				if err != nil {
					t.Fatalf("invalid case: %v", err)
				}
				if v := p.Check(c, r); v != nil {
					w, _ := c.Workload().MarshalJSON()
					t.Fatalf("%s\n%s", v.Explanation, w)
				}
			})
		})
	}
}

// loadCleanCase reads a replayable workload written from a CleanCase.
func loadCleanCase(t *testing.T, path string) *CleanCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	era, err := model.EraForKafkaVersion(w.KafkaVersion)
	if err != nil {
		t.Fatal(err)
	}
	return &CleanCase{Config: cfg, Era: era, Steps: w.Steps}
}

// CleanedIndexNeverOverflows is false (docs/model.md, "The log cleaner"): rapid's shrunk
// counterexample, kept as testdata, worked out by hand under the per-batch rule (3.9.1+),
// index.interval.bytes 0, segment.index.bytes 24 (3 offset slots; 2 time slots, the last kept
// for onBecomeInactiveSegment, TimeIndex.isFull), one-record 68-byte batches of timestamp 1000:
//   - segment 0: batch 0. No offset entry (a segment's first batch); closing time entry
//     (1000, 0). Index bytes 0, time-index bytes 12.
//   - segment 1: batch 1, then batch 2 (counter 68 > 0): entry (2, 68), time (1000, 1). Index
//     bytes 8, time-index bytes 12.
//   - groupSegmentsBySize: 68 + 136 <= 204 bytes, 0 + 8 <= 24, 12 + 12 <= 24: one group.
//   - the cleaned segment's counter runs on across the boundary: batch 1 (counter 68) gets
//     (1, 68) and time (1000, 0), the one usable time slot; batch 2 (counter 68) is due, and
//     TimeIndex.maybeAppend throws on the full time index before it looks at the timestamp.
//     (The 64-byte buffer doubles to 128 for each source, Cleaner.growBuffers; the chunks do not
//     matter per batch.)
//
// Confirmed on Kafka's classes at trunk d79bd502ec (docs/findings.md, "Confirmed on Kafka's own
// classes"): UnifiedLog appends and rolls, Cleaner.groupSegmentsBySize forms [0, 1], and
// Cleaner.cleanSegments throws IllegalArgumentException "Attempt to append to a full time index
// (size = 1)." from TimeIndex.maybeAppend, at batch 2; the 4.0 branch's LogSegment, driven as
// its Scala cleaner does, throws the same.
func TestCleanedIndexOverflowFinding(t *testing.T) {
	c := loadCleanCase(t, "testdata/cleaned-index-overflow.json")
	if c.Era.Rule() != model.PerBatch {
		t.Fatalf("era %s: the finding is under the per-batch rule", c.Era.ID)
	}
	r, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	v := CleanedIndexNeverOverflows.Check(c, r)
	if v == nil || !strings.Contains(v.Explanation, "time-index-overflow (Attempt to append to a full time index (size = 1).)") {
		t.Fatalf("want the time-index overflow of the clean step, got %v (events %+v)", v, r.Log.Events())
	}
	// The log stopped at the clean, as it was before it: segments 0 and 1 untouched.
	if segs := r.Log.Segments(); len(segs) != 3 || segs[0].Cleaned() || segs[1].OffsetIndex().Entries() != 1 {
		t.Errorf("after the overflow the segments are those before the clean step")
	}
}

// cleanSegmentsCase is model's testCleanSegments workload (LogCleanerTest.testCleanSegments):
// three 300-byte segments of one-record 100-byte batches cut by rolls, offsets 1, 3, 5, 7
// dropped, under the per-batch rule.
func cleanSegmentsCase(t *testing.T, interval int64, mutant model.Mutant) *CleanCase {
	t.Helper()
	cfg := model.DefaultConfig()
	cfg.SegmentBytes, cfg.IndexIntervalBytes = 1024, interval
	var steps []model.Step
	for i := int64(0); i < 10; i++ {
		if i > 0 && i%3 == 0 {
			steps = append(steps, model.Step{Roll: true})
		}
		steps = append(steps, model.AppendStep(model.Batch{Records: 1, Bytes: 100, MaxTimestamp: 10 * i}))
	}
	steps = append(steps, model.Step{Clean: &model.Clean{Drop: []int64{1, 3, 5, 7}}})
	era, err := model.EraByID("4.1-4.4")
	if err != nil {
		t.Fatal(err)
	}
	return &CleanCase{Config: cfg, Era: era, Steps: steps, Mutant: mutant}
}

// The invariants have teeth: each fails where its rule is broken.
func TestCleanedPropertiesTeeth(t *testing.T) {
	// The counter incremented before the check (MutantIncrementBeforeCheck): the cleaned
	// segment's first batch (100 B > I=50) gets an entry at position 0.
	c := cleanSegmentsCase(t, 50, model.MutantIncrementBeforeCheck)
	r, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	if v := CleanedFirstBatchNeverIndexed.Check(c, r); v == nil || !strings.Contains(v.Explanation, "cleaned segment 0: entry (0, 0) indexes its first batch") {
		t.Errorf("CleanedFirstBatchNeverIndexed under the mutant: %v", v)
	}
	// The cleaned segment written under I=300 (batches 0, 2, 4, 6, 8 at 0..400; the counter
	// passes 300 only before batch 8: one entry (8, 400)) held to the bound of I=0: the lookup
	// of offset 4 starts at byte 0 and hits byte 200, more than 0 + the 100-byte batch before.
	c = cleanSegmentsCase(t, 300, model.Exact)
	r, err = c.Run()
	if err != nil {
		t.Fatal(err)
	}
	if v := CleanedScanBound.Check(c, r); v != nil {
		t.Fatalf("I=300 within its own bound: %v", v.Explanation)
	}
	c.Config.IndexIntervalBytes = 0
	if v := CleanedScanBound.Check(c, r); v == nil || !strings.Contains(v.Explanation, "> bound 100 B (I=0 + previous batch 100 B)") {
		t.Errorf("CleanedScanBound held to I=0: %v", v)
	}
}

// Bad clean steps get an error, never a panic, and a clean step that succeeds leaves a log
// whose segments are in offset order, with batches laid end to end (rapid: arbitrary drops,
// rewrites, uncleanable offsets and buffer sizes over a generated log).
func TestCleanStepArbitraryInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := CleanCaseGen().Draw(t, "case")
		steps := c.Steps[:len(c.Steps)-1]
		offsets := rapid.Int64Range(-3, 60)
		cl := model.Clean{
			Drop:         rapid.SliceOfN(offsets, 0, 6).Draw(t, "drop"),
			IOBufferSize: rapid.Int64Range(-1, model.MaxCleanerIOBufferSize+1).Draw(t, "ioBufferSize"),
		}
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "rewrites"); i < n; i++ {
			cl.Rewrite = append(cl.Rewrite, model.CleanRewrite{BaseOffset: offsets.Draw(t, "rewriteBase"),
				Bytes: rapid.Int64Range(0, 1000).Draw(t, "rewriteBytes"), MaxTimestamp: rapid.Int64Range(-3, 2000).Draw(t, "rewriteTs"),
				HasMaxTimestamp: rapid.Bool().Draw(t, "hasTs")})
		}
		if rapid.Bool().Draw(t, "hasUncleanable") {
			cl.UncleanableOffset, cl.HasUncleanableOffset = offsets.Draw(t, "uncleanable"), true
		}
		l, err := model.NewLog(c.Config, c.Era.Rule(), model.LogOptions{KeepSegments: true, Era: c.Era})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if l.Stopped() {
				return
			}
			if err := l.Apply(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Clean(cl); err != nil {
			return // refused: the step does not describe this log
		}
		last := int64(-1)
		for _, s := range l.Segments() {
			if s.BaseOffset() <= last {
				t.Fatalf("segment %d after offset %d", s.BaseOffset(), last)
			}
			pos := int64(0)
			for _, b := range s.Batches() {
				if b.Position != pos || b.BaseOffset <= last || b.BaseOffset < s.BaseOffset() {
					t.Fatalf("segment %d: batch %+v after position %d, offset %d", s.BaseOffset(), b, pos, last)
				}
				pos += b.Size
				last = b.LastOffset
			}
			if pos != s.Size() {
				t.Fatalf("segment %d: batches end at %d, size %d", s.BaseOffset(), pos, s.Size())
			}
			last = max(last, s.BaseOffset())
		}
	})
}
