package logdir

import (
	"os"
	"path/filepath"
	"testing"

	"kidx/segment"
)

// Issue 11 review: the temporary directory an interrupted `kidx write` leaves beside its
// target (ReplaceDir's ".kidx-write-<name>-*") was read as a partition. It is a warning
// naming it, and no partition.
func TestScanDirKidxWriteLeftover(t *testing.T) {
	root := t.TempDir()
	left := filepath.Join(root, segment.WriteTempDirPrefix+"t-0-12345")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "00000000000000000000.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Partitions) != 0 {
		t.Errorf("read %d partitions, want none", len(ds.Partitions))
	}
	found := false
	for _, f := range ds.Findings {
		found = found || (f.File == left && f.Check == "kidx-write-leftover" && f.Severity == SeverityWarning)
	}
	if !found {
		t.Errorf("no kidx-write-leftover warning for %s: %+v", left, ds.Findings)
	}
}
