package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"sync"
)

// exBatch is one batch as explain needs it (48 bytes: a 1 GiB segment of 16 KiB batches
// holds 3 MB of them).
type exBatch struct {
	pos, size, base, last, maxTs int64
	flags                        uint8
	magic1                       bool
}

const (
	batchLegacy  uint8 = 1 << iota // a legacy (magic 0/1) message
	batchWrapper                   // a legacy compressed wrapper
	// batchExact: v2, uncompressed, CreateTime: a leader of 0.11-3.6 time-indexes it at the
	// record holding its max timestamp.
	batchExact
	// batchBaseIsMax: the header's base timestamp is its max timestamp.
	batchBaseIsMax
)

func (b *exBatch) legacy() bool        { return b.flags&batchLegacy != 0 }
func (b *exBatch) wrapper() bool       { return b.flags&batchWrapper != 0 }
func (b *exBatch) exactEligible() bool { return b.flags&batchExact != 0 }

// exSegment is a segment's files, read for explain.
type exSegment struct {
	files    SegmentFiles
	lf       *LogFile
	batches  []exBatch
	logEnd   int64 // the bytes the walk accepted
	logErr   error // the walk stopped at corruption
	newest   bool
	entries  []IndexEntry
	hasIndex bool
	idxLive  bool // untrimmed
	idxSize  int64
	idxJunk  int // first non-zero slot after the valid entries, -1
	times    []TimeIndexEntry
	hasTime  bool
	timeLive bool
	timeJunk int
	snaps    []snapshotFile // producer snapshots at offsets inside the segment
	exact    []int64        // batch ordinal -> offset of its first record holding the max (-1: not read yet)
	pm       *prefixMax
	// timeMemo holds time-index checks by what decides them: equal moments give equal results.
	timeMemo map[timeKey]timeResult
	fitMemo  map[fitKey]fitResult
}

type fitKey struct {
	time         int
	every, moved bool
}

type fitResult struct {
	fit lifetimeFit
	dis *Disagreement
}

// movedMoments reports a moment whose append ends past its first batch, or may.
func movedMoments(ms []moment) bool {
	for _, m := range ms {
		if m.last != m.first || m.lastMax != m.first {
			return true
		}
	}
	return false
}

type timeKey struct {
	time    int // 1 last offsets, 2 a leader's exact records
	entry   EntryRule
	wrapper bool
	moved   bool // some moment's append end differs from its first batch (or is open)
}

type timeResult struct {
	marks []timeMark
	dis   *Disagreement
}

func readExSegment(sf SegmentFiles, snaps []snapshotFile, newest bool) (*exSegment, error) {
	s := &exSegment{files: sf, newest: newest, idxJunk: -1, timeJunk: -1, timeMemo: map[timeKey]timeResult{}, fitMemo: map[fitKey]fitResult{}}
	// The indexes first: an entry near the middle lets a second core read half the headers.
	if sf.Index != "" {
		x, err := OpenOffsetIndex(sf.Index, sf.BaseOffset)
		if err != nil {
			return nil, err
		}
		s.hasIndex, s.idxSize = true, x.FileSize
		s.entries = x.Entries(x.ValidLen())
		s.idxLive, s.idxJunk = x.Untrimmed(), x.TailGarbage()
	}
	if sf.TimeIndex != "" {
		x, err := OpenTimeIndex(sf.TimeIndex, sf.BaseOffset)
		if err != nil {
			return nil, err
		}
		s.hasTime = true
		s.times = x.Entries(x.ValidLen())
		s.timeLive, s.timeJunk = x.Untrimmed(), x.TailGarbage()
	}
	// Headers only, by pread on two cores (WalkSplit), as verify reads them: a mapping costs
	// as much as reading the pages it touches.
	lf, err := OpenLogWith(sf.Log, AccessPread)
	if err != nil {
		return nil, err
	}
	s.lf = lf
	// A guess from the index (its entries are spread over the file); grown as needed.
	s.batches = make([]exBatch, 0, min(lf.Size()/1024+16, 2*int64(len(s.entries))+1024))
	var berr error
	res := lf.WalkSplit(0, 0, SplitHint(s.entries, nil, lf.Size()), func(b BatchInfo) bool {
		eb := exBatch{pos: b.Position, size: b.Size, base: b.BaseOffset(), last: b.LastOffset(), maxTs: b.MaxTimestamp()}
		if b.IsLegacy() {
			eb.flags |= batchLegacy
			eb.magic1 = b.Magic == 1
			if b.Legacy.Attributes&7 != 0 {
				eb.flags |= batchWrapper
				if eb.base, berr = lf.FirstOffset(b); berr != nil {
					return false
				}
			}
		} else if b.Header.Compression() == 0 && b.Header.Attributes&0x08 == 0 {
			eb.flags |= batchExact
			if b.Header.BaseTimestamp == b.Header.MaxTimestamp {
				eb.flags |= batchBaseIsMax
			}
		}
		s.batches = append(s.batches, eb)
		return true
	})
	s.logEnd = res.ValidBytes
	switch {
	case berr != nil:
		s.logErr = berr
	case res.Err != nil:
		s.logErr = res.Err
	}
	s.exact = make([]int64, len(s.batches))
	for i := range s.exact {
		s.exact[i] = -1
	}
	var first, end int64 = sf.BaseOffset, sf.BaseOffset
	if n := len(s.batches); n > 0 {
		first, end = s.batches[0].base, s.batches[n-1].last
	}
	for _, sn := range snaps {
		if sn.offset > first && sn.offset <= end+1 {
			s.snaps = append(s.snaps, sn)
		}
	}
	return s, nil
}

