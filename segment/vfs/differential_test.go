package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// errClass names an error by what callers test it for with errors.Is, plus the operation
// and file(s) its *os.PathError or *os.LinkError names, so that two filesystems' errors
// compare without depending on message wording.
func errClass(err error) string {
	if err == nil {
		return "ok"
	}
	var kinds []string
	for _, k := range []struct {
		name   string
		target error
	}{
		{"not-exist", fs.ErrNotExist}, {"exist", fs.ErrExist}, {"closed", fs.ErrClosed},
		{"permission", fs.ErrPermission}, {"eof", io.EOF}, {"short-write", io.ErrShortWrite},
		{"ENOTDIR", syscall.ENOTDIR}, {"EISDIR", syscall.EISDIR}, {"ENOTEMPTY", syscall.ENOTEMPTY},
		{"EBADF", syscall.EBADF}, {"EINVAL", syscall.EINVAL}, {"EIO", syscall.EIO},
		{"ENOSPC", syscall.ENOSPC}, {"injected", ErrInjected},
	} {
		if errors.Is(err, k.target) {
			kinds = append(kinds, k.name)
		}
	}
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		kinds = append(kinds, "op="+pe.Op, "path="+pe.Path)
		if len(kinds) == 2 {
			kinds = append(kinds, "text="+pe.Err.Error())
		}
	case errors.As(err, &le):
		kinds = append(kinds, "op="+le.Op, "old="+le.Old, "new="+le.New)
	default:
		kinds = append(kinds, "unwrapped="+err.Error())
	}
	return strings.Join(kinds, " ")
}

// script is a sequence of operations under a base directory with a table of open files;
// each step appends one line to the transcript.
type script struct {
	fs    FS
	base  string
	files map[string]File
	out   []string
}

func (s *script) p(name string) string { return filepath.Join(s.base, name) }

func (s *script) logf(format string, args ...any) {
	s.out = append(s.out, fmt.Sprintf(format, args...))
}

func (s *script) open(h, name string, how string) {
	var f File
	var err error
	switch how {
	case "open":
		f, err = s.fs.Open(s.p(name))
	case "create":
		f, err = s.fs.Create(s.p(name))
	case "rw":
		f, err = s.fs.OpenReadWrite(s.p(name))
	}
	if err == nil {
		s.files[h] = f
	}
	s.logf("%s %s: %s", how, name, errClass(err))
}

func (s *script) writeAt(h string, data string, off int64) {
	n, err := s.files[h].WriteAt([]byte(data), off)
	s.logf("writeat %s %d: n=%d %s", h, off, n, errClass(err))
}

func (s *script) write(h string, data string) {
	n, err := s.files[h].Write([]byte(data))
	s.logf("write %s: n=%d %s", h, n, errClass(err))
}

func (s *script) readAt(h string, n int, off int64) {
	b := make([]byte, n)
	got, err := s.files[h].ReadAt(b, off)
	s.logf("readat %s %d %d: n=%d %q %s", h, n, off, got, b[:got], errClass(err))
}

func (s *script) truncate(h string, size int64) {
	s.logf("truncate %s %d: %s", h, size, errClass(s.files[h].Truncate(size)))
}

func (s *script) sync(h string) { s.logf("sync %s: %s", h, errClass(s.files[h].Sync())) }

func (s *script) fstat(h string) {
	fi, err := s.files[h].Stat()
	if err != nil {
		s.logf("fstat %s: %s", h, errClass(err))
		return
	}
	s.logf("fstat %s: name=%s size=%d dir=%v", h, fi.Name(), fi.Size(), fi.IsDir())
}

func (s *script) close(h string) { s.logf("close %s: %s", h, errClass(s.files[h].Close())) }

func (s *script) stat(name string) {
	fi, err := s.fs.Stat(s.p(name))
	if err != nil {
		s.logf("stat %s: %s", name, errClass(err))
		return
	}
	size := fi.Size()
	if fi.IsDir() {
		size = -1 // a directory's size is the filesystem's business
	}
	s.logf("stat %s: name=%s size=%d dir=%v", name, fi.Name(), size, fi.IsDir())
}

func (s *script) list(name string) {
	es, err := s.fs.ReadDir(s.p(name))
	var names []string
	for _, e := range es {
		names = append(names, fmt.Sprintf("%s(dir=%v)", e.Name(), e.IsDir()))
	}
	s.logf("list %s: %v %s", name, names, errClass(err))
}

func (s *script) rename(a, b string) {
	s.logf("rename %s %s: %s", a, b, errClass(s.fs.Rename(s.p(a), s.p(b))))
}

func (s *script) remove(name string) {
	s.logf("remove %s: %s", name, errClass(s.fs.Remove(s.p(name))))
}

func (s *script) mkdirAll(name string) {
	s.logf("mkdirall %s: %s", name, errClass(s.fs.MkdirAll(s.p(name), 0o755)))
}

func (s *script) syncDir(name string) {
	s.logf("syncdir %s: %s", name, errClass(s.fs.SyncDir(s.p(name))))
}

