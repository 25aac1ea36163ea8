package vfs

import (
	"io"
	"io/fs"
)

// FS is the part of a filesystem kidx's storage code uses. Names are paths as package os
// takes them. Errors are *os.PathError (*os.LinkError for Rename) whose Err compares with
// errors.Is against fs.ErrNotExist, fs.ErrExist, fs.ErrClosed and the syscall errnos, as
// package os's do.
type FS interface {
	// Open opens an existing file read-only.
	Open(name string) (File, error)
	// Create creates a file for reading and writing, truncating it if it exists
	// (O_RDWR|O_CREATE|O_TRUNC).
	Create(name string) (File, error)
	// OpenReadWrite opens an existing file for reading and writing without truncating it
	// (O_RDWR); a missing file is an error.
	OpenReadWrite(name string) (File, error)
	// Rename renames (moves) oldname to newname, replacing a file there.
	Rename(oldname, newname string) error
	// Remove removes a file or an empty directory.
	Remove(name string) error
	// Stat describes a file or directory.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists a directory, sorted by name, as os.ReadDir does.
	ReadDir(name string) ([]fs.DirEntry, error)
	// MkdirAll creates a directory and its missing parents.
	MkdirAll(name string, perm fs.FileMode) error
	// SyncDir makes a directory's entries durable (fsync on the directory): which names
	// exist and which file each names. Without it a created, renamed or removed name may
	// not survive a crash (docs/vfs.md).
	SyncDir(name string) error
}

// File is an open file. ReadAt and WriteAt do not move the offset that Write advances.
type File interface {
	io.ReaderAt
	io.WriterAt
	io.Writer
	io.Closer
	// Truncate changes the file's size; growing it adds zeros.
	Truncate(size int64) error
	// Sync makes the file's contents durable (fsync). It does not make the file's name
	// durable: that is SyncDir on its directory.
	Sync() error
	// Stat describes the open file.
	Stat() (fs.FileInfo, error)
}
