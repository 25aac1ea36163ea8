package segment

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// The swap of a clean (docs/segment.md "The swap"): LocalLog.replaceSegments, the same in
// 3.7 (kafka.log.LocalLog) and 4.0 to trunk (storage's LocalLog), every rename through the
// vfs so that a crash can fall between any two (docs/crash.md "A crash in a clean's swap").

// segmentFileSuffixes are the files LogSegment.changeFileSuffixes renames, in its order: the
// .log, the offset index, the time index (then the .txnindex, which the writer never writes).
var segmentFileSuffixes = []string{LogSuffix, IndexSuffix, TimeIndexSuffix}

// changeFileSuffixes is LogSegment.changeFileSuffixes(from, to) on the segment at base.
func (l *Log) changeFileSuffixes(base int64, from, to string) error {
	stem := filepath.Join(l.dir, FilenamePrefixFromOffset(base))
	for _, suf := range segmentFileSuffixes {
		if err := l.fs.Rename(stem+suf+from, stem+suf+to); err != nil {
			return err
		}
	}
	return nil
}

// replaceSegments is LocalLog.replaceSegments(newSegments = the cleaned segment at base,
// oldSegments = group), isRecoveredSwapFile false:
//  1. each new segment, last first, renamed .cleaned → .swap;
//  2. each old segment, in offset order, renamed to .deleted (deleteSegmentFiles with
//     asyncDelete: the removal itself is scheduled file.delete.delay.ms later);
//  3. each new segment, in order, renamed .swap → its final name;
//  4. the directory flushed (Utils.flushDir).
//
// A crash before 4 leaves the names to LogLoader, which completes or discards the swap
// (LoadAfterCrash).
func (l *Log) replaceSegments(base int64, group []cleanSource) error {
	if err := l.changeFileSuffixes(base, CleanedSuffix, SwapSuffix); err != nil {
		return err
	}
	for _, s := range group {
		if err := l.changeFileSuffixes(s.base, "", DeletedSuffix); err != nil {
			return err
		}
	}
	if err := l.changeFileSuffixes(base, SwapSuffix, ""); err != nil {
		return err
	}
	return l.fs.SyncDir(l.dir)
}

// removeDeletedFiles is LogSegment.deleteIfExists on a replaced segment whose files carry the
// .deleted suffix: the .log, then the offset index, then the time index.
func (l *Log) removeDeletedFiles(s cleanSource) error {
	stem := filepath.Join(l.dir, FilenamePrefixFromOffset(s.base))
	var errs []error
	for _, suf := range segmentFileSuffixes {
		if err := l.fs.Remove(stem + suf + DeletedSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
