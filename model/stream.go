package model

import (
	"errors"
	"fmt"
	"math"
)

// StatStream is the fast path for the common what-if question: a leader's log (one batch per
// append, no restarts) of any length, reduced to exact per-segment summaries and ScanStats
// in one pass, with no per-batch memory. It applies the same rules as Log (which stays the
// reference; tests hold the two equal on random workloads) but keeps only counters. For one
// batch per append the per-batch and per-append rules coincide (docs/kafka.md §2.2); the older
// eras differ (SetEra), and those without an overflow roll (before 0.10.2) are left to Log.
//
// Two facts keep the loop small. Within a segment written in one process lifetime,
// bytesSinceLastIndexEntry is exactly the distance from the latest entry's position (or 0)
// to the next batch, so it is also that batch's scanBytes. And the hops of a batch are the
// batches since the latest entry, plus one.
type StatStream struct {
	cfg                    Config
	offsetSlots, timeSlots int64 // per-segment capacity, from segment.index.bytes

	// The active segment.
	base, size, batches, maxBatch     int64
	entries, timeEntries              int64
	counter                           int64 // LogSegment.bytesSinceLastIndexEntry = scanBytes of the next batch
	hops                              int64 // batches since the latest entry (or the segment start)
	maxTs, maxTsOffset                int64 // LogSegment.maxTimestampAndOffsetSoFar
	lastTimeEntryTs, lastTimeEntryOff int64 // timeIndex.lastEntry()
	firstBatchTs                      int64 // rollingBasedTimestamp: the first batch's max timestamp
	scan                              ScanStats

	// Header reads (docs/kafka.md §7.1, §13.6): the last batch's offsets, its largest hops and
	// its largest reads once another batch follows, kept apart from the earlier batches'
	// largest reads until the segment closes.
	lastLookups, lastMaxHops, lastAsEarlier, earlierMaxReads int64

	era          Era
	entryAtBase  bool // the entry names the batch's first offset (up to 1.1)
	countsAppend bool // the size roll counts the append, and rejects one larger than a segment (0.8.2+)

	nextOffset    int64
	rejected      int64
	total         ScanStats
	summaries     []SegmentSummary
	keepSummaries bool
	onSegment     func(SegmentSummary)
	onRun         func(count, scanBytes, hops int64)
	tally         *RunTally // sums onRun's runs of equal cost; nil without onRun

	// intervalLo and intervalHi bound the index.interval.bytes values this stream stands for
	// (SetIntervalRange): all of them make every check so far decide alike.
	intervalLo, intervalHi int64
	// rolled: the batch at the head of the next call already went through the roll check
	// (a split stopped the call right after a roll).
	rolled bool
}

// OnRun registers fn to be called for every run of offsets that share one lookup cost, as
// the stream computes them: count offsets cost scanBytes and hops each. The runs of all
// segments add up to the stream's ScanStats; reports use them for exact quantiles. Runs come
// in no particular order, and runs of one cost come summed (RunTally); every run has been
// reported when Close returns, and before a Clone.
func (s *StatStream) OnRun(fn func(count, scanBytes, hops int64)) {
	s.onRun, s.tally = fn, nil
	if fn != nil {
		s.tally = NewRunTally(fn)
	}
}

// A RunTally sums runs of equal cost before they reach a hook (StatStream's OnRun; the
// reference path's sim.RunOptions.OnRun). A workload repeats few (scan, hops) pairs (fixed
// batches cycle through a handful per segment), so most runs add to a count in a small table
// kept in L1, with no call; a slot is handed on when another pair needs it, and every slot at
// Flush. Consumers that add counts per value (reports' exact distributions) see the same
// totals. The 1 TiB sweep spent a third of its time in those distributions before this.
type RunTally struct {
	slots [tallySlots]tallySlot
	emit  func(count, scanBytes, hops int64)
}

type tallySlot struct{ scan, hops, count int64 }

const tallySlots = 256

// NewRunTally sums runs for emit.
func NewRunTally(emit func(count, scanBytes, hops int64)) *RunTally { return &RunTally{emit: emit} }

// Add counts count offsets of one cost.
func (t *RunTally) Add(count, scanBytes, hops int64) {
	if count == 0 {
		return
	}
	sl := &t.slots[(uint64(scanBytes)*0x9E3779B97F4A7C15+uint64(hops)*0x632BE59BD9B4E019)>>56]
	if sl.count > 0 && (sl.scan != scanBytes || sl.hops != hops) {
		t.emit(sl.count, sl.scan, sl.hops)
		sl.count = 0
	}
	sl.scan, sl.hops = scanBytes, hops
	sl.count += count
}

// Flush hands every count still in the table to the hook.
func (t *RunTally) Flush() {
	for i := range t.slots {
		if sl := &t.slots[i]; sl.count > 0 {
			t.emit(sl.count, sl.scan, sl.hops)
			sl.count = 0
		}
	}
}

