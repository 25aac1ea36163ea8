package fuzz

import (
	"os"
	"path/filepath"

	"kidx/model"
	"kidx/segment/vfs"
)

// compareCrashedDir is compareDir on the crashed (and reloaded) partition directory of fsys.
func compareCrashedDir(segs []*model.Segment, fsys vfs.FS) (kind, what string, err error) {
	dir, err := os.MkdirTemp(tempRoot, "kidx-crash-*")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(dir)
	ents, err := fsys.ReadDir(crashPartition)
	if err != nil {
		return "", "", err
	}
	part := filepath.Join(dir, filepath.Base(crashPartition))
	if err := os.Mkdir(part, 0o755); err != nil {
		return "", "", err
	}
	for _, e := range ents {
		data, err := vfs.ReadFile(fsys, filepath.Join(crashPartition, e.Name()))
		if err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(part, e.Name()), data, 0o644); err != nil {
			return "", "", err
		}
	}
	return compareDir(segs, part)
}