// batchAtPos is the ordinal of the batch starting at pos, or -1.
func (s *exSegment) batchAtPos(pos int64) int {
	i := sort.Search(len(s.batches), func(i int) bool { return s.batches[i].pos >= pos })
	if i < len(s.batches) && s.batches[i].pos == pos {
		return i
	}
	return -1
}

// batchFrom is the first batch whose base offset is >= off (len(batches) when none).
func (s *exSegment) batchFrom(off int64) int {
	return sort.Search(len(s.batches), func(i int) bool { return s.batches[i].base >= off })
}

// prefetchExact finds the exact offsets of the batches in js (those the time index would
// name under a 0.11-3.6 leader's rule) on every core, each worker reading with its own view of
// the file (pread is safe to share); whatever fails there is left for exactOffset to read and
// report in order. When the max is held by a later record, that reads each such batch whole.
func (s *exSegment) prefetchExact(js []int) {
	var todo []int
	for _, j := range js {
		if s.exact[j] < 0 {
			todo = append(todo, j)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(todo) < 256 || workers < 2 {
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			view := s.lf.PreadView()
			for i := w; i < len(todo); i += workers {
				j := todo[i]
				b := &s.batches[j]
				n := int(b.size)
				if b.flags&batchBaseIsMax != 0 {
					n = min(n, RecordBatchOverhead+32)
				}
				if data, err := view.ReadBytes(b.pos, n); err == nil {
					if off, ok := firstMaxRecord(data, b.base, b.maxTs, n < int(b.size)); ok {
						s.exact[j] = off // each worker owns its ordinals
					}
				}
			}
		}()
	}
	wg.Wait()
}

// exactOffset is the offset of batch j's first record holding its max timestamp (strict >,
// as LogValidator keeps it).
func (s *exSegment) exactOffset(j int) (int64, error) {
	if off := s.exact[j]; off >= 0 {
		return off, nil
	}
	b := &s.batches[j]
	// Most producers stamp a batch's records alike: the first record then holds the max, and
	// its header (a few bytes past the batch's) says so.
	n := int(b.size)
	if b.flags&batchBaseIsMax != 0 {
		n = min(n, RecordBatchOverhead+32)
	}
	data, err := s.lf.ReadBytes(b.pos, n)
	if err == nil {
		if off, ok := firstMaxRecord(data, b.base, b.maxTs, n < int(b.size)); ok {
			s.exact[j] = off
			return off, nil
		}
	}
	// Anything unusual: Kafka's record iteration, with its errors.
	info, err := s.lf.NextBatch(b.pos, s.logEnd)
	if err != nil {
		return 0, err
	}
	off, best := b.last, int64(-2)
	err = s.lf.RecordTimestamps(info, func(o, ts int64) bool {
		if ts > best {
			best, off = ts, o
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	s.exact[j] = off
	return off, nil
}

// firstMaxRecord scans an uncompressed v2 batch's records (length, attributes,
// timestampDelta, offsetDelta, then skipped) for the first one stamped maxTs (LogValidator's
// strict >). With prefix set the data is the batch's start only and only its first record is
// read. ok is false when the bytes do not parse or no record holds maxTs.
func firstMaxRecord(data []byte, base, maxTs int64, prefix bool) (int64, bool) {
	if len(data) < RecordBatchOverhead {
		return 0, false
	}
	baseTs := int64(binary.BigEndian.Uint64(data[27:]))
	p := RecordBatchOverhead
	for p < len(data) {
		length, k := binary.Varint(data[p:])
		if k <= 0 || length < 0 {
			return 0, false
		}
		q := p + k
		if q >= len(data) {
			return 0, false
		}
		q++ // attributes
		tsDelta, k := binary.Varint(data[q:])
		if k <= 0 {
			return 0, false
		}
		q += k
		offDelta, k := binary.Varint(data[q:])
		if k <= 0 {
			return 0, false
		}
		if baseTs+tsDelta == maxTs {
			return base + offDelta, true
		}
		if prefix {
			return 0, false
		}
		p += k0(data[p:]) + int(length)
	}
	return 0, false
}

// k0 is the size of the varint at the start of b.
func k0(b []byte) int {
	_, k := binary.Varint(b)
	return k
}

// moment is an offset-index entry placed on the batches: the append it belongs to starts at
// batch first and ends at batch last (lastMax: its latest possible end, when the index does
// not say).
type moment struct {
	slot          int
	first, last   int
	lastMax       int
	wrapperOffset bool // named a follower's legacy wrapper by its own offset (0.10.0+)
}

// candidate is one way of writing the segment: an era's rules, an append shape, an origin.
type candidate struct {
	era       Era
	shape     AppendShape
	leader    bool // for the time index of 0.11-3.6: a leader names the exact record
	ok        bool
	fit       lifetimeFit
	moments   []moment
	marks     []timeMark
	fixed     []int // batch ordinals after a producer snapshot's restart
	origin    string
	dis       *Disagreement
	unmarked  int      // restarts nothing in the files shows
	rank      int      // score: lower is preferred
	appends   [][2]int // the appends the replay that reproduced the files used
	snapNotes []string
}

// mapEntries places the offset index's entries on the batches under an entry rule and shape.
func (s *exSegment) mapEntries(era Era, shape AppendShape) ([]moment, string, *Disagreement) {
	ms := make([]moment, 0, len(s.entries))
	origin := ""
	prevEnd := -1
	wrapperOK := wrapperOffsetEra(era)
	j := 0 // entries ascend, so the batch at each one is found walking forward
	for i, e := range s.entries {
		slotByte := int64(i * OffsetIndexEntrySize)
		for j < len(s.batches) && s.batches[j].pos < e.Position {
			j++
		}
		if j >= len(s.batches) || s.batches[j].pos != e.Position || j <= prevEnd {
			j = s.batchAtPos(e.Position)
			what := "no batch starts there"
			if e.Position >= s.logEnd {
				what = fmt.Sprintf("past the log's %d valid bytes", s.logEnd)
			} else if j >= 0 {
				what = "at or before the previous entry's append"
			}
			return nil, "", &Disagreement{File: s.files.Index, Slot: i, Byte: slotByte,
				Found:   fmt.Sprintf("offset %d at byte %d", e.Offset, e.Position),
				Meaning: "the entry points " + what + ": no append rule writes that (damage, or an index of other data)"}
		}
		b := &s.batches[j]
		m := moment{slot: i, first: j, last: j, lastMax: j}
		want, rule := b.last, "the batch's last offset"
		switch era.OffsetEntry {
		case EntryAppendFirst:
			want, rule = b.base, "the append's first offset"
			if e.Offset == b.last && b.wrapper() && wrapperOK && b.last != b.base {
				want, m.wrapperOffset, origin = b.last, true, "replication"
			}
		case EntryAppendLast:
			if shape == SeveralBatchesPerAppend {
				k := j
				for k < len(s.batches) && s.batches[k].last < e.Offset {
					k++
				}
				if k < len(s.batches) && s.batches[k].last == e.Offset {
					want, m.last, m.lastMax = e.Offset, k, k
				}
				rule = "the last offset of an append starting there"
			}
		}
		if e.Offset != want {
			return nil, "", &Disagreement{File: s.files.Index, Slot: i, Byte: slotByte,
				Found:    fmt.Sprintf("offset %d at byte %d", e.Offset, e.Position),
				Expected: fmt.Sprintf("offset %d (%s)", want, rule),
				Meaning:  fmt.Sprintf("%s does not name this offset there", era)}
		}
		prevEnd = m.last
		ms = append(ms, m)
	}
	// Appends whose end the index does not pin may run to the batch before the next entry.
	for i := range ms {
		if shape == SeveralBatchesPerAppend && era.OffsetEntry == EntryAppendFirst {
			ms[i].lastMax = len(s.batches) - 1
			if i+1 < len(ms) {
				ms[i].lastMax = ms[i+1].first - 1
			}
		}
	}
	return ms, origin, nil
}

// wrapperOffsetEra: a follower's legacy compressed wrapper may be indexed at its own offset
// (KAFKA-3047, 0.10.0; segment's era 0.9.0-0.10.0 holds 0.10.0).
func wrapperOffsetEra(era Era) bool { return era.ID != "0.8.0" && era.ID != "0.8.1-0.8.2" }

// behaviour is what of an era and shape changes an explanation: candidates with equal
// behaviours are evaluated once.
type behaviour struct {
	entry   EntryRule
	wrapper bool
	every   bool
	shape   AppendShape
	time    int // 0 none, 1 last offsets, 2 a leader's exact records
}

func behaviourOf(era Era, shape AppendShape, leader bool) behaviour {
	b := behaviour{entry: era.OffsetEntry, every: everyBatchChecked(era, shape), shape: shape}
	if era.OffsetEntry == EntryBatchLast {
		b.shape = OneBatchPerAppend // the grouping changes nothing
	}
	if era.OffsetEntry == EntryAppendFirst {
		b.wrapper = wrapperOffsetEra(era)
	}
	switch {
	case !era.HasTimeIndex():
	case era.TimeEntry == TimeExactRecord && leader:
		b.time = 2
	default:
		b.time = 1
	}
	return b
}

// fixedRestarts are the restarts the producer snapshots show: before the first batch at or
// after the snapshot's offset (the log end offset at a clean shutdown), when that batch is
// inside the segment and carries no entry (the first append after a restart never does).
func (s *exSegment) fixedRestarts(ms []moment) ([]int, []string) {
	entryAt := func(j int) bool {
		i := sort.Search(len(ms), func(i int) bool { return ms[i].first >= j })
		return i < len(ms) && ms[i].first == j
	}
	var out []int
	var notes []string
	for _, sn := range s.snaps {
		j := s.batchFrom(sn.offset)
		if j <= 0 || j >= len(s.batches) {
			continue
		}
		if entryAt(j) {
			notes = append(notes, fmt.Sprintf("the producer snapshot %s is not a restart of this segment's byte counter: the batch at its offset has an index entry", sn.path))
			continue
		}
		out = append(out, j)
	}
	return out, notes
}

// everyBatchChecked: the counter is checked at every batch, as under the per-batch rule
// whatever the grouping, or with one batch per append.
func everyBatchChecked(era Era, shape AppendShape) bool {
	return era.OffsetEntry == EntryBatchLast || shape == OneBatchPerAppend
}

// stretches cuts the batches at the anchors: entries, the fixed restarts, and the append
// starts the shape makes check points.
func (s *exSegment) stretches(era Era, ms []moment, fixed []int, marks []timeMark, shape AppendShape) []stretch {
	n := len(s.batches)
	// The check points of all stretches share two backing arrays.
	checks := make([]int64, 0, n)
	checkIdx := make([]int, 0, n)
	out := make([]stretch, 0, len(ms)+len(fixed)+1)
	s.walkStretches(era, ms, fixed, shape, func(st *stretch) {
		from := len(checks)
		checks = append(checks, st.checks...)
		checkIdx = append(checkIdx, st.checkIdx...)
		c := *st
		c.checks, c.checkIdx = checks[from:len(checks):len(checks)], checkIdx[from:len(checkIdx):len(checkIdx)]
		out = append(out, c)
	})
	if everyBatchChecked(era, shape) {
		for _, mk := range marks {
			// The stretch holding the mark's earliest place.
			i := sort.Search(len(out), func(i int) bool { return out[i].anchorIdx >= mk.lo }) - 1
			if i < 0 {
				continue
			}
			st := &out[i]
			end := n
			if st.entryIdx >= 0 {
				end = st.entryIdx
			}
			if mk.lo <= end && !st.marked() {
				st.markLo, st.markHi = mk.lo, min(mk.hi, end)
			}
		}
	}
	return out
}

// quickBounds is the interval [lo, hi] the stretches allow with no restart but the files' own
// (what fitLifetimes finds first), in one pass that builds no stretch: a segment of a million
// batches has about as many stretches.
func (s *exSegment) quickBounds(era Era, ms []moment, fixed []int, shape AppendShape) (lo, hi int64) {
	lo, hi = 0, MaxIntervalBytes
	s.walkStretches(era, ms, fixed, shape, func(st *stretch) {
		if n := len(st.checks); n > 0 {
			lo = max(lo, st.checks[n-1]-st.anchor)
		}
		if st.entryIdx >= 0 {
			hi = min(hi, st.entry-st.anchor-1)
		}
	})
	return lo, hi
}

// walkStretches cuts the batches at the anchors (entries, the fixed restarts) and calls fn
// with each stretch and its check points: every batch with one batch per append or under the
// per-batch rule, else the append starts the index pins. The stretch and its slices are
// valid during the call only.
func (s *exSegment) walkStretches(era Era, ms []moment, fixed []int, shape AppendShape, fn func(*stretch)) {
	every := everyBatchChecked(era, shape)
	n := len(s.batches)
	var checks []int64
	var checkIdx []int
	cur := stretch{anchor: 0, anchorIdx: 0, entry: -1, entryIdx: -1, markLo: -1, markHi: -1}
	emit := func() {
		cur.checks, cur.checkIdx = checks, checkIdx
		fn(&cur)
		checks, checkIdx = checks[:0], checkIdx[:0]
	}
	restart := func(pos int64, idx int) {
		cur = stretch{anchor: pos, anchorIdx: idx, entry: -1, entryIdx: -1, markLo: -1, markHi: -1}
	}
	skipTo := -1 // batches inside an append that carries an entry are no check points
	forced := -1 // the batch after such an append is one (several-batch shape)
	mi, fi := 0, 0
	for j := 1; j < n; j++ {
		b := &s.batches[j]
		if mi < len(ms) && ms[mi].first == j {
			m := &ms[mi]
			mi++
			cur.entry, cur.entryIdx = b.pos, j
			emit()
			restart(b.pos, j)
			skipTo = m.last
			forced = m.last + 1
			if m.lastMax != m.last {
				forced = -1 // the append's end is not known
			}
			continue
		}
		if fi < len(fixed) && fixed[fi] == j {
			fi++
			emit()
			restart(b.pos, j)
			continue
		}
		if j <= skipTo || (!every && j != forced) {
			continue
		}
		checks = append(checks, b.pos)
		checkIdx = append(checkIdx, j)
	}
	emit()
}

// evaluate tries one candidate.
func (s *exSegment) evaluate(era Era, shape AppendShape, leader bool, want int64) candidate {
	c := candidate{era: era, shape: shape, leader: leader}
	ms, origin, dis := s.mapEntries(era, shape)
	if dis != nil {
		c.dis = dis
		return c
	}
	c.moments, c.origin = ms, origin
	c.fixed, c.snapNotes = s.fixedRestarts(ms)
	marks, dis := s.checkTimeIndexMemo(era, leader, ms, c.fixed)
	if dis != nil {
		c.dis = dis
		return c
	}
	c.marks = marks
	// With every append end at its first batch, equal checks give equal fits whatever the
	// entry rule: the stretches depend on the moments' places alone.
	every := everyBatchChecked(era, shape)
	fkey := fitKey{time: behaviourOf(era, shape, leader).time, every: every, moved: movedMoments(ms)}
	if r, ok := s.fitMemo[fkey]; ok && !fkey.moved {
		c.fit, c.dis = r.fit, r.dis
	} else if lo, hi := s.quickBounds(era, ms, c.fixed, shape); len(marks) == 0 && lo <= hi && (want < 0 || (lo <= want && want <= hi)) {
		// One lifetime (or the files' own restarts) explains it: no stretch needs building.
		set := intervalRange(lo, hi)
		if want >= 0 {
			set = intervalRange(want, want)
		}
		c.fit = lifetimeFit{ok: true, intervals: set, exact: true, pick: set.Pick(want)}
		if !fkey.moved {
			s.fitMemo[fkey] = fitResult{fit: c.fit}
		}
	} else {
		ss := s.stretches(era, ms, c.fixed, marks, shape)
		c.fit = fitLifetimes(ss, want, every)
		if !c.fit.ok {
			c.dis = s.intervalDisagreement(c.fit.failed, want)
		}
		if !fkey.moved {
			s.fitMemo[fkey] = fitResult{fit: c.fit, dis: c.dis}
		}
	}
	if !c.fit.ok {
		return c
	}
	for _, r := range c.fit.restarts {
		if !r.marked {
			c.unmarked++
		}
	}
	c.ok = true
	return c
}

// checkTimeIndexMemo is checkTimeIndex, once per set of moments: the shapes of one era often
// place the entries alike.
func (s *exSegment) checkTimeIndexMemo(era Era, leader bool, ms []moment, fixed []int) ([]timeMark, *Disagreement) {
	key := timeKey{time: behaviourOf(era, OneBatchPerAppend, leader).time, entry: era.OffsetEntry}
	if era.OffsetEntry == EntryAppendFirst {
		key.wrapper = wrapperOffsetEra(era)
	}
	key.moved = movedMoments(ms)
	if key.time == 0 || key.moved {
		return s.checkTimeIndex(era, leader, ms, fixed)
	}
	if r, ok := s.timeMemo[key]; ok {
		return r.marks, r.dis
	}
	marks, dis := s.checkTimeIndex(era, leader, ms, fixed)
	s.timeMemo[key] = timeResult{marks: marks, dis: dis}
	return marks, dis
}

// originOf says who appended, as far as a 0.11-3.6 time index tells: a leader names the
// record holding a batch's max timestamp, a follower (or recover()) the batch's last offset.
func (s *exSegment) originOf(ms []moment, leader bool) string {
	switch {
	case !s.exactMatters(ms):
		return "" // every time-indexed batch's max is held by its last record: both name it
	case leader:
		return "leader"
	}
	return "replication"
}

// exactMatters reports whether some time-indexed batch would be named differently by a
// leader of 0.11-3.6 (its max timestamp is not held by its last record).
func (s *exSegment) exactMatters(ms []moment) bool {
	for _, t := range s.times {
		j := s.batchWithLastOrHolding(t.Offset)
		if j >= 0 && s.batches[j].exactEligible() && s.batches[j].last != s.batches[j].base {
			if off, err := s.exactOffset(j); err == nil && off != s.batches[j].last {
				return true
			}
		}
	}
	return false
}

func (s *exSegment) batchWithLastOrHolding(off int64) int {
	i := sort.Search(len(s.batches), func(i int) bool { return s.batches[i].last >= off })
	if i < len(s.batches) && s.batches[i].base <= off {
		return i
	}
	return -1
}

// intervalDisagreement reports the stretch no interval explains.
func (s *exSegment) intervalDisagreement(st *stretch, want int64) *Disagreement {
	if st == nil {
		return &Disagreement{File: s.files.Index, Slot: -1, Found: "no consistent interval", Meaning: "no index.interval.bytes reproduces the index"}
	}
	d := &Disagreement{File: s.files.Index, Slot: -1}
	if st.entryIdx >= 0 {
		slot := -1
		for i, e := range s.entries {
			if e.Position == st.entry {
				slot = i
			}
		}
		d.Slot, d.Byte = slot, int64(slot*OffsetIndexEntrySize)
		d.Found = fmt.Sprintf("an entry at byte %d, %d bytes after the previous anchor at byte %d", st.entry, st.entry-st.anchor, st.anchor)
	} else {
		d.File, d.Byte = s.files.Log, st.anchor
		d.Found = fmt.Sprintf("no entry after byte %d", st.anchor)
	}
	if n := len(st.checks); n > 0 {
		d.Expected = fmt.Sprintf("an entry at byte %d (%d bytes after it) too", st.checks[n-1], st.checks[n-1]-st.anchor)
	}
	if want >= 0 {
		d.Meaning = fmt.Sprintf("index.interval.bytes=%d does not give these entries, with or without restarts", want)
	} else {
		d.Meaning = "no index.interval.bytes gives both with one batch per append, even with restarts: appends of several batches, a cleaner's rewrite, a release kidx does not know, or damage"
	}
	return d
}

// explainSegment reads a segment and tries every candidate.
func explainSegment(sf SegmentFiles, snaps []snapshotFile, newest bool, opts ExplainOptions) (SegmentExplanation, error) {
	se := SegmentExplanation{BaseOffset: sf.BaseOffset, Log: sf.Log}
	s, err := readExSegment(sf, snaps, newest)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
			// The file was listed but is gone: a running broker's retention renamed it to
			// .deleted (UnifiedLog.deleteSegment) or a roll recreated an empty segment
			// (LocalLog.roll). That segment cannot be explained; the others still can, as
			// verify reads on past an unreadable segment (docs/logdirs.md, "Readers under a
			// live broker").
			se.Notes = append(se.Notes, fmt.Sprintf("%s: vanished between the directory listing and its open (a running broker deleted or renamed it): the segment is not explained", pe.Path))
			return se, nil
		}
		if errors.As(err, &pe) {
			return se, err
		}
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: err.Error(), Meaning: "the files cannot be read as Kafka's"}
		return se, nil
	}
	defer s.lf.Close()
	se.Batches = len(s.batches)
	se.Live = newest && (s.idxLive || s.timeLive)
	se.OffsetEntries, se.TimeEntries = len(s.entries), len(s.times)
	if s.logErr != nil {
		se.Notes = append(se.Notes, fmt.Sprintf("the .log is explained up to byte %d: %v", s.logEnd, s.logErr))
	}
	if !s.hasIndex && !s.hasTime {
		// Nothing a broker wrote to explain: Kafka rebuilds a missing offset index at load
		// (LogSegment.recover), and a test harness writes none.
		se.NoIndexes = true
		se.Notes = append(se.Notes, "no .index or .timeindex: nothing to reproduce (a broker rebuilds a missing index at load)")
		return se, nil
	}
	if !s.hasIndex && len(s.batches) > 0 {
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: "no .index file beside a .timeindex",
			Meaning: "a broker writes both: the offset index was deleted (Kafka rebuilds it at load)"}
		return se, nil
	}
	if s.idxJunk >= 0 {
		se.Notes = append(se.Notes, fmt.Sprintf("%s: slot %d after the valid entries is not zero: explained up to the zero slot before it", sf.Index, s.idxJunk))
	}
	if s.timeJunk >= 0 {
		se.Notes = append(se.Notes, fmt.Sprintf("%s: slot %d after the valid entries is not zero: explained up to the zero slot before it", sf.TimeIndex, s.timeJunk))
	}
	var cands []candidate
	evidence := s.appendEvidence()
	memo := map[behaviour]candidate{}
	eras := opts.Eras & s.formatEras()
	if eras.Empty() {
		se.FirstDisagreement = &Disagreement{File: sf.Log, Slot: -1, Found: fmt.Sprintf("message format v%d", s.maxMagic()),
			Meaning: fmt.Sprintf("%s cannot write it (v1 came with 0.10.0, KIP-32; v2 with 0.11, KIP-98)", opts.Eras)}
		return se, nil
	}
	for _, era := range eras.Eras() {
		// Under the per-batch rule the grouping changes nothing in the index (every batch is
		// checked), so both shapes give the same fit; trying both lets the era compete under
		// the shape the data suggests.
		shapes := []AppendShape{OneBatchPerAppend, SeveralBatchesPerAppend}
		leaders := []bool{false}
		if era.TimeEntry == TimeExactRecord {
			leaders = []bool{true, false}
		}
		for _, shape := range shapes {
			for _, leader := range leaders {
				key := behaviourOf(era, shape, leader)
				c, seen := memo[key]
				if !seen {
					c = s.evaluate(era, shape, leader, opts.Interval)
					memo[key] = c
				}
				c.era, c.shape, c.leader = era, shape, leader
				if era.TimeEntry == TimeExactRecord && c.ok && c.origin == "" {
					c.origin = s.originOf(c.moments, leader)
				}
				c.rank = c.score(evidence)
				cands = append(cands, c)
				if c.ok {
					break // the leader's naming reproduces it: no need to try a follower's
				}
			}
		}
	}
	best := pickBest(cands)
	if best == nil {
		se.FirstDisagreement = latestDisagreement(cands)
		return se, nil
	}
	se.Reproduced = true
	se.Appends, se.Origin = best.shape, best.origin
	se.Interval, se.IntervalExact, se.IntervalPick = best.fit.intervals, best.fit.exact, best.fit.pick
	se.Notes = append(se.Notes, best.snapNotes...)
	// Every era that does as well (no more unmarked restarts) under the chosen shape is an
	// answer, the per-batch eras under either (their grouping changes nothing); the other
	// shape's answers are kept apart (OtherShape).
	var union, other []IntervalRange
	for _, c := range cands {
		if !c.ok || c.unmarked != best.unmarked {
			continue
		}
		se.EraIntervals = append(se.EraIntervals, EraInterval{Era: c.era, Appends: c.shape, Interval: c.fit.intervals})
		if c.shape == best.shape || (c.era.PerBatch() && !se.Eras.Has(c.era)) {
			se.Eras |= EraSetOf(c.era)
			union = append(union, c.fit.intervals...)
			continue
		}
		if !c.era.PerBatch() {
			se.OtherShapeEras |= EraSetOf(c.era)
			other = append(other, c.fit.intervals...)
		}
	}
	se.Interval = unionRanges(union)
	se.OtherShapeInterval = unionRanges(other)
	// Who appended, as the 0.11-3.6 members of the set tell (a leader names the record
	// holding the max timestamp there; a follower, the raft layer or recover() the batch's
	// last offset).
	for _, c := range cands {
		if c.ok && c.unmarked == best.unmarked && c.era.TimeEntry == TimeExactRecord && c.origin != "" {
			se.Origin = c.origin
		}
	}
	se.Restarts = s.restarts(best)
	for _, c := range cands {
		if c.ok && c.unmarked > best.unmarked && !se.Eras.Has(c.era) {
			se.Alternatives = append(se.Alternatives, fmt.Sprintf("%s with %s and %d unmarked restarts: index.interval.bytes %s", c.era, c.shape, c.unmarked, c.fit.intervals))
			break
		}
	}
	if err := s.regenerate(best, se.Live); err != nil {
		se.Reproduced = false
		se.FirstDisagreement = err
	}
	if !everyBatchChecked(best.era, best.shape) {
		for _, a := range best.appends {
			se.AppendStarts = append(se.AppendStarts, a[0])
		}
	}
	return se, nil
}

