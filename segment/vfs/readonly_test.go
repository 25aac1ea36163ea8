package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// snapshot records every entry under dir: name, mode, size, mtime and bytes.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", b)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The guide's rule and issue 13 ("readers of users' directories stay read-only by
// construction"): open, read, stat and list through FaultFS over the OS, with and without
// injected read faults, change no byte, no mode and no mtime of a directory tree, create
// nothing, and ask only for read kinds of operation.
func TestReadOnlyUseChangesNothing(t *testing.T) {
	dir := t.TempDir()
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []string{"t-0/00000000000000000000.log", "t-0/00000000000000000000.index", "t-1/sub/x.timeindex", "top"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("contents of "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Old mtimes on files and directories, so that any touch would show.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { return os.Chtimes(p, past, past) })
	before := snapshot(t, dir)

	var kinds []OpKind
	record := InjectorFunc(func(op Op) *Fault {
		kinds = append(kinds, op.Kind)
		return nil
	})
	for _, inj := range []Injector{record, Nth(OpRead, 2, EIO()), Nth(OpOpen, 3, EIO()), Nth(OpStat, 1, EIO())} {
		fsys := NewFaultFS(OS, inj)
		var walk func(string)
		walk = func(d string) {
			es, err := fsys.ReadDir(d)
			if err != nil {
				return
			}
			for _, e := range es {
				p := filepath.Join(d, e.Name())
				fsys.Stat(p)
				if e.IsDir() {
					walk(p)
					continue
				}
				f, err := fsys.Open(p)
				if err != nil {
					continue
				}
				f.Stat()
				b := make([]byte, 8)
				f.ReadAt(b, 0)
				f.ReadAt(b, 1000)
				f.Close()
				// A read-only handle refuses writes whatever asks (asked of the OS
				// directly, so the recorded kinds stay those of the read-only use).
				ro, err := OS.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ro.WriteAt([]byte("x"), 0); err == nil {
					t.Errorf("%s: a write through a read-only handle succeeded", p)
				}
				if err := ro.Truncate(0); err == nil {
					t.Errorf("%s: a truncate through a read-only handle succeeded", p)
				}
				ro.Close()
			}
		}
		walk(dir)
	}
	if after := snapshot(t, dir); !slices.Equal(before, after) {
		t.Errorf("the tree changed:\nbefore %v\nafter  %v", before, after)
	}
	if len(kinds) == 0 {
		t.Fatal("the recording injector saw nothing")
	}
	for _, k := range kinds {
		if !k.IsRead() {
			t.Errorf("a read-only use asked for a %s", k)
		}
	}
}

// A faulted read fails without reading: the caller's buffer is untouched and the error
// names the read and the file.
func TestFaultedReadReadsNothing(t *testing.T) {
	mem := NewMemFS()
	f, _ := mem.Create("/a")
	f.Write([]byte("abcdef"))
	f.Close()
	fsys := NewFaultFS(mem, Nth(OpRead, 1, EIO()))
	g, err := fsys.Open("/a")
	if err != nil {
		t.Fatal(err)
	}
	b := []byte("......")
	n, err := g.ReadAt(b, 0)
	if n != 0 || string(b) != "......" || errors.Is(err, io.EOF) {
		t.Errorf("faulted read gave %d %q %v", n, b, err)
	}
	checkNames(t, err, OpRead, "/a")
}
