package vfs

import (
	"errors"
	"os"
)

// The in-memory filesystem returns package os's error shapes with the errno Linux gives,
// so callers (and the tests comparing it with the OS) check both with errors.Is the same
// way.

func pathError(op, name string, err error) error {
	return &os.PathError{Op: op, Path: name, Err: err}
}

func linkError(oldname, newname string, err error) error {
	return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
}

// errNegativeOffset is the text package os gives for ReadAt and WriteAt below 0.
var errNegativeOffset = errors.New("negative offset")
