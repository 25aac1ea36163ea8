package segment

import (
	"fmt"
	"io"
)

// dumpIndex is DumpLogSegments.dumpIndex.
func dumpIndex(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
	x, err := OpenOffsetIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Len() == 0 {
		res.Empty = true
		fmt.Fprintf(w, "%s is empty.\n", path)
		return nil
	}
	if opts.IndexSanityCheck {
		if err := x.SanityCheck(); err != nil {
			res.SanityCheck = err.Error()
			return err
		}
		res.SanityCheck = "passed"
		fmt.Fprintf(w, "%s passed sanity check.\n", path)
		return nil
	}
	lf, lerr := OpenLog(siblingPath(path, LogSuffix))
	if lerr == nil {
		defer lf.Close()
	}
	res.IndexEntries = []IndexEntry{}
	for i := 0; i < x.Len(); i++ {
		e := x.entry(i)
		if e.Offset == base && i > 0 {
			break
		}
		if lerr != nil {
			return lerr
		}
		b, err := lf.NextBatch(e.Position, min(lf.Size(), e.Position+opts.MaxMessageSize))
		if err == errNoBatch {
			return fmt.Errorf("%s: entry %d: no batch at position %d of %s (java.util.NoSuchElementException)", path, i, e.Position, lf.Path)
		}
		if err != nil {
			return err
		}
		if b.LastOffset() != e.Offset {
			res.IndexMismatches = append(res.IndexMismatches, [2]int64{e.Offset, b.LastOffset()})
		}
		res.IndexEntries = append(res.IndexEntries, e)
		if !opts.VerifyOnly {
			fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Position)
		}
	}
	return nil
}

// dumpTimeIndex is DumpLogSegments.dumpTimeIndex.
func dumpTimeIndex(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
	x, err := OpenTimeIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if opts.IndexSanityCheck {
		if err := x.SanityCheck(); err != nil {
			res.SanityCheck = err.Error()
			return err
		}
		res.SanityCheck = "passed"
		fmt.Fprintf(w, "%s passed sanity check.\n", path)
		return nil
	}
	seg, err := OpenSegment(siblingPath(path, LogSuffix))
	if err != nil {
		return err
	}
	defer seg.Close()
	seg.TimeIndex.Close()
	seg.TimeIndex = x
	r := &VerifyReport{TimeMismatches: map[string][][2]int64{}, TimeOutOfOrder: map[string][][2]int64{}, TimeNotFound: map[string][][2]int64{}}
	verifyTimeIndex(r, seg, nil, nil)
	seg.TimeIndex = nil
	ap := absPath(path)
	res.TimestampMismatches, res.OutOfOrder, res.NotFound = r.TimeMismatches[ap], r.TimeOutOfOrder[ap], r.TimeNotFound[ap]
	n := x.DumpLen()
	res.TimeIndexEntries = x.Entries(n)
	if !opts.VerifyOnly {
		for _, e := range res.TimeIndexEntries {
			fmt.Fprintf(w, "timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
		}
	}
	return nil
}
