package dump

import (
	"fmt"
	"io"
	"math"

	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/segment"
)

// dumpIndex is DumpLogSegments.dumpIndex.
func dumpIndex(w io.Writer, path string, base int64, opts Options, res *Result) error {
	x, err := segment.OpenOffsetIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Len() == 0 {
		res.Empty = true
		fmt.Fprintf(w, "%s is empty.\n", printsafe.Name(path))
		return nil
	}
	if opts.IndexSanityCheck {
		return sanityOnly(w, path, x.SanityCheck(), res)
	}
	noteLive(res, x.Untrimmed(), x.ValidLen(), x.Len(), "index")
	logPath := siblingPath(path, segment.LogSuffix)
	lf, lerr := segment.OpenLog(logPath)
	if lerr == nil {
		defer lf.Close()
	} else {
		res.Notes = append(res.Notes, fmt.Sprintf("%s cannot be read (%v): DumpLogSegments would stop here; the entries are listed without its check against the log", logPath, lerr))
	}
	res.IndexEntries = []segment.IndexEntry{}
	for i := 0; i < x.Len(); i++ {
		e, _ := x.Entry(i) // i is below the slot count: no error
		if e.Offset == base && i > 0 {
			break
		}
		if lerr == nil {
			b, err := lf.NextBatch(e.Position, min(lf.Size(), e.Position+opts.MaxMessageSize))
			switch {
			case err == segment.ErrNoBatch && i == 0 && x.ValidLen() == 0:
				// DumpLogSegments reads the all-zero slot 0 of a live index as the entry
				// (base, 0); on an empty .log it then throws. Kafka's append rule never wrote
				// it: it is no entry.
				res.Notes = append(res.Notes, "slot 0 is all zero: the live index has no entry yet; DumpLogSegments reads it as the entry (base offset, position 0) and, with no batch at position 0, throws java.util.NoSuchElementException")
			case err == segment.ErrNoBatch:
				// DumpLogSegments.dumpIndex: slice.batches.iterator.next() on a slice that holds
				// no whole batch throws; the file's remaining entries are not checked.
				// Past the end, FileRecords.slice itself throws first (position > size); at
				// the end or inside a cut batch, the empty slice's iterator does.
				where := "where " + lf.Path + " holds no whole batch"
				kafka := "java.util.NoSuchElementException"
				if e.Position >= lf.Size() {
					where = "at or past the end of " + lf.Path
				}
				if e.Position > lf.Size() {
					kafka = fmt.Sprintf("java.lang.IllegalArgumentException: Slice from position %d exceeds end position of FileRecords(size=%d, file=%s, start=0, end=%d)",
						e.Position, lf.Size(), lf.Path, math.MaxInt32)
				}
				return &Problem{
					Err: fmt.Errorf("%s: entry %d: no batch at position %d of %s (%s)", path, i, e.Position, lf.Path, kafka),
					Explain: fmt.Sprintf("%s: entry %d (offset %d) points to byte %d, %s (%d bytes): the .log is shorter than its index says (truncated, or the index is stale); kafka-dump-log stops at this entry with an exception, and so does this file's dump",
						path, i, e.Offset, e.Position, where, lf.Size()),
				}
			case err != nil:
				return err
			case b.LastOffset() != e.Offset:
				res.IndexMismatches = append(res.IndexMismatches, [2]int64{e.Offset, b.LastOffset()})
			}
		}
		res.IndexEntries = append(res.IndexEntries, e)
		if !opts.VerifyOnly {
			fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Position)
		}
	}
	return nil
}

