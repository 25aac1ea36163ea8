package model

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The clean step of docs/contract.md §3. Every expected value below is worked out by hand from
// Cleaner.cleanSegments / cleanInto (the read buffer's chunks, one LogSegment.append per chunk
// of retained batches), LogSegment.append of the era (docs/kafka.md §2, §14.2) and
// onBecomeInactiveSegment, as the comments beside each case show.

// cleanRun parses a workload and runs it under era id, keeping every segment.
func cleanRun(t *testing.T, eraID, workload string) *Log {
	t.Helper()
	w, err := ParseWorkload([]byte(workload))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	l, err := SimulateEra(cfg, mustEra(eraID), w.StartOffset, w.Steps, true)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

type cleanedWant struct {
	base, size int64
	batches    [][2]int64 // base offset, position
	index      []OffsetPosition
	time       []TimestampOffset
	cleaned    bool
}

func checkCleaned(t *testing.T, l *Log, want []cleanedWant) {
	t.Helper()
	segs := l.Segments()
	if len(segs) != len(want) {
		t.Fatalf("%d segments, want %d", len(segs), len(want))
	}
	for i, w := range want {
		s := segs[i]
		var batches [][2]int64
		for _, b := range s.Batches() {
			batches = append(batches, [2]int64{b.BaseOffset, b.Position})
		}
		got := cleanedWant{base: s.BaseOffset(), size: s.Size(), batches: batches,
			index: s.OffsetIndex().All(), time: s.TimeIndex().All(), cleaned: s.Cleaned()}
		if got.index == nil {
			got.index = []OffsetPosition{}
		}
		if got.time == nil {
			got.time = []TimestampOffset{}
		}
		if w.index == nil {
			w.index = []OffsetPosition{}
		}
		if w.time == nil {
			w.time = []TimestampOffset{}
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("segment %d:\n got %+v\nwant %+v", i, got, w)
		}
		if s.Cleaned() && (s.RollReason() != "" || !s.Closed()) {
			t.Errorf("segment %d: a cleaned segment is closed and has no roll reason, got closed %v roll %q", i, s.Closed(), s.RollReason())
		}
		if sum := l.Summaries()[i]; sum.Cleaned != w.cleaned {
			t.Errorf("segment %d: SegmentSummary.Cleaned %v, want %v", i, sum.Cleaned, w.cleaned)
		}
	}
}

// cleanSegmentsWorkload is LogCleanerTest.testCleanSegments scaled to the model: one-record
// 100-byte batches at offset i with timestamp 10·i, three segments of three batches cut by
// rolls (so that segment.bytes=1024 groups all three: 900 bytes, Cleaner.groupSegmentsBySize),
// then an active segment; the cleaner removes offsets 1, 3, 5 and 7 (the test's odd keys).
func cleanSegmentsWorkload(extra string) string {
	var b strings.Builder
	b.WriteString(`{"config": {"segment.bytes": 1024, "index.interval.bytes": 150}, "steps": [`)
	for i := 0; i < 10; i++ {
		if i > 0 && i%3 == 0 {
			b.WriteString(`{"roll": true}, `)
		}
		fmt.Fprintf(&b, `{"append": [{"records": 1, "bytes": 100, "maxTimestamp": %d}]}, `, 10*i)
	}
	fmt.Fprintf(&b, `{"clean": {"drop": [1, 3, 5, 7]%s}}]}`, extra)
	return b.String()
}

// testCleanSegments under the per-batch rule (4.1-4.4): the retained batches 0, 2, 4, 6, 8 at
// positions 0..400 in three appends (one per source segment: each fits the 262144-byte buffer).
// Per batch (check before the increment, strict >150): 0 (counter 0), 2 (100) no entry; 4
// (200) entry (4, 200) with time (40, 4), counter 0+100; 6 (100) no; 8 (200) entry (8, 400),
// time (80, 8). onBecomeInactive: 80 is not above the last time entry, nothing added.
func TestCleanSegmentsPerBatch(t *testing.T) {
	l := cleanRun(t, "4.1-4.4", cleanSegmentsWorkload(""))
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 500, batches: [][2]int64{{0, 0}, {2, 100}, {4, 200}, {6, 300}, {8, 400}},
			index: []OffsetPosition{{4, 200}, {8, 400}}, time: []TimestampOffset{{40, 4}, {80, 8}}, cleaned: true},
		{base: 9, size: 100, batches: [][2]int64{{9, 0}}, time: []TimestampOffset{{90, 9}}},
	})
	if l.NextOffset() != 10 || l.Stopped() {
		t.Errorf("log end %d stopped %v: the clean step changes neither", l.NextOffset(), l.Stopped())
	}
}

