package python

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"kidx/examples/internal/handmade"
)

// The Python reader's gunzip_as_java reads gzip as java.util.zip.GZIPInputStream does (Kafka's
// gzip codec): the hand-built streams of handmade.GzipCases, the answers from
// GZIPInputStream.readHeader and readTrailer (the Go reader is held to the same table).
func TestGunzipAsJava(t *testing.T) {
	py := python3(t)
	cases := handmade.GzipCases()
	var in []string
	for _, tc := range cases {
		in = append(in, hex.EncodeToString(tc.Data))
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	const program = `
import json, sys
import kafka_index_reader as k
for h in json.load(sys.stdin):
    try:
        print(json.dumps({"out": k.gunzip_as_java(bytes.fromhex(h)).decode("latin-1")}))
    except IOError as e:
        print(json.dumps({"error": str(e)}))
`
	r := runPython(t, py, []string{"-B", "-c", program}, stdin) // -B: no __pycache__ in the source tree
	lines := strings.Split(strings.TrimSpace(string(r.stdout)), "\n")
	if r.code != 0 || len(lines) != len(cases) {
		t.Fatalf("exit %d, %d lines for %d cases\n%s\n%s", r.code, len(lines), len(cases), r.stdout, r.stderr)
	}
	for i, tc := range cases {
		var got struct {
			Out   *string `json:"out"`
			Error *string `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.Fails && got.Error == nil:
			t.Errorf("%s: %q, want an error", tc.Name, *got.Out)
		case !tc.Fails && (got.Out == nil || *got.Out != tc.Want):
			t.Errorf("%s: %s; want %q", tc.Name, lines[i], tc.Want)
		}
	}
}
