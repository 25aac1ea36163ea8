package against

import (
	"strings"
	"testing"
)

// docs/against.md, "Answers": one line per query, each one object: "start" and "hit" (-1 for
// no batch), optionally "hops"; or "error" with optional "file" and "byte". Anything else is a
// protocol violation. The expected values are written by hand from that text.
func TestParseAnswersAcceptsTheProtocol(t *testing.T) {
	out := `{"start": 1078, "hit": 1304}
{"start":0,"hit":-1,"hops":3}
{"error": "Found record size 0 smaller than minimum record overhead (14)", "file": "00000000000000000000.log", "byte": 8}
{"error": "bad"}
`
	got, err := parseAnswers([]byte(out), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"start 1078, hit 1304",
		"start 0, no hit, 3 hops",
		`error "Found record size 0 smaller than minimum record overhead (14)" in 00000000000000000000.log at byte 8`,
		`error "bad"`,
	}
	for i, a := range got {
		if a.String() != want[i] {
			t.Errorf("answer %d: %s, want %s", i, a, want[i])
		}
	}
	if got[3].Err.Byte != -1 || got[0].Hops != -1 {
		t.Errorf("absent byte and hops must read as -1: %+v %+v", got[3].Err, got[0])
	}
}

func TestParseAnswersRefusesWhatIsNotTheProtocol(t *testing.T) {
	for _, tc := range []struct {
		out  string
		n    int
		want string
	}{
		{`{"start":1}`, 1, `"start" and "hit", or "error"`},
		{`{"hit":1}`, 1, `"start" and "hit", or "error"`},
		{`{"start":1,"hit":null}`, 1, `"start" and "hit", or "error"`},
		{`{"error":"x","start":0}`, 1, `an error answer has no`},
		{`{"start":0,"hit":5,"byte":3}`, 1, `belong to an error answer`},
		{`{"start":0,"hit":5,"position":3}`, 1, `unknown field "position"`},
		{`{"start":0,"hit":1.5}`, 1, `not an answer object`},
		{`{"start":0,"hit":-2}`, 1, `"hit" -2`},
		{`{"start":0,"hit":5,"hops":-1}`, 1, `"hops" -1`},
		{`{"error":"x","byte":-2}`, 1, `"byte" -2`},
		{`{"start":0,"hit":1} {"start":0,"hit":1}`, 1, `more than one JSON value`},
		{"", 1, "0 answers for 1 queries"},
		{`{"start":0,"hit":1}`, 2, "1 answers for 2 queries"},
		{"{\"start\":0,\"hit\":1}\n{\"start\":0,\"hit\":1}", 1, "more output than the 1 answers"},
		{"{\"start\":0,\"hit\":1}\n\n", 1, "more output than the 1 answers"},
		{"[1,2]", 1, "not an answer object"},
		{strings.Repeat("x", maxLine+1), 1, "token too long"},
	} {
		_, err := parseAnswers([]byte(tc.out), tc.n)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q (n=%d): error %v, want one containing %q", tc.out, tc.n, err, tc.want)
		}
	}
}
