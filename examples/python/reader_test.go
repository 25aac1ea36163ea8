// Package python holds the tests of examples/python/kafka_index_reader.py, the stdlib-only
// Python reader of kidx's "against" protocol (docs/against.md).
package python

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kidx/examples/internal/handmade"
)

const script = "kafka_index_reader.py"

// python3 finds the interpreter; without one the tests skip loudly, except under CI (CI set),
// where the reader must be tested (issue 14: "its test runs where python3 exists, which
// includes CI").
func python3(t *testing.T) string {
	t.Helper()
	interpreter.Do(func() {
		p, err := exec.LookPath("python3")
		if err != nil {
			interpreter.err = err
			return
		}
		// The interpreter itself, not a version manager's shim (pyenv's adds about 0.1 s to
		// each of the tests' many starts).
		out, err := exec.Command(p, "-c", "import sys; print(sys.executable)").Output()
		if exe := strings.TrimSpace(string(out)); err == nil && exe != "" {
			p = exe
		}
		interpreter.path = p
	})
	if interpreter.err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and there is no python3: the Python reader must be tested in CI (%v)", interpreter.err)
		}
		t.Skipf("SKIPPED LOUDLY: no python3 on PATH, the Python reader %s is not tested here (%v)", script, interpreter.err)
	}
	return interpreter.path
}

var interpreter struct {
	sync.Once
	path string
	err  error
}

type run struct {
	stdout, stderr []byte
	code           int
}

func runReader(t *testing.T, py string, args []string, stdin []byte) run {
	t.Helper()
	r, hung := runReaderFor(t, 20*time.Second, py, args, stdin)
	if hung {
		t.Fatalf("%s %q: no answer in 20 s (a hang)", script, args)
	}
	return r
}

// runReaderFor runs the reader for at most limit; hung says it was killed then.
func runReaderFor(t *testing.T, limit time.Duration, py string, args []string, stdin []byte) (run, bool) {
	t.Helper()
	return runPythonFor(t, limit, py, append([]string{script}, args...), stdin)
}

// runPython runs the interpreter with args in this directory, for at most 20 s.
func runPython(t *testing.T, py string, args []string, stdin []byte) run {
	t.Helper()
	r, hung := runPythonFor(t, 20*time.Second, py, args, stdin)
	if hung {
		t.Fatalf("python3 %q: no answer in 20 s (a hang)", args)
	}
	return r
}

func runPythonFor(t *testing.T, limit time.Duration, py string, args []string, stdin []byte) (run, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return run{out.Bytes(), errOut.Bytes(), -1}, true
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run{out.Bytes(), errOut.Bytes(), code}, false
}

func check(t *testing.T, r run, queries []handmade.Query, want func(handmade.Query) handmade.Line) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d (a non-zero exit is a crash in the protocol)\n%s", r.code, r.stderr)
	}
	lines, err := handmade.ParseLines(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(queries) {
		t.Fatalf("%d answer lines for %d queries:\n%s", len(lines), len(queries), r.stdout)
	}
	for i, q := range queries {
		if m := handmade.Mismatch(want(q), lines[i]); m != "" {
			t.Errorf("offset %d: %s (%s)", q.Offset, m, q.Why)
		}
	}
}

// The correct mode answers every hand-built case as worked out by hand from Kafka's rules
// (examples/testdata/handmade/answers.json: the valid entries of docs/logdirs.md, the
// warm-section search of docs/kafka.md §5, the walk of docs/kafka.md §1.5 and §7.1), and
// ignores request keys it does not know.
func TestCorrectReader(t *testing.T) {
	py := python3(t)
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	// Protocol 1's default requests one process each, as kidx runs a reader by default; the
	// requests naming a release line, a view or a kind through one process in the long-lived
	// mode (a Python start costs a tenth of a second or more on a loaded machine).
	var rest []handmade.Batch
	for _, c := range cases {
		t.Run(c.Dir, func(t *testing.T) {
			for _, b := range c.Requests() {
				if q := b.Queries[0]; q.Release != "" || q.IndexView != "" || q.Kind != "" {
					rest = append(rest, b)
					continue
				}
				check(t, runReader(t, py, []string{c.Path}, b.Request), b.Queries, func(q handmade.Query) handmade.Line { return q.Want })
			}
		})
	}
	t.Run("per-release requests, long-lived", func(t *testing.T) {
		if len(rest) < 20 {
			t.Fatalf("only %d per-release requests", len(rest))
		}
		for i, answers := range runLongLived(t, py, nil, rest) {
			check(t, run{answers, nil, 0}, rest[i].Queries, func(q handmade.Query) handmade.Line { return q.Want })
		}
	})
}

