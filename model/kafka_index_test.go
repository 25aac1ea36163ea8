package model

import (
	"math/rand/v2"
	"testing"
)

// Scenarios of Kafka's OffsetIndexTest and TimeIndexTest (docs/kafka.md §11), on the model's
// in-memory twins of the two classes. Each test names the Kafka test it reproduces.

func newOffsetIndex(t *testing.T, base, maxIndexSize int64) *OffsetIndex {
	t.Helper()
	x, err := NewOffsetIndex(base, maxIndexSize)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func mustAppend(t *testing.T, x *OffsetIndex, offset, position int64) {
	t.Helper()
	if err := x.Append(offset, position); err != nil {
		t.Fatalf("append(%d, %d): %v", offset, position, err)
	}
}

// OffsetIndexTest.randomLookupTest: exact lookups return the entry, others the floor entry,
// or (base, 0) below the first. The expected floor comes from a linear scan.
func TestOffsetIndexRandomLookup(t *testing.T) {
	x := newOffsetIndex(t, 45, 240)
	if got := x.Lookup(92); got != (OffsetPosition{45, 0}) {
		t.Fatalf("empty lookup(92) = %v, want (45,0)", got)
	}
	r := rand.New(rand.NewPCG(7, 7))
	var entries []OffsetPosition
	off, pos := int64(45), int64(0)
	for range x.MaxEntries() {
		off += 1 + int64(r.IntN(20))
		pos += 1 + int64(r.IntN(20))
		mustAppend(t, x, off, pos)
		entries = append(entries, OffsetPosition{off, pos})
	}
	for target := int64(0); target <= off+5; target++ {
		want := OffsetPosition{45, 0}
		for _, e := range entries {
			if e.Offset <= target {
				want = e
			}
		}
		if got := x.Lookup(target); got != want {
			t.Fatalf("lookup(%d) = %v, want %v", target, got, want)
		}
	}
}

// OffsetIndexTest.lookupExtremeCases.
func TestOffsetIndexLookupExtremeCases(t *testing.T) {
	x := newOffsetIndex(t, 45, 240)
	if got := x.Lookup(45); got != (OffsetPosition{45, 0}) {
		t.Fatalf("empty lookup(45) = %v", got)
	}
	for i := int64(0); i < int64(x.MaxEntries()); i++ {
		mustAppend(t, x, 45+i+1, i)
	}
	if got := x.Lookup(45); got != (OffsetPosition{45, 0}) {
		t.Errorf("lookup(45) = %v, want (45,0)", got)
	}
	if got := x.Lookup(45 + 30); got != (OffsetPosition{75, 29}) {
		t.Errorf("lookup(75) = %v, want (75,29)", got)
	}
}

// OffsetIndexTest.testEntry and testEntryOverflow.
func TestOffsetIndexEntry(t *testing.T) {
	x := newOffsetIndex(t, 45, 240)
	if _, err := x.Entry(0); !IsIndexError(err, ErrNoSuchEntry) {
		t.Fatalf("entry(0) on an empty index: %v, want IllegalArgumentException", err)
	}
	for i := int64(0); i < int64(x.MaxEntries()); i++ {
		mustAppend(t, x, 45+i, i)
	}
	for i := 0; i < x.MaxEntries(); i++ {
		if got, err := x.Entry(i); err != nil || got != (OffsetPosition{45 + int64(i), int64(i)}) {
			t.Fatalf("entry(%d) = %v, %v", i, got, err)
		}
	}
}

// OffsetIndexTest.appendTooMany and appendOutOfOrder.
func TestOffsetIndexAppendPreconditions(t *testing.T) {
	x := newOffsetIndex(t, 45, 240)
	for i := int64(0); i < 30; i++ {
		mustAppend(t, x, 45+i+1, i)
	}
	if err := x.Append(45+31, 31); !IsIndexError(err, ErrIndexFull) {
		t.Fatalf("31st append: %v, want \"Attempt to append to a full index\"", err)
	}
	if want := "Attempt to append to a full index (size = 30)."; x.Append(100, 100).Error() != want {
		t.Errorf("message = %q, want %q", x.Append(100, 100).Error(), want)
	}
	y := newOffsetIndex(t, 45, 240)
	mustAppend(t, y, 51, 0)
	if err := y.Append(50, 1); !IsIndexError(err, ErrInvalidOffset) {
		t.Fatalf("append 50 after 51: %v, want InvalidOffsetException", err)
	}
	// Equal offsets are rejected too (OffsetIndex.append: offset > lastOffset).
	if err := y.Append(51, 1); !IsIndexError(err, ErrInvalidOffset) {
		t.Fatalf("append 51 after 51: %v, want InvalidOffsetException", err)
	}
}

// OffsetIndexTest.testFetchUpperBoundOffset, plus the slot-0 quirk of docs/kafka.md §5 that the
// Kafka test never probes.
func TestOffsetIndexFetchUpperBoundOffset(t *testing.T) {
	x := newOffsetIndex(t, 0, 240)
	if _, ok := x.FetchUpperBoundOffset(0, 5); ok {
		t.Fatal("empty index must give no upper bound")
	}
	for _, e := range []OffsetPosition{{45, 0}, {46, 10}, {47, 23}, {48, 37}} {
		mustAppend(t, x, e.Offset, e.Position)
	}
	cases := []struct {
		pos, size int64
		want      int64 // offset, -1 for none
	}{{0, 5, 46}, {0, 10, 46}, {0, 23, 47}, {0, 22, 47}, {10, 24, 48}, {37, 1, -1}, {0, 200, -1}, {10, 200, -1},
		// Quirk: target == slot 0's position answers slot 1, not slot 0.
		{0, 0, 46}}
	for _, c := range cases {
		got, ok := x.FetchUpperBoundOffset(c.pos, c.size)
		if (c.want < 0) == ok || (ok && got.Offset != c.want) {
			t.Errorf("fetchUpperBoundOffset(%d, %d) = %v %v, want %d", c.pos, c.size, got, ok, c.want)
		}
	}
}

// OffsetIndexTest.testReopen: after close (trimToValidSize) a reopened index is full.
func TestOffsetIndexReopenIsFull(t *testing.T) {
	x := newOffsetIndex(t, 45, 240)
	mustAppend(t, x, 51, 0)
	mustAppend(t, x, 52, 1)
	x.TrimToValidSize()
	if x.Lookup(51) != (OffsetPosition{51, 0}) || x.Lookup(52) != (OffsetPosition{52, 1}) {
		t.Fatal("lookups after trim")
	}
	if x.LastOffset() != 52 || x.Entries() != 2 {
		t.Fatalf("lastOffset %d entries %d", x.LastOffset(), x.Entries())
	}
	if err := x.Append(53, 2); !IsIndexError(err, ErrIndexFull) {
		t.Fatalf("append after trim: %v, want full", err)
	}
}

// OffsetIndexTest.truncate.
func TestOffsetIndexTruncate(t *testing.T) {
	x := newOffsetIndex(t, 0, 80)
	for i := int64(1); i < 10; i++ {
		mustAppend(t, x, i, i)
	}
	x.TruncateTo(12)
	if got := x.Lookup(10); got != (OffsetPosition{9, 9}) {
		t.Fatalf("truncateTo(12) changed the index: lookup(10) = %v", got)
	}
	mustAppend(t, x, 10, 10)
	x.TruncateTo(10)
	if x.LastOffset() != 9 {
		t.Fatalf("truncateTo(10): last %d, want 9", x.LastOffset())
	}
	mustAppend(t, x, 10, 10)
	x.TruncateTo(9)
	if got := x.Lookup(10); got != (OffsetPosition{8, 8}) {
		t.Fatalf("truncateTo(9): lookup(10) = %v, want (8,8)", got)
	}
	mustAppend(t, x, 9, 9)
	x.TruncateTo(5)
	if x.LastOffset() != 4 {
		t.Fatalf("truncateTo(5): last %d, want 4", x.LastOffset())
	}
	mustAppend(t, x, 5, 5)
	x.Truncate()
	if x.Entries() != 0 {
		t.Fatalf("truncate(): %d entries", x.Entries())
	}
}

// OffsetIndexTest.testSanityLastOffsetEqualToBaseOffset: the first entry may equal the base.
func TestOffsetIndexFirstEntryMayEqualBase(t *testing.T) {
	x := newOffsetIndex(t, 20, 240)
	mustAppend(t, x, 20, 0)
	if x.LastOffset() != 20 {
		t.Fatal("lastOffset")
	}
}

// AbstractIndex.createAndAssignMmap: sizes round down to whole entries; less than one entry
// is refused (docs/kafka.md §4, "85 → 80 bytes").
func TestIndexSizesRoundDown(t *testing.T) {
	if x := newOffsetIndex(t, 0, 85); x.MaxEntries() != 10 || x.SizeInBytes() != 80 {
		t.Errorf("85 bytes: %d slots", x.MaxEntries())
	}
	if _, err := NewOffsetIndex(0, 4); !IsIndexError(err, ErrInvalidSize) {
		t.Errorf("4 bytes: %v", err)
	}
	ti, err := NewTimeIndex(0, DefaultSegmentIndexBytes)
	if err != nil || ti.SizeInBytes() != 10485756 || ti.MaxEntries() != 873813 {
		t.Errorf("default time index: %d bytes, %d slots (%v)", ti.SizeInBytes(), ti.MaxEntries(), err)
	}
	if WarmEntries(OffsetIndexEntrySize) != 1024 || WarmEntries(TimeIndexEntrySize) != 682 {
		t.Error("warmEntries")
	}
}

func newTimeIndexFilled(t *testing.T, n int) *TimeIndex {
	t.Helper()
	x, err := NewTimeIndex(45, 360)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= int64(n); i++ {
		if err := x.MaybeAppend(10*i, 45+10*i, false); err != nil {
			t.Fatalf("maybeAppend(%d, %d): %v", 10*i, 45+10*i, err)
		}
	}
	return x
}

// TimeIndexTest.testLookUp.
func TestTimeIndexLookup(t *testing.T) {
	x := newTimeIndexFilled(t, 0)
	if got := x.Lookup(100); got != (TimestampOffset{-1, 45}) {
		t.Fatalf("empty lookup(100) = %v", got)
	}
	x = newTimeIndexFilled(t, 29)
	for _, c := range []struct{ ts, wantTs, wantOff int64 }{{9, -1, 45}, {25, 20, 65}, {30, 30, 75}} {
		if got := x.Lookup(c.ts); got != (TimestampOffset{c.wantTs, c.wantOff}) {
			t.Errorf("lookup(%d) = %v, want (%d,%d)", c.ts, got, c.wantTs, c.wantOff)
		}
	}
}

// TimeIndexTest.testEntry and testEntryOverflow.
func TestTimeIndexEntry(t *testing.T) {
	x := newTimeIndexFilled(t, 0)
	if _, err := x.Entry(0); !IsIndexError(err, ErrNoSuchEntry) {
		t.Fatal("entry(0) on empty")
	}
	x = newTimeIndexFilled(t, 4)
	want := []TimestampOffset{{10, 55}, {20, 65}, {30, 75}, {40, 85}}
	for i, w := range want {
		if got, _ := x.Entry(i); got != w {
			t.Errorf("entry(%d) = %v, want %v", i, got, w)
		}
	}
}

// TimeIndexTest.testTruncate.
func TestTimeIndexTruncate(t *testing.T) {
	x := newTimeIndexFilled(t, 29)
	x.Truncate()
	if x.Entries() != 0 {
		t.Fatal("truncate")
	}
	x = newTimeIndexFilled(t, 29)
	x.TruncateTo(55)
	if x.Entries() != 0 {
		t.Fatalf("truncateTo(55): %d entries", x.Entries())
	}
}

// TimeIndexTest.testAppend and testIsFull: full at maxEntries-1 (one slot reserved for the
// closing entry); skipFullCheck bypasses only the full check.
func TestTimeIndexAppendAndIsFull(t *testing.T) {
	if newTimeIndexFilled(t, 0).IsFull() {
		t.Fatal("empty index is full")
	}
	x := newTimeIndexFilled(t, 29)
	if !x.IsFull() {
		t.Fatal("29 of 30 slots: isFull must be true")
	}
	if err := x.MaybeAppend(10000, 1000, false); !IsIndexError(err, ErrIndexFull) {
		t.Fatalf("append to full: %v", err)
	}
	if err := x.MaybeAppend(10000, 280, true); !IsIndexError(err, ErrInvalidOffset) {
		t.Fatalf("offset 280 below the last: %v", err)
	}
	if err := x.MaybeAppend(10000, 1000, true); err != nil {
		t.Fatalf("skipFullCheck append: %v", err)
	}
	if x.Entries() != 30 {
		t.Fatalf("entries %d", x.Entries())
	}
}

// TimeIndexTest.testLastEntry, and maybeAppend's strict >: equal timestamps and -1 (the
// empty index's sentinel) create no entry, 0 does.
func TestTimeIndexLastEntryAndStrictTimestamps(t *testing.T) {
	x := newTimeIndexFilled(t, 0)
	if x.LastEntry() != (TimestampOffset{-1, 45}) {
		t.Fatal("empty last entry")
	}
	if err := x.MaybeAppend(-1, 46, false); err != nil || x.Entries() != 0 {
		t.Fatalf("timestamp -1 made an entry (%v)", err)
	}
	if err := x.MaybeAppend(1, 46, false); err != nil || x.LastEntry() != (TimestampOffset{1, 46}) {
		t.Fatalf("last entry %v (%v)", x.LastEntry(), err)
	}
	if err := x.MaybeAppend(1, 47, false); err != nil || x.Entries() != 1 {
		t.Fatalf("an equal timestamp made an entry (%v)", err)
	}
	if err := x.MaybeAppend(0, 48, false); !IsIndexError(err, ErrInvalidTimestamp) {
		t.Fatalf("a smaller timestamp: %v, want IllegalStateException", err)
	}
	y, _ := NewTimeIndex(0, 120)
	if err := y.MaybeAppend(0, 1, false); err != nil || y.Entries() != 1 {
		t.Fatal("timestamp 0 must make an entry")
	}
}

// TimeIndexTest.testResize and testEntrySize.
func TestTimeIndexResize(t *testing.T) {
	x := newTimeIndexFilled(t, 0)
	if x.Resize(360) || !x.Resize(180) || !x.Resize(720) {
		t.Fatal("resize(360) false, resize(180) true, resize(720) true")
	}
	if TimeIndexEntrySize != 12 || OffsetIndexEntrySize != 8 {
		t.Fatal("entry sizes")
	}
}

// docs/contract.md §6 WarmSearchAgrees, exhaustively on small indexes and at the warm boundary of a
// large one: Kafka's warm-section search answers what a plain binary search answers.
func TestWarmSearchAgreesWithPlainSearch(t *testing.T) {
	check := func(x *OffsetIndex, targets []int64) {
		t.Helper()
		for _, target := range targets {
			_, slot, _ := x.LookupSlot(target)
			plain := plainLargestLowerBound(x.Entries(), x.relKey, target-x.baseOffset)
			if slot != plain {
				t.Fatalf("entries %d target %d: warm search slot %d, plain %d", x.Entries(), target, slot, plain)
			}
		}
	}
	for n := 0; n <= 40; n++ {
		x := newOffsetIndex(t, 100, 8*40)
		var targets []int64
		for i := 0; i < n; i++ {
			mustAppend(t, x, 100+int64(3*i+1), int64(i))
		}
		for tg := int64(90); tg < 100+3*40+5; tg++ {
			targets = append(targets, tg)
		}
		check(x, targets)
	}
	x := newOffsetIndex(t, 0, 8*3000)
	for i := int64(0); i < 3000; i++ {
		mustAppend(t, x, 2*i+1, i)
	}
	var targets []int64
	for tg := int64(0); tg < 6010; tg++ {
		targets = append(targets, tg)
	}
	check(x, targets)
}

// docs/kafka.md §5: a tail lookup reads only the warm section. On a full default-size index the
// warm section is 1025 slots (F..n-1), at most 8200 bytes, so at most 3 pages.
func TestWarmSearchTouchesOnlyTheTail(t *testing.T) {
	x := newOffsetIndex(t, 0, DefaultSegmentIndexBytes)
	for i := int64(0); i < int64(x.MaxEntries()); i++ {
		mustAppend(t, x, 2*i+1, i)
	}
	n := int64(x.MaxEntries())
	_, slot, cost := x.LookupSlot(2*(n-1) + 1)
	if slot != int(n-1) {
		t.Fatalf("slot %d", slot)
	}
	// F, then ceil(log2(1025)) = 11 probes at most.
	if cost.SlotsCompared > 12 || cost.PagesTouched > 3 {
		t.Fatalf("tail lookup cost %+v", cost)
	}
	_, _, cold := x.LookupSlot(1)
	if cold.PagesTouched <= cost.PagesTouched {
		t.Fatalf("a head lookup (%+v) should touch more pages than a tail lookup (%+v)", cold, cost)
	}
}

// The offset index's written-out search must read the same slots as the generic
// indexSlotRangeFor (same answer, same cost) for every target.
func TestOffsetIndexSearchMatchesGenericSearch(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 1024, 1025, 1026, 1500, 5000} {
		x := newOffsetIndex(t, 10, 8*int64(max(n, 1)))
		for i := 0; i < n; i++ {
			mustAppend(t, x, 10+int64(2*i+1), int64(i))
		}
		for target := int64(0); target < int64(2*n+15); target++ {
			var a, b costTracker
			a.entrySize, b.entrySize = OffsetIndexEntrySize, OffsetIndexEntrySize
			got := x.largestLowerBound(target-10, &a)
			want := indexSlotRangeFor(n, x.relKey, target-10, OffsetIndexEntrySize, largestLowerBound, &b)
			if got != want || a.cost() != b.cost() {
				t.Fatalf("n %d target %d: slot %d cost %+v, generic %d %+v", n, target, got, a.cost(), want, b.cost())
			}
		}
	}
}
