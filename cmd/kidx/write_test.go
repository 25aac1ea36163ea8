package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// batchesWorkload is a workload file of n batches of 79 records and 16350 bytes (the seed
// post's, docs/background.md) under segment.bytes=65536, with bad (if not "") as the JSON of batch badAt.
func batchesWorkload(t *testing.T, dir, name string, n, badAt int, bad string) string {
	t.Helper()
	var bs []string
	for i := range n {
		b := fmt.Sprintf(`{"records": 79, "bytes": 16350, "maxTimestamp": %d}`, 1700000000000+79*i)
		if i == badAt && bad != "" {
			b = bad
		}
		bs = append(bs, b)
	}
	return writeFile(t, dir, name, `{"config": {"segment.bytes": 65536}, "rule": "per-batch", "batches": [`+strings.Join(bs, ", ")+`]}`)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Issue 11, defect 2: kidx write left a partial directory (three 0-byte files) when a later
// batch failed validation, and the retry was then refused as non-empty. Now the whole
// workload is checked first: no target directory and no temporary one is left, and the retry
// with the workload fixed succeeds.
func TestWriteInvalidLaterBatchLeavesNothing(t *testing.T) {
	in, parent := t.TempDir(), t.TempDir()
	dir := filepath.Join(parent, "t-0")
	// Batch 5 of 8: 1 record in 61 bytes, the header alone (the smallest 1-record batch is 68).
	bad := batchesWorkload(t, in, "bad.json", 8, 5, `{"records": 1, "bytes": 61}`)
	_, errOut, code := runKidx(t, "write", "--workload", bad, "--dir", dir)
	if code != 2 || !strings.Contains(errOut, "step 5 batch 0") || !strings.Contains(errOut, "at least 68 bytes") {
		t.Fatalf("write of a workload with an impossible 6th batch: exit %d, %q", code, errOut)
	}
	if names := dirNames(t, parent); len(names) != 0 {
		t.Fatalf("the failed write left %v beside the target", names)
	}
	good := batchesWorkload(t, in, "good.json", 8, -1, "")
	if _, errOut, code := runKidx(t, "write", "--workload", good, "--dir", dir); code != 0 {
		t.Fatalf("retry: exit %d: %s", code, errOut)
	}
	// 8 batches of 16350 bytes, 4 to a 65536-byte segment: segments at 0 and 316.
	want := []string{"00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
		"00000000000000000316.index", "00000000000000000316.log", "00000000000000000316.timeindex"}
	if got := dirNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("retry wrote %v, want %v", got, want)
	}
	if names := dirNames(t, parent); len(names) != 1 {
		t.Fatalf("beside the target: %v, want only t-0", names)
	}
}

// Issue 11, defects 2 and 3: `write --force` of a smaller workload used to overwrite files of
// the same names and keep the rest, leaving a stale segment whose offsets overlap the new
// one's. --force now replaces the directory as a whole, and refuses a directory holding
// anything kidx write does not write.
func TestWriteForceReplacesTheWholeDirectory(t *testing.T) {
	in := t.TempDir()
	dir := filepath.Join(t.TempDir(), "t-0")
	big := batchesWorkload(t, in, "big.json", 12, -1, "")    // segments 0, 316, 632
	small := batchesWorkload(t, in, "small.json", 6, -1, "") // segments 0, 316
	if _, errOut, code := runKidx(t, "write", "--workload", big, "--dir", dir); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runKidx(t, "write", "--workload", small, "--dir", dir); code != 2 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("write into a non-empty dir without --force: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runKidx(t, "write", "--workload", small, "--dir", dir, "--force"); code != 0 {
		t.Fatalf("write --force: exit %d: %s", code, errOut)
	}
	want := []string{"00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
		"00000000000000000316.index", "00000000000000000316.log", "00000000000000000316.timeindex"}
	if got := dirNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after --force: %v, want %v (segment 632 of the larger workload must be gone)", got, want)
	}
	if names := dirNames(t, filepath.Dir(dir)); len(names) != 1 {
		t.Fatalf("beside the target: %v, want only t-0", names)
	}
	if out, errOut, code := runKidx(t, "verify", "--deep", dir); code != 0 {
		t.Fatalf("verify after --force: exit %d\n%s%s", code, out, errOut)
	}
	// A directory with a file kidx write does not write (a broker's checkpoint) is not
	// replaced, even with --force, and is left as it was.
	writeFile(t, dir, "leader-epoch-checkpoint", "0\n0\n")
	if _, errOut, code := runKidx(t, "write", "--workload", big, "--dir", dir, "--force"); code != 2 || !strings.Contains(errOut, "leader-epoch-checkpoint") {
		t.Fatalf("--force onto a directory with a foreign file: exit %d, %q", code, errOut)
	}
	if got := dirNames(t, dir); len(got) != len(want)+1 {
		t.Fatalf("the refused --force changed the directory: %v", got)
	}
}

