package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A crash step (docs/contract.md §3) says what a crash left of files; kidx write writes a log
// that never crashed, so it refuses the step (exit 2, naming it) and writes nothing.
func TestWriteRefusesCrashStep(t *testing.T) {
	parent := t.TempDir()
	w := filepath.Join(parent, "crash.json")
	data := `{"steps": [{"append": [{"records": 1, "bytes": 78}]},
	  {"crash": {"recoveryPoint": 0, "segments": [{"baseOffset": 0, "logBytes": 40, "indexBytes": 0, "timeIndexBytes": 0}]}}]}`
	if err := os.WriteFile(w, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "t-0")
	if _, errOut, code := runKidx(t, "write", "--workload", w, "--dir", dir); code != 2 || !strings.Contains(errOut, "step 1 is a crash") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after a refused write: %v", dir, err)
	}
}
