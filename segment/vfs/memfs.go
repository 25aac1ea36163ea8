package vfs

import (
	"io"
	"io/fs"
	"maps"
	"math/bits"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MemFS is a filesystem in memory, safe for concurrent use. It keeps what a crash needs:
//
//   - per file, its contents as of its last Sync apart from its current contents, and the
//     ordered list of changes (writes and truncates) made since;
//   - per directory, its entries as of its last SyncDir apart from its current entries.
//
// As in Pebble's in-memory filesystem, a name (created, renamed or removed) is durable only
// once its directory is synced: syncing a file makes its bytes durable, not its name. The
// root directory always exists. Absolute and relative names resolve from the same root, so
// "/a" and "a" are one file. Modification times are not kept (the zero time).
//
// The zero MemFS is not usable; call [NewMemFS].
type MemFS struct {
	mu   sync.Mutex
	root *memNode
	// free holds the arrays of the files Reset dropped, for the files written after it, by
	// size class: free[k] has capacities in [2^k, 2^(k+1)). freeBytes is their total.
	free      [maxFreeClass + 1][][]byte
	freeBytes int
}

// Reuse bounds: memory kept, arrays per class, and the largest class kept (1 GiB).
const (
	maxFreeBytes    = 64 << 20
	maxFreePerClass = 512
	maxFreeClass    = 30
)

// Reset empties m, as NewMemFS would make it, and keeps the arrays that held its files'
// bytes for the files written next: a harness that needs an empty filesystem per case saves
// their allocation, zeroing and growth. Every byte slice m handed out before (ReadFileShared,
// the changes given to CrashCloneFunc's choose) is invalid after Reset, and so is every
// file open on m. Clones taken before (CrashClone) are unaffected: they copied.
func (m *MemFS) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recycle(m.root)
	m.root = newDir(0o755)
}

func (m *MemFS) recycle(dir *memNode) {
	for _, n := range dir.children {
		if n.dir {
			m.recycle(n)
			continue
		}
		c := cap(n.data.b)
		k := bits.Len(uint(c)) - 1 // 2^k <= c
		if c == 0 || k > maxFreeClass || len(m.free[k]) >= maxFreePerClass || m.freeBytes+c > maxFreeBytes {
			continue
		}
		m.free[k] = append(m.free[k], n.data.b[:0])
		m.freeBytes += c
	}
}

// take returns an empty array of capacity at least want from the free list (the most recently
// freed of the smallest class that fits), or nil. For a file's first array (growing false) the
// array is at most about four times want: a small file does not take the array a large one
// will need. A file that outgrew its array takes any: it is being appended to.
func (m *MemFS) take(want int, growing bool) []byte {
	k := bits.Len(uint(want - 1)) // 2^k >= want: every array of class k fits
	last := maxFreeClass
	if !growing {
		last = min(k+2, maxFreeClass)
	}
	for c := k; c <= last; c++ {
		if n := len(m.free[c]); n > 0 {
			b := m.free[c][n-1]
			m.free[c][n-1] = nil
			m.free[c] = m.free[c][:n-1]
			m.freeBytes -= cap(b)
			return b
		}
	}
	return nil
}

// NewMemFS returns an empty filesystem holding only its root directory.
func NewMemFS() *MemFS { return &MemFS{root: newDir(0o755)} }

// memNode is a file or a directory (an inode: a rename moves the node, not its bytes).
type memNode struct {
	dir  bool
	mode fs.FileMode
	// Directories.
	children, syncedChildren map[string]*memNode
	// changed names the entries of children set or removed since the last SyncDir, which
	// then updates syncedChildren by them alone (a partition directory is synced at every
	// roll: copying all its entries each time would cost the square of their number).
	changed []string
	// Files.
	data, synced image
	unsynced     []Change
}

func newDir(perm fs.FileMode) *memNode {
	return &memNode{dir: true, mode: fs.ModeDir | perm.Perm(), children: map[string]*memNode{}, syncedChildren: map[string]*memNode{}}
}

func (d *memNode) setChild(name string, n *memNode) {
	d.children[name] = n
	d.changed = append(d.changed, name)
}

func (d *memNode) removeChild(name string) {
	delete(d.children, name)
	d.changed = append(d.changed, name)
}

// image is a file's bytes: b, then zeros up to size. Growing a file by Truncate (the
// segment writer preallocates 10 MiB indexes) costs no memory.
//
// Bytes are copied once per write, into b. The synced image and the recorded changes are
// slices of b's array, not copies of it: b[:shared] may be seen by them, so a change that
// would alter any of those bytes first moves b to a new array (copy on write). The writers
// kidx runs append and trim, so that copy is rare.
type image struct {
	b      []byte
	size   int64
	shared int
}