// testCleanSegments under the per-append rule (3.7-4.0.0): the same three appends, one check
// each (counter before the append, entry naming the append's last offset at its start): [0,2]
// at 0, counter 0: none, counter 200; [4] at 200: 200 > 150, entry (4, 200), time (40, 4),
// counter 100; [6,8] at 300: 100, none, counter 300, max timestamp (80, 8).
// onBecomeInactive adds (80, 8).
func TestCleanSegmentsPerAppend(t *testing.T) {
	l := cleanRun(t, "3.7-4.0.0", cleanSegmentsWorkload(""))
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 500, batches: [][2]int64{{0, 0}, {2, 100}, {4, 200}, {6, 300}, {8, 400}},
			index: []OffsetPosition{{4, 200}}, time: []TimestampOffset{{40, 4}, {80, 8}}, cleaned: true},
		{base: 9, size: 100, batches: [][2]int64{{9, 0}}, time: []TimestampOffset{{90, 9}}},
	})
}

// Cleaner.cleanInto's read buffer: with ioBufferSize 250 each 300-byte source is read in two
// chunks (batches 0-1, then 2; MemoryRecords stops at the batch that does not fit), and a
// chunk whose batches are all dropped (batch 5 alone) appends nothing. Per-append appends:
// [0] at 0 (counter 0), [2] at 100 (100), [4] at 200 (200 > 150: entry (4, 200), time
// (40, 4)), [6] at 300 (100), [8] at 400 (200: entry (8, 400), time (80, 8)). Under the
// per-batch rule the chunks change nothing (TestCleanSegmentsPerBatch's result).
func TestCleanIntoChunksByIOBuffer(t *testing.T) {
	l := cleanRun(t, "3.7-4.0.0", cleanSegmentsWorkload(`, "ioBufferSize": 250`))
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 500, batches: [][2]int64{{0, 0}, {2, 100}, {4, 200}, {6, 300}, {8, 400}},
			index: []OffsetPosition{{4, 200}, {8, 400}}, time: []TimestampOffset{{40, 4}, {80, 8}}, cleaned: true},
		{base: 9, size: 100, batches: [][2]int64{{9, 0}}, time: []TimestampOffset{{90, 9}}},
	})
	l = cleanRun(t, "4.1-4.4", cleanSegmentsWorkload(`, "ioBufferSize": 250`))
	if got := l.Segments()[0].OffsetIndex().All(); !reflect.DeepEqual(got, []OffsetPosition{{4, 200}, {8, 400}}) {
		t.Errorf("per-batch with small chunks: index %v, want [{4 200} {8 400}]", got)
	}
}

