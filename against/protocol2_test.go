package against

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/corpus"
	"kidx/segment"
)

// docs/against.md, "Protocol 2": a protocol-1 query is written exactly as before (no "kind");
// each protocol-2 kind has its own keys.
func TestQueryWireShapes(t *testing.T) {
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Segment: "00000000000000000000", Offset: 17}, `{"segment":"00000000000000000000","baseOffset":0,"offset":17}`},
		{Query{Kind: KindOffset, Segment: "00000000000000000000", Offset: 17}, `{"kind":"offset","segment":"00000000000000000000","baseOffset":0,"offset":17}`},
		{Query{Kind: KindTimestamp, Segment: "00000000000000000100", BaseOffset: 100, Timestamp: 1700000000123}, `{"kind":"timestamp","segment":"00000000000000000100","baseOffset":100,"timestamp":1700000000123}`},
		{Query{Kind: KindTimestamp, Segment: "00000000000000000000", Timestamp: 0}, `{"kind":"timestamp","segment":"00000000000000000000","baseOffset":0,"timestamp":0}`},
		{Query{Kind: KindSegment, Offset: 40}, `{"kind":"segment","offset":40}`},
	} {
		got, err := tc.q.MarshalJSON()
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: %s, %v; want %s", tc.q, got, err, tc.want)
		}
	}
	if _, err := (Query{Kind: "bogus"}).MarshalJSON(); err == nil {
		t.Error("an unknown kind marshalled")
	}
	if protocolOf([]Query{{Offset: 1}}) != 1 || protocolOf([]Query{{Offset: 1}, {Kind: KindSegment}}) != 2 {
		t.Error("protocolOf")
	}
}

// Protocol 2's answers are held to the same strictness as offset answers: each kind's keys,
// nothing else.
func TestProtocol2AnswersAreStrict(t *testing.T) {
	for _, tc := range []struct {
		kind, line string
		want       Answer // Kind and Hops filled below
		bad        string // a word of the error; "" for a good line
	}{
		{KindTimestamp, `{"start":4096,"offset":17,"timestamp":1700000000123}`, Answer{Start: 4096, Offset: 17, Timestamp: 1700000000123}, ""},
		{KindTimestamp, `{"start":0,"offset":-1,"timestamp":-1}`, Answer{Start: 0, Offset: -1, Timestamp: -1}, ""},
		{KindTimestamp, `{"start":0,"offset":3,"timestamp":-1}`, Answer{Start: 0, Offset: 3, Timestamp: -1}, ""}, // NO_TIMESTAMP record
		{KindTimestamp, `{"start":0,"offset":-1,"timestamp":5}`, Answer{}, "both -1"},
		{KindTimestamp, `{"start":0,"offset":-2,"timestamp":-1}`, Answer{}, "both -1"},
		{KindTimestamp, `{"start":0,"offset":3}`, Answer{}, `"timestamp"`},
		{KindTimestamp, `{"start":0,"hit":3,"offset":3,"timestamp":4}`, Answer{}, "unknown field"},
		{KindTimestamp, `{"start":0,"offset":3,"timestamp":4,"baseOffset":0}`, Answer{}, "baseOffset"},
		{KindTimestamp, `{"error":"boom","start":0}`, Answer{}, "error answer"},
		{KindSegment, `{"baseOffset":100}`, Answer{BaseOffset: 100}, ""},
		{KindSegment, `{"baseOffset":-1}`, Answer{BaseOffset: -1}, ""},
		{KindSegment, `{"baseOffset":-2}`, Answer{}, "-1 for none"},
		{KindSegment, `{}`, Answer{}, `"baseOffset"`},
		{KindSegment, `{"baseOffset":0,"offset":0}`, Answer{}, "alone"},
		{KindSegment, `{"start":0,"hit":-1}`, Answer{}, "unknown field"},
		{KindSegment, `{"baseOffset":0} {"baseOffset":0}`, Answer{}, "more than one"},
		{KindOffset, `{"start":0,"hit":-1,"baseOffset":0}`, Answer{}, "unknown field"},
	} {
		got, err := parseAnswerAs(tc.kind, []byte(tc.line))
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%s %s: %+v, %v; want an error saying %s", tc.kind, tc.line, got, err, tc.bad)
			}
			continue
		}
		tc.want.Kind, tc.want.Hops = tc.kind, -1
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %+v, %v; want %+v", tc.kind, tc.line, got, err, tc.want)
		}
	}
	// A whole output: the line's kind is its query's.
	qs := []Query{{Kind: KindOffset}, {Kind: KindSegment}, {Kind: KindTimestamp}}
	if _, err := parseAnswersOf([]byte("{\"start\":0,\"hit\":-1}\n{\"baseOffset\":0}\n{\"start\":0,\"offset\":-1,\"timestamp\":-1}\n"), qs); err != nil {
		t.Error(err)
	}
	if _, err := parseAnswersOf([]byte("{\"start\":0,\"hit\":-1}\n{\"start\":0,\"offset\":-1,\"timestamp\":-1}\n{\"baseOffset\":0}\n"), qs); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("answers out of order: %v", err)
	}
}