func (im image) clone() image { return image{b: slices.Clone(im.b), size: im.size} }

// share returns an image of the same bytes for another holder (the synced image) and marks
// them shared.
func (im *image) share() image {
	n := len(im.b)
	im.shared = max(im.shared, n)
	return image{b: im.b[:n:n], size: im.size}
}

// writeAt writes p at off and returns the written bytes as they now stand in the image, for
// the change log; the caller marks them shared. A new array comes from m's free list when m
// is not nil.
func (im *image) writeAt(p []byte, off int64, m *MemFS) []byte {
	end := off + int64(len(p))
	old := int64(len(im.b))
	// The bytes this write alters are [off, end) and the zeros it fills in [old, off); past
	// len(b) the array may also hold shared bytes from before a truncate.
	if min(off, old) < int64(im.shared) {
		im.b, im.shared = slices.Clone(im.b), 0
	}
	if end > old {
		if end > int64(cap(im.b)) {
			// A new array, private: grown to twice its size, so that a file written by
			// appends is copied about once in all (append's own growth is 1.25x for large
			// slices).
			want := int(max(end, 2*int64(cap(im.b)), 512))
			var nb []byte
			if m != nil {
				nb = m.take(want, cap(im.b) > 0)
			}
			if nb != nil {
				// A reused array holds old bytes past len: the clear below and the copy of
				// p cover everything up to end.
				nb = append(nb, im.b...)
			} else {
				// make clears only memory the runtime reuses (fresh pages are zero already),
				// where append(b, make(...)...) would clear the whole new part every time.
				nb = make([]byte, old, want)
				copy(nb, im.b)
			}
			im.b, im.shared = nb, 0
		}
		im.b = im.b[:end]
		clear(im.b[old:max(old, off)])
	}
	copy(im.b[off:], p)
	im.size = max(im.size, end)
	return im.b[off:end:end]
}

func (im *image) truncate(size int64) {
	if int64(len(im.b)) > size {
		im.b = im.b[:size]
	}
	im.size = size
}

func (im image) readAt(p []byte, off int64) int {
	if off >= im.size {
		return 0
	}
	n := int(min(int64(len(p)), im.size-off))
	c := 0
	if off < int64(len(im.b)) {
		c = copy(p[:n], im.b[off:])
	}
	clear(p[c:n])
	return n
}

// Change is one change to a file's contents made after its last Sync: a write of Data at
// Offset, or (Truncate) a truncate to Size.
type Change struct {
	Truncate bool
	Offset   int64
	Data     []byte
	Size     int64
}

func (c Change) apply(im *image) {
	if c.Truncate {
		im.truncate(c.Size)
	} else {
		im.writeAt(c.Data, c.Offset, nil)
	}
}

// change applies c to the file and records it. A write's Data may be the caller's buffer: the
// record keeps the image's copy of those bytes instead.
func (n *memNode) change(c Change, m *MemFS) {
	if c.Truncate {
		n.data.truncate(c.Size)
	} else {
		c.Data = n.data.writeAt(c.Data, c.Offset, m)
		n.data.shared = max(n.data.shared, int(c.Offset)+len(c.Data))
	}
	n.unsynced = append(n.unsynced, c)
}

// split turns a name into its components from the root, appended to parts (a caller's
// buffer, so that resolving a name allocates nothing); "" is not a name.
func split(name string, parts []string) ([]string, bool) {
	if name == "" {
		return nil, false
	}
	for p := range strings.SplitSeq(filepath.ToSlash(filepath.Clean(name)), "/") {
		if p != "" && p != "." && p != ".." {
			parts = append(parts, p)
		}
	}
	return parts, true
}

// walk resolves components from the root.
func (m *MemFS) walk(parts []string) (*memNode, error) {
	n := m.root
	for _, p := range parts {
		if !n.dir {
			return nil, syscall.ENOTDIR
		}
		c, ok := n.children[p]
		if !ok {
			return nil, syscall.ENOENT
		}
		n = c
	}
	return n, nil
}

// lookup resolves a whole name.
func (m *MemFS) lookup(name string) (*memNode, error) {
	var buf [8]string
	parts, ok := split(name, buf[:0])
	if !ok {
		return nil, syscall.ENOENT
	}
	return m.walk(parts)
}

