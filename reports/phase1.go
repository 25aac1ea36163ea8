package reports

import (
	"sync"

	"kidx/model"
)

// coldExhaustive is the largest number of cold targets tried one by one; bigger indexes are
// probed at that many evenly spaced targets (the search's cost varies only with the slot).
const coldExhaustive = 1 << 16

var phase1Cache sync.Map // entries → Phase1

// phase1For measures Kafka's warm-section search (model.OffsetIndex.LookupSlot) on an index of
// n entries: the tail lookup, and the worst lookup below the warm section. The positions and
// offsets do not matter, only the slot count, so a synthetic index of n entries is searched.
func phase1For(n int) Phase1 {
	if v, ok := phase1Cache.Load(n); ok {
		return v.(Phase1)
	}
	p := Phase1{Entries: n}
	if n == 0 {
		phase1Cache.Store(n, p)
		return p
	}
	x, err := model.NewOffsetIndex(0, int64(n)*model.OffsetIndexEntrySize)
	if err != nil {
		return p
	}
	// Entry i names offset 2i+1, so that even offsets fall between entries.
	for i := range n {
		_ = x.Append(int64(2*i+1), int64(i))
	}
	_, _, tail := x.LookupSlot(int64(2*n - 1))
	p.TailSlots, p.TailPages = tail.SlotsCompared, tail.PagesTouched
	warmFirst := max(0, n-1-model.WarmEntries(model.OffsetIndexEntrySize))
	cold := warmFirst + 1 // targets at or below entry F take the cold branch
	step := max(1, cold/coldExhaustive)
	for s := 0; s < cold; s += step {
		_, _, c := x.LookupSlot(int64(2*s + 1))
		p.ColdTargets++
		if c.PagesTouched > p.ColdPages || (c.PagesTouched == p.ColdPages && c.SlotsCompared > p.ColdSlots) {
			p.ColdPages, p.ColdSlots = c.PagesTouched, c.SlotsCompared
		}
	}
	phase1Cache.Store(n, p)
	return p
}
