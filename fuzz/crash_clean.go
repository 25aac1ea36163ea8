package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Crashes inside a clean step (issue 25, docs/crash.md "A crash in a clean's swap"): the load
// completes or discards each group's swap, so the log after it is the log before the step, after
// it, or after its first groups; the model is given the clean that matches (the whole step, or
// the step cut at the first group the load did not swap: the same groups, since a group's range
// check reads the next segment's base) and the comparison goes on. What Kafka's own swap can
// leave that no clean describes is a finding.

// Finding kinds of a crash inside a clean step.
const (
	// FindingSwapOverlap: a cleaned segment's final name survived while the .deleted rename of
	// a segment it replaced did not, and no .swap was left to tell the load: both load, and
	// their offsets overlap (LocalLog.replaceSegments syncs the directory once, at the end).
	FindingSwapOverlap = "swap-overlap"
	// FindingSwapResurrected: a completed swap kept a replaced segment whose base offset lies at
	// or past the cleaned segment's next offset (its batches were all dropped): the load
	// removes only the swap's offset range, and the dropped batches come back.
	FindingSwapResurrected = "swap-resurrected"
	// FindingSwapIndex: a swapped segment's index did not survive as the cleaner wrote it (its
	// .index.swap name was lost): the load made a preallocated empty one (LogSegment.open of the
	// .swap segment) or rebuilt it (a missing .index).
	FindingSwapIndex = "swap-index"
)

// errNotComparable marks a crash point the model cannot be given: a later clean step no longer
// fits the log the crash left (it names a batch the crash lost, or its uncleanable offset lies in
// the active segment now), or a load no clean step describes (a finding).
var errNotComparable = errors.New("not comparable with the model")

// cleanSnapshot is a partition directory's segments before or after a clean step, as the
// running broker had them.
type cleanSnapshot struct {
	bases   []int64           // segment base offsets, in order
	logs    map[int64][]byte  // each segment's .log
	batches map[int64][]byte  // each batch, by base offset
	indexes map[string][]byte // the index files of the segments below the active one
	last    map[int64]int64   // each segment's last offset (its base when empty)
}

// cleanStates are a clean step's snapshots; activeBase is the active segment's base offset,
// which the step leaves alone.
type cleanStates struct {
	before, after *cleanSnapshot
	activeBase    int64
}

// snapshotSegments reads the partition directory of m.
func snapshotSegments(m *vfs.MemFS) (*cleanSnapshot, error) {
	s := &cleanSnapshot{logs: map[int64][]byte{}, batches: map[int64][]byte{}, indexes: map[string][]byte{}, last: map[int64]int64{}}
	ents, err := m.ReadDir(crashPartition)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), segment.LogSuffix) {
			continue
		}
		base, err := segment.OffsetFromFileName(e.Name())
		if err != nil {
			continue
		}
		b, err := vfs.ReadFile(m, filepath.Join(crashPartition, e.Name()))
		if err != nil {
			return nil, err
		}
		s.bases = append(s.bases, base)
		s.logs[base] = b
		s.last[base] = base
		for _, bt := range splitBatches(b) {
			s.batches[bt.base] = bt.bytes
			s.last[base] = bt.last
		}
	}
	slices.Sort(s.bases)
	for _, base := range s.bases[:max(len(s.bases)-1, 0)] {
		stem := segment.FilenamePrefixFromOffset(base)
		for _, suf := range []string{segment.IndexSuffix, segment.TimeIndexSuffix} {
			if b, err := vfs.ReadFile(m, filepath.Join(crashPartition, stem+suf)); err == nil {
				s.indexes[stem+suf] = b
			}
		}
	}
	return s, nil
}

type rawBatch struct {
	base, last int64
	bytes      []byte
}

// splitBatches cuts a .log into its whole v2 batches (a torn tail is left out).
func splitBatches(b []byte) []rawBatch {
	var out []rawBatch
	for pos := 0; pos+segment.RecordBatchOverhead <= len(b); {
		size := segment.LogOverhead + int(int32(binary.BigEndian.Uint32(b[pos+8:])))
		if size < segment.RecordBatchOverhead || pos+size > len(b) {
			break
		}
		base := int64(binary.BigEndian.Uint64(b[pos:]))
		out = append(out, rawBatch{base, base + int64(int32(binary.BigEndian.Uint32(b[pos+23:]))), b[pos : pos+size]})
		pos += size
	}
	return out
}