// maxMagic is the newest message format among the batches.
func (s *exSegment) maxMagic() int {
	m := 0
	for i := range s.batches {
		b := &s.batches[i]
		switch {
		case !b.legacy():
			return 2
		case b.magic1:
			m = 1
		}
	}
	return m
}

// formatEras are the eras that can write the segment's message formats: v1 messages from
// 0.10.0 (KIP-32), v2 batches from 0.11 (KIP-98).
func (s *exSegment) formatEras() EraSet {
	switch s.maxMagic() {
	case 2:
		return ErasWhere(func(e Era) bool { return e.TimeEntry == TimeExactRecord || e.TimeEntry == TimeBatchLast })
	case 1:
		return ErasWhere(func(e Era) bool { return e.ID != "0.8.0" && e.ID != "0.8.1-0.8.2" })
	}
	return AllEras
}

// evidence is what the segment's own data says of how its appends were grouped.
type appendEvidence int

const (
	// evidenceNone: v2 batches with consecutive offsets, as a leader appends a producer's
	// batches one per append (a follower's fetches of several batches show in the entries).
	evidenceNone appendEvidence = iota
	// evidenceMessageSets: legacy uncompressed messages; a producer's message set is one
	// append of many.
	evidenceMessageSets
	// evidenceGaps: offset gaps, as the cleaner's output (or a follower of a compacted
	// leader) has; both append several batches at once.
	evidenceGaps
)

