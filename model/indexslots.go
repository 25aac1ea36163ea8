package model

// indexSlots is the bookkeeping AbstractIndex shares between the offset index and the time
// index: the entries held and the capacity, which is the file's length over the entry size.
// Kafka keeps the entries in a memory-mapped file; the model keeps them in a slice.
type indexSlots[E any] struct {
	baseOffset int64
	entrySize  int64
	maxEntries int
	entries    []E
}

// Entries is the number of entries.
func (x *indexSlots[E]) Entries() int { return len(x.entries) }

// MaxEntries is the capacity: the file's length divided by the entry size.
func (x *indexSlots[E]) MaxEntries() int { return x.maxEntries }

// SizeInBytes is the index file's length: preallocated while active, trimmed after a roll.
func (x *indexSlots[E]) SizeInBytes() int64 { return int64(x.maxEntries) * x.entrySize }

// Truncate removes every entry.
func (x *indexSlots[E]) Truncate() { x.entries = x.entries[:0] }

// Resize is AbstractIndex.resize: round down to whole entries; false if unchanged. Kafka
// would fail on mmap.position past a smaller limit; the model keeps the entries that fit.
func (x *indexSlots[E]) Resize(newSize int64) bool {
	n := int(newSize / x.entrySize)
	if n == x.maxEntries {
		return false
	}
	x.maxEntries = n
	if len(x.entries) > n {
		x.entries = x.entries[:n]
	}
	return true
}

// TrimToValidSize is AbstractIndex.trimToValidSize: resize to exactly the entries held.
func (x *indexSlots[E]) TrimToValidSize() { x.Resize(int64(len(x.entries)) * x.entrySize) }

// Reset is AbstractIndex.reset: truncate, then resize back to maxIndexSize.
func (x *indexSlots[E]) Reset(maxIndexSize int64) {
	x.Truncate()
	x.Resize(maxIndexSize)
}

// truncateToSlot finishes truncateTo(offset) once the largest-lower-bound slot for the
// offset is known (OffsetIndex.truncateTo and TimeIndex.truncateTo share the three cases):
// no slot → empty; the slot holds the offset itself → keep the entries before it; else keep
// it too.
func (x *indexSlots[E]) truncateToSlot(slot int, slotIsOffset bool) {
	switch {
	case slot < 0:
		x.entries = x.entries[:0]
	case slotIsOffset:
		x.entries = x.entries[:slot]
	default:
		x.entries = x.entries[:slot+1]
	}
}

// clone returns an independent copy (recover builds into a copy so that a failure can be
// reported without changing the segment).
func (x *indexSlots[E]) clone() indexSlots[E] {
	c := *x
	c.entries = append([]E(nil), x.entries...)
	return c
}
