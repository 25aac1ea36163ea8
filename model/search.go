package model

// PageSize is the page size used to count index pages touched by a search.
const PageSize = 4096

// warmSectionBytes is the size AbstractIndex.warmEntries() keeps warm: 8192 / entrySize
// entries (1024 for the offset index, 682 for the time index, integer division).
const warmSectionBytes = 8192

// WarmEntries returns AbstractIndex.warmEntries() for an entry size.
func WarmEntries(entrySize int) int { return warmSectionBytes / entrySize }

// SearchCost is what one phase-1 search reads: index slots compared and distinct 4 KiB
// pages of the index file touched (an entry that straddles a page boundary touches both).
type SearchCost struct {
	SlotsCompared int
	PagesTouched  int
}

// searchResult is AbstractIndex.SearchResultType.
type searchResult int

const (
	largestLowerBound searchResult = iota
	smallestUpperBound
)

// maxTrackedPages bounds the pages one search can touch: the first warm slot, slot 0 and at
// most 31 binary-search probes, each entry on at most two pages.
const maxTrackedPages = 2 * 34

// costTracker records the slots a search reads; it lives on the caller's stack.
type costTracker struct {
	entrySize int
	slots     int
	pages     [maxTrackedPages]int64
	npages    int
}

func (t *costTracker) touch(slot int) {
	if t == nil {
		return
	}
	t.slots++
	first := int64(slot) * int64(t.entrySize) / PageSize
	last := (int64(slot)*int64(t.entrySize) + int64(t.entrySize) - 1) / PageSize
	for p := first; p <= last; p++ {
		t.addPage(p)
	}
}

func (t *costTracker) addPage(p int64) {
	for i := 0; i < t.npages; i++ {
		if t.pages[i] == p {
			return
		}
	}
	if t.npages < len(t.pages) {
		t.pages[t.npages] = p
		t.npages++
	}
}

func (t *costTracker) cost() SearchCost {
	if t == nil {
		return SearchCost{}
	}
	return SearchCost{SlotsCompared: t.slots, PagesTouched: t.npages}
}

// indexSlotRangeFor is AbstractIndex.indexSlotRangeFor with its binarySearch, exactly
// (docs/kafka.md §5): look at the first warm slot F = max(0, n-1-warmEntries); if its key is
// below the target, search only [F, n-1]; otherwise check slot 0 and search [0, F]. The
// binary search takes the upper middle and returns on equality, so the slots it reads (and
// hence the pages it touches) are Kafka's. key(i) is the compared field of slot i (KEY or
// VALUE in Kafka's terms). It returns -1 when there is no answer.
func indexSlotRangeFor(n int, key func(int) int64, target int64, entrySize int, kind searchResult, t *costTracker) int {
	if n == 0 {
		return -1
	}
	firstHot := n - 1 - WarmEntries(entrySize)
	if firstHot < 0 {
		firstHot = 0
	}
	t.touch(firstHot)
	if key(firstHot) < target {
		return binarySearch(n, key, target, kind, firstHot, n-1, t)
	}
	t.touch(0)
	if key(0) > target {
		if kind == largestLowerBound {
			return -1
		}
		return 0
	}
	return binarySearch(n, key, target, kind, 0, firstHot, t)
}

// binarySearch is AbstractIndex.binarySearch. Its smallest-upper-bound answer has Kafka's
// quirk: when the target equals slot 0's key the loop never looks at mid == lo, so it
// answers slot 1 (or -1 with one entry), see docs/kafka.md §5.
func binarySearch(n int, key func(int) int64, target int64, kind searchResult, lo, hi int, t *costTracker) int {
	for lo < hi {
		mid := int(uint(lo+hi+1) >> 1)
		t.touch(mid)
		k := key(mid)
		switch {
		case k > target:
			hi = mid - 1
		case k < target:
			lo = mid
		default:
			return mid
		}
	}
	if kind == largestLowerBound {
		return lo
	}
	if lo == n-1 {
		return -1
	}
	return lo + 1
}

// plainLargestLowerBound is a textbook binary search for the largest i with key(i) <= target,
// -1 if none. It is the reference for the WarmSearchAgrees property.
func plainLargestLowerBound(n int, key func(int) int64, target int64) int {
	lo, hi := 0, n // answer in [lo-1, hi-1]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if key(mid) <= target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}
