package against

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kidx/segment"
)

// script writes a shell script into t's temporary directory and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "reader.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

var twoQueries = []Query{{Segment: "00000000000000000000", BaseOffset: 0, Offset: 3}, {Segment: "00000000000000000100", BaseOffset: 100, Offset: 9223372036854775807}}

// docs/against.md, "Running the reader": CMD gets the partition directory as its last
// argument and one JSON request on stdin, then end of file.
func TestCommandSendsTheRequest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen")
	sh := script(t, `cat > "`+out+`"; printf '%s\n' "$#:$1" >> "`+out+`.args"; echo '{"start":0,"hit":-1}'; echo '{"start":0,"hit":-1}'`)
	c := &Command{Line: sh + " --flag 'two words'", Timeout: 10 * time.Second}
	if _, err := c.Answer(context.Background(), "/some/t-0", rules21, twoQueries); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		t.Fatal(err)
	}
	qs := req["queries"].([]any)
	if req["protocol"] != json.Number("1") || req["partition"] != "/some/t-0" || len(qs) != 2 ||
		qs[1].(map[string]any)["offset"] != json.Number("9223372036854775807") || qs[1].(map[string]any)["segment"] != "00000000000000000100" {
		t.Errorf("request %s", data)
	}
	args, _ := os.ReadFile(out + ".args")
	if string(args) != "3:--flag\n" {
		t.Errorf("arguments %q: want the two of the command line, then the directory", args)
	}
}

// docs/against.md: a reader past its time limit is killed, with its process group (a reader
// run through a wrapper leaves nothing behind), and reported as a hang.
func TestCommandHangIsKilledAndReported(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	sh := script(t, `sleep 60 & echo $! > "`+pidFile+`"; wait`)
	c := &Command{Line: sh, Timeout: 300 * time.Millisecond}
	start := time.Now()
	_, err := c.Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != FailHang {
		t.Fatalf("error %v, want a hang", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("returned after %s: the kill did not end the run", el)
	}
	data, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	for range 50 {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond) // the kernel reaps the killed sleep
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the reader's child %d survived the kill", pid)
}

// alive reports whether pid runs: it exists and is not a zombie waiting for its reaper (the
// killed child's new parent).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// docs/against.md: a non-zero exit is a crash, reported with the end of its stderr.
func TestCommandCrashIsReported(t *testing.T) {
	sh := script(t, `cat >/dev/null; echo 'Traceback: boom' >&2; exit 3`)
	_, err := (&Command{Line: sh, Timeout: 10 * time.Second}).Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != FailCrash || !strings.Contains(f.What, "exit status 3") || !strings.Contains(f.Stderr, "Traceback: boom") {
		t.Fatalf("error %#v, want a crash with exit status 3 and the stderr", err)
	}
	// A reader that does not read its stdin, and dies, is a crash too, not a kidx error.
	sh = script(t, `kill -SEGV $$`)
	_, err = (&Command{Line: sh, Timeout: 10 * time.Second}).Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	if !errors.As(err, &f) || f.Kind != FailCrash || !strings.Contains(f.What, "signal 11, segmentation fault") {
		t.Fatalf("error %#v, want a crash by SIGSEGV", err)
	}
}

// docs/against.md: exit 0 with anything but one answer per query is a protocol violation.
func TestCommandProtocolViolation(t *testing.T) {
	sh := script(t, `echo '{"start":0,"hit":-1}'`)
	_, err := (&Command{Line: sh, Timeout: 10 * time.Second}).Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != FailProtocol || !strings.Contains(f.What, "1 answers for 2 queries") {
		t.Fatalf("error %v, want a protocol failure", err)
	}
	sh = script(t, `yes '{"start":0,"hit":-1}'`) // endless output: cut, not buffered without bound
	_, err = (&Command{Line: sh, Timeout: 2 * time.Second}).Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	if !errors.As(err, &f) || (f.Kind != FailProtocol && f.Kind != FailHang) {
		t.Fatalf("error %v, want a protocol failure or a hang", err)
	}
}

// A command the shell cannot find is the user's mistake (exit 2 in kidx diff), not a finding.
func TestCommandThatCannotRun(t *testing.T) {
	_, err := (&Command{Line: filepath.Join(t.TempDir(), "no-such-reader"), Timeout: 10 * time.Second}).Answer(context.Background(), t.TempDir(), rules21, twoQueries)
	if !errors.Is(err, ErrCannotRun) {
		t.Fatalf("error %v, want ErrCannotRun", err)
	}
}

// rules21 asks for 2.1-3.9's answers (the request names them; these readers ignore them).
var rules21 = segment.ReadRules{Release: segment.Release21}