// NewStatStream starts an empty log at startOffset. With keepSummaries every closed
// segment's summary is kept (see Summaries); onSegment, if set, is called with each.
func NewStatStream(cfg Config, startOffset int64, keepSummaries bool, onSegment func(SegmentSummary)) (*StatStream, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &StatStream{cfg: cfg,
		offsetSlots: cfg.SegmentIndexBytes / OffsetIndexEntrySize, timeSlots: cfg.SegmentIndexBytes / TimeIndexEntrySize,
		nextOffset: startOffset, keepSummaries: keepSummaries, onSegment: onSegment,
		intervalLo: cfg.IndexIntervalBytes, intervalHi: cfg.IndexIntervalBytes}
	if err := s.SetEra(EraForRule(PerBatch)); err != nil {
		return nil, err
	}
	s.reset()
	return s, nil
}

// StreamSupports reports whether StatStream can run the era: every era with the overflow
// roll (0.10.2+). Before it, an offset past the relative range stops the log (an event),
// which only Log reports.
func StreamSupports(e Era) bool { return e.OverflowRoll }

// SetEra selects the era's rules; call it before the first batch.
func (s *StatStream) SetEra(e Era) error {
	if !StreamSupports(e) {
		return fmt.Errorf("%s has no overflow roll (KAFKA-4451): run it through Log", e)
	}
	if s.batches > 0 || s.total.Lookups > 0 {
		return errors.New("SetEra after the first batch")
	}
	s.era = e
	s.entryAtBase = e.Entry == EntryAppendFirst
	s.countsAppend = e.SizeRollCountsAppend
	if !e.HasTimeIndex() {
		s.timeSlots = math.MaxInt64
	} else {
		s.timeSlots = s.cfg.SegmentIndexBytes / TimeIndexEntrySize
	}
	return nil
}

func (s *StatStream) reset() {
	s.base = s.nextOffset
	s.size, s.batches, s.maxBatch, s.entries, s.timeEntries, s.counter, s.hops = 0, 0, 0, 0, 0, 0, 0
	s.maxTs, s.maxTsOffset = NoTimestamp, s.base
	s.lastTimeEntryTs, s.lastTimeEntryOff = NoTimestamp, s.base
	s.firstBatchTs = NoTimestamp
	s.scan = ScanStats{}
	s.lastLookups, s.lastMaxHops, s.lastAsEarlier, s.earlierMaxReads = 0, 0, 0, 0
}

// SetIntervalRange makes the stream stand for every index.interval.bytes value in [lo, hi]
// at once (lo <= cfg's interval <= hi is not required). As long as each check's counter c has
// all of them on one side (LogSegment.append's strict c > interval: entry for all when
// c > hi, for none when c <= lo), the run is the same for all; AddBatchesUntilSplit stops
// where they part (docs/model.md, "Exact interval breakpoints"). Call it before a batch.
func (s *StatStream) SetIntervalRange(lo, hi int64) { s.intervalLo, s.intervalHi = lo, hi }

// Clone is an independent copy of the stream in its current state, with its own segment
// hook (onSegment, possibly nil) and no run hook (set one with OnRun).
func (s *StatStream) Clone(onSegment func(SegmentSummary)) *StatStream {
	if s.tally != nil {
		s.tally.Flush() // the runs so far are the history both copies share: hand them on once
	}
	c := *s
	c.summaries = append([]SegmentSummary(nil), s.summaries...)
	c.onSegment, c.onRun, c.tally = onSegment, nil, nil
	return &c
}

// Add appends one batch of the given size, record count and max timestamp. Batches are not
// validated (the caller's generator is trusted); an append larger than segment.bytes is
// counted as rejected, as Kafka rejects it.
func (s *StatStream) Add(bytes, records, maxTimestamp int64) {
	b := [1]int32{int32(bytes)}
	r := [1]int32{int32(records)}
	ts := [1]int64{maxTimestamp}
	s.AddBatches(b[:], r[:], ts[:])
}

// AddBatches appends len(bytes) batches, one append each: batch i has bytes[i] bytes,
// records[i] records and max timestamp maxTimestamps[i] (maxTimestamps may be nil: no
// timestamps). This is the hot loop: the active segment's state lives in locals, and goes
// back to s when the loop ends or a roll interrupts it.
func (s *StatStream) AddBatches(bytes, records []int32, maxTimestamps []int64) {
	for len(bytes) > 0 {
		n, _ := s.AddBatchesUntilSplit(bytes, records, maxTimestamps)
		if n == len(bytes) {
			return
		}
		// Only a range set with SetIntervalRange can split: this stream stands for one value
		// per decision, the range's top ("entry" only when the counter passes it).
		s.intervalLo = s.intervalHi
		bytes, records = bytes[n:], records[n:]
		if maxTimestamps != nil {
			maxTimestamps = maxTimestamps[n:]
		}
	}
}

