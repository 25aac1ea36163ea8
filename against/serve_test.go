package against

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kidx/segment"
)

// testReaderEnv makes this test binary a reader (TestMain): "serve" speaks the long-lived
// mode, "oneshot" answers one request and exits; both answer with KidxReader. A suffix
// "-slow" makes it sleep 50ms at start, as a JVM reader's start-up costs.
const testReaderEnv = "KIDX_AGAINST_TEST_READER"

// slowStart is the "-slow" test reader's start-up.
const slowStart = 50 * time.Millisecond

func TestMain(m *testing.M) {
	if mode := os.Getenv(testReaderEnv); mode != "" {
		os.Exit(runTestReader(mode))
	}
	os.Exit(m.Run())
}

// testReaderLine is the command line that runs this test binary as a reader in mode.
func testReaderLine(t testing.TB, mode string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return testReaderEnv + "=" + mode + " " + strconv.Quote(exe)
}

func runTestReader(mode string) int {
	if m, ok := strings.CutSuffix(mode, "-slow"); ok {
		mode = m
		time.Sleep(slowStart)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<16), 1<<30)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req Request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		var rules segment.ReadRules
		rules.Release, _ = segment.ParseReadRelease(req.Release)
		rules.View, _ = segment.ParseIndexView(req.IndexView)
		answers, _ := KidxReader{}.Answer(context.Background(), req.Partition, rules, req.Queries)
		for _, a := range answers {
			out.WriteString(encodeAnswer(a))
			out.WriteByte('\n')
		}
		out.Flush()
		if mode == "oneshot" {
			return 0
		}
	}
	return 0
}

// encodeAnswer writes a in the protocol's words for its kind.
func encodeAnswer(a Answer) string {
	if a.Err != nil || a.Kind == "" || a.Kind == KindOffset {
		return wire(a)
	}
	if a.Kind == KindSegment {
		return fmt.Sprintf(`{"baseOffset":%d}`, a.BaseOffset)
	}
	return fmt.Sprintf(`{"start":%d,"offset":%d,"timestamp":%d}`, a.Start, a.Offset, a.Timestamp)
}

// docs/against.md, "Long-lived readers": one reader process per worker answers a whole
// campaign, protocol 2's questions included, as kidx answers them.
func TestServeAnswersACampaignWithOneReaderPerWorker(t *testing.T) {
	s := &Serve{Line: testReaderLine(t, "serve"), Timeout: 20 * time.Second, Protocol: 2}
	defer s.Close()
	rep, err := Run(context.Background(), Options{Seed: 5, Cases: 24, Workers: 2, Reader: s})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cases != 24 || rep.Divergent != 0 {
		for _, d := range rep.Divergences {
			t.Logf("case %d: %s %+v %+v", d.Case, d.Kind, d.Mismatch, d.Failure)
		}
		t.Fatalf("%d cases, %d divergent", rep.Cases, rep.Divergent)
	}
	if n := s.Started(); n < 1 || n > 2 {
		t.Errorf("%d reader processes started for 2 workers", n)
	}
}

// serveScript is a long-lived shell reader: it writes its pid to pidFile, then answers each
// request line with one protocol-1 answer, except that a request for a partition named crash
// exits 3, hang sleeps, extra answers twice, and short answers nothing and exits 0.
func serveScript(t *testing.T, pidFile string) string {
	return script(t, `echo $$ >> "`+pidFile+`"
while read -r line; do
  case "$line" in
  *'"/p/crash"'*) echo dying >&2; exit 3;;
  *'"/p/hang"'*) sleep 60;;
  *'"/p/short"'*) exit 0;;
  *'"/p/extra"'*) echo '{"start":0,"hit":-1}';;
  esac
  echo '{"start":0,"hit":-1}'
done`)
}

var oneQuery = []Query{{Segment: "00000000000000000000", Offset: 3}}

