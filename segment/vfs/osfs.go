package vfs

import (
	"io/fs"
	"os"
)

// OS is the real filesystem, package os with nothing added: what every command uses on
// users' files.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Open(name string) (File, error) { return openOS(name, os.O_RDONLY, 0) }

// Create uses mode 0644, as the segment writer always has.
func (osFS) Create(name string) (File, error) {
	return openOS(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (osFS) OpenReadWrite(name string) (File, error) { return openOS(name, os.O_RDWR, 0) }

// openOS keeps a failed open's result a nil File, not a File holding a nil *os.File.
func openOS(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (osFS) Rename(oldname, newname string) error         { return os.Rename(oldname, newname) }
func (osFS) Remove(name string) error                     { return os.Remove(name) }
func (osFS) Stat(name string) (fs.FileInfo, error)        { return os.Stat(name) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error)   { return os.ReadDir(name) }
func (osFS) MkdirAll(name string, perm fs.FileMode) error { return os.MkdirAll(name, perm) }

// SyncDir opens the directory read-only and fsyncs it (Linux and the BSDs honour this;
// docs/vfs.md says what is not modelled elsewhere).
func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