// run is the scripted sequence: what the segment writer does (create, write at, preallocate
// and trim by truncate, sync, reopen read-write), plus every error case a caller tests for.
func (s *script) run() {
	s.mkdirAll("t-0")
	s.syncDir("")
	s.open("log", "t-0/00.log", "create")
	s.write("log", "hello")
	s.write("log", " world")
	s.writeAt("log", "HELLO", 0)
	s.writeAt("log", "tail", 20) // past the end: a hole of zeros
	s.readAt("log", 24, 0)
	s.readAt("log", 10, 20) // short read at the end
	s.readAt("log", 4, 100)
	s.readAt("log", 0, 100)
	s.readAt("log", 1, -1)
	s.writeAt("log", "x", -1)
	s.open("idx", "t-0/00.index", "create")
	s.truncate("idx", 10485760) // preallocated, as AbstractIndex does
	s.writeAt("idx", "\x00\x00\x00\x01\x00\x00\x00\x40", 0)
	s.fstat("idx")
	s.truncate("idx", 8) // trimToValidSize
	s.truncate("idx", -1)
	s.sync("idx")
	s.sync("log")
	s.fstat("log")
	s.truncate("log", 5)
	s.readAt("log", 10, 0)
	s.close("log")
	s.close("log")
	s.readAt("log", 1, 0)
	s.open("ro", "t-0/00.log", "open")
	s.readAt("ro", 5, 0)
	s.write("ro", "no")
	s.writeAt("ro", "no", 0)
	s.truncate("ro", 0)
	s.fstat("ro")
	s.close("ro")
	s.open("rw", "t-0/00.log", "rw")
	s.write("rw", "J")
	s.readAt("rw", 5, 0)
	s.close("rw")
	s.open("x", "t-0/missing.log", "open")
	s.open("x", "t-0/missing.log", "rw")
	s.open("x", "nodir/a.log", "create")
	s.open("x", "t-0/00.log/a", "create")
	s.open("x", "t-0", "create")
	s.stat("t-0")
	s.stat("t-0/00.log")
	s.stat("t-0/00.index")
	s.stat("t-0/missing")
	s.stat("t-0/00.log/a")
	s.list("t-0")
	s.list("missing")
	s.rename("t-0/00.index", "t-0/01.index")
	s.rename("t-0/missing", "t-0/x")
	s.rename("t-0/01.index", "t-0/00.log") // replaces a file
	s.rename("t-0/00.log", "t-0")          // onto a directory
	s.rename("t-0/00.log", "nodir/x")
	s.list("t-0")
	s.readAt("idx", 8, 0) // the open handle follows its file through renames
	s.close("idx")
	s.mkdirAll("t-0/sub/deeper")
	s.mkdirAll("t-0/00.log/sub")
	s.mkdirAll("t-0/sub")
	s.remove("t-0/sub")
	s.remove("t-0/sub/deeper")
	s.remove("t-0/sub/deeper")
	s.remove("t-0/missing")
	s.open("c", "t-0/00.log", "create") // truncates
	s.fstat("c")
	s.close("c")
	s.rename("t-0/sub", "t-1")
	s.list("")
	s.list("t-0")
	s.syncDir("t-0")
	s.syncDir("missing")
}

// tree lists every file and directory under dir with its contents.
func tree(t *testing.T, fsys FS, dir string) []string {
	t.Helper()
	var out []string
	var walk func(string)
	walk = func(d string) {
		es, err := fsys.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			p := filepath.Join(d, e.Name())
			rel, _ := filepath.Rel(dir, p)
			if e.IsDir() {
				out = append(out, rel+"/")
				walk(p)
				continue
			}
			b, err := ReadFile(fsys, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d %x", rel, len(b), bytes.TrimRight(b, "\x00")))
		}
	}
	walk(dir)
	return out
}

// Issue 13, "Tests that must exist": the in-memory and OS filesystems give identical
// files, and the same errors for the same mistakes (compared by errors.Is and by the
// operation and file the error names). MemFS resolves the same absolute base path as the
// temporary directory, so even the paths in the errors are the same.
func TestMemFSBehavesAsOS(t *testing.T) {
	base := t.TempDir()
	mem := NewMemFS()
	if err := mem.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(fsys FS) ([]string, []string) {
		s := &script{fs: fsys, base: base, files: map[string]File{}}
		s.run()
		return s.out, tree(t, fsys, base)
	}
	osOut, osTree := run(OS)
	// A second run on the same directory would see the first run's files: clear it.
	clearDir(t, base)
	for _, fsys := range []struct {
		name string
		fs   FS
	}{{"MemFS", mem}, {"OS again, through FaultFS", NewFaultFS(OS, nil)}} {
		out, tr := run(fsys.fs)
		clearDir(t, base)
		for i := range max(len(out), len(osOut)) {
			var a, b string
			if i < len(osOut) {
				a = osOut[i]
			}
			if i < len(out) {
				b = out[i]
			}
			if a != b {
				t.Errorf("%s step %d:\n  OS:  %s\n  got: %s", fsys.name, i, a, b)
			}
		}
		if strings.Join(tr, "\n") != strings.Join(osTree, "\n") {
			t.Errorf("%s: final tree\n%s\nOS's:\n%s", fsys.name, strings.Join(tr, "\n"), strings.Join(osTree, "\n"))
		}
	}
	if testing.Verbose() {
		t.Log(strings.Join(osOut, "\n"))
	}
}

func clearDir(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
