package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25: kidx write applies a workload's clean step (it dropped it before the file writer
// had one): the two rolled segments 0 (b0 0-1 at 0, b1 2 at 100, b2 3 at 200) and 4 (b3 4-5,
// b4 6) are cleaned into one segment 0 without b1, b3 rebuilt at 80 bytes.
func TestWriteAppliesCleanStep(t *testing.T) {
	in, dir := t.TempDir(), filepath.Join(t.TempDir(), "t-0")
	w := filepath.Join(in, "clean.json")
	if err := os.WriteFile(w, []byte(cleanStepWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runKidx(t, "write", "--workload", w, "--dir", dir); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	want := []string{"00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
		"00000000000000000007.index", "00000000000000000007.log", "00000000000000000007.timeindex"}
	if got := dirNames(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("wrote %v, want %v", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	var bases []int64
	for pos := 0; pos+12 <= len(b); pos += 12 + int(binary.BigEndian.Uint32(b[pos+8:])) {
		bases = append(bases, int64(binary.BigEndian.Uint64(b[pos:])))
	}
	if len(b) != 430 || len(bases) != 4 || bases[0] != 0 || bases[1] != 3 || bases[2] != 4 || bases[3] != 6 {
		t.Fatalf("cleaned segment: %d bytes, batches at %v; want 430 bytes, batches 0 3 4 6", len(b), bases)
	}
}
