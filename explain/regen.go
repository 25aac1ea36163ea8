package explain

import (
	"bytes"
	"fmt"
	"sort"

	"kidx/logdir"
	"kidx/segment"
)

// regenerate writes the segment's indexes again from its .log under the chosen explanation,
// the era's append rule run at the picked interval with the appends and restarts found, and
// compares the bytes with the files: "reproduced" means this replay gives back the files'
// bytes (up to a live index's zero tail), not just that the constraints were met.
func (s *exSegment) regenerate(c *candidate, live bool) *Disagreement {
	n := s.batches.len()
	if n == 0 {
		if len(s.entries) > 0 || len(s.times) > 0 {
			return &Disagreement{File: s.files.Index, Slot: 0, Found: "entries for an empty .log", Meaning: "an index with nothing to index"}
		}
		return nil
	}
	// A restart the files show (a snapshot, a time-index mark) is a clean one: close() appends
	// the time-index entry. One nothing marks resets the counter only (a recovery of the
	// appended part, a follower's truncation, or a close whose entry was not greater).
	restartAt := map[int]bool{}
	closes := map[int]bool{}
	for _, r := range c.fixed {
		restartAt[r], closes[r] = true, true
	}
	for _, r := range c.fit.restarts {
		restartAt[r.latest] = true
		closes[r.latest] = r.marked
	}
	for _, mk := range c.marks {
		covered := false
		for r := range restartAt {
			if r >= mk.lo && r <= mk.hi {
				covered = true
			}
		}
		if !covered {
			restartAt[mk.hi], closes[mk.hi] = true, true
		}
	}
	appends := s.appendsOf(c, restartAt)
	c.appends = appends
	wrapperAt := map[int]bool{}
	for _, m := range c.moments {
		if m.wrapperOffset {
			wrapperAt[m.first] = true
		}
	}
	era, interval := c.era, c.fit.pick
	var idx []segment.IndexEntry
	var times []segment.TimeIndexEntry
	lastTs := int64(-1)
	maxTs, maxBatch := int64(-1), -1
	var nameErr error
	timeAppend := func() {
		if !era.HasTimeIndex() || maxTs <= lastTs {
			return
		}
		off, err := s.timeName(era, c.leader, maxBatch)
		if err != nil {
			nameErr = err
		}
		times = append(times, segment.TimeIndexEntry{Timestamp: maxTs, Offset: off})
		lastTs = maxTs
	}
	see := func(j int) {
		if s.batches.at(j).maxTs > maxTs {
			maxTs, maxBatch = s.batches.at(j).maxTs, j
		}
	}
	var counter int64
	step := func(a [2]int) {
		if restartAt[a[0]] {
			if closes[a[0]] {
				timeAppend() // close() at the shutdown
			}
			counter = 0
		}
		if era.OffsetEntry == logdir.EntryBatchLast {
			for j := a[0]; j <= a[1]; j++ {
				see(j)
				if counter > interval {
					idx = append(idx, segment.IndexEntry{Offset: s.batches.at(j).last, Position: s.batches.at(j).pos})
					timeAppend()
					counter = 0
				}
				counter += s.batches.at(j).size
			}
			return
		}
		for j := a[0]; j <= a[1]; j++ {
			see(j)
		}
		if counter > interval {
			off := s.batches.at(a[1]).last
			if era.OffsetEntry == logdir.EntryAppendFirst && !wrapperAt[a[0]] {
				off = s.batches.at(a[0]).base
			} else if era.OffsetEntry == logdir.EntryAppendFirst {
				off = s.batches.at(a[0]).last
			}
			idx = append(idx, segment.IndexEntry{Offset: off, Position: s.batches.at(a[0]).pos})
			timeAppend()
			counter = 0
		}
		counter += s.batches.at(a[1]).pos + s.batches.at(a[1]).size - s.batches.at(a[0]).pos
	}
	if appends == nil { // one batch per append
		for j := range n {
			step([2]int{j, j})
		}
	}
	for _, a := range appends {
		step(a)
	}
	if restartAt[n] {
		timeAppend()
	}
	if !s.newest || !s.timeLive {
		timeAppend() // the roll's or the clean shutdown's close()
	}
	if nameErr != nil {
		return &Disagreement{File: s.files.Log, Slot: -1, Found: nameErr.Error(), Meaning: "a batch's records could not be read for the time index"}
	}
	what := fmt.Sprintf("kidx's replay of %s with index.interval.bytes=%d, %s and the restarts found", era, interval, c.shape)
	want := make([]byte, 0, len(idx)*segment.OffsetIndexEntrySize)
	got := make([]byte, 0, len(s.entries)*segment.OffsetIndexEntrySize)
	for _, e := range idx {
		want = segment.EncodeIndexEntry(want, s.files.BaseOffset, e)
	}
	for _, e := range s.entries {
		got = segment.EncodeIndexEntry(got, s.files.BaseOffset, e)
	}
	if d := firstDifference(s.files.Index, want, got, segment.OffsetIndexEntrySize, what); d != nil {
		return d
	}
	if s.hasIndex && !s.idxLive && s.idxSize != int64(len(got)) {
		return &Disagreement{File: s.files.Index, Slot: -1, Byte: int64(len(got)), Found: fmt.Sprintf("a file of %d bytes", s.idxSize),
			Expected: fmt.Sprintf("%d bytes", len(got)), Meaning: "a trimmed index holds exactly its entries"}
	}
	if s.hasTime && era.HasTimeIndex() {
		want = make([]byte, 0, len(times)*segment.TimeIndexEntrySize)
		got = make([]byte, 0, len(s.times)*segment.TimeIndexEntrySize)
		for _, e := range times {
			want = segment.EncodeTimeIndexEntry(want, s.files.BaseOffset, e)
		}
		for _, e := range s.times {
			got = segment.EncodeTimeIndexEntry(got, s.files.BaseOffset, e)
		}
		if d := firstDifference(s.files.TimeIndex, want, got, segment.TimeIndexEntrySize, what); d != nil {
			return d
		}
	}
	return nil
}