// parent resolves the directory holding name, and name's last component ("" for the
// root).
func (m *MemFS) parent(name string) (*memNode, string, error) {
	var buf [8]string
	parts, ok := split(name, buf[:0])
	if !ok {
		return nil, "", syscall.ENOENT
	}
	if len(parts) == 0 {
		return nil, "", nil
	}
	dir, err := m.walk(parts[:len(parts)-1])
	if err != nil {
		return nil, "", err
	}
	if !dir.dir {
		return nil, "", syscall.ENOTDIR
	}
	return dir, parts[len(parts)-1], nil
}

func (m *MemFS) open(name string, write, create, trunc bool) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	switch {
	case err == syscall.ENOENT && create:
		dir, base, perr := m.parent(name)
		if perr != nil {
			return nil, pathError("open", name, perr)
		}
		if dir == nil {
			return nil, pathError("open", name, syscall.EISDIR)
		}
		n = &memNode{mode: 0o644}
		dir.setChild(base, n)
	case err != nil:
		return nil, pathError("open", name, err)
	case n.dir && write:
		return nil, pathError("open", name, syscall.EISDIR)
	case n.dir:
		// Reading a directory as a file is not modelled (docs/vfs.md); the OS would open it.
		return nil, pathError("open", name, syscall.EISDIR)
	case trunc && n.data.size > 0:
		n.change(Change{Truncate: true}, m)
	}
	return &memFile{fs: m, node: n, name: name, write: write}, nil
}

// Open opens an existing file read-only.
func (m *MemFS) Open(name string) (File, error) { return m.open(name, false, false, false) }

// Create creates or truncates a file. Truncating an existing file is a change like any
// other: a crash before the next Sync may undo it.
func (m *MemFS) Create(name string) (File, error) { return m.open(name, true, true, true) }

// OpenReadWrite opens an existing file for reading and writing.
func (m *MemFS) OpenReadWrite(name string) (File, error) { return m.open(name, true, false, false) }

// Rename moves a node; neither directory's synced entries change until SyncDir.
func (m *MemFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	odir, obase, err := m.parent(oldname)
	if err == nil && odir == nil {
		err = syscall.EBUSY
	}
	if err != nil {
		return linkError(oldname, newname, err)
	}
	n, ok := odir.children[obase]
	if !ok {
		return linkError(oldname, newname, syscall.ENOENT)
	}
	// package os refuses any existing directory as the target, before the kernel is asked.
	if t, err := m.lookup(newname); err == nil && t.dir && t != n {
		return linkError(oldname, newname, syscall.EEXIST)
	}
	ndir, nbase, err := m.parent(newname)
	if err == nil && ndir == nil {
		err = syscall.EBUSY
	}
	if err != nil {
		return linkError(oldname, newname, err)
	}
	if t, ok := ndir.children[nbase]; ok {
		if t == n {
			return nil
		}
		if n.dir && !t.dir {
			return linkError(oldname, newname, syscall.ENOTDIR)
		}
	}
	if n.dir && m.inside(ndir, n) {
		return linkError(oldname, newname, syscall.EINVAL)
	}
	odir.removeChild(obase)
	ndir.setChild(nbase, n)
	return nil
}

// inside reports whether d is dir or lies under it.
func (m *MemFS) inside(d, dir *memNode) bool {
	if d == dir {
		return true
	}
	for _, c := range dir.children {
		if c.dir && m.inside(d, c) {
			return true
		}
	}
	return false
}

// Remove removes a file or an empty directory.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parent(name)
	if err == nil && dir == nil {
		err = syscall.EBUSY
	}
	if err != nil {
		return pathError("remove", name, err)
	}
	n, ok := dir.children[base]
	if !ok {
		return pathError("remove", name, syscall.ENOENT)
	}
	if n.dir && len(n.children) > 0 {
		return pathError("remove", name, syscall.ENOTEMPTY)
	}
	dir.removeChild(base)
	return nil
}

// Stat describes a file or directory.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, pathError("stat", name, err)
	}
	return n.info(path.Base(filepath.ToSlash(filepath.Clean(name)))), nil
}

// ReadDir lists a directory sorted by name; its errors are os.ReadDir's (an "open" of a
// missing directory).
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return nil, pathError("open", name, err)
	}
	if !n.dir {
		return nil, pathError("readdirent", name, syscall.ENOTDIR)
	}
	names := make([]string, 0, len(n.children))
	for c := range n.children {
		names = append(names, c)
	}
	slices.Sort(names)
	out := make([]fs.DirEntry, len(names))
	for i, c := range names {
		out[i] = fs.FileInfoToDirEntry(n.children[c].info(c))
	}
	return out, nil
}

