package model

// TimeIndexEntrySize is TimeIndex.ENTRY_SIZE: int64 timestamp, int32 relative offset.
const TimeIndexEntrySize = 12

// TimestampOffset is one time-index entry with an absolute offset: every record with a
// timestamp above Timestamp lies after Offset.
type TimestampOffset struct {
	Timestamp int64
	Offset    int64
}

type timeEntry struct {
	ts  int64
	rel int32
}

// TimeIndex is an in-memory twin of Kafka's TimeIndex (docs/kafka.md §6). The zero value is not
// usable; call NewTimeIndex.
type TimeIndex struct {
	indexSlots[timeEntry]
	// appendOnEqual is MutantTimeIndexOnEqual (never set for Kafka's behaviour).
	appendOnEqual bool
}

// NewTimeIndex creates an empty time index: maxIndexSize rounded down to 12-byte entries.
func NewTimeIndex(baseOffset, maxIndexSize int64) (*TimeIndex, error) {
	if maxIndexSize < TimeIndexEntrySize {
		return nil, indexErr(ErrInvalidSize, "Invalid max index size: %d", maxIndexSize)
	}
	return &TimeIndex{indexSlots: indexSlots[timeEntry]{baseOffset: baseOffset, entrySize: TimeIndexEntrySize,
		maxEntries: int(maxIndexSize / TimeIndexEntrySize)}}, nil
}

// IsFull is TimeIndex.isFull: entries >= maxEntries - 1. One slot stays free for the entry
// that onBecomeInactiveSegment and close() add with skipFullCheck.
func (x *TimeIndex) IsFull() bool { return len(x.entries) >= x.maxEntries-1 }

func (x *TimeIndex) at(n int) TimestampOffset {
	e := x.entries[n]
	return TimestampOffset{Timestamp: e.ts, Offset: x.baseOffset + int64(e.rel)}
}

// LastEntry is TimeIndex.lastEntry: (-1, baseOffset) when empty.
func (x *TimeIndex) LastEntry() TimestampOffset {
	if len(x.entries) == 0 {
		return TimestampOffset{Timestamp: NoTimestamp, Offset: x.baseOffset}
	}
	return x.at(len(x.entries) - 1)
}

// Entry is TimeIndex.entry(n).
func (x *TimeIndex) Entry(n int) (TimestampOffset, error) {
	if n < 0 || n >= len(x.entries) {
		return TimestampOffset{}, indexErr(ErrNoSuchEntry,
			"Attempt to fetch the %dth entry from time index, which has size %d", n, len(x.entries))
	}
	return x.at(n), nil
}

// All returns every entry in slot order.
func (x *TimeIndex) All() []TimestampOffset {
	out := make([]TimestampOffset, len(x.entries))
	for i := range x.entries {
		out[i] = x.at(i)
	}
	return out
}

// MaybeAppend is TimeIndex.maybeAppend, checks in Kafka's order: (1) full, unless
// skipFullCheck (checked even when the timestamp would not be appended); (2) offset below
// the last entry's; (3) timestamp below the last entry's; (4) append only if the timestamp
// is strictly greater than the last entry's, so equal timestamps are ignored and, with the
// empty index's -1, NO_TIMESTAMP never creates an entry.
func (x *TimeIndex) MaybeAppend(timestamp, offset int64, skipFullCheck bool) error {
	if !skipFullCheck && x.IsFull() {
		return indexErr(ErrIndexFull, "Attempt to append to a full time index (size = %d).", len(x.entries))
	}
	last := x.LastEntry()
	if len(x.entries) != 0 && offset < last.Offset {
		return indexErr(ErrInvalidOffset,
			"Attempt to append an offset (%d) to slot %d no larger than the last offset appended (%d)",
			offset, len(x.entries), last.Offset)
	}
	if len(x.entries) != 0 && timestamp < last.Timestamp {
		return indexErr(ErrInvalidTimestamp,
			"Attempt to append a timestamp (%d) to slot %d no larger than the last timestamp appended (%d)",
			timestamp, len(x.entries), last.Timestamp)
	}
	if timestamp > last.Timestamp || (x.appendOnEqual && timestamp == last.Timestamp) {
		if len(x.entries) >= x.maxEntries {
			return indexErr(ErrBufferOverflow, "java.nio.BufferOverflowException")
		}
		x.entries = append(x.entries, timeEntry{ts: timestamp, rel: int32(offset - x.baseOffset)})
	}
	return nil
}

func (x *TimeIndex) tsKey(i int) int64  { return x.entries[i].ts }
func (x *TimeIndex) relKey(i int) int64 { return int64(x.entries[i].rel) }

// Lookup is TimeIndex.lookup: the largest entry with timestamp <= ts, or (-1, baseOffset).
func (x *TimeIndex) Lookup(ts int64) TimestampOffset {
	e, _, _ := x.LookupSlot(ts)
	return e
}

// LookupSlot is Lookup with the slot (-1 for none) and the search's cost.
func (x *TimeIndex) LookupSlot(ts int64) (TimestampOffset, int, SearchCost) {
	t := costTracker{entrySize: TimeIndexEntrySize}
	slot := indexSlotRangeFor(len(x.entries), x.tsKey, ts, TimeIndexEntrySize, largestLowerBound, &t)
	if slot < 0 {
		return TimestampOffset{Timestamp: NoTimestamp, Offset: x.baseOffset}, -1, t.cost()
	}
	return x.at(slot), slot, t.cost()
}

// TruncateTo is TimeIndex.truncateTo: remove entries whose offset is >= offset, searching
// on the offset (VALUE) with the same three cases as the offset index.
func (x *TimeIndex) TruncateTo(offset int64) {
	slot := indexSlotRangeFor(len(x.entries), x.relKey, offset-x.baseOffset, TimeIndexEntrySize, largestLowerBound, nil)
	x.truncateToSlot(slot, slot >= 0 && x.at(slot).Offset == offset)
}

func (x *TimeIndex) clone() *TimeIndex {
	return &TimeIndex{indexSlots: x.indexSlots.clone(), appendOnEqual: x.appendOnEqual}
}
