package model

import "math"

// OffsetIndexEntrySize is OffsetIndex.ENTRY_SIZE: int32 relative offset, int32 position.
const OffsetIndexEntrySize = 8

// OffsetPosition is one offset-index entry with an absolute offset.
type OffsetPosition struct {
	Offset   int64
	Position int64
}

// offsetEntry is an entry as Kafka stores it: offset relative to the segment's base.
type offsetEntry struct {
	rel int32
	pos int32
}

// OffsetIndex is an in-memory twin of Kafka's OffsetIndex (docs/kafka.md §4): same capacity,
// same append preconditions in the same order, same warm-section search, same truncation.
// The zero value is not usable; call NewOffsetIndex.
type OffsetIndex struct {
	indexSlots[offsetEntry]
}

// NewOffsetIndex creates an empty index the way AbstractIndex.createAndAssignMmap creates a
// new file: maxIndexSize is rounded down to whole entries, and a size smaller than one entry
// is refused.
func NewOffsetIndex(baseOffset, maxIndexSize int64) (*OffsetIndex, error) {
	if maxIndexSize < OffsetIndexEntrySize {
		return nil, indexErr(ErrInvalidSize, "Invalid max index size: %d", maxIndexSize)
	}
	return &OffsetIndex{indexSlots[offsetEntry]{baseOffset: baseOffset, entrySize: OffsetIndexEntrySize,
		maxEntries: int(maxIndexSize / OffsetIndexEntrySize)}}, nil
}

// BaseOffset is the segment's base offset.
func (x *OffsetIndex) BaseOffset() int64 { return x.baseOffset }

// IsFull is AbstractIndex.isFull: entries >= maxEntries.
func (x *OffsetIndex) IsFull() bool { return len(x.entries) >= x.maxEntries }

// LastOffset is the last entry's offset, or the base offset when empty (OffsetIndex.lastEntry).
func (x *OffsetIndex) LastOffset() int64 {
	if len(x.entries) == 0 {
		return x.baseOffset
	}
	return x.baseOffset + int64(x.entries[len(x.entries)-1].rel)
}

// CanAppendOffset is AbstractIndex.canAppendOffset: 0 <= offset-base <= Integer.MAX_VALUE.
func (x *OffsetIndex) CanAppendOffset(offset int64) bool {
	rel := offset - x.baseOffset
	return rel >= 0 && rel <= math.MaxInt32
}

func (x *OffsetIndex) at(n int) OffsetPosition {
	e := x.entries[n]
	return OffsetPosition{Offset: x.baseOffset + int64(e.rel), Position: int64(e.pos)}
}

// Entry is OffsetIndex.entry(n).
func (x *OffsetIndex) Entry(n int) (OffsetPosition, error) {
	if n < 0 || n >= len(x.entries) {
		return OffsetPosition{}, indexErr(ErrNoSuchEntry,
			"Attempt to fetch the %dth entry from index, which has size %d", n, len(x.entries))
	}
	return x.at(n), nil
}

// All returns every entry in slot order.
func (x *OffsetIndex) All() []OffsetPosition {
	out := make([]OffsetPosition, len(x.entries))
	for i := range x.entries {
		out[i] = x.at(i)
	}
	return out
}

// Append is OffsetIndex.append with Kafka's checks in Kafka's order: full first, then the
// offset must be larger than the last one (equal is rejected, the first entry may equal the
// base offset), then the relative offset must fit an int32. Positions are not validated.
func (x *OffsetIndex) Append(offset, position int64) error {
	if x.IsFull() {
		return indexErr(ErrIndexFull, "Attempt to append to a full index (size = %d).", len(x.entries))
	}
	if len(x.entries) != 0 && offset <= x.LastOffset() {
		return indexErr(ErrInvalidOffset,
			"Attempt to append an offset %d to position %d no larger than the last offset appended (%d)",
			offset, len(x.entries), x.LastOffset())
	}
	if !x.CanAppendOffset(offset) {
		return indexErr(ErrOffsetOverflow, "Integer overflow for offset: %d", offset)
	}
	x.entries = append(x.entries, offsetEntry{rel: int32(offset - x.baseOffset), pos: int32(position)})
	return nil
}

func (x *OffsetIndex) relKey(i int) int64 { return int64(x.entries[i].rel) }
func (x *OffsetIndex) posKey(i int) int64 { return int64(x.entries[i].pos) }

// Lookup is OffsetIndex.lookup: the largest entry with offset <= target, or (base, 0).
func (x *OffsetIndex) Lookup(target int64) OffsetPosition {
	op, _, _ := x.lookup(target, nil)
	return op
}

// LookupSlot is Lookup with the slot found (-1 for none) and the search's cost.
func (x *OffsetIndex) LookupSlot(target int64) (OffsetPosition, int, SearchCost) {
	t := costTracker{entrySize: OffsetIndexEntrySize}
	op, slot, _ := x.lookup(target, &t)
	return op, slot, t.cost()
}

func (x *OffsetIndex) lookup(target int64, t *costTracker) (OffsetPosition, int, bool) {
	// Kafka compares relative offsets (OffsetIndex.parseEntry/relativeOffset); a target below
	// the base compares below every entry.
	slot := x.largestLowerBound(target-x.baseOffset, t)
	if slot < 0 {
		return OffsetPosition{Offset: x.baseOffset, Position: 0}, -1, false
	}
	return x.at(slot), slot, true
}

// largestLowerBound is indexSlotRangeFor(LARGEST_LOWER_BOUND) on the relative offsets,
// the same probes in the same order as the generic indexSlotRangeFor, written out on the
// entry slice because it is the hot path of every fetch (no key callback); a test holds the
// two to the same slots.
func (x *OffsetIndex) largestLowerBound(target int64, t *costTracker) int {
	e := x.entries
	n := len(e)
	if n == 0 {
		return -1
	}
	firstHot := max(n-1-WarmEntries(OffsetIndexEntrySize), 0)
	t.touch(firstHot)
	lo, hi := 0, firstHot
	if int64(e[firstHot].rel) < target {
		lo, hi = firstHot, n-1
	} else {
		t.touch(0)
		if int64(e[0].rel) > target {
			return -1
		}
	}
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		t.touch(mid)
		k := int64(e[mid].rel)
		switch {
		case k > target:
			hi = mid - 1
		case k < target:
			lo = mid
		default:
			return mid
		}
	}
	return lo
}

// FetchUpperBoundOffset is OffsetIndex.fetchUpperBoundOffset: the smallest-upper-bound
// search on positions for fetchStartPosition+fetchSize, with Kafka's slot-0 quirk.
func (x *OffsetIndex) FetchUpperBoundOffset(fetchStartPosition, fetchSize int64) (OffsetPosition, bool) {
	slot := indexSlotRangeFor(len(x.entries), x.posKey, fetchStartPosition+fetchSize, OffsetIndexEntrySize, smallestUpperBound, nil)
	if slot < 0 {
		return OffsetPosition{}, false
	}
	return x.at(slot), true
}

// TruncateTo is OffsetIndex.truncateTo: remove every entry with offset >= offset.
func (x *OffsetIndex) TruncateTo(offset int64) {
	slot := indexSlotRangeFor(len(x.entries), x.relKey, offset-x.baseOffset, OffsetIndexEntrySize, largestLowerBound, nil)
	x.truncateToSlot(slot, slot >= 0 && x.at(slot).Offset == offset)
}

// clone returns an independent copy.
func (x *OffsetIndex) clone() *OffsetIndex { return &OffsetIndex{x.indexSlots.clone()} }