// LogCleanerTest.testLargeMessage / testMessageLargerThanMaxMessageSize: a batch larger than
// the buffers grows them (Cleaner.growBuffersOrFail: up to max.message.bytes, then to the
// batch), and they stay grown until the source segment is read (restoreBuffers).
// ioBufferSize 100, max.message.bytes 150; source batches of 120, 65, 65 and 130 bytes
// (offsets 0-3). 120 > 100: the buffers grow to min(200, 150) = 150. Chunks: read 150 → [0]
// (0+1 would be 185); read 150 → [1, 2] (130; 3 would make 260); read 130 → [3]. Per append,
// interval 0: [0] at 0 counter 0, none; [1,2] at 120: entry (2, 120); [3] at 250: entry
// (3, 250). Had the buffers shrunk back to 100 after the first batch, [1] and [2] would be
// two appends and (1, 120) an entry.
func TestCleanBufferGrowth(t *testing.T) {
	w := `{"config": {"index.interval.bytes": 0, "max.message.bytes": 150}, "steps": [
		{"append": [{"records": 1, "bytes": 120, "maxTimestamp": 1}]},
		{"append": [{"records": 1, "bytes": 65, "maxTimestamp": 2}]},
		{"append": [{"records": 1, "bytes": 65, "maxTimestamp": 3}]},
		{"append": [{"records": 1, "bytes": 130, "maxTimestamp": 4}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 70, "maxTimestamp": 5}]},
		{"clean": {"ioBufferSize": 100}}]}`
	l := cleanRun(t, "3.7-4.0.0", w)
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 380, batches: [][2]int64{{0, 0}, {1, 120}, {2, 185}, {3, 250}},
			index: []OffsetPosition{{2, 120}, {3, 250}}, time: []TimestampOffset{{3, 2}, {4, 3}}, cleaned: true},
		{base: 4, size: 70, batches: [][2]int64{{4, 0}}, time: []TimestampOffset{{5, 4}}},
	})
	// A batch above max.message.bytes (testMessageLargerThanMaxMessageSize): 100 → 150
	// (max.message.bytes) → 300 (the batch: min(2·150, 300)); no exception.
	w = `{"config": {"max.message.bytes": 150}, "steps": [
		{"append": [{"records": 1, "bytes": 300, "maxTimestamp": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 70, "maxTimestamp": 5}]},
		{"clean": {"ioBufferSize": 100}}]}`
	l = cleanRun(t, "4.1-4.4", w)
	if l.Stopped() || l.Segments()[0].Size() != 300 || !l.Segments()[0].Cleaned() {
		t.Errorf("a 300-byte batch over max.message.bytes 150: stopped %v, events %v, size %d", l.Stopped(), l.Events(), l.Segments()[0].Size())
	}
}

// growBuffers in Java ints: a capacity above 2^30 doubles past Integer.MAX_VALUE and
// ByteBuffer.allocate refuses the negative size. 1073741824·2 wraps to -2147483648.
func TestGrowCleanerBuffersJavaInt(t *testing.T) {
	capacity := int64(1 << 30)
	ev := growCleanerBuffers(&capacity, 1<<30+10, 1048588)
	if ev == nil || ev.Kind != EventCleanerBuffer || ev.Message != "capacity < 0: (-2147483648 < 0)" {
		t.Fatalf("got %+v", ev)
	}
	capacity = 262144 // the default: 262144 < 1048588, so grow to min(524288, 1048588)
	if ev := growCleanerBuffers(&capacity, 300000, 1048588); ev != nil || capacity != 524288 {
		t.Fatalf("got %+v, capacity %d", ev, capacity)
	}
	capacity = 1048588 // at max.message.bytes: grow to the batch, min(2097176, 1500000)
	if ev := growCleanerBuffers(&capacity, 1500000, 1048588); ev != nil || capacity != 1500000 {
		t.Fatalf("got %+v, capacity %d", ev, capacity)
	}
}

// KAFKA-5316 in MemoryRecords.filterTo: when the retained batches outgrow the write buffer
// (as large as the read buffer), filterTo returns after that batch. ioBufferSize 250: source
// batches 0, 1 (100 bytes each; 2 does not fit the read), batch 0 rewritten to 300 bytes: the
// output (300) passes 250 at batch 0, so the chunk is [0] alone; then [1, 2]. Per append,
// interval 0: [0] at 0: none; [1, 2] at 300: entry (2, 300).
func TestCleanWriteBufferOutgrown(t *testing.T) {
	w := `{"config": {"index.interval.bytes": 0}, "steps": [
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 2}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 3}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 70, "maxTimestamp": 5}]},
		{"clean": {"ioBufferSize": 250, "rewrite": [{"baseOffset": 0, "bytes": 300}]}}]}`
	l := cleanRun(t, "3.7-4.0.0", w)
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 500, batches: [][2]int64{{0, 0}, {1, 300}, {2, 400}},
			index: []OffsetPosition{{2, 300}}, time: []TimestampOffset{{3, 2}}, cleaned: true},
		{base: 3, size: 70, batches: [][2]int64{{3, 0}}, time: []TimestampOffset{{5, 3}}},
	})
}