// dumpTimeIndex is DumpLogSegments.dumpTimeIndex.
func dumpTimeIndex(w io.Writer, path string, base int64, opts Options, res *Result) error {
	x, err := segment.OpenTimeIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if opts.IndexSanityCheck {
		return sanityOnly(w, path, x.SanityCheck(), res)
	}
	noteLive(res, x.Untrimmed(), x.ValidLen(), x.Len(), "time index")
	logPath := siblingPath(path, segment.LogSuffix)
	if seg, err := segment.OpenSegment(logPath); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("%s cannot be read (%v): DumpLogSegments would stop here; the entries are listed without its checks against the log", logPath, err))
	} else {
		defer seg.Close()
		res.TimestampMismatches, res.OutOfOrder, res.NotFound = dumpTimeIndexChecks(seg, x)
	}
	n := x.DumpLen()
	res.TimeIndexEntries = x.Entries(n)
	if !opts.VerifyOnly {
		for _, e := range res.TimeIndexEntries {
			fmt.Fprintf(w, "timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
		}
	}
	return nil
}

// dumpTimeIndexChecks are DumpLogSegments.dumpTimeIndex's checks, as it makes them: over the
// slots up to its stop rule, each entry's start position from the offset index as Kafka
// reopens it (every slot an entry, OffsetIndex's constructor), then the first batch from
// there whose last offset reaches the entry's; that batch must end at the entry's offset and
// its records' max timestamp must be the entry's; timestamps must increase.
func dumpTimeIndexChecks(seg *segment.Segment, x *segment.TimeIndex) (mismatches, outOfOrder, notFound [][2]int64) {
	prevTs := segment.NoTimestamp
	n := x.DumpLen()
	for i := 0; i < n; i++ {
		e, _ := x.Entry(i) // i is below the slot count: no error
		pos := int64(0)
		if seg.Index != nil {
			pos = seg.Index.LookupReopened(e.Offset).Position
		}
		var hit segment.BatchInfo
		found := false
		if pos >= 0 && pos <= seg.Log.Size() {
			seg.Log.Walk(pos, 0, func(b segment.BatchInfo) bool {
				if b.LastOffset() >= e.Offset {
					hit, found = b, true
					return false
				}
				return true
			})
		}
		switch {
		case !found:
			notFound = append(notFound, [2]int64{e.Offset, -1})
		case hit.LastOffset() != e.Offset:
			notFound = append(notFound, [2]int64{e.Offset, hit.LastOffset()})
		default:
			maxTs := segment.NoTimestamp
			if err := seg.Log.RecordTimestamps(hit, func(_, ts int64) bool { maxTs = max(maxTs, ts); return true }); err != nil {
				maxTs = hit.MaxTimestamp()
			}
			if maxTs != e.Timestamp {
				mismatches = append(mismatches, [2]int64{e.Timestamp, maxTs})
			}
			if prevTs >= e.Timestamp {
				outOfOrder = append(outOfOrder, [2]int64{e.Timestamp, prevTs})
			}
		}
		prevTs = e.Timestamp
	}
	return mismatches, outOfOrder, notFound
}

// noteLive says, beside DumpLogSegments' output, that an index is live: preallocated and
// zero-filled after its valid entries (docs/logdirs.md, "Valid entries").
func noteLive(res *Result, untrimmed bool, valid, slots int, what string) {
	if untrimmed {
		res.Notes = append(res.Notes, fmt.Sprintf("a live (preallocated) %s: %s before its zero tail, of %s; DumpLogSegments reads every slot up to its stop rule", what, english.Plural(int64(valid), "valid entry"), english.Plural(int64(slots), "slot")))
	}
}

// sanityOnly is --index-sanity-check: Kafka's sanityCheck and "<file> passed sanity check.".
func sanityOnly(w io.Writer, path string, err error, res *Result) error {
	if err != nil {
		res.SanityCheck = err.Error()
		// AbstractIndex.sanityCheck throws CorruptIndexException out of DumpLogSegments.
		return &Problem{Err: err, Explain: fmt.Sprintf("%s fails Kafka's index sanity check (sanityCheck throws CorruptIndexException): the file is corrupt", path)}
	}
	res.SanityCheck = "passed"
	fmt.Fprintf(w, "%s passed sanity check.\n", printsafe.Name(path))
	return nil
}
