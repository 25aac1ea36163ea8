package against

import (
	"context"
	"testing"

	"kidx/segment"
)

// docs/against.md, "Comparison": an error answer must meet kidx's error, and its file and byte
// when it gives them; a position answer must give kidx's start and hit, and its hops when it
// gives them. One kind per query, the first that differs. Every row is written by hand.
func TestCompareKinds(t *testing.T) {
	pos := func(start, hit, hops int64) Answer { return Answer{Start: start, Hit: hit, Hops: hops} }
	kerr := func(file string, b int64) Answer {
		return Answer{Hops: -1, Err: &AnswerError{Message: "kidx", File: file, Byte: b}}
	}
	const log = "00000000000000000000.log"
	for _, tc := range []struct {
		name      string
		want, got Answer
		kind      string
	}{
		{"same", pos(0, 1078, 2), pos(0, 1078, -1), ""},
		{"same with hops", pos(0, 1078, 2), pos(0, 1078, 2), ""},
		{"start", pos(1078, 1304, 1), pos(0, 1304, -1), MismatchStart},
		{"start before hit", pos(1078, 1304, 1), pos(0, 0, -1), MismatchStart},
		{"hit", pos(0, 1304, 2), pos(0, 1078, -1), MismatchHit},
		{"a hit where kidx finds none", pos(0, -1, 3), pos(0, 1078, -1), MismatchHit},
		{"hops", pos(0, 1304, 2), pos(0, 1304, 3), MismatchHops},
		{"missed error", kerr(log, 8), pos(0, -1, -1), MismatchMissedError},
		{"false error", pos(0, -1, 1), kerr(log, 8), MismatchFalseError},
		{"error in another file", kerr(log, 8), kerr("00000000000000000000.index", 8), MismatchErrorFile},
		{"error file with directories", kerr(log, 8), kerr("t-0/"+log, 8), ""},
		{"error at another byte", kerr(log, 8), kerr(log, 0), MismatchErrorByte},
		{"error without place", kerr(log, 8), Answer{Hops: -1, Err: &AnswerError{Message: "x", Byte: -1}}, ""},
	} {
		checkOneQuery(t, tc.name, 0, tc.want, tc.got, tc.kind)
	}
}

// Issue 24, --compare start,hit,hops: only the fields asked are compared; an error against a
// position is a mismatch whatever the fields. Every row is written by hand.
func TestCompareFields(t *testing.T) {
	pos := func(start, hit, hops int64) Answer { return Answer{Start: start, Hit: hit, Hops: hops} }
	kerr := Answer{Hops: -1, Err: &AnswerError{Message: "kidx", File: "00000000000000000000.log", Byte: 8}}
	for _, tc := range []struct {
		name      string
		fields    Fields
		want, got Answer
		kind      string
	}{
		{"another start, hit alone", FieldHit, pos(1078, 1304, 1), pos(0, 1304, 3), ""},
		{"another start, all", AllFields, pos(1078, 1304, 1), pos(0, 1304, 3), MismatchStart},
		{"zero fields mean all", 0, pos(1078, 1304, 1), pos(0, 1304, 3), MismatchStart},
		{"another hit, hit alone", FieldHit, pos(1078, 1304, 1), pos(0, 1078, 3), MismatchHit},
		{"another hit, start alone", FieldStart, pos(1078, 1304, 1), pos(1078, 1078, 3), ""},
		{"another hops, start and hit", FieldStart | FieldHit, pos(0, 1304, 2), pos(0, 1304, 3), ""},
		{"another hops, hops", FieldHops, pos(0, 1304, 2), pos(5, 0, 3), MismatchHops},
		{"missed error, hit alone", FieldHit, kerr, pos(0, -1, -1), MismatchMissedError},
		{"false error, hit alone", FieldHit, pos(0, -1, 1), kerr, MismatchFalseError},
		{"error at another byte, start alone", FieldStart, kerr, Answer{Hops: -1, Err: &AnswerError{Message: "x", Byte: 0}}, MismatchErrorByte},
	} {
		checkOneQuery(t, tc.name, tc.fields, tc.want, tc.got, tc.kind)
	}
}

// --compare's words: a list of start, hit, hops in any order; anything else is refused.
func TestParseFields(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fields
		ok   bool
	}{
		{"start,hit,hops", AllFields, true},
		{"hit", FieldHit, true},
		{"hops, start", FieldStart | FieldHops, true},
		{"", 0, false},
		{"hit,", 0, false},
		{"position", 0, false},
	} {
		f, err := ParseFields(tc.in)
		if (err == nil) != tc.ok || (tc.ok && f != tc.want) {
			t.Errorf("ParseFields(%q) = %v, %v; want %v (ok %v)", tc.in, f, err, tc.want, tc.ok)
		}
	}
	if s := (FieldStart | FieldHops).String(); s != "start,hops" {
		t.Errorf("String() = %q", s)
	}
}

// startZeroReader is kidx's reader with another index policy: it answers kidx's hit but says
// phase 1 started at 0 (a reader that walks from the start of the log).
type startZeroReader struct{}

func (startZeroReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	as, err := KidxReader{}.Answer(ctx, partition, rules, qs)
	for i := range as {
		as[i].Start = 0
	}
	return as, err
}

// --compare hit holds a reader with another index policy to the hit alone: Run, RunCorpus
// and RunDir carry the fields to Compare.
func TestRunComparesOnlyTheFieldsAsked(t *testing.T) {
	run := func(f Fields) int64 {
		rep, err := Run(context.Background(), Options{Seed: 9, Cases: 40, Workers: 2, Reader: startZeroReader{}, Fields: f})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Divergent
	}
	if all, hit := run(AllFields), run(FieldHit); all == 0 || hit != 0 {
		t.Fatalf("divergent cases: %d comparing all fields (want some), %d comparing the hit (want none)", all, hit)
	}
}

// checkOneQuery compares got with want on one query under fields and checks the mismatch is of
// kind ("": none).
func checkOneQuery(t *testing.T, name string, fields Fields, want, got Answer, kind string) {
	t.Helper()
	q := Questions{Queries: []Query{{Segment: "00000000000000000000", Offset: 5}}, Want: []Answer{want}, Fields: fields}
	ms := Compare(q, []Answer{got})
	switch {
	case kind == "" && len(ms) != 0:
		t.Errorf("%s: mismatch %s, want none", name, ms[0].Kind)
	case kind != "" && (len(ms) != 1 || ms[0].Kind != kind):
		t.Errorf("%s: mismatches %+v, want one of kind %s", name, ms, kind)
	}
}
