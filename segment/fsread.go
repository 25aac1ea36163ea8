package segment

import (
	"errors"
	"fmt"
	"io/fs"
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
	return &OffsetIndex{f, n, validSlots(f.data, n, OffsetIndexEntrySize, 0)}, nil
}

// TimeIndexFromBytes is OpenTimeIndex on data, a .timeindex file's whole contents.
func TimeIndexFromBytes(path string, baseOffset int64, data []byte) (*TimeIndex, error) {
	f, err := indexFromBytes(path, baseOffset, data)
	if err != nil {
		return nil, err
	}
	n := len(f.data) / TimeIndexEntrySize
	return &TimeIndex{f, n, validSlots(f.data, n, TimeIndexEntrySize, 8)}, nil
}

func indexFromBytes(path string, baseOffset int64, data []byte) (indexFile, error) {
	if int64(len(data)) > maxIndexFile {
		return indexFile{}, fmt.Errorf("%s: %d bytes is larger than any Kafka index (segment.index.bytes is an int32)", path, len(data))
	}
	var regions []fileRegion
	if len(data) > 0 {
		regions = []fileRegion{{0, int64(len(data))}}
	}
	return indexFile{Path: path, BaseOffset: baseOffset, FileSize: int64(len(data)), data: data, regions: regions}, nil
}

// OpenSegmentFS is OpenSegment on fsys: on vfs.OS it is OpenSegment itself; on another
// filesystem the three files are read whole, the indexes first (as OpenSegmentWith does). A
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
	if data, err := vfs.ReadFile(fsys, stem+IndexSuffix); err == nil {
		if s.Index, err = OffsetIndexFromBytes(stem+IndexSuffix, base, data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if data, err := vfs.ReadFile(fsys, stem+TimeIndexSuffix); err == nil {
		if s.TimeIndex, err = TimeIndexFromBytes(stem+TimeIndexSuffix, base, data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, err := vfs.ReadFile(fsys, logPath)
	if err != nil {
		return nil, err
	}
	s.Log = LogFileFromBytes(logPath, data)
	return s, nil
}