// Issue 11, defect 10: a workload batch no file can hold is refused by write (exit 2) before
// any file is created, naming the minimum; a 1-record batch of 126 bytes is one (its record
// would be 65 bytes: a 64-byte body needs a 2-byte length varint, so records jump from 64 to
// 66 bytes).
func TestWriteRefusesImpossibleBatches(t *testing.T) {
	in, parent := t.TempDir(), t.TempDir()
	for _, c := range []struct{ batch, want string }{
		{`{"records": 1, "bytes": 67}`, "at least 68 bytes"},
		{`{"records": 79, "bytes": 628}`, "at least 629 bytes"},
		{`{"records": 1, "bytes": 126}`, "no batch of 1 record is 126 bytes"},
		{`{"records": 1, "bytes": 26, "magic": 0}`, "magic-0 message"},
	} {
		w := writeFile(t, in, "w.json", `{"batches": [`+c.batch+`]}`)
		_, errOut, code := runKidx(t, "write", "--workload", w, "--dir", filepath.Join(parent, "t-0"))
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q (want 2 and %q)", c.batch, code, errOut, c.want)
		}
		if names := dirNames(t, parent); len(names) != 0 {
			t.Fatalf("%s: the refused write left %v", c.batch, names)
		}
	}
}

// Issue 11, defect 3, at the CLI: a directory whose segment 0 holds offsets up to 473 while
// segment 316 starts at 316 (built by hand from two written logs, as `write --force` no
// longer leaves one) is a problem (exit 1), named with both files.
func TestVerifyOverlappingSegmentsExitsOne(t *testing.T) {
	in := t.TempDir()
	one, two := filepath.Join(t.TempDir(), "t-0"), filepath.Join(t.TempDir(), "t-0")
	oneSeg := writeFile(t, in, "one.json", `{"config": {"segment.bytes": 1073741824}, "batches": [`+strings.Repeat(`{"records": 79, "bytes": 16350}, `, 5)+`{"records": 79, "bytes": 16350}]}`)
	twoSegs := batchesWorkload(t, in, "two.json", 6, -1, "")
	for _, c := range [][2]string{{oneSeg, one}, {twoSegs, two}} {
		if _, errOut, code := runKidx(t, "write", "--workload", c[0], "--dir", c[1]); code != 0 {
			t.Fatalf("write: exit %d: %s", code, errOut)
		}
	}
	for _, suf := range []string{".log", ".index", ".timeindex"} {
		data, err := os.ReadFile(filepath.Join(two, "00000000000000000316"+suf))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, one, "00000000000000000316"+suf, string(data))
	}
	out, errOut, code := runKidx(t, "verify", one)
	if code != 1 || !strings.Contains(out, "segment-overlap") || !strings.Contains(out, "00000000000000000000.log") ||
		!strings.Contains(out, "00000000000000000316.log starts at offset 316") || !strings.Contains(out, "offsets 316 to 394") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
}

// Issue 11 review: Ctrl-C during `kidx write` left its temporary directory, which verify and
// analyze then read as a partition. A child process of this test binary writes a 20000-batch
// workload; SIGINT once its temporary directory exists stops the write at its next step:
// exit 130, "nothing was written", and the parent directory is empty again.
func TestWriteInterruptedLeavesNothing(t *testing.T) {
	if args := os.Getenv("KIDX_WRITE_CHILD"); args != "" {
		os.Exit(run(strings.Split(args, "\x1f"), io.Discard, os.Stderr))
	}
	parent := t.TempDir()
	var bs []string
	for range 20000 {
		bs = append(bs, `{"records":79,"bytes":16350}`)
	}
	w := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(w, []byte(`{"config":{"segment.bytes":1048576},"batches":[`+strings.Join(bs, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteInterruptedLeavesNothing$")
	cmd.Env = append(os.Environ(), "KIDX_WRITE_CHILD=write\x1f--workload\x1f"+w+"\x1f--dir\x1f"+filepath.Join(parent, "t-0"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ents, _ := os.ReadDir(parent)
		if len(ents) > 0 && strings.HasPrefix(ents[0].Name(), ".kidx-write-t-0-") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no temporary directory appeared")
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // some files written
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "kidx: interrupted: nothing was written") {
		t.Fatalf("exit %v, stderr %q: want 130 and the interruption", err, stderr.String())
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