func (s *exSegment) appendEvidence() appendEvidence {
	ev := evidenceNone
	for i := range s.batches {
		b := &s.batches[i]
		if i > 0 && b.base > s.batches[i-1].last+1 || (i == 0 && b.base > s.files.BaseOffset) {
			return evidenceGaps
		}
		if b.legacy() && !b.wrapper() {
			ev = evidenceMessageSets
		}
	}
	return ev
}

// score orders the candidates, lower first (docs/explain.md, "Choosing"): with offset gaps
// the cleaner's several-batch appends come first; otherwise the fewest restarts nothing in the
// files marks (a clean restart's close() leaves a time-index entry whenever the max timestamp
// grew, and a producer snapshot before 2.8), then one batch per append, as a leader writes.
func (c *candidate) score(ev appendEvidence) int {
	multi := 0
	if c.shape == SeveralBatchesPerAppend {
		multi = 1
	}
	if ev == evidenceGaps {
		return (1-multi)<<20 + c.unmarked
	}
	return c.unmarked*2 + multi
}

// pickBest is the reproducing candidate with the lowest score; among equals the newest era,
// the one a replay uses.
func pickBest(cands []candidate) *candidate {
	var best *candidate
	for i := range cands {
		c := &cands[i]
		if c.ok && (best == nil || c.rank <= best.rank) {
			best = c
		}
	}
	return best
}