// LogCleanerTest.testCleaningWithDeletes, reduced to what the files show: a batch holding
// tombstones is rewritten (smaller, its delete horizon for the file writer) and keeps its
// offsets; a batch whose records are all superseded is dropped; the max timestamp of the
// rebuilt batch is the retained records'. Segment 0 = batches 0-1 (2 records, 200 B, ts 10),
// 2-3 (200 B, ts 20); segment 4 = 4-5 (200 B, ts 30). Drop 2, rewrite 0 to 90 bytes with
// max timestamp 5 and 4 to 120 bytes. One group (400+200 <= 1024). Per batch, interval 100:
// [0] at 0, counter 0: none, 90; [4] at 90: 90 > 100 no. maxTs: 5 then 30 at offset 5.
// onBecomeInactive: (30, 5).
func TestCleanWithDeletes(t *testing.T) {
	w := `{"config": {"segment.bytes": 1024, "index.interval.bytes": 100}, "steps": [
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 10}]},
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 20}]},
		{"roll": true},
		{"append": [{"records": 2, "bytes": 200, "maxTimestamp": 30}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 70, "maxTimestamp": 40}]},
		{"clean": {"drop": [2], "rewrite": [
			{"baseOffset": 0, "bytes": 90, "maxTimestamp": 5, "deleteHorizonMs": 86400000},
			{"baseOffset": 4, "bytes": 120}]}}]}`
	l := cleanRun(t, "4.1-4.4", w)
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 210, batches: [][2]int64{{0, 0}, {4, 90}}, time: []TimestampOffset{{30, 5}}, cleaned: true},
		{base: 6, size: 70, batches: [][2]int64{{6, 0}}, time: []TimestampOffset{{40, 6}}},
	})
	if b := l.Segments()[0].Batches()[1]; b.LastOffset != 5 {
		t.Errorf("a rewritten v2 batch keeps its last offset (overrideLastOffset): %+v", b)
	}
}

// Everything dropped: the cleaned segment is still swapped in, empty, with no index entries
// (onBecomeInactive with no timestamp adds none).
func TestCleanEverythingDropped(t *testing.T) {
	w := `{"steps": [
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 2}]},
		{"clean": {"drop": [0]}}]}`
	l := cleanRun(t, "4.5-trunk", w)
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 0, cleaned: true},
		{base: 1, size: 100, batches: [][2]int64{{1, 0}}, time: []TimestampOffset{{2, 1}}},
	})
}

// KAFKA-20036, LogCleanerTest.testCleanedSegmentSizeOverflow and
// testCleanedSegmentOffsetOverflow with the test constructor's limits: two one-batch source
// segments cleaned as one group; the second chunk overflows the first cleaned segment, which
// trunk finishes and follows with a second one at the next batch's base offset.
func TestCleanedSegmentOverflowSplitsInTrunk(t *testing.T) {
	w := `{"steps": [
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 2}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 3}]}]}`
	for _, limits := range [][2]int64{{81, math.MaxInt32}, {math.MaxInt32, 0}} {
		pw, err := ParseWorkload([]byte(w))
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewLog(DefaultConfig(), PerBatch, LogOptions{KeepSegments: true, Era: mustEra("4.5-trunk")})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range pw.Steps {
			if err := l.Apply(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Clean(Clean{testSplitLimits: &limits}); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		checkCleaned(t, l, []cleanedWant{
			{base: 0, size: 80, batches: [][2]int64{{0, 0}}, time: []TimestampOffset{{1, 0}}, cleaned: true},
			{base: 1, size: 80, batches: [][2]int64{{1, 0}}, time: []TimestampOffset{{2, 1}}, cleaned: true},
			{base: 2, size: 80, batches: [][2]int64{{2, 0}}, time: []TimestampOffset{{3, 2}}},
		})
	}
}

// The split with Kafka's own limits: segment 1 holds offsets 1 and 2^31 (relative 2^31-1,
// which fits it), and the uncleanable offset 2 lies inside it, so groupSegmentsBySize takes
// it into segment 0's group (its range check reads uncleanable-1 = 1). The chunk [1, 2^31]
// then names offset 2^31 = base 0 + Integer.MAX_VALUE + 1: trunk starts a second cleaned
// segment at 1; 4.1-4.4 throw LogSegmentOffsetOverflowException from LogSegment.append
// (ensureOffsetInRange), an event that stops the log with the segments as they were.
func TestCleanedSegmentOffsetOverflow(t *testing.T) {
	w := `{"steps": [
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 2}, {"records": 1, "bytes": 80, "maxTimestamp": 3, "baseOffset": 2147483648}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 4}]},
		{"clean": {"uncleanableOffset": 2}}]}`
	l := cleanRun(t, "4.5-trunk", w)
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 80, batches: [][2]int64{{0, 0}}, time: []TimestampOffset{{1, 0}}, cleaned: true},
		{base: 1, size: 160, batches: [][2]int64{{1, 0}, {2147483648, 80}}, time: []TimestampOffset{{3, 2147483648}}, cleaned: true},
		{base: 2147483649, size: 80, batches: [][2]int64{{2147483649, 0}}, time: []TimestampOffset{{4, 2147483649}}},
	})
	l = cleanRun(t, "4.1-4.4", w)
	if !l.Stopped() || len(l.Events()) != 1 {
		t.Fatalf("4.1-4.4: stopped %v, events %+v", l.Stopped(), l.Events())
	}
	if e := l.Events()[0]; e.Kind != EventOffsetOutOfRange || e.Step != 5 || e.Message != "Detected offset overflow at offset 2147483648 in segment 0" {
		t.Errorf("event %+v", e)
	}
	if segs := l.Segments(); len(segs) != 3 || segs[0].Cleaned() || segs[1].Size() != 160 {
		t.Errorf("the segments after the event are those before the step")
	}
}

