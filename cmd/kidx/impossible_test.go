package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 11, defect 10: `--gen fixed:bytes=10` silently became 61-byte batches; now it is a
// usage error naming the minimum, as are --batch-bytes below the smallest batch of
// --batch-records and an --alphabet size no batch has.
func TestImpossibleSizesAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--gen", "fixed:bytes=10", "--records", "100", "--seed", "1"}, "at least 68 bytes"},
		{[]string{"sim", "--batch-bytes", "600", "--batch-records", "79"}, "at least 629 bytes"},
		{[]string{"check", "--exhaustive", "--alphabet", "61,100"}, "68 bytes is the smallest batch"},
	} {
		_, errOut, code := runKidx(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q (want 2 and %q)", c.args, code, errOut, c.want)
		}
	}
}

// Issue 11, defect 10: a workload file with impossible batches gets one `kidx: warning:` line
// from sim, with the count and the first one; the model still runs it (exit 0).
func TestSimWarnsOfImpossibleBatches(t *testing.T) {
	w := writeFile(t, t.TempDir(), "w.json", `{"batches": [{"records": 79, "bytes": 16350}, {"records": 1, "bytes": 61},
		{"records": 2, "bytes": 75}, {"records": 3, "bytes": 78}]}`)
	_, errOut, code := runKidx(t, "sim", "--workload", w)
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var warn []string
	for _, l := range lines {
		if strings.HasPrefix(l, "kidx: warning:") {
			warn = append(warn, l)
		}
	}
	if len(warn) != 1 || !strings.Contains(warn[0], "2 batches no file can hold") || !strings.Contains(warn[0], "step 1 batch 0 (1 record, 61 bytes)") ||
		!strings.Contains(warn[0], "at least 68 bytes") {
		t.Fatalf("warnings: %q", warn)
	}
	good := writeFile(t, t.TempDir(), "good.json", `{"batches": [{"records": 79, "bytes": 16350}, {"records": 1, "bytes": 68}]}`)
	if _, errOut, _ := runKidx(t, "sim", "--workload", good); strings.Contains(errOut, "warning") {
		t.Fatalf("a possible workload warned: %q", errOut)
	}
}

// Issue 11, defect 10, end to end: the counterexamples kidx check writes with --out are
// workloads kidx write can write.
func TestCheckCounterexamplesCanBeWritten(t *testing.T) {
	out := t.TempDir()
	if _, errOut, code := runKidx(t, "check", "--out", out, "--seed", "1"); code != 0 && code != 1 {
		t.Fatalf("check: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".counterexample.json") {
			continue
		}
		n++
		dir := filepath.Join(t.TempDir(), "t-0")
		if _, errOut, code := runKidx(t, "write", "--workload", f, "--dir", dir); code != 0 {
			data, _ := os.ReadFile(f)
			t.Errorf("write %s: exit %d: %s\n%.300s", filepath.Base(f), code, errOut, data)
		}
	}
	if n == 0 {
		t.Fatal("check wrote no counterexample workload")
	}
}
