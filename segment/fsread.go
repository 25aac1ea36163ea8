package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"kidx/segment/vfs"
)

// Readers over files of any filesystem (docs/vfs.md): the in-memory filesystem of the
// differential and crash harnesses, or bytes a fuzzer made. The OS keeps its own readers
// (mapped .log, sparse index reads, never a write); these read a file whole into memory.

// OffsetIndexFromBytes is OpenOffsetIndex on data, an .index file's whole contents.
func OffsetIndexFromBytes(path string, baseOffset int64, data []byte) (*OffsetIndex, error) {
	f, err := indexFromBytes(path, baseOffset, data)
	if err != nil {
		return nil, err
	}
	n := len(f.data) / OffsetIndexEntrySize
	return &OffsetIndex{f, n, validSlots(&f, n, OffsetIndexEntrySize, 0)}, nil
}

// TimeIndexFromBytes is OpenTimeIndex on data, a .timeindex file's whole contents.
func TimeIndexFromBytes(path string, baseOffset int64, data []byte) (*TimeIndex, error) {
	f, err := indexFromBytes(path, baseOffset, data)
	if err != nil {
		return nil, err
	}
	n := len(f.data) / TimeIndexEntrySize
	return &TimeIndex{f, n, validSlots(&f, n, TimeIndexEntrySize, 8)}, nil
}

func indexFromBytes(path string, baseOffset int64, data []byte) (indexFile, error) {
	if int64(len(data)) > maxIndexFile {
		return indexFile{}, fmt.Errorf("%s: %d bytes is larger than any Kafka index (segment.index.bytes is an int32)", path, len(data))
	}
	var regions []fileRegion
	if len(data) > 0 {
		regions = []fileRegion{{0, int64(len(data))}}
	}
	return indexFile{Path: path, BaseOffset: baseOffset, FileSize: int64(len(data)), data: data, length: int64(len(data)), regions: regions}, nil
}

// ReadFileShared is vfs.ReadFile, without the copy on a filesystem that can share a file's
// bytes (vfs.MemFS.ReadFileShared): the caller must not modify them.
func ReadFileShared(fsys vfs.FS, name string) ([]byte, error) {
	if s, ok := fsys.(interface {
		ReadFileShared(string) ([]byte, error)
	}); ok {
		return s.ReadFileShared(name)
	}
	return vfs.ReadFile(fsys, name)
}

// OpenSegmentFS is OpenSegment on fsys: on vfs.OS it is OpenSegment itself; on another
// filesystem the three files are read whole (ReadFileShared), the indexes first (as OpenSegmentWith does). A
// missing index is nil, as for OpenSegment.
func OpenSegmentFS(fsys vfs.FS, logPath string) (*Segment, error) {
	if fsys == vfs.OS {
		return OpenSegment(logPath)
	}
	base := baseFromName(logPath)
	if base < 0 {
		return nil, &FormatError{File: logPath, Msg: "file name does not start with a base offset"}
	}
	s := &Segment{BaseOffset: base}
	stem := strings.TrimSuffix(logPath, LogSuffix)
	if data, err := ReadFileShared(fsys, stem+IndexSuffix); err == nil {
		if s.Index, err = OffsetIndexFromBytes(stem+IndexSuffix, base, data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if data, err := ReadFileShared(fsys, stem+TimeIndexSuffix); err == nil {
		if s.TimeIndex, err = TimeIndexFromBytes(stem+TimeIndexSuffix, base, data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, err := ReadFileShared(fsys, logPath)
	if err != nil {
		return nil, err
	}
	// LogFileFromBytes reads the bytes in place: no copy, and no guard against the faults of a
	// mapped file, which bytes in memory cannot raise.
	s.Log = LogFileFromBytes(logPath, data)
	return s, nil
}

// SegmentSetsFS lists the segment sets of the partition directory dir on fsys, by base offset,
// grouping its regular files as ScanDir's partition scan does (the same names count: 20-digit
// base offset and a segment suffix, not transitional). Everything else (directories,
// checkpoints, snapshots, stray names) is left out without a finding: this is for directories
// a writer of kidx's made, not a user's (ScanDir reports those).
func SegmentSetsFS(fsys vfs.FS, dir string) ([]SegmentFiles, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []SegmentFiles
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		base, kind, ok := SegmentFileOf(e.Name())
		if !ok {
			continue
		}
		// FS.ReadDir sorts by name and a segment file's name starts with its base offset in
		// 20 digits and a '.', so a set's files are adjacent and the sets come in offset order.
		if n := len(out); n == 0 || out[n-1].BaseOffset != base {
			out = append(out, SegmentFiles{BaseOffset: base})
		}
		out[len(out)-1].SetFile(kind, filepath.Join(dir, e.Name()))
	}
	return out, nil
}