// Invalid clean steps are errors that name the step and the field (docs/contract.md §3).
func TestCleanRefusals(t *testing.T) {
	base := `{"steps": [
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 2, "magic": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 3}]},
		%s]}`
	for _, c := range []struct{ era, step, want string }{
		{"4.1-4.4", `{"clean": {"drop": [5]}}`, "step 4: clean: drop[0]: 5 is the base offset of no batch of the segments cleaned"},
		{"4.1-4.4", `{"clean": {"drop": [2]}}`, "step 4: clean: drop[0]: 2 is the base offset of no batch"},
		{"4.1-4.4", `{"clean": {"rewrite": [{"baseOffset": 1, "bytes": 80}]}}`, "step 4: clean: rewrite[0].baseOffset: batch 1 is a magic-1 message"},
		{"4.1-4.4", `{"clean": {"uncleanableOffset": 3}}`, "step 4: clean: uncleanableOffset: 3 is above 2, the active segment's base offset"},
		{"2.0-3.6", `{"clean": {}}`, "step 4: clean: the clean step models the log cleaner of the eras 3.7-4.0.0, 3.9.1-4.0.x, 4.1-4.4, 4.5-trunk; era 2.0-3.6 is not one of them"},
		{"4.1-4.4", `{"clean": {"uncleanableOffset": 0, "drop": [0]}}`, "step 4: clean: drop[0]: 0 is the base offset of no batch"},
		{"4.1-4.4", `{"clean": {"drop": [0], "rewrite": [{"baseOffset": 7, "bytes": 80}]}}`, "step 4: clean: rewrite[0].baseOffset: 7 is the base offset of no batch"},
	} {
		w, err := ParseWorkload([]byte(fmt.Sprintf(base, c.step)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = SimulateEra(DefaultConfig(), mustEra(c.era), 0, w.Steps, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want %q", c.era, c.step, err, c.want)
		}
	}
	// A run that does not keep rolled segments (kidx sim's text table, kidx whatif).
	l, err := NewLog(DefaultConfig(), PerBatch, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Clean(Clean{}); err == nil || !strings.Contains(err.Error(), "which this run does not keep") {
		t.Errorf("streamed run: %v", err)
	}
	// Nothing to clean: a no-op.
	l = cleanRun(t, "4.1-4.4", `{"steps": [{"append": [{"records": 1, "bytes": 100}]}, {"clean": {}}]}`)
	if len(l.Segments()) != 1 || l.Segments()[0].Cleaned() {
		t.Errorf("a clean with no segment below the uncleanable offset changes nothing")
	}
}

// The clean step in a workload file: strict keys with paths, and MarshalJSON round trips.
func TestCleanStepParse(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{`{"clean": {"bogus": 1}}`, `steps[0].clean`},
		{`{"clean": {"rewrite": [{"baseOffset": 1, "bytes": 70, "extra": 2}]}}`, `steps[0].clean.rewrite[0]`},
		{`{"clean": {"rewrite": [{"baseOffset": 1}]}}`, `steps[0].clean.rewrite[0].bytes: missing`},
		{`{"clean": {"rewrite": [{"baseOffset": 1, "bytes": 60}]}}`, `steps[0].clean.rewrite[0].bytes: 60 is less than 61`},
		{`{"clean": {"drop": [1], "rewrite": [{"baseOffset": 1, "bytes": 70}]}}`, `steps[0].clean.rewrite[0].baseOffset: batch 1 is already named by drop[0]: a batch cannot be both dropped and rewritten`},
		{`{"clean": {"drop": [1, 1]}}`, `steps[0].clean.drop[1]: batch 1 is already named by drop[0]`},
		{`{"clean": {"ioBufferSize": 0}}`, `steps[0].clean.ioBufferSize: 0 is less than 1`},
		{`{"clean": {"uncleanableOffset": -1}}`, `steps[0].clean.uncleanableOffset: -1 is negative`},
		{`{"clean": {"drop": ["x"]}}`, `steps[0].clean.drop[0]: expected a base offset, found "x"`},
		{`{"recover": true, "recoveryPoint": "x"}`, `steps[0].recoveryPoint: "x" is not a number`},
		{`{"clean": {}, "restart": true}`, `steps[0]: a step is exactly one of`},
		{`{"restart": true, "recoveryPoint": 3}`, `steps[0].recoveryPoint: only a recover step has a "recoveryPoint"`},
		{`{"recover": true, "recoveryPoint": -3}`, `steps[0].recoveryPoint: -3 is negative`},
	} {
		_, err := ParseWorkload([]byte(`{"steps": [` + c.step + `]}`))
		var we *WorkloadError
		if err == nil || !errors.As(err, &we) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.step, err, c.want)
		}
	}
	in := `{"startOffset":0,"steps":[{"append":[{"records":1,"bytes":100}]},{"clean":{"drop":[0],"ioBufferSize":1000,"rewrite":[{"baseOffset":7,"bytes":90,"deleteHorizonMs":99,"maxTimestamp":17}],"uncleanableOffset":12}},{"recover":true,"recoveryPoint":4},{"recover":true}]}`
	w, err := ParseWorkload([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	c := w.Steps[1].Clean
	want := Clean{UncleanableOffset: 12, HasUncleanableOffset: true, Drop: []int64{0}, IOBufferSize: 1000,
		Rewrite: []CleanRewrite{{BaseOffset: 7, Bytes: 90, MaxTimestamp: 17, HasMaxTimestamp: true, DeleteHorizonMs: 99, HasDeleteHorizon: true}}}
	if c == nil || !reflect.DeepEqual(*c, want) || w.Steps[1].Kind() != "clean" {
		t.Fatalf("parsed %+v", c)
	}
	if s := w.Steps[2]; !s.Recover || !s.HasRecoveryPoint || s.RecoveryPoint != 4 || w.Steps[3].HasRecoveryPoint {
		t.Fatalf("recover steps %+v %+v", s, w.Steps[3])
	}
	out, err := w.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n got %s\nwant %s", out, in)
	}
}

// A recover step with a recovery point (LogLoader.recoverLog: every segment from the one
// holding the recovery-point checkpoint is recovered). One-record 100-byte batches, interval
// 150, per-batch rule, timestamps 10·i. Segment 0 = 0, 1, 2 (rolled: entry (2, 200), time
// (20, 2)). Segment 3 = 3, restart, 4, 5, then roll: the restart reset the byte counter, so
// 4 (counter 0) and 5 (100) add nothing; its time index holds the restart's closing entry
// (30, 3) and the roll's (50, 5). Segment 6 =
// batch 6, active. recover from 4: segment 3 holds it; recover() rebuilds it per batch with
// validBytes - lastIndexEntry > 150: 3 at 0 (0), 4 at 100 (100), 5 at 200 (200 > 150): entry
// (5, 200), time (50, 5); closing (50, 5) is not above it. Segment 0 stays as it was.
func TestRecoverFromRecoveryPoint(t *testing.T) {
	w := `{"config": {"index.interval.bytes": 150}, "steps": [
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 0}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 10}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 20}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 30}]},
		{"restart": true},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 40}]},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 50}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 100, "maxTimestamp": 60}]}
		%s]}`
	before := cleanRun(t, "4.1-4.4", fmt.Sprintf(w, ""))
	if got, gotTime := before.Segments()[1].OffsetIndex().All(), before.Segments()[1].TimeIndex().All(); len(got) != 0 ||
		!reflect.DeepEqual(gotTime, []TimestampOffset{{30, 3}, {50, 5}}) {
		t.Fatalf("segment 3 before the recover: index %v time %v, want none and [{30 3} {50 5}]", got, gotTime)
	}
	l := cleanRun(t, "4.1-4.4", fmt.Sprintf(w, `, {"recover": true, "recoveryPoint": 4}`))
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 300, batches: [][2]int64{{0, 0}, {1, 100}, {2, 200}}, index: []OffsetPosition{{2, 200}}, time: []TimestampOffset{{20, 2}}},
		{base: 3, size: 300, batches: [][2]int64{{3, 0}, {4, 100}, {5, 200}}, index: []OffsetPosition{{5, 200}}, time: []TimestampOffset{{50, 5}}},
		{base: 6, size: 100, batches: [][2]int64{{6, 0}}, time: []TimestampOffset{{60, 6}}},
	})
	if segs := l.Segments(); segs[1].RollReason() != RollForced || !segs[1].Closed() {
		t.Errorf("a recovered segment that is not the last keeps its roll reason and stays closed")
	}
	// Without a recovery point only the active segment is recovered: segment 3 keeps its
	// empty index.
	l = cleanRun(t, "4.1-4.4", fmt.Sprintf(w, `, {"recover": true}`))
	if got := l.Segments()[1].OffsetIndex().All(); len(got) != 0 {
		t.Errorf("recover without a recovery point rebuilt segment 3: %v", got)
	}
	// A streamed run cannot reach back.
	pw, err := ParseWorkload([]byte(fmt.Sprintf(w, `, {"recover": true, "recoveryPoint": 4}`)))
	if err != nil {
		t.Fatal(err)
	}
	sl, err := NewLog(DefaultConfig(), PerBatch, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, s := range pw.Steps {
		if last = sl.Apply(s); last != nil {
			break
		}
	}
	if last == nil || !strings.Contains(last.Error(), "recover: recoveryPoint: 4 lies before the active segment") {
		t.Errorf("streamed recover from a rolled segment: %v", last)
	}
}