// --seed-post runs the reader of seed post 000 as printed (docs/background.md): its answers,
// worked out by hand from its code, differ where it is wrong (a hit on a torn batch, no error on
// a size of 0 or a v2 batch under 61 bytes, legacy batches read as v2 headers, bisect_right on
// entries out of order), where it raises (no index, no log, a negative position) the process
// exits non-zero with a traceback, and a size field of -12 makes it read one header forever.
func TestSeedPostReader(t *testing.T) {
	py := python3(t)
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	// The cases it answers go through one process in the long-lived mode (the one-shot mode is
	// TestRefusals'); those it crashes or hangs on get a process each.
	differ := 0
	var answered []handmade.Batch
	for _, c := range cases {
		c = c.DefaultQueries() // the post's reader has one rule and speaks protocol 1
		if len(c.Queries) == 0 {
			continue
		}
		if !c.SeedPostHangs && !c.SeedPostCrashes {
			for _, q := range c.Queries {
				if q.SeedPost == nil {
					t.Fatalf("answers.json: %s offset %d has no seedPost answer", c.Dir, q.Offset)
				}
				if handmade.Mismatch(q.Want, *q.SeedPost) != "" {
					differ++
				}
			}
			answered = append(answered, handmade.Batch{Request: c.Request(), Queries: c.Queries})
			continue
		}
		t.Run(c.Dir, func(t *testing.T) {
			if c.SeedPostHangs {
				// kidx kills a reader past its time limit (docs/against.md); 2 s is plenty for
				// a process that answers the other cases in a tenth of that.
				if r, hung := runReaderFor(t, 2*time.Second, py, []string{"--seed-post", c.Path}, c.Request()); !hung {
					t.Fatalf("want a hang, got exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
				}
				return
			}
			r := runReader(t, py, []string{"--seed-post", c.Path}, c.Request())
			if r.code == 0 || !bytes.Contains(r.stderr, []byte("Traceback")) {
				t.Fatalf("want a crash with a traceback, got exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("answered, long-lived", func(t *testing.T) {
		for i, answers := range runLongLived(t, py, []string{"--seed-post"}, answered) {
			check(t, run{answers, nil, 0}, answered[i].Queries, func(q handmade.Query) handmade.Line { return *q.SeedPost })
		}
	})
	if differ < 8 {
		t.Errorf("only %d queries where the seed post's reader and a correct one differ (docs/background.md)", differ)
	}
}

// The long-lived mode (partition argument "-"): five requests on five stdin lines (three
// cases, protocols 1 and 2, three release lines), each answered and flushed before the next
// line is written; the end of stdin is exit 0. The answers are answers.json's.
func TestLongLivedMode(t *testing.T) {
	py := python3(t)
	cases, err := handmade.Load()
	if err != nil {
		t.Fatal(err)
	}
	batches, err := handmade.LongLivedBatches(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, answers := range runLongLived(t, py, nil, batches) {
		check(t, run{answers, nil, 0}, batches[i].Queries, func(q handmade.Query) handmade.Line { return q.Want })
	}
}

// runLongLived runs the reader with "-" over the batches (handmade.RunLongLived: each
// request's answers read before the next is written) and expects exit 0 at the end of stdin.
func runLongLived(t *testing.T, py string, args []string, batches []handmade.Batch) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append(append([]string{script}, args...), "-")...)
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
	if len(rest) != 0 {
		t.Errorf("lines after the last answer: %q", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("at the end of stdin: %v, want exit 0 (stderr %s)", err, stderr.String())
	}
	return answers
}

// The protocol's refusals, in both modes: a protocol other than the integers 1 and 2 (true is
// no 1; the seed post's mode (docs/background.md) speaks 1 only), a request that is no JSON object, a query without
// integer offsets, an unknown release line or index view: exit 2, no answer.
func TestRefusals(t *testing.T) {
	py := python3(t)
	dir := filepath.Join(handmade.Dir(), "three-v2")
	q := `"queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":7}]`
	for _, mode := range [][]string{nil, {"--seed-post"}} {
		for _, stdin := range []string{
			`{"protocol":3,` + q + `}`, `{` + q + `}`, `{"protocol":true,` + q + `}`, `{"protocol":1.0,` + q + `}`,
			`{"protocol":1,"release":"4.1",` + q + `}`, `{"protocol":1,"indexView":"all",` + q + `}`,
			`[1]`, `not json`, `{"protocol":1,"queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":7.0}]}`,
		} {
			r := runReader(t, py, append(mode, dir), []byte(stdin))
			if r.code != 2 || len(r.stdout) != 0 {
				t.Errorf("%q %s: exit %d, stdout %q; want 2 and nothing", mode, stdin, r.code, r.stdout)
			}
		}
		// Protocol 2 is the correct mode's only: an offset query is answered, the seed post's
		// mode (docs/background.md) refuses it.
		r2 := runReader(t, py, append(mode, dir), []byte(`{"protocol":2,"queries":[{"kind":"offset","segment":"00000000000000000000","baseOffset":0,"offset":7}]}`))
		if mode == nil && (r2.code != 0 || strings.TrimSpace(string(r2.stdout)) != `{"start": 0, "hit": 100}`) {
			t.Errorf("protocol 2: exit %d, stdout %q, stderr %s", r2.code, r2.stdout, r2.stderr)
		}
		if mode != nil && (r2.code != 2 || len(r2.stdout) != 0) {
			t.Errorf("--seed-post protocol 2: exit %d, stdout %q; want 2 and nothing", r2.code, r2.stdout)
		}
		// With protocol 1 the same query is answered: hit 100 (answers.json, three-v2).
		r := runReader(t, py, append(mode, dir), []byte(`{"protocol":1,`+q+`}`))
		if r.code != 0 || strings.TrimSpace(string(r.stdout)) != `{"start": 0, "hit": 100}` {
			t.Errorf("%q protocol 1: exit %d, stdout %q, stderr %s", mode, r.code, r.stdout, r.stderr)
		}
	}
}
