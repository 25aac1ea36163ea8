package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kidx/examples/internal/handmade"
)

// checkLines compares a reader's stdout, one line per query in order (docs/against.md), with
// the hand-written answers of examples/testdata/handmade/answers.json.
func checkLines(t *testing.T, c handmade.Case, stdout []byte) {
	t.Helper()
	lines, err := handmade.ParseLines(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(c.Queries) {
		t.Fatalf("%d answer lines for %d queries:\n%s", len(lines), len(c.Queries), stdout)
	}
	for i, q := range c.Queries {
		if m := handmade.Mismatch(q.Want, lines[i]); m != "" {
			t.Errorf("offset %d: %s (%s)", q.Offset, m, q.Why)
		}
	}
}

// The built command, run as kidx runs it (`CMD PARTITION_DIR`, the request on stdin), answers
// every hand-built case as worked out by hand, and ignores the request keys it does not know
// (the protocol's forward compatibility).
func TestBuiltReaderOverTheProtocol(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH to build kidx/examples/goreader: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "goreader")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "kidx/examples/goreader").CombinedOutput(); err != nil {
		t.Fatalf("go build kidx/examples/goreader: %v\n%s", err, out)
	}
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Dir, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, c.Path)
			cmd.Stdin = bytes.NewReader(c.Request())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("exit: %v (a non-zero exit is a crash in the protocol)\n%s", err, stderr.String())
			}
			checkLines(t, c, out)
		})
	}
}

// The protocol's refusals: a protocol other than 1 (or none, or not an integer), a request that
// is no JSON, and no directory argument all exit with status 2 and print no answer.
func TestRefusals(t *testing.T) {
	dir := filepath.Join(handmade.Dir(), "three-v2")
	q := `"queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":7}]`
	for _, tc := range []struct {
		args  []string
		stdin string
	}{
		{[]string{dir}, `{"protocol":2,` + q + `}`},
		{[]string{dir}, `{"protocol":0,` + q + `}`},
		{[]string{dir}, `{` + q + `}`},
		{[]string{dir}, `{"protocol":"1",` + q + `}`},
		{[]string{dir}, `{"protocol":1.5,` + q + `}`},
		{[]string{dir}, `not json`},
		{nil, `{"protocol":1,` + q + `}`},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, strings.NewReader(tc.stdin), &out, &errOut); code != 2 || out.Len() != 0 {
			t.Errorf("run(%q, %s) = %d with stdout %q, want 2 and nothing", tc.args, tc.stdin, code, out.String())
		}
	}
	// The same request with protocol 1 is answered: the refusals above are the protocol's.
	var out, errOut bytes.Buffer
	if code := run([]string{"--some-flag", dir}, strings.NewReader(`{"protocol":1,`+q+`}`), &out, &errOut); code != 0 || out.String() != "{\"start\":0,\"hit\":100}\n" {
		t.Errorf("protocol 1: exit %d, stdout %q, stderr %q; want 0 and the hit at 100 (answers.json, three-v2)", code, out.String(), errOut.String())
	}
}

// An empty query list gets no lines and exit 0; a segment name with a path in it gets an error
// line, not a file outside the partition directory.
func TestEmptyAndBadSegments(t *testing.T) {
	dir := filepath.Join(handmade.Dir(), "three-v2")
	var out, errOut bytes.Buffer
	if code := run([]string{dir}, strings.NewReader(`{"protocol":1,"queries":[]}`), &out, &errOut); code != 0 || out.Len() != 0 {
		t.Errorf("no queries: exit %d, stdout %q", code, out.String())
	}
	out.Reset()
	req := `{"protocol":1,"queries":[{"segment":"../three-v2/00000000000000000000","baseOffset":0,"offset":7}]}`
	if code := run([]string{dir}, strings.NewReader(req), &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), `{"error":`) {
		t.Errorf("a path as segment: exit %d, stdout %q, want an error line", code, out.String())
	}
}