// A crash, a hang and a protocol violation are each a Failure of that request; the reader is
// killed (its process group: the shell's sleep too) and the next request gets a new one.
func TestServeFailuresRestartTheReader(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	s := &Serve{Line: serveScript(t, pids), Timeout: 2 * time.Second}
	defer s.Close()
	ask := func(part string) error {
		got, err := s.Answer(context.Background(), part, rules21, oneQuery)
		if err == nil && (len(got) != 1 || got[0].Start != 0 || got[0].Hit != -1) {
			t.Fatalf("%s: answers %+v", part, got)
		}
		return err
	}
	wantFailure := func(part, kind, what string) {
		t.Helper()
		var f *Failure
		if err := ask(part); !errors.As(err, &f) || f.Kind != kind || !strings.Contains(f.What, what) {
			t.Fatalf("%s: %v, want a %s failure saying %q", part, err, kind, what)
		}
	}
	for _, part := range []string{"/p/ok", "/p/ok", "/p/ok"} {
		if err := ask(part); err != nil {
			t.Fatal(err)
		}
	}
	if s.Started() != 1 {
		t.Fatalf("%d processes for three good requests", s.Started())
	}
	wantFailure("/p/crash", FailCrash, "exit status 3 after 0 of 1 answers")
	if err := ask("/p/ok"); err != nil || s.Started() != 2 {
		t.Fatalf("after the crash: %v, %d processes", err, s.Started())
	}
	start := time.Now()
	s.Timeout = 300 * time.Millisecond
	wantFailure("/p/hang", FailHang, "0 of 1 answers within the time limit of 300ms")
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the hang took %s to report", el)
	}
	data, _ := os.ReadFile(pids)
	lines := strings.Fields(string(data))
	hung, _ := strconv.Atoi(lines[len(lines)-1])
	deadline := time.Now().Add(2 * time.Second)
	for alive(hung) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(hung) {
		t.Errorf("the hung reader %d lives on", hung)
	}
	s.Timeout = 2 * time.Second
	if err := ask("/p/ok"); err != nil || s.Started() != 3 {
		t.Fatalf("after the hang: %v, %d processes", err, s.Started())
	}
	if err := ask("/p/extra"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the extra line arrives before the next request is sent
	wantFailure("/p/ok", FailProtocol, "output after the answers to the request before")
	wantFailure("/p/short", FailProtocol, "exited 0 after 0 of 1 answers")
	if err := ask("/p/ok"); err != nil || s.Started() != 5 { // ok, crash+ok, hang+ok, extra and its violation, short+ok
		t.Fatalf("after the violations: %v, %d processes", err, s.Started())
	}
}

// A command the shell cannot find is a usage error, as in one-shot mode.
func TestServeCommandThatCannotRun(t *testing.T) {
	s := &Serve{Line: "/nonexistent/reader", Timeout: 5 * time.Second}
	defer s.Close()
	if _, err := s.Answer(context.Background(), "/p", rules21, oneQuery); !errors.Is(err, ErrCannotRun) {
		t.Fatalf("%v, want ErrCannotRun", err)
	}
}

// The long-lived mode's request is the one-shot request on one line (docs/against.md): the
// shell passes "-" as the partition argument, and end of stdin (Close) ends the reader.
func TestServeRequestLinesAndEndOfInput(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	sh := script(t, `echo "$#:$1" > "`+seen+`.args"
while read -r line; do printf '%s\n' "$line" >> "`+seen+`"; echo '{"start":0,"hit":-1}'; done
echo eof >> "`+seen+`"`)
	s := &Serve{Line: sh, Timeout: 5 * time.Second}
	for range 2 {
		if _, err := s.Answer(context.Background(), "/p/a", rules21, oneQuery); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	data, _ := os.ReadFile(seen)
	want := `{"protocol":1,"partition":"/p/a","release":"2.1-3.9","indexView":"running","queries":[{"segment":"00000000000000000000","baseOffset":0,"offset":3}]}`
	if string(data) != want+"\n"+want+"\neof\n" {
		t.Errorf("the reader read %q", data)
	}
	if args, _ := os.ReadFile(seen + ".args"); string(args) != "1:-\n" {
		t.Errorf("arguments %q, want the one argument -", args)
	}
}

// BenchmarkServeVsOneShot runs the same cases through this test binary as a reader started
// once per case (one-shot) and as a long-lived reader (--serve), and reports cases/s of each;
// the -slow variants start in 50ms (a JVM reader's start-up is longer still).
func BenchmarkServeVsOneShot(b *testing.B) {
	const cases = 60
	for _, mode := range []string{"oneshot", "serve", "oneshot-slow", "serve-slow"} {
		b.Run(mode, func(b *testing.B) {
			var r Reader = &Command{Line: testReaderLine(b, mode), Timeout: 20 * time.Second}
			if strings.HasPrefix(mode, "serve") {
				s := &Serve{Line: testReaderLine(b, mode), Timeout: 20 * time.Second}
				defer s.Close()
				r = s
			}
			var total time.Duration
			for b.Loop() {
				rep, err := Run(context.Background(), Options{Seed: 9, Cases: cases, Workers: 2, Reader: r})
				if err != nil || rep.Divergent != 0 {
					b.Fatalf("%v, %d divergent", err, rep.Divergent)
				}
				total += rep.Elapsed
			}
			b.ReportMetric(float64(cases*b.N)/total.Seconds(), "cases/s")
		})
	}
}