// The mismatch kinds of protocol 2 (docs/against.md): the first difference of start, offset,
// timestamp; of segment; errors as for offset queries.
func TestProtocol2MismatchKinds(t *testing.T) {
	ts := func(start, off, t int64) Answer {
		return Answer{Kind: KindTimestamp, Start: start, Offset: off, Timestamp: t, Hops: -1}
	}
	seg := func(b int64) Answer { return Answer{Kind: KindSegment, BaseOffset: b, Hops: -1} }
	errA := func(k string) Answer {
		return Answer{Kind: k, Hops: -1, Err: &AnswerError{Message: "x", File: "00000000000000000000.log", Byte: 12}}
	}
	for _, tc := range []struct {
		want, got Answer
		kind      string
	}{
		{ts(0, 5, 100), ts(0, 5, 100), ""},
		{ts(0, 5, 100), ts(4096, 5, 100), MismatchTimeStart},
		{ts(0, 5, 100), ts(0, 6, 100), MismatchTimeOffset},
		{ts(0, 5, 100), ts(0, -1, -1), MismatchTimeOffset},
		{ts(0, 5, 100), ts(0, 5, 101), MismatchTimeTimestamp},
		{ts(0, 5, 100), errA(KindTimestamp), MismatchFalseError},
		{errA(KindTimestamp), ts(0, 5, 100), MismatchMissedError},
		{seg(100), seg(100), ""},
		{seg(100), seg(0), MismatchSegment},
		{seg(-1), seg(0), MismatchSegment},
		{seg(0), errA(KindSegment), MismatchFalseError},
	} {
		q := Questions{Queries: []Query{{Kind: tc.want.Kind}}, Want: []Answer{tc.want}}
		ms := Compare(q, []Answer{tc.got})
		got := ""
		if len(ms) > 0 {
			got = ms[0].Kind
		}
		if got != tc.kind {
			t.Errorf("want %s, got %s: %q, want %q", tc.want, tc.got, got, tc.kind)
		}
	}
}

// LogSegments.floorSegment over a partition of segments 0, 100 and 250, answers worked out by
// hand: the greatest base offset <= the offset, -1 below the first.
func TestKidxReaderFloorSegment(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"00000000000000000000.log", "00000000000000000100.log", "00000000000000000250.log", "00000000000000000300.index", "leader-epoch-checkpoint"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[int64]int64{-1: -1, 0: 0, 99: 0, 100: 100, 101: 100, 249: 100, 250: 250, 300: 250, math.MaxInt64: 250, math.MinInt64: -1}
	var qs []Query
	for o := range want {
		qs = append(qs, Query{Kind: KindSegment, Offset: o})
	}
	got, err := KidxReader{}.Answer(context.Background(), dir, rules21, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		if got[i].Err != nil || got[i].BaseOffset != want[q.Offset] {
			t.Errorf("floorSegment(%d): %s, want %d", q.Offset, got[i], want[q.Offset])
		}
	}
}

// strictTimeLookup is LogSegment.findOffsetByTimestamp with a planted bug: the record found is
// the first with timestamp > the target, where FileRecords.searchForTimestamp takes >=.
func strictTimeLookup(s *segment.Segment, ts int64, _ segment.IndexView) (segment.TimeLookupResult, error) {
	r := segment.TimeLookupResult{Target: ts, IndexTimestamp: segment.NoTimestamp, IndexOffset: s.BaseOffset, FoundTimestamp: -1, FoundOffset: -1}
	if s.TimeIndex != nil {
		e, _, _ := s.TimeIndex.Lookup(ts)
		r.IndexTimestamp, r.IndexOffset = e.Timestamp, e.Offset
	}
	if s.Index != nil {
		e, _, _ := s.Index.Lookup(max(r.IndexOffset, s.BaseOffset))
		r.StartPosition = e.Position
	}
	var ferr error
	res := s.Log.Walk(max(r.StartPosition, 0), 0, func(b segment.BatchInfo) bool {
		if b.MaxTimestamp() < ts {
			return true
		}
		ferr = s.Log.RecordTimestamps(b, func(off, t int64) bool {
			if t > ts && off >= s.BaseOffset { // the planted bug: Kafka's is >=
				r.Found, r.FoundTimestamp, r.FoundOffset = true, t, off
				return false
			}
			return true
		})
		return ferr == nil && !r.Found
	})
	if ferr != nil {
		return r, ferr
	}
	return r, res.Err
}

// floorBelow is LogSegments.floorSegment with a planted bug: the greatest base offset < the
// offset, where ConcurrentSkipListMap.floorEntry takes <=.
func floorBelow(bases []int64, offset int64) int64 {
	best := int64(-1)
	for _, b := range bases {
		if b < offset && b > best { // the planted bug: Kafka's is <=
			best = b
		}
	}
	return best
}