// AddBatchesUntilSplit is AddBatches up to the first batch whose index check would decide
// differently for values of the stream's interval range (SetIntervalRange): it returns how
// many batches it appended and, when it stopped early, the counter c of that check (the
// values below c add an entry there, those from c up do not). The stream is then in the state
// before that batch, for the caller to split (Clone) and continue each part with its own range.
func (s *StatStream) AddBatchesUntilSplit(bytes, records []int32, maxTimestamps []int64) (appended int, splitAt int64) {
	segBytes, segMs := s.cfg.SegmentBytes, s.cfg.SegmentMs
	lo, hi := s.intervalLo, s.intervalHi
	hasTs := maxTimestamps != nil
	timeRolls := hasTs && s.era.TimeRollOnTimestamps
	timeIndex := s.era.HasTimeIndex()
	tally := s.tally
	// The size roll counts the incoming append (0.8.2+), or only what is written (before).
	var appendMask int64 = -1
	if !s.countsAppend {
		appendMask = 0
	}
	entryAtBase := s.entryAtBase
	rolled := s.rolled // the batch at i already went through shouldRoll (once per append)
	s.rolled = false
	for i := 0; i < len(bytes); {
		size, counter, hops, batches, next := s.size, s.counter, s.hops, s.batches, s.nextOffset
		entries, maxBatch := s.entries, s.maxBatch
		totalScan, totalHops, maxScan, maxHops := s.scan.TotalScanBytes, s.scan.TotalHops, s.scan.MaxScanBytes, s.scan.MaxHops
		lastLookups, lastMaxHops, lastAsEarlier, earlierMaxReads := s.lastLookups, s.lastMaxHops, s.lastAsEarlier, s.earlierMaxReads
		// A roll is needed when the append would pass segment.bytes, an index is full, or the
		// relative offset would overflow; fullness changes only when an entry is added.
		full := entries >= s.offsetSlots || s.timeEntries >= s.timeSlots-1
		lastAllowed := s.base + math.MaxInt32
		reason := rollNone
		var named1 int64 // offsets named by an entry: scan 0, 1 hop
		split := int64(0)
		for ; i < len(bytes); i++ {
			n := int64(bytes[i])
			recs := int64(records[i])
			last := next + recs - 1
			ts := int64(NoTimestamp)
			timeRoll := false
			if hasTs {
				ts = maxTimestamps[i]
				timeRoll = timeRolls && size > 0 && s.firstBatchTs >= 0 && ts-s.firstBatchTs > segMs
			}
			if size+n&appendMask > segBytes || full || last > lastAllowed || timeRoll {
				// UnifiedLog.append rejects an append larger than segment.bytes first (0.8.2+).
				if n > segBytes && s.countsAppend {
					s.rejected++
					continue
				}
				if !rolled {
					reason = s.rollReason(size+n&appendMask > segBytes, timeRoll, entries)
					break
				}
			}
			if counter > lo && counter <= hi {
				// The range's values decide this check differently: stop before the batch.
				split = counter
				break
			}
			rolled = false
			if hasTs {
				if batches == 0 {
					s.firstBatchTs = ts
				}
				if ts > s.maxTs {
					s.maxTs, s.maxTsOffset = ts, last
				}
			}
			// LogSegment.append: strict >, checked before the increment. The batch's offsets
			// below the one the entry names use the previous start (scan = counter, hops+1
			// headers); with an entry, the named offset and those after it use the entry (scan
			// 0, 1 hop): the last offset, or up to 1.1 every offset of the batch. The decision
			// is kept out of the branches: with mixed batch sizes it is unpredictable.
			var idx int64
			if counter > hi {
				idx = 1
			}
			named := idx
			if entryAtBase {
				named = idx * recs
			}
			rest := recs - named
			if tally != nil && rest > 0 {
				tally.Add(rest, counter, hops+1)
			}
			// The offsets an entry names all cost (0, 1): summed, and reported once per call
			// and roll below (a run's consumers add counts; their order is not part of it).
			named1 += named
			totalScan += rest * counter
			totalHops += rest*(hops+1) + named
			// Header reads: this batch becomes the segment's last one. From 4.1 every offset
			// but a batch's base reads one header more while a batch follows (scanWalker.step).
			earlierMaxReads = max(earlierMaxReads, lastAsEarlier)
			lastLookups = recs
			if idx == 0 {
				lastMaxHops, lastAsEarlier = hops+1, hops+1
				if recs > 1 {
					lastAsEarlier = hops + 2
				}
			} else {
				lastMaxHops, lastAsEarlier = 1, 2
				if rest > 0 {
					lastMaxHops, lastAsEarlier = max(hops+1, 1), max(2, hops+1)
					if rest > 1 {
						lastAsEarlier = max(lastAsEarlier, hops+2)
					}
				}
				if recs == 1 {
					lastAsEarlier = 1
				}
			}
			if rest > 0 {
				maxScan = max(maxScan, counter)
				maxHops = max(maxHops, hops+1)
			}
			maxHops = max(maxHops, idx)
			entries += idx
			if timeIndex && s.maxTs > s.lastTimeEntryTs && idx == 1 {
				s.timeEntries++
				s.lastTimeEntryTs, s.lastTimeEntryOff = s.maxTs, s.maxTsOffset
			}
			full = entries >= s.offsetSlots || s.timeEntries >= s.timeSlots-1
			keep := idx - 1 // 0 after an entry, all ones otherwise
			counter &= keep
			hops &= keep
			counter += n
			hops++
			size += n
			batches++
			maxBatch = max(maxBatch, n)
			next = last + 1
		}
		if tally != nil && named1 > 0 {
			tally.Add(named1, 0, 1)
		}
		s.size, s.counter, s.hops, s.batches, s.nextOffset = size, counter, hops, batches, next
		s.entries, s.maxBatch = entries, maxBatch
		s.scan.TotalScanBytes, s.scan.TotalHops, s.scan.MaxScanBytes, s.scan.MaxHops = totalScan, totalHops, maxScan, maxHops
		s.lastLookups, s.lastMaxHops, s.lastAsEarlier, s.earlierMaxReads = lastLookups, lastMaxHops, lastAsEarlier, earlierMaxReads
		if split > 0 {
			s.rolled = rolled
			return i, split
		}
		if reason != rollNone {
			// LocalLog.roll: an empty active segment is replaced, not closed.
			if s.size > 0 {
				s.closeSegment(reason)
			}
			s.reset()
			rolled = true
		}
	}
	return len(bytes), 0
}

