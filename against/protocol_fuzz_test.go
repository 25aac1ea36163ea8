package against

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// FuzzAgainstAnswers: a reader's stdout is input kidx does not control (docs/against.md,
// "Answers"). parseAnswers never panics; what it accepts is exactly n answers, each either an
// error or a start and a hit of -1 or more, and each written back in the protocol's words reads
// back as the same answer.
func FuzzAgainstAnswers(f *testing.F) {
	for _, s := range []string{
		`{"start": 1078, "hit": 1304}`,
		"{\"start\":0,\"hit\":-1,\"hops\":3}\n{\"error\":\"x\",\"file\":\"a.log\",\"byte\":8}\n",
		`{"error":"bad"}`, `{"start":0}`, `{"start":0,"hit":1} {"start":0,"hit":1}`, "[1]", "\n\n", `{"Start":1,"HIT":2}`,
		`{"start":9223372036854775807,"hit":9223372036854775808}`, "{\"error\":\"\\ud800\"}",
	} {
		f.Add([]byte(s), 1)
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, out []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		got, err := parseAnswers(out, n)
		if err != nil {
			return
		}
		if len(got) != n {
			t.Fatalf("%d answers accepted for %d queries", len(got), n)
		}
		var again strings.Builder
		for _, a := range got {
			if a.Err == nil && a.Hit < -1 {
				t.Fatalf("accepted hit %d", a.Hit)
			}
			fmt.Fprintln(&again, wire(a))
		}
		back, err := parseAnswers([]byte(again.String()), n)
		if err != nil {
			t.Fatalf("answers written back do not read: %v\n%s", err, again.String())
		}
		for i := range got {
			if got[i].String() != back[i].String() {
				t.Fatalf("answer %d: %s, written back and read: %s", i, got[i], back[i])
			}
		}
	})
}

// wire writes a in the protocol's words.
func wire(a Answer) string {
	m := map[string]any{}
	if a.Err != nil {
		m["error"] = a.Err.Message
		if a.Err.File != "" {
			m["file"] = a.Err.File
		}
		if a.Err.Byte != -1 {
			m["byte"] = a.Err.Byte
		}
	} else {
		m["start"], m["hit"] = a.Start, a.Hit
		if a.Hops != -1 {
			m["hops"] = a.Hops
		}
	}
	data, _ := json.Marshal(m)
	return string(data)
}