// The finding of docs/model.md "The log cleaner" with a log a leader wrote, nothing dropped or
// rewritten (per-batch rule, index.interval.bytes 0, segment.index.bytes 36: 4 offset slots,
// 3 time slots of which 2 usable): of six one-record 68-byte batches of one timestamp,
// segment 0 takes five and its offset index fills at (1, 68) .. (4, 272) (time index (1000, 0)
// alone: the timestamp never grows), so the sixth batch rolls it (offset-index-full). Segment 5
// holds batch 5 alone: no offset entry, closing time entry (1000, 5). groupSegmentsBySize: 340+68
// bytes, index 32+0 <= 36, time index 12+12 <= 36: one group. The cleaned segment indexes
// batches 1-4 as segment 0 did, then batch 5, the first of segment 5, is due (counter 68 > 0)
// where the source's counter was 0: OffsetIndex.append throws on the full index. Confirmed on
// Kafka's classes at trunk d79bd502ec (docs/findings.md, "Confirmed on Kafka's own classes"):
// the leader rolls at five batches, the group is [0, 5], and Cleaner.cleanSegments throws
// IllegalArgumentException "Attempt to append to a full index (size = 4)." at batch 5; the 4.0
// branch's LogSegment, driven as its Scala cleaner does, throws the same.
func TestCleanedOffsetIndexOverflow(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"config": {"index.interval.bytes": 0, "segment.bytes": 1000, "segment.index.bytes": 36}, "steps": [`)
	for i := 0; i < 6; i++ {
		b.WriteString(`{"append": [{"records": 1, "bytes": 68, "maxTimestamp": 1000}]}, `)
	}
	b.WriteString(`{"roll": true}, {"append": [{"records": 1, "bytes": 68, "maxTimestamp": 1000}]}, {"clean": {}}]}`)
	for _, era := range []string{"3.9.1-4.0.x", "4.1-4.4", "4.5-trunk"} {
		l := cleanRun(t, era, b.String())
		want := []Event{{Kind: EventOffsetIndexFull, Step: 8, Message: "Attempt to append to a full index (size = 4)."}}
		if !reflect.DeepEqual(l.Events(), want) {
			t.Errorf("%s: events %+v, want %+v", era, l.Events(), want)
		}
		segs := l.Segments()
		if len(segs) != 3 || segs[0].RollReason() != RollOffsetIndexFull || segs[0].OffsetIndex().Entries() != 4 || segs[1].OffsetIndex().Entries() != 0 {
			t.Errorf("%s: the sources are as the leader wrote them", era)
		}
	}
	// Per append (3.7-4.0.0) the default buffer reads segment 0 in one chunk, one entry at
	// most: no overflow.
	if l := cleanRun(t, "3.7-4.0.0", b.String()); l.Stopped() {
		t.Errorf("3.7-4.0.0: %+v", l.Events())
	}
}

// A replicated workload refuses the clean step and a recovery point, at parse time and in
// ReplicaSet.Apply (docs/contract.md §3.1 has neither).
func TestReplicasRefuseCleanAndRecoveryPoint(t *testing.T) {
	for _, c := range []struct{ step, want string }{
		{`{"clean": {}}`, "steps[1].clean: a replicated workload has no clean steps"},
		{`{"recover": true, "recoveryPoint": 0}`, "steps[1].recoveryPoint: a replicated workload's recover step"},
	} {
		_, err := ParseWorkload([]byte(`{"replicas": {"count": 2}, "steps": [{"append": [{"records": 1, "bytes": 100}]}, ` + c.step + `]}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.step, err)
		}
	}
	rs, err := NewReplicaSet(DefaultConfig(), EraForRule(PerBatch), ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Apply(Step{Clean: &Clean{}}); err == nil || !strings.Contains(err.Error(), "no clean steps") {
		t.Errorf("Apply(clean): %v", err)
	}
	if err := rs.Apply(Step{Recover: true, HasRecoveryPoint: true}); err == nil || !strings.Contains(err.Error(), "takes no recovery point") {
		t.Errorf("Apply(recover from a recovery point): %v", err)
	}
}

