package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kidx/examples/internal/handmade"
)

// checkLines compares a reader's stdout, one line per query in order (docs/against.md), with
// the hand-written answers of examples/testdata/handmade/answers.json.
func checkLines(t *testing.T, queries []handmade.Query, stdout []byte) {
	t.Helper()
	lines, err := handmade.ParseLines(stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(queries) {
		t.Fatalf("%d answer lines for %d queries:\n%s", len(lines), len(queries), stdout)
	}
	for i, q := range queries {
		if m := handmade.Mismatch(q.Want, lines[i]); m != "" {
			t.Errorf("%s %s %s offset %d: %s (%s)", q.Release, q.IndexView, q.Kind, q.Offset, m, q.Why)
		}
	}
}

// The built command, run as kidx runs it (`CMD PARTITION_DIR`, the request on stdin), answers
// every hand-built case as worked out by hand, and ignores the request keys it does not know
// (the protocol's forward compatibility).
func TestBuiltReaderOverTheProtocol(t *testing.T) {
	bin := buildReader(t)
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Dir, func(t *testing.T) {
			for _, b := range c.Requests() {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, c.Path)
				cmd.Stdin = bytes.NewReader(b.Request)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("exit: %v (a non-zero exit is a crash in the protocol)\n%s", err, stderr.String())
				}
				checkLines(t, b.Queries, out)
			}
		})
	}
}

var built struct {
	sync.Once
	dir, bin string
	err      error
}

// buildReader builds the command once for the package's tests (removed by TestMain).
func buildReader(t testing.TB) string {
	t.Helper()
	built.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			built.err = fmt.Errorf("no go command on PATH to build kidx/examples/goreader: %v", err)
			return
		}
		if built.dir, err = os.MkdirTemp("", "goreader-test-"); err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(built.dir, "goreader")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, goTool, "build", "-o", built.bin, "kidx/examples/goreader").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build kidx/examples/goreader: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// The long-lived mode (partition argument "-"): three requests on three stdin lines, each
// naming its partition, get their answers one request at a time: the answers to a request
// are read before the next request is written (so they were flushed without waiting for more
// input), and the end of stdin is exit 0. The answers are answers.json's.
func TestLongLivedMode(t *testing.T) {
	bin := buildReader(t)
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	batches, err := handmade.LongLivedBatches(cases)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answers, rest, err := handmade.RunLongLived(stdin, stdout, batches)
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, stderr.String())
	}
	for i, b := range batches {
		checkLines(t, b.Queries, answers[i])
	}
	if len(rest) != 0 {
		t.Errorf("lines after the last answer: %q", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("at the end of stdin: %v, want exit 0 (stderr %s)", err, stderr.String())
	}
}

// The protocol's refusals: a protocol other than 1 and 2 (or none, or not an integer), a
// request that is no JSON, a release line or index view this reader does not know, and no
// directory argument all exit with status 2 and print no answer.
func TestRefusals(t *testing.T) {
	dir := filepath.Join(handmade.Dir(), "three-v2")
	q := `"queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":7}]`
	for _, tc := range []struct {
		args  []string
		stdin string
	}{
		{[]string{dir}, `{"protocol":3,` + q + `}`},
		{[]string{dir}, `{"protocol":0,` + q + `}`},
		{[]string{dir}, `{"protocol":1,"release":"5.0",` + q + `}`},
		{[]string{dir}, `{"protocol":1,"release":"4.1",` + q + `}`},
		{[]string{dir}, `{"protocol":2,"indexView":"all",` + q + `}`},
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

// The long-lived mode answers each request before it reads the next, ends with exit 2 at a
// request it refuses (kidx starts a new reader), skips blank lines, and needs the partition key.
func TestLongLivedRefusals(t *testing.T) {
	dir := filepath.Join(handmade.Dir(), "three-v2")
	good := `{"protocol":1,"partition":"` + dir + `","queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":7}]}`
	for _, tc := range []struct {
		stdin, out string
		code       int
	}{
		{good + "\n\n" + good, "{\"start\":0,\"hit\":100}\n{\"start\":0,\"hit\":100}\n", 0},
		{good + "\n{\"protocol\":3}\n" + good + "\n", "{\"start\":0,\"hit\":100}\n", 2},
		{`{"protocol":1,"queries":[]}` + "\n", "", 2},
		{"", "", 0},
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"-"}, strings.NewReader(tc.stdin), &out, &errOut); code != tc.code || out.String() != tc.out {
			t.Errorf("stdin %q: exit %d, stdout %q (stderr %q); want %d and %q", tc.stdin, code, out.String(), errOut.String(), tc.code, tc.out)
		}
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
