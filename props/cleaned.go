package props

import (
	"fmt"
	"sort"

	"pgregory.net/rapid"

	"kidx/model"
)

// A CleanCase is a workload whose last step is one pass of the log cleaner (docs/contract.md §3
// "clean"), under one of the eras the clean step models. The properties below look at the
// segments that pass wrote.
type CleanCase struct {
	Config model.Config
	Era    model.Era
	Steps  []model.Step // the last one is the clean step
	// Mutant breaks one of Kafka's rules on purpose, to show the properties' teeth.
	Mutant model.Mutant
}

// Workload is the case as a docs/contract.md §3 workload that `kidx sim --workload` replays.
func (c *CleanCase) Workload() model.Workload {
	return model.Workload{Config: c.Config.Map(), KafkaVersion: c.Era.First.String(), Steps: c.Steps}
}

// CleanRun is a CleanCase's model run: the log after the clean step (and Close), the cleaned
// segments, and whether the log had already stopped before the clean (then nothing was cleaned
// and every property holds vacuously).
type CleanRun struct {
	Log           *model.Log
	Cleaned       []*model.Segment
	StoppedBefore bool
}

// Run runs the case. An error is an invalid case (a bug in the generator).
func (c *CleanCase) Run() (*CleanRun, error) {
	l, err := model.NewLog(c.Config, c.Era.Rule(), model.LogOptions{KeepSegments: true, Era: c.Era, Mutant: c.Mutant})
	if err != nil {
		return nil, err
	}
	r := &CleanRun{Log: l}
	for _, s := range c.Steps {
		if l.Stopped() {
			r.StoppedBefore = true
			break
		}
		if err := l.Apply(s); err != nil {
			return nil, err
		}
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	for _, s := range l.Segments() {
		if s.Cleaned() {
			r.Cleaned = append(r.Cleaned, s)
		}
	}
	return r, nil
}

// A CleanProperty is a claim about the segments a clean step writes.
type CleanProperty struct {
	Name  string
	Kafka string
	Kind  Kind
	Check func(c *CleanCase, r *CleanRun) *Violation
}

// CleanedFirstBatchNeverIndexed: a cleaned segment's first batch has no offset-index entry. The
// cleaner writes into a new LogSegment object (byte counter 0) in one pass, with no restart.
var CleanedFirstBatchNeverIndexed = &CleanProperty{
	Name:  "CleanedFirstBatchNeverIndexed",
	Kafka: "UnifiedLog.createNewCleanedSegment opens a new LogSegment (bytesSinceLastIndexEntry 0), and LogSegment.append checks the counter before adding a batch (docs/kafka.md §2.1, §14.2)",
	Kind:  Invariant,
	Check: func(c *CleanCase, r *CleanRun) *Violation {
		for _, s := range r.Cleaned {
			for _, e := range s.OffsetIndex().All() {
				if e.Position == 0 {
					return violation("the counter is 0 before a cleaned segment's first batch",
						"cleaned segment %d: entry (%d, %d) indexes its first batch", s.BaseOffset(), e.Offset, e.Position)
				}
			}
		}
		return nil
	},
}

// CleanedScanBound: under the per-batch rule a cleaned segment obeys the scan bound of a
// segment written in one lifetime: scanBytes(o) <= index.interval.bytes + the size of the
// batch before the hit batch. (Under the per-append rule the unit is the cleaner's chunk,
// which the segment does not show; the property is checked where the rule is per batch.)
var CleanedScanBound = &CleanProperty{
	Name:  "CleanedScanBound",
	Kafka: "KAFKA-806 LogSegment.append adds an entry as soon as bytesSinceLastIndexEntry > index.interval.bytes, and a cleaned segment is written in one pass (docs/kafka.md §2.2, §14.2)",
	Kind:  Invariant,
	Check: func(c *CleanCase, r *CleanRun) *Violation {
		if c.Era.Rule() != model.PerBatch {
			return nil
		}
		for _, s := range r.Cleaned {
			bs := s.Batches()
			for _, o := range candidates(s) {
				lr, ok := s.Lookup(o)
				if !ok || o < s.BaseOffset() {
					continue
				}
				j := sort.Search(len(bs), func(k int) bool { return bs[k].Position >= lr.Hit.Position })
				prev := int64(0)
				if j > 0 {
					prev = bs[j-1].Size
				}
				if bound := c.Config.IndexIntervalBytes + prev; lr.ScanBytes > bound {
					return violation("an entry is added once bytesSinceLastIndexEntry exceeds index.interval.bytes",
						"cleaned segment %d: lookup of offset %d starts at byte %d and hits the batch at byte %d: scan %d B > bound %d B (I=%d + previous batch %d B)",
						s.BaseOffset(), o, lr.Index.Position, lr.Hit.Position, lr.ScanBytes, bound, c.Config.IndexIntervalBytes, prev)
				}
			}
		}
		return nil
	},
}

// CleanedIndexIgnoresChunks: under the per-batch rule the cleaner's read-buffer chunks change
// nothing: the cleaned segments are the same with a buffer that reads each source segment
// whole.
var CleanedIndexIgnoresChunks = &CleanProperty{
	Name:  "CleanedIndexIgnoresChunks",
	Kafka: "KAFKA-806 LogSegment.append checks each batch on its own, so how Cleaner.cleanInto splits a source segment into appends does not matter (docs/kafka.md §14.2)",
	Kind:  Invariant,
	Check: func(c *CleanCase, r *CleanRun) *Violation {
		if c.Era.Rule() != model.PerBatch || r.StoppedBefore {
			return nil
		}
		whole := *c
		whole.Steps = append([]model.Step(nil), c.Steps...)
		cl := *c.Steps[len(c.Steps)-1].Clean
		cl.IOBufferSize = model.MaxCleanerIOBufferSize
		whole.Steps[len(whole.Steps)-1] = model.Step{Clean: &cl}
		w, err := whole.Run()
		if err != nil {
			return violation("the case with a larger buffer is as valid", "%v", err)
		}
		a, b := segmentsDigest(r.Log), segmentsDigest(w.Log)
		if a != b {
			return violation("chunks do not matter under the per-batch rule",
				"with ioBufferSize %d:\n%s\nwith one read per source segment:\n%s", c.Steps[len(c.Steps)-1].Clean.IOBufferSize, a, b)
		}
		return nil
	},
}

// CleanedIndexNeverOverflows is the question of issue 25: Cleaner.groupSegmentsBySize keeps a
// group's index bytes within segment.index.bytes, so can a cleaned segment's index fill? Under
// the per-batch rule one append (a chunk) adds an entry per due batch, and the cleaned segment's
// byte counter runs across the source segments' boundaries (and their restarts), where each
// source's counter started again at 0: it can owe more entries than its sources held. A
// counterexample is a finding (docs/model.md, "The log cleaner").
var CleanedIndexNeverOverflows = &CleanProperty{
	Name:  "CleanedIndexNeverOverflows",
	Kafka: "Cleaner.groupSegmentsBySize bounds a group by the sum of its sources' OffsetIndex and TimeIndex sizeInBytes (docs/kafka.md §14.1)",
	Kind:  Question,
	Check: func(c *CleanCase, r *CleanRun) *Violation {
		if r.StoppedBefore {
			return nil
		}
		last := len(c.Steps) - 1
		for _, e := range r.Log.Events() {
			if e.Step == last && (e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull) {
				return violation("a group's index bytes fit segment.index.bytes",
					"the clean step threw: %s (%s)", e.Kind, e.Message)
			}
		}
		return nil
	},
}

// CleanProperties lists the properties of cleaned segments.
var CleanProperties = []*CleanProperty{CleanedFirstBatchNeverIndexed, CleanedScanBound, CleanedIndexIgnoresChunks, CleanedIndexNeverOverflows}

// segmentsDigest prints every segment's base, size, batches and entries.
func segmentsDigest(l *model.Log) string {
	out := ""
	for _, s := range l.Segments() {
		out += fmt.Sprintf("segment %d size %d cleaned %v batches %d index %v time %v\n",
			s.BaseOffset(), s.Size(), s.Cleaned(), len(s.Batches()), s.OffsetIndex().All(), s.TimeIndex().All())
	}
	for _, e := range l.Events() {
		out += fmt.Sprintf("event %s at step %d: %s\n", e.Kind, e.Step, e.Message)
	}
	return out
}

// CleanCaseGen draws clean cases at the edges: small segments and indexes (so that groups
// form and indexes fill), intervals around the batch sizes, rolls and restarts between the
// appends, then one clean step whose drops and rewrites name batches of the segments it
// cleans, with a small read buffer.
func CleanCaseGen() *rapid.Generator[*CleanCase] {
	return cleanCaseGen([]int64{12, 16, 24, 32, 48, 64, 10 << 20}, 200)
}

// minRewrite is the smallest rewritten batch the generator draws: one record
// (model.MinBatchBytes), so that a file can hold it.
const minRewrite = 68

// cleanCaseGen draws segment.index.bytes from indexSizes and rewritten batches of up to growth
// percent of their source's size.
func cleanCaseGen(indexSizes []int64, growth int64) *rapid.Generator[*CleanCase] {
	return rapid.Custom(func(t *rapid.T) *CleanCase {
		eras := model.CleanEras()
		era, err := model.EraByID(eras[rapid.IntRange(0, len(eras)-1).Draw(t, "era")])
		if err != nil {
			t.Fatal(err)
		}
		cfg := model.DefaultConfig()
		cfg.SegmentBytes = rapid.Int64Range(200, 2000).Draw(t, "segment.bytes")
		cfg.SegmentIndexBytes = rapid.SampledFrom(indexSizes).Draw(t, "segment.index.bytes")
		cfg.IndexIntervalBytes = rapid.Int64Range(0, 300).Draw(t, "index.interval.bytes")
		cfg.MaxMessageBytes = rapid.SampledFrom([]int64{150, 400, model.DefaultMaxMessageBytes}).Draw(t, "max.message.bytes")
		var steps []model.Step
		ts := int64(1000)
		for i, n := 0, rapid.IntRange(1, 20).Draw(t, "appends"); i < n; i++ {
			switch rapid.IntRange(0, 5).Draw(t, "between") {
			case 0:
				steps = append(steps, model.Step{Roll: true})
			case 1:
				steps = append(steps, model.Step{Restart: true})
			}
			var app []model.Batch
			for j, k := 0, rapid.IntRange(1, 3).Draw(t, "batches"); j < k; j++ {
				ts += rapid.Int64Range(-5, 20).Draw(t, "ts")
				// Batches a file can hold (model.Batch.Possible), so that kidx write and the
				// differential can replay a counterexample.
				records := rapid.Int64Range(1, 3).Draw(t, "records")
				b := model.Batch{Records: records, Bytes: rapid.Int64Range(model.MinBatchBytes(records, model.NotLegacy), 300).Draw(t, "bytes"), MaxTimestamp: ts}
				if b.Possible() != nil {
					b.Bytes++ // the one size a one-record batch cannot have
				}
				app = append(app, b)
			}
			steps = append(steps, model.AppendStep(app...))
		}
		// A roll last, so that the appends' segments can all be cleaned.
		steps = append(steps, model.Step{Roll: true})
		l, err := model.NewLog(cfg, era.Rule(), model.LogOptions{KeepSegments: true, Era: era})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if l.Stopped() {
				break
			}
			if err := l.Apply(s); err != nil {
				t.Fatal(err)
			}
		}
		clean := model.Clean{IOBufferSize: rapid.SampledFrom([]int64{64, 150, 300, 700, model.DefaultCleanerIOBufferSize}).Draw(t, "ioBufferSize")}
		if !l.Stopped() {
			for _, s := range l.Segments() {
				if s == l.Active() {
					break
				}
				for _, b := range s.Batches() {
					switch rapid.IntRange(0, 3).Draw(t, "fate") {
					case 1:
						clean.Drop = append(clean.Drop, b.BaseOffset)
					case 2:
						r := model.CleanRewrite{BaseOffset: b.BaseOffset, Bytes: rapid.Int64Range(minRewrite, max(minRewrite, b.Size*growth/100)).Draw(t, "rewrite")}
						if (model.Batch{Records: 1, Bytes: r.Bytes}).Possible() != nil {
							r.Bytes++
						}
						if rapid.Bool().Draw(t, "rewriteTs") {
							r.MaxTimestamp, r.HasMaxTimestamp = rapid.Int64Range(model.NoTimestamp, b.MaxTimestamp).Draw(t, "rewriteMaxTs"), true
						}
						clean.Rewrite = append(clean.Rewrite, r)
					}
				}
			}
		}
		steps = append(steps, model.Step{Clean: &clean})
		return &CleanCase{Config: cfg, Era: era, Steps: steps}
	})
}
