package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// OpKind is a kind of filesystem operation, as FaultFS counts and names them.
type OpKind int

// The kinds. Read kinds never change a filesystem; write kinds may.
const (
	OpOpen          OpKind = iota // FS.Open (read-only)
	OpRead                        // File.ReadAt
	OpStat                        // FS.Stat and File.Stat
	OpReadDir                     // FS.ReadDir
	OpCreate                      // FS.Create
	OpOpenReadWrite               // FS.OpenReadWrite
	OpWrite                       // File.Write and File.WriteAt
	OpTruncate                    // File.Truncate
	OpSync                        // File.Sync
	OpSyncDir                     // FS.SyncDir
	OpRename                      // FS.Rename
	OpRemove                      // FS.Remove
	OpMkdirAll                    // FS.MkdirAll
	numOpKinds
)

var opNames = [numOpKinds]string{"open", "read", "stat", "readdir", "create", "open-read-write",
	"write", "truncate", "sync", "sync-dir", "rename", "remove", "mkdir-all"}

func (k OpKind) String() string {
	if k < 0 || k >= numOpKinds {
		return fmt.Sprintf("OpKind(%d)", int(k))
	}
	return opNames[k]
}

// IsRead reports whether k only reads: a reader of a user's directory uses these kinds
// and no others.
func (k OpKind) IsRead() bool { return k <= OpReadDir }

// Op is one operation about to run: its kind, the file (for a rename, the old name), and
// for reads and writes the offset and length (-1 for a sequential Write).
type Op struct {
	Kind   OpKind
	Path   string
	Offset int64
	Len    int
}

// Fault is what an Injector makes of an operation. Keep is, for a write, how many bytes
// are written before Err is returned (a short or partial write); every other operation
// does nothing when it faults.
type Fault struct {
	Err  error
	Keep int
}

// Injector decides, before each operation of a FaultFS, whether it faults (nil: it runs).
// String describes it so that a failing run prints what to replay. Implementations must be
// safe for concurrent use when the FaultFS is used concurrently.
type Injector interface {
	Inject(Op) *Fault
	String() string
}

// ErrInjected is in the chain of every error an injector made up (errors.Is), next to
// the errno it imitates.
var ErrInjected = errors.New("injected fault")

type injectedError struct{ errno syscall.Errno }

func (e injectedError) Error() string   { return "injected: " + e.errno.Error() }
func (e injectedError) Unwrap() []error { return []error{ErrInjected, e.errno} }

// EIO is an I/O error: the operation does nothing and fails with syscall.EIO.
func EIO() Fault { return Fault{Err: injectedError{syscall.EIO}} }

// ShortWrite writes only k bytes and fails with io.ErrShortWrite, as a writer that lost
// the rest would.
func ShortWrite(k int) Fault { return Fault{Err: io.ErrShortWrite, Keep: k} }

// NoSpace is a full disk: k bytes are written (what fitted), then syscall.ENOSPC.
func NoSpace(k int) Fault { return Fault{Err: injectedError{syscall.ENOSPC}, Keep: k} }

func (f Fault) String() string {
	switch {
	case errors.Is(f.Err, io.ErrShortWrite):
		return fmt.Sprintf("short-write %d", f.Keep)
	case errors.Is(f.Err, syscall.ENOSPC):
		return fmt.Sprintf("enospc %d", f.Keep)
	case errors.Is(f.Err, syscall.EIO):
		return "eio"
	}
	return fmt.Sprintf("%v keep %d", f.Err, f.Keep)
}

// Nth faults the n-th operation (1 for the first) of kind, once: the operations of that
// kind are counted from the injector's creation, whatever their file.
func Nth(kind OpKind, n int, f Fault) Injector { return &nth{kind: kind, n: n, fault: f} }

type nth struct {
	mu    sync.Mutex
	kind  OpKind
	n     int
	seen  int
	fault Fault
}