// ReadFileShared is ReadFile without the copy: name's contents as they stand, in memory the
// caller must not modify. Later changes to the file do not show in them: the file moves to a
// new array before it alters shared bytes. A file whose last bytes are a Truncate's zeros is
// copied (those zeros are not stored). Its errors are ReadFile's on a MemFS.
func (m *MemFS) ReadFileShared(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err == nil && n.dir {
		err = syscall.EISDIR
	}
	if err != nil {
		return nil, pathError("open", name, err)
	}
	if n.data.size > int64(len(n.data.b)) {
		b := make([]byte, n.data.size)
		copy(b, n.data.b)
		return b, nil
	}
	return n.data.share().b, nil
}

// MkdirAll creates a directory and its missing parents; a file in the way is ENOTDIR on
// its own name, as os.MkdirAll reports it.
func (m *MemFS) MkdirAll(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	parts, ok := split(name, nil)
	if !ok {
		return pathError("mkdir", name, syscall.ENOENT)
	}
	n := m.root
	for i, p := range parts {
		c, ok := n.children[p]
		if !ok {
			c = newDir(perm)
			n.setChild(p, c)
		} else if !c.dir {
			prefix := strings.Join(parts[:i+1], "/")
			if filepath.IsAbs(name) {
				prefix = "/" + prefix
			}
			return pathError("mkdir", filepath.FromSlash(prefix), syscall.ENOTDIR)
		}
		n = c
	}
	return nil
}

// SyncDir makes a directory's current entries its synced ones.
func (m *MemFS) SyncDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(name)
	if err != nil {
		return pathError("open", name, err)
	}
	if n.dir {
		if len(n.changed) > len(n.children) {
			n.syncedChildren = maps.Clone(n.children)
		} else {
			for _, name := range n.changed {
				if c, ok := n.children[name]; ok {
					n.syncedChildren[name] = c
				} else {
					delete(n.syncedChildren, name)
				}
			}
		}
		n.changed = n.changed[:0]
	}
	return nil
}

func (n *memNode) info(name string) fs.FileInfo {
	return memInfo{name: name, size: n.data.size, mode: n.mode}
}

type memInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64 {
	if i.mode.IsDir() {
		return 0
	}
	return i.size
}
func (i memInfo) Mode() fs.FileMode  { return i.mode }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i memInfo) Sys() any           { return nil }

// memFile is an open MemFS file; it locks the filesystem for each call.
type memFile struct {
	fs     *MemFS
	node   *memNode
	name   string
	write  bool
	offset int64
	closed bool
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, pathError("read", f.name, fs.ErrClosed)
	}
	if off < 0 {
		return 0, pathError("readat", f.name, errNegativeOffset)
	}
	n := f.node.data.readAt(p, off)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.writable(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, pathError("writeat", f.name, errNegativeOffset)
	}
	f.writeAt(p, off)
	return len(p), nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.writable(); err != nil {
		return 0, err
	}
	f.writeAt(p, f.offset)
	f.offset += int64(len(p))
	return len(p), nil
}

// writeAt records the write; the change keeps the file's copy of p, so the caller may reuse
// its buffer.
func (f *memFile) writeAt(p []byte, off int64) {
	if len(p) > 0 {
		f.node.change(Change{Offset: off, Data: p}, f.fs)
	}
}

func (f *memFile) writable() error {
	if f.closed {
		return pathError("write", f.name, fs.ErrClosed)
	}
	if !f.write {
		return pathError("write", f.name, syscall.EBADF)
	}
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return pathError("truncate", f.name, fs.ErrClosed)
	}
	if !f.write || size < 0 {
		return pathError("truncate", f.name, syscall.EINVAL)
	}
	if size != f.node.data.size {
		f.node.change(Change{Truncate: true, Size: size}, f.fs)
	}
	return nil
}

// Sync makes the current contents the synced ones and forgets the changes since.
func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return pathError("sync", f.name, fs.ErrClosed)
	}
	f.node.synced = f.node.data.share()
	f.node.unsynced = nil
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return nil, pathError("stat", f.name, fs.ErrClosed)
	}
	return f.node.info(path.Base(filepath.ToSlash(filepath.Clean(f.name)))), nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return pathError("close", f.name, fs.ErrClosed)
	}
	f.closed = true
	return nil
}