// settleCleanCrash reads the reloaded directory of a crash inside clean step p.step, checks that
// nothing the clean kept was lost or duplicated, puts back the indexes of the segments below
// the active one as the broker had them (findings where they differ), and returns the model's
// workload: the step's clean, whole or cut at the first group the load did not swap, then the
// crash, then the rest. errNotComparable, with findings, when no clean describes the load.
func settleCleanCrash(w model.Workload, p crashPoint, crash *model.Crash, segIndexBytes int64) (model.Workload, []CrashFinding, string, error) {
	cs := p.clean
	before, after := cs.before, cs.after
	got, err := snapshotSegments(p.crashed)
	if err != nil {
		return w, nil, "", err
	}
	mw := cloneWorkload(w)
	mw.Steps = slices.Concat(mw.Steps[:p.step+1], []model.Step{{Crash: crash}}, mw.Steps[p.step+1:])
	finding := func(kind, format string, args ...any) CrashFinding {
		return CrashFinding{Kind: kind, Workload: mw, Message: fmt.Sprintf("crash point %d, in clean step %d: ", p.index, p.step) + fmt.Sprintf(format, args...)}
	}
	region := slices.DeleteFunc(slices.Clone(got.bases), func(b int64) bool { return b >= cs.activeBase })
	// No batch duplicated, none that is neither the one before nor the one after the step, none
	// the step kept lost.
	next := int64(-1)
	seen := map[int64]bool{}
	for _, base := range region {
		for _, b := range splitBatches(got.logs[base]) {
			if b.base < next {
				return mw, []CrashFinding{finding(FindingSwapOverlap,
					"segment %d holds batch %d, whose offsets the segment before it holds too: a cleaned segment's final name survived the crash while the .deleted rename of a segment it replaced did not, and no .swap was left to tell the load what it replaced (LocalLog.replaceSegments syncs the directory only at its end; LogLoader removes replaced segments only for a .swap). Kafka loads both (docs/crash.md).", base, b.base)}, "", errNotComparable
			}
			next = b.last + 1
			if !bytes.Equal(b.bytes, before.batches[b.base]) && !bytes.Equal(b.bytes, after.batches[b.base]) {
				return mw, nil, fmt.Sprintf("after the load, segment %d holds batch %d as neither the clean's source nor its output", base, b.base), nil
			}
			seen[b.base] = true
		}
	}
	for base := range after.batches {
		if base < cs.activeBase && !seen[base] {
			return mw, nil, fmt.Sprintf("after the load, batch %d, which the clean kept, is lost", base), nil
		}
	}
	// The groups the load swapped are a prefix: the segments up to the first that is not the
	// step's output, then the step's sources from there.
	// The step cleans the segments below its uncleanable offset; those from it on are the
	// same before and after.
	cleanedBelow := cs.activeBase
	if c := w.Steps[p.step].Clean; c.HasUncleanableOffset {
		cleanedBelow = c.UncleanableOffset
	}
	cut := -1 // index in after.bases of the first cleaned segment not swapped
	// Swapped: the output's bytes, where they differ from the source's; not swapped: other
	// bytes. A segment the clean wrote again byte for byte is told by its indexes (the
	// source's, exactly, or else the output's) -- unless a later segment is surely swapped:
	// the groups are swapped in order, and the load may have rebuilt the output's lost index
	// into the source's own (a source whose index recover() had rebuilt).
	lastSure := -1
	for i, base := range after.bases {
		if base >= cleanedBelow {
			break
		}
		if b, ok := before.logs[base]; slices.Contains(region, base) && bytes.Equal(got.logs[base], after.logs[base]) && !(ok && bytes.Equal(b, after.logs[base])) {
			lastSure = i
		}
	}
	for i, base := range after.bases {
		if base >= cleanedBelow {
			break
		}
		swapped := slices.Contains(region, base) && bytes.Equal(got.logs[base], after.logs[base])
		if b, ok := before.logs[base]; swapped && ok && bytes.Equal(b, after.logs[base]) && i > lastSure {
			swapped = sameIndexes(before.indexesOf(base), after.indexesOf(base)) || !sameIndexes(before.indexesOf(base), readIndexes(p.crashed, base))
		}
		if !swapped {
			cut = i
			break
		}
	}
	want := after
	var uncleanable int64
	if cut >= 0 {
		uncleanable = after.bases[cut]
		want = &cleanSnapshot{logs: map[int64][]byte{}, indexes: map[string][]byte{}}
		for _, base := range after.bases[:cut] {
			want.bases = append(want.bases, base)
			want.logs[base] = after.logs[base]
		}
		for _, base := range before.bases {
			if base >= uncleanable && base < cs.activeBase {
				want.bases = append(want.bases, base)
				want.logs[base] = before.logs[base]
			}
		}
		for name, b := range after.indexes {
			if base, err := segment.OffsetFromFileName(name); err == nil && base < uncleanable {
				want.indexes[name] = b
			}
		}
		for name, b := range before.indexes {
			if base, err := segment.OffsetFromFileName(name); err == nil && base >= uncleanable {
				want.indexes[name] = b
			}
		}
	}
	if !slices.Equal(region, slices.DeleteFunc(slices.Clone(want.bases), func(b int64) bool { return b >= cs.activeBase })) {
		return mw, []CrashFinding{finding(FindingSwapResurrected,
			"after the load the segments below the active one are %v, where the clean's groups give %v: a completed swap kept a segment it replaced, whose base offset lies at or past the cleaned segment's next offset (LogLoader removes only the swap's offset range), so batches the clean dropped came back (docs/crash.md).", region, want.bases)}, "", errNotComparable
	}
	for _, base := range region {
		if !bytes.Equal(got.logs[base], want.logs[base]) {
			return mw, nil, fmt.Sprintf("after the load, segment %d (%d bytes) is neither the clean's source nor its output (segments before the step %v, after it %v, after the load %v)", base, len(got.logs[base]), before.bases, after.bases, got.bases), nil
		}
	}
	// The crash step the model gets: the segments from the one holding the recovery point on,
	// those below the active one as the load left them (the clean's sources or outputs).
	all := slices.Concat(region, slices.DeleteFunc(slices.Clone(got.bases), func(b int64) bool { return b < cs.activeBase }))
	floor := all[0]
	for _, b := range all {
		if b <= crash.RecoveryPoint {
			floor = b
		}
	}
	settled := &model.Crash{RecoveryPoint: crash.RecoveryPoint}
	for _, base := range region {
		if base >= floor {
			stem := segment.FilenamePrefixFromOffset(base)
			settled.Segments = append(settled.Segments, model.CrashSegment{BaseOffset: base, LogBytes: int64(len(want.logs[base])),
				IndexBytes: int64(len(want.indexes[stem+segment.IndexSuffix])), TimeIndexBytes: int64(len(want.indexes[stem+segment.TimeIndexSuffix]))})
		}
	}
	for _, c := range crash.Segments {
		if c.BaseOffset >= cs.activeBase {
			settled.Segments = append(settled.Segments, c)
		}
	}
	mw.Steps[p.step+1] = model.Step{Crash: settled}
	// The indexes as the broker had them, below the segment holding the recovery point (the
	// load rebuilt the others); one the load made or rebuilt is Kafka's doing.
	var findings []CrashFinding
	for name, b := range want.indexes {
		base, err := segment.OffsetFromFileName(name)
		if err != nil || base >= floor {
			continue
		}
		path := filepath.Join(crashPartition, name)
		cur, err := vfs.ReadFile(p.crashed, path)
		if err == nil && bytes.Equal(cur, b) {
			continue
		}
		if base < cleanedBelow {
			what := "rebuilt by LogSegment.recover (its .index was missing: LogSegment.sanityCheck)"
			if err == nil && int64(len(cur)) == segIndexBytes/8*8 && !slices.ContainsFunc(cur, func(c byte) bool { return c != 0 }) {
				what = "a preallocated file of zeros, which LogSegment.open of the .swap segment made and nothing trims; every slot reads as an entry"
			}
			findings = append(findings, finding(FindingSwapIndex,
				"%s: the cleaned segment's index lost its .swap name in the crash, and after the load it is %s (docs/crash.md).", name, what))
		}
		// A segment the step did not clean: what an earlier roll or recovery left unsynced
		// (docs/crash.md's other findings), put back as the broker had it.
		f, err := p.crashed.Create(path)
		if err != nil {
			return mw, findings, "", err
		}
		_, werr := f.WriteAt(b, 0)
		if err := errors.Join(werr, f.Close()); err != nil {
			return mw, findings, "", err
		}
	}
	if cut >= 0 {
		c := *w.Steps[p.step].Clean
		c.UncleanableOffset, c.HasUncleanableOffset = uncleanable, true
		c.Drop = slices.DeleteFunc(slices.Clone(c.Drop), func(o int64) bool { return o >= uncleanable })
		c.Rewrite = slices.DeleteFunc(slices.Clone(c.Rewrite), func(r model.CleanRewrite) bool { return r.BaseOffset >= uncleanable })
		mw.Steps[p.step] = model.Step{Clean: &c}
	}
	return mw, findings, "", nil
}

// indexesOf is the segment's .index and .timeindex in s.
func (s *cleanSnapshot) indexesOf(base int64) [2][]byte {
	stem := segment.FilenamePrefixFromOffset(base)
	return [2][]byte{s.indexes[stem+segment.IndexSuffix], s.indexes[stem+segment.TimeIndexSuffix]}
}

// readIndexes reads the segment's .index and .timeindex from fsys (nil when missing).
func readIndexes(fsys vfs.FS, base int64) [2][]byte {
	stem := filepath.Join(crashPartition, segment.FilenamePrefixFromOffset(base))
	var out [2][]byte
	for i, suf := range []string{segment.IndexSuffix, segment.TimeIndexSuffix} {
		if b, err := vfs.ReadFile(fsys, stem+suf); err == nil {
			out[i] = b
		}
	}
	return out
}

// sameIndexes compares two segments' index files.
func sameIndexes(a, b [2][]byte) bool { return bytes.Equal(a[0], b[0]) && bytes.Equal(a[1], b[1]) }