func (i *nth) Inject(op Op) *Fault {
	if op.Kind != i.kind {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.seen++
	if i.seen != i.n {
		return nil
	}
	f := i.fault
	return &f
}

func (i *nth) String() string { return fmt.Sprintf("nth(%s, %d, %s)", i.kind, i.n, i.fault) }

// InjectorFunc makes a function an Injector, e.g. one that takes a MemFS.CrashClone at
// the k-th write and lets the run go on.
type InjectorFunc func(Op) *Fault

// Inject calls f.
func (f InjectorFunc) Inject(op Op) *Fault { return f(op) }
func (f InjectorFunc) String() string      { return "func" }

// FaultFS wraps an FS, asking its Injector before each operation; an operation that
// faults returns an *os.PathError (an *os.LinkError for a rename) naming the operation
// kind and the file, wrapping the fault's error.
type FaultFS struct {
	FS       FS
	Injector Injector
}

// NewFaultFS wraps fs.
func NewFaultFS(fs FS, inj Injector) *FaultFS { return &FaultFS{FS: fs, Injector: inj} }

func (f *FaultFS) fault(op Op) *Fault {
	if f.Injector == nil {
		return nil
	}
	return f.Injector.Inject(op)
}

func (f *FaultFS) check(kind OpKind, name string) error {
	if ft := f.fault(Op{Kind: kind, Path: name}); ft != nil {
		return pathError(kind.String(), name, ft.Err)
	}
	return nil
}

func (f *FaultFS) wrap(kind OpKind, name string, open func(string) (File, error)) (File, error) {
	if err := f.check(kind, name); err != nil {
		return nil, err
	}
	file, err := open(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, name: name}, nil
}

// Open opens a file read-only.
func (f *FaultFS) Open(name string) (File, error) { return f.wrap(OpOpen, name, f.FS.Open) }

// Create creates or truncates a file.
func (f *FaultFS) Create(name string) (File, error) { return f.wrap(OpCreate, name, f.FS.Create) }

// OpenReadWrite opens an existing file for reading and writing.
func (f *FaultFS) OpenReadWrite(name string) (File, error) {
	return f.wrap(OpOpenReadWrite, name, f.FS.OpenReadWrite)
}

// Rename renames oldname to newname.
func (f *FaultFS) Rename(oldname, newname string) error {
	if ft := f.fault(Op{Kind: OpRename, Path: oldname}); ft != nil {
		return &os.LinkError{Op: OpRename.String(), Old: oldname, New: newname, Err: ft.Err}
	}
	return f.FS.Rename(oldname, newname)
}

// Remove removes a file or an empty directory.
func (f *FaultFS) Remove(name string) error {
	if err := f.check(OpRemove, name); err != nil {
		return err
	}
	return f.FS.Remove(name)
}

// Stat describes a file or directory.
func (f *FaultFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.check(OpStat, name); err != nil {
		return nil, err
	}
	return f.FS.Stat(name)
}

// ReadDir lists a directory.
func (f *FaultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.check(OpReadDir, name); err != nil {
		return nil, err
	}
	return f.FS.ReadDir(name)
}

// MkdirAll creates a directory and its parents.
func (f *FaultFS) MkdirAll(name string, perm fs.FileMode) error {
	if err := f.check(OpMkdirAll, name); err != nil {
		return err
	}
	return f.FS.MkdirAll(name, perm)
}

// SyncDir syncs a directory.
func (f *FaultFS) SyncDir(name string) error {
	if err := f.check(OpSyncDir, name); err != nil {
		return err
	}
	return f.FS.SyncDir(name)
}

type faultFile struct {
	File
	fs   *FaultFS
	name string
}

func (f *faultFile) ReadAt(p []byte, off int64) (int, error) {
	if ft := f.fs.fault(Op{Kind: OpRead, Path: f.name, Offset: off, Len: len(p)}); ft != nil {
		return 0, pathError(OpRead.String(), f.name, ft.Err)
	}
	return f.File.ReadAt(p, off)
}

func (f *faultFile) WriteAt(p []byte, off int64) (int, error) {
	if ft := f.fs.fault(Op{Kind: OpWrite, Path: f.name, Offset: off, Len: len(p)}); ft != nil {
		return f.partial(ft, p, func(q []byte) (int, error) { return f.File.WriteAt(q, off) })
	}
	return f.File.WriteAt(p, off)
}

func (f *faultFile) Write(p []byte) (int, error) {
	if ft := f.fs.fault(Op{Kind: OpWrite, Path: f.name, Offset: -1, Len: len(p)}); ft != nil {
		return f.partial(ft, p, f.File.Write)
	}
	return f.File.Write(p)
}

// partial writes the fault's Keep bytes of p, then reports the fault.
func (f *faultFile) partial(ft *Fault, p []byte, write func([]byte) (int, error)) (int, error) {
	n := 0
	if k := min(max(ft.Keep, 0), len(p)); k > 0 {
		var err error
		if n, err = write(p[:k]); err != nil {
			return n, err
		}
	}
	return n, pathError(OpWrite.String(), f.name, ft.Err)
}

func (f *faultFile) Truncate(size int64) error {
	if ft := f.fs.fault(Op{Kind: OpTruncate, Path: f.name, Offset: size}); ft != nil {
		return pathError(OpTruncate.String(), f.name, ft.Err)
	}
	return f.File.Truncate(size)
}

func (f *faultFile) Sync() error {
	if err := f.fs.check(OpSync, f.name); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Stat() (fs.FileInfo, error) {
	if err := f.fs.check(OpStat, f.name); err != nil {
		return nil, err
	}
	return f.File.Stat()
}