// KAFKA-20036's new cleaned segment is named after the source batch at the chunk's position,
// even one the cleaner drops (Cleaner.cleanSegments: batchesFrom(overflowPosition)): segment 0
// = batch 0 (80 B), segment 1 = batches 1 (dropped) and 2 (80 B), read in one chunk; with
// maxCleanedSegmentSize 81 the chunk [2] does not fit after batch 0, and the second cleaned
// segment is based at 1 and holds batch 2 at position 0.
func TestCleanedSegmentSplitNamedAfterDroppedBatch(t *testing.T) {
	pw, err := ParseWorkload([]byte(`{"steps": [
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 2}]},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 3}]},
		{"roll": true},
		{"append": [{"records": 1, "bytes": 80, "maxTimestamp": 4}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLog(DefaultConfig(), PerBatch, LogOptions{KeepSegments: true, Era: mustEra("4.5-trunk")})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pw.Steps {
		if err := l.Apply(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Clean(Clean{Drop: []int64{1}, testSplitLimits: &[2]int64{81, math.MaxInt32}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	checkCleaned(t, l, []cleanedWant{
		{base: 0, size: 80, batches: [][2]int64{{0, 0}}, time: []TimestampOffset{{1, 0}}, cleaned: true},
		{base: 1, size: 80, batches: [][2]int64{{2, 0}}, time: []TimestampOffset{{3, 2}}, cleaned: true},
		{base: 3, size: 80, batches: [][2]int64{{3, 0}}, time: []TimestampOffset{{4, 3}}},
	})
}