// Issue 24's "a planted bug per new protocol query kind is found and shrunk": each bug, in a
// KidxReader asked protocol 2, is found by a campaign on undamaged cases and shrunk to the one
// query that shows it, whose trigger is the bug's rule; the shrunk case replays with the bug
// and passes without it.
func TestPlantedProtocol2BugsAreFoundAndShrunk(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reader KidxReader
		kind   string
		// trigger checks the shrunk query against the bug's rule, with kidx's answer to it.
		trigger func(q Query, want Answer, exp *corpus.Expected) bool
	}{
		{"timestamp > for >=", KidxReader{Protocol: 2, timeLookup: strictTimeLookup}, MismatchTimeOffset,
			// A record's timestamp equals the target exactly.
			func(q Query, want Answer, _ *corpus.Expected) bool { return want.Timestamp == q.Timestamp }},
		{"floorSegment < for <=", KidxReader{Protocol: 2, floor: floorBelow}, MismatchSegment,
			// The offset is a segment's base offset exactly.
			func(q Query, _ Answer, exp *corpus.Expected) bool {
				for _, sa := range exp.Segments {
					if sa.BaseOffset == q.Offset {
						return true
					}
				}
				return false
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			rep, err := Run(context.Background(), Options{Seed: 3, Cases: 30, Workers: 2, Reader: tc.reader, Out: out, ShrinkBudget: 150, DamageKinds: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			var d *Divergence
			for _, x := range rep.Divergences {
				if x.Kind == tc.kind {
					d = x
				}
			}
			if d == nil {
				t.Fatalf("no %s divergence in %d cases: %+v", tc.kind, rep.Cases, rep.Divergences)
			}
			s := d.Shrunk
			if s == nil || len(s.Queries) != 1 || s.Kind != tc.kind || s.Mismatch == nil {
				t.Fatalf("shrunk %+v", s)
			}
			exp, _, err := corpus.ReadCase(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.trigger(s.Queries[0], s.Mismatch.Want, exp) {
				t.Errorf("shrunk query %+v (kidx: %s) is not the bug's trigger", s.Queries[0], s.Mismatch.Want)
			}
			again, err := RunCorpus(context.Background(), s.Dir, tc.reader, 0)
			if err != nil || again.Queries != 1 || len(again.Divergences) != 1 || again.Divergences[0].Divergence.Kind != tc.kind {
				t.Fatalf("replay with the bug: %+v, %v", again, err)
			}
			clean, err := RunCorpus(context.Background(), s.Dir, KidxReader{Protocol: 2}, 0)
			if err != nil || clean.Queries != 1 || len(clean.Divergences) != 0 {
				t.Fatalf("replay without the bug: %+v, %v", clean, err)
			}
		})
	}
}

// BenchmarkAgainstInProcessProtocol2 is BenchmarkAgainstInProcess asking protocol 2's
// questions (timestamp and segment queries too): cases per second (issue 24's target for the
// in-process reader: >= 400).
func BenchmarkAgainstInProcessProtocol2(b *testing.B) {
	var cases int64
	var secs float64
	for b.Loop() {
		rep, err := Run(context.Background(), Options{Seed: 1, Cases: 200, Reader: KidxReader{Protocol: 2}})
		if err != nil {
			b.Fatal(err)
		}
		cases += rep.Cases
		secs += rep.Elapsed.Seconds()
	}
	b.ReportMetric(float64(cases)/secs, "cases/s")
}

// --dir --protocol 2 (docs/against.md, "Protocol 2"): a partition kidx did not write is asked
// timestamp and segment queries too; kidx's reader agrees with itself on a multi-segment
// undamaged case, and a planted floorSegment bug is a segment mismatch at a base offset.
func TestDirAsksProtocol2(t *testing.T) {
	var part string
	for i := 0; part == "" && i < 40; i++ {
		c, err := corpus.WriteCase(t.TempDir(), corpus.Options{Seed: 21, DamageKinds: []string{}}, i)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Expected.Segments) >= 2 {
			part = filepath.Join(c.Dir, corpus.Partition)
		}
	}
	if part == "" {
		t.Fatal("no case of two segments in 40")
	}
	rep, err := RunDir(context.Background(), part, rules21, KidxReader{Protocol: 2}, 0)
	if err != nil || len(rep.Divergences) != 0 {
		t.Fatalf("%+v, %v", rep, err)
	}
	q, err := DirQuestions(part, rules21)
	if err != nil {
		t.Fatal(err)
	}
	q2, err := addDirProtocol2(part, q)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, qu := range q2.Queries {
		kinds[qu.Kind]++
	}
	if kinds[KindOffset] == 0 || kinds[KindTimestamp] == 0 || kinds[KindSegment] == 0 || kinds[""] != 0 || rep.Queries != int64(len(q2.Queries)) {
		t.Errorf("queries by kind %v, %d asked", kinds, rep.Queries)
	}
	bad, err := RunDir(context.Background(), part, rules21, KidxReader{Protocol: 2, floor: floorBelow}, 0)
	if err != nil || len(bad.Divergences) != 1 || bad.Divergences[0].Divergence.Kind != MismatchSegment {
		t.Fatalf("planted floorSegment: %+v, %v", bad, err)
	}
	if m := bad.Divergences[0].Divergence.Mismatch; m.Want.BaseOffset != m.Query.Offset {
		t.Errorf("the first segment mismatch asks %d, kidx answers segment %d: not a base offset", m.Query.Offset, m.Want.BaseOffset)
	}
}