// latestDisagreement is the disagreement found deepest into the files: the candidate that got
// furthest before failing says most about what went wrong. Offset-index disagreements rank by
// slot, .log ones by byte.
func latestDisagreement(cands []candidate) *Disagreement {
	var best *Disagreement
	bestRank := int64(-1)
	for _, c := range cands {
		if c.dis == nil {
			continue
		}
		rank := c.dis.Byte
		if c.dis.Slot >= 0 {
			rank = int64(c.dis.Slot)
		}
		if rank > bestRank {
			d := *c.dis
			d.Meaning = fmt.Sprintf("%s (tried as %s, %s)", d.Meaning, c.era, c.shape)
			best, bestRank = &d, rank
		}
	}
	return best
}

// restarts turns the fit's restarts and the marks into reported restarts.
func (s *exSegment) restarts(c *candidate) []ExplainedRestart {
	at := func(j int) (int64, int64) {
		if j >= len(s.batches) {
			return s.logEnd, s.batches[len(s.batches)-1].last + 1
		}
		return s.batches[j].pos, s.batches[j].base
	}
	var out []ExplainedRestart
	for _, j := range c.fixed {
		pos, off := at(j)
		r := ExplainedRestart{Position: pos, Offset: off, EarliestPosition: pos, EarliestOffset: off, Evidence: "producer-snapshot"}
		for _, sn := range s.snaps {
			if s.batchFrom(sn.offset) == j {
				r.Snapshot = sn.path
			}
		}
		out = append(out, r)
	}
	for _, r := range c.fit.restarts {
		lp, lo := at(r.latest)
		ep, eo := at(r.earliest)
		ev := "required"
		if r.marked {
			ev = "time-index"
		}
		out = append(out, ExplainedRestart{Position: lp, Offset: lo, EarliestPosition: ep, EarliestOffset: eo, Evidence: ev})
	}
	// Marks the offset index needs no restart for (after the last entry, or at the end).
	for _, mk := range c.marks {
		covered := false
		for _, r := range out {
			if j := s.batchAtPos(r.Position); (j >= mk.lo && j <= mk.hi) || (r.Position == s.logEnd && mk.hi >= len(s.batches)) {
				covered = true
			}
		}
		if !covered {
			lp, lo := at(mk.hi)
			ep, eo := at(mk.lo)
			out = append(out, ExplainedRestart{Position: lp, Offset: lo, EarliestPosition: ep, EarliestOffset: eo, Evidence: "time-index"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Position < out[j].Position })
	return out
}
