package against

import "testing"

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
		q := Questions{Queries: []Query{{Segment: "00000000000000000000", Offset: 5}}, Want: []Answer{tc.want}}
		ms := Compare(q, []Answer{tc.got})
		switch {
		case tc.kind == "" && len(ms) != 0:
			t.Errorf("%s: mismatch %s, want none", tc.name, ms[0].Kind)
		case tc.kind != "" && (len(ms) != 1 || ms[0].Kind != tc.kind):
			t.Errorf("%s: mismatches %+v, want one of kind %s", tc.name, ms, tc.kind)
		}
	}
}