// appendsOf groups the batches into appends as the explanation has them: nil for one batch
// each, or the appends that carry entries with what lies between them as one append, cut at
// restarts.
func (s *exSegment) appendsOf(c *candidate, restartAt map[int]bool) [][2]int {
	n := s.batches.len()
	var out [][2]int
	if everyBatchChecked(c.era, c.shape) {
		return nil // one batch each: not held, a batch at a time (issue 27)
	}
	cut := func(lo, hi int) {
		for lo <= hi {
			end := hi
			for j := lo + 1; j <= hi; j++ {
				if restartAt[j] {
					end = j - 1
					break
				}
			}
			out = append(out, [2]int{lo, end})
			lo = end + 1
		}
	}
	next := 0
	ms := append([]moment(nil), c.moments...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].first < ms[j].first })
	for _, m := range ms {
		cut(next, m.first-1)
		end := m.last
		if m.lastMax != m.last {
			end = m.lastMax
		}
		cut(m.first, end)
		next = end + 1
	}
	cut(next, n-1)
	return out
}

// firstDifference compares an index image with the file's valid entries, slot by slot.
func firstDifference(file string, want, got []byte, size int, what string) *Disagreement {
	if bytes.Equal(want, got) {
		return nil
	}
	for i := 0; ; i++ {
		lo := i * size
		var w, g []byte
		if lo < len(want) {
			w = want[lo:min(lo+size, len(want))]
		}
		if lo < len(got) {
			g = got[lo:min(lo+size, len(got))]
		}
		if bytes.Equal(w, g) {
			continue
		}
		d := &Disagreement{File: file, Slot: i, Byte: int64(lo), Meaning: what + " writes this slot differently"}
		d.Found, d.Expected = slotText(g, size), slotText(w, size)
		return d
	}
}

func slotText(b []byte, size int) string {
	if len(b) < size {
		return "no entry"
	}
	return fmt.Sprintf("bytes % x", b)
}