// rollReason is why LogSegment.shouldRoll rolls, its conditions in Kafka's order: the size,
// the time, a full offset index, a full time index (its last slot reserved), else the relative
// offset out of range. Called once per roll, off AddBatchesUntilSplit's hot path.
func (s *StatStream) rollReason(sizeRoll, timeRoll bool, entries int64) RollReason {
	switch {
	case sizeRoll:
		return RollSize
	case timeRoll:
		return RollTime
	case entries >= s.offsetSlots:
		return RollOffsetIndexFull
	case s.timeEntries >= s.timeSlots-1:
		return RollTimeIndexFull
	}
	return RollOffsetOutOfRange
}

// activeScan is the active segment's ScanStats: every offset is one lookup.
func (s *StatStream) activeScan() ScanStats {
	sc := s.scan
	sc.Lookups = s.nextOffset - s.base
	w := scanWalker{batches: int(s.batches), lastLookups: s.lastLookups, lastMaxHops: s.lastMaxHops, lastAsEarlier: s.lastAsEarlier, earlierMaxReads: s.earlierMaxReads}
	return w.withHeaderReads(sc, s.era.HeaderReadsPastHit)
}

// closeSegment is onBecomeInactiveSegment's effect on the counts: the closing time-index
// entry when the max timestamp is above the last entry's.
func (s *StatStream) closeSegment(reason RollReason) {
	timeEntries := s.timeEntries
	if s.era.HasTimeIndex() && s.maxTs > s.lastTimeEntryTs {
		timeEntries++
	}
	sc := s.activeScan()
	sum := SegmentSummary{BaseOffset: s.base, LastOffset: s.nextOffset - 1, SizeBytes: s.size, BatchCount: int(s.batches),
		OffsetIndexEntries: int(s.entries), TimeIndexEntries: int(timeEntries), MaxBatchBytes: s.maxBatch,
		RollReason: reason, Scan: sc}
	s.total.Merge(sc)
	if s.keepSummaries {
		s.summaries = append(s.summaries, sum)
	}
	if s.onSegment != nil {
		s.onSegment(sum)
	}
}

// Close closes the active segment (as Log.Close does) and returns the totals.
func (s *StatStream) Close() ScanStats {
	if s.tally != nil {
		s.tally.Flush()
	}
	s.closeSegment(rollNone)
	s.reset()
	return s.total
}

// Summaries are the closed segments' summaries (with keepSummaries).
func (s *StatStream) Summaries() []SegmentSummary { return s.summaries }

// Scan is the exact cost over every offset so far, the active segment included.
func (s *StatStream) Scan() ScanStats {
	t := s.total
	t.Merge(s.activeScan())
	return t
}

// Rejected counts appends larger than segment.bytes.
func (s *StatStream) Rejected() int64 { return s.rejected }
