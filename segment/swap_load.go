package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"kidx/segment/vfs"
)

// What a broker's start does with a swap a crash interrupted (docs/crash.md "A crash in a
// clean's swap"): LogLoader.load's first passes, before any segment is opened. The same
// passes run in 3.7 (kafka.log.LogLoader) and 4.0 to trunk (storage's LogLoader).

// SwapLoad says what those passes did.
type SwapLoad struct {
	// Temp are the .deleted and .cleaned files removed, and the .swap files removed because
	// their base offset is at or above the smallest .cleaned one (KAFKA-6264).
	Temp []string `json:"temp,omitempty"`
	// Swapped are the base offsets of the .swap segments renamed into place.
	Swapped []int64 `json:"swapped,omitempty"`
	// Replaced are the files removed because their base offset lies in the swapped segments'
	// offsets ("compacted but has not been deleted yet").
	Replaced []string `json:"replaced,omitempty"`
}

// completeSwaps is LogLoader.load up to loadSegmentFiles:
//  1. removeTempFilesAndCollectSwapFiles: every *.deleted file removed; every .swap file whose
//     base offset is at or above the smallest .cleaned file's removed (KAFKA-6264: part of an
//     unfinished split); every .cleaned file removed;
//  2. each remaining .log.swap opened as a segment (LogSegment.open with the ".swap" suffix,
//     which creates a missing .index.swap preallocated, as AbstractIndex does) and its offsets
//     taken: from the smallest base offset to the largest readNextOffset;
//  3. every other file whose base offset lies in [min, max) removed (the replaced segments);
//  4. every .swap file renamed to its name without the suffix.
func completeSwaps(fsys vfs.FS, dir string, cfg Config) (*SwapLoad, error) {
	load := &SwapLoad{}
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	remove := func(name string, into *[]string) error {
		if err := fsys.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		*into = append(*into, name)
		return nil
	}
	var swaps, cleaned []string
	minCleaned := int64(-1)
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		// LogFileUtils.offsetFromFile: the digits before the first dot. A name without them is
		// no file of Kafka's (its parse would throw); it is left alone.
		base, err := OffsetFromFileName(name)
		ok := err == nil
		switch {
		case strings.HasSuffix(name, DeletedSuffix):
			if err := remove(name, &load.Temp); err != nil {
				return nil, err
			}
		case strings.HasSuffix(name, CleanedSuffix) && ok:
			cleaned = append(cleaned, name)
			if minCleaned < 0 || base < minCleaned {
				minCleaned = base
			}
		case strings.HasSuffix(name, SwapSuffix) && ok:
			swaps = append(swaps, name)
		}
	}
	var valid []string
	for _, name := range swaps {
		base, _ := OffsetFromFileName(name)
		if minCleaned >= 0 && base >= minCleaned {
			if err := remove(name, &load.Temp); err != nil {
				return nil, err
			}
			continue
		}
		valid = append(valid, name)
	}
	for _, name := range cleaned {
		if err := remove(name, &load.Temp); err != nil {
			return nil, err
		}
	}
	lo, hi := int64(-1), int64(-1)
	for _, name := range valid {
		if !strings.HasSuffix(name, LogSuffix+SwapSuffix) {
			continue
		}
		base, _ := OffsetFromFileName(name)
		next, err := swapNextOffset(fsys, dir, base, cfg)
		if err != nil {
			return nil, err
		}
		if lo < 0 || base < lo {
			lo = base
		}
		hi = max(hi, next)
		load.Swapped = append(load.Swapped, base)
	}
	if lo >= 0 {
		if ents, err = fsys.ReadDir(dir); err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.IsDir() || strings.HasSuffix(e.Name(), SwapSuffix) {
				continue
			}
			// LogFileUtils.offsetFromFile: the 20 digits before the first dot.
			if base, err := OffsetFromFileName(e.Name()); err == nil && base >= lo && base < hi {
				if err := remove(e.Name(), &load.Replaced); err != nil {
					return nil, err
				}
			}
		}
	}
	if ents, err = fsys.ReadDir(dir); err != nil {
		return nil, err
	}
	for _, e := range ents {
		if stem, ok := strings.CutSuffix(e.Name(), SwapSuffix); ok && !e.IsDir() {
			if err := fsys.Rename(filepath.Join(dir, e.Name()), filepath.Join(dir, stem)); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(load.Swapped)
	return load, nil
}

// swapNextOffset is LogSegment.readNextOffset on the .swap segment at base: the offset after
// its last whole batch, its base offset when it has none. Opening the segment creates a
// missing .index.swap, preallocated to segment.index.bytes (AbstractIndex.createAndAssignMmap),
// as Kafka's LogSegment.open does; LogLoader never closes or trims it.
func swapNextOffset(fsys vfs.FS, dir string, base int64, cfg Config) (int64, error) {
	stem := filepath.Join(dir, FilenamePrefixFromOffset(base))
	idx := stem + IndexSuffix + SwapSuffix
	if _, err := fsys.Stat(idx); errors.Is(err, fs.ErrNotExist) {
		f, err := fsys.Create(idx)
		if err != nil {
			return 0, err
		}
		if err := errors.Join(f.Truncate(cfg.SegmentIndexBytes/OffsetIndexEntrySize*OffsetIndexEntrySize), f.Close()); err != nil {
			return 0, err
		}
	}
	path := stem + LogSuffix + SwapSuffix
	f, err := fsys.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	next := base
	lf := logFileOn(path, f, st.Size())
	defer lf.Close()
	lf.Walk(0, 0, func(b BatchInfo) bool {
		next = b.LastOffset() + 1
		return true
	})
	if next < base {
		return 0, fmt.Errorf("%s: a batch's last offset lies below the base offset", path)
	}
	return next, nil
}
