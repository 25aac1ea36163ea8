package segment

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// evict drops the file's pages from the page cache (posix_fadvise DONTNEED; clean pages go,
// and no root is needed), so that a test can walk a file that is not in memory.
func evict(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Skipf("posix_fadvise: %v", err)
	}
}

// WalkIndexed is Walk on a 16 MiB log in memory (two chains) and out of it (many), with a
// valid index and with damaged ones; resident tells the two apart.
func TestWalkIndexedIsWalk(t *testing.T) {
	path, data, pos := chainTestLog(t, 3700, 5)
	if len(data) < splitMin {
		t.Fatalf("%d bytes: too small for chains", len(data))
	}
	lf, err := OpenLogWith(path, AccessPread)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	lf.SetReadAhead(4096)
	want := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.Walk(0, 0, fn) })
	for name, starts := range chainCases(pos, int64(len(data)), 5) {
		entries := make([]IndexEntry, len(starts))
		for i, s := range starts {
			entries[i] = IndexEntry{Offset: int64(i), Position: s}
		}
		for _, cold := range []bool{false, true} {
			if cold {
				evict(t, path)
				if lf.resident(0, lf.Size()) {
					t.Logf("%s: the file stayed in the page cache after DONTNEED", name)
				}
			} else if _, err := os.ReadFile(path); err != nil || !lf.resident(0, lf.Size()) {
				t.Fatalf("%s: read whole, not resident (%v)", name, err)
			}
			got := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.WalkIndexed(0, 0, entries, nil, fn) })
			sameWalk(t, fmt.Sprintf("%s, cold %v", name, cold), got, want)
		}
	}
}
