package fuzz

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// scratchRoot is one directory per test process (each fuzz worker is a process) under
// tempRoot (tmpfs when available), made once: a fresh directory per input, made and removed
// around each call, was most of the cost of the file-backed fuzz targets.
var scratchRoot = sync.OnceValues(func() (string, error) { return os.MkdirTemp(tempRoot, "kidx-fuzz-*") })

// writeScratch writes data as the file name in the directory sub of scratchRoot (one per
// target, so that a reader looking for a segment's other files finds none of another target's)
// and returns its path. The file is rewritten for every input: the caller closes what it opened
// before its next input.
func writeScratch(t *testing.T, sub, name string, data []byte) string {
	t.Helper()
	root, err := scratchRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, sub)
	path := filepath.Join(dir, name)
	err = os.WriteFile(path, data, 0o644)
	if os.IsNotExist(err) {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMain removes scratchRoot when the process ends (the fuzz workers' too: they return
// from m.Run when the coordinator stops them).
func TestMain(m *testing.M) {
	code := m.Run()
	if root, err := scratchRoot(); err == nil {
		os.RemoveAll(root)
	}
	os.Exit(code)
}
