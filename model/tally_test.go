package model

import (
	"fmt"
	"testing"
)

// RunTally only regroups runs: after Flush, the counts handed on per (scan, hops) pair are
// exactly the sums of the runs added, with few distinct pairs (most runs stay in the table),
// with hash collisions and evictions, and with many pairs. The reference is a plain map.
func TestRunTallyIsExact(t *testing.T) {
	type key struct{ scan, hops int64 }
	for _, distinct := range []uint64{3, 200, 1 << 20} {
		want, got := map[key]int64{}, map[key]int64{}
		emits := 0
		tally := NewRunTally(func(count, scan, hops int64) {
			emits++
			got[key{scan, hops}] += count
		})
		x := distinct
		adds := 0
		for range 100_000 {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v, h, n := int64(x%distinct)*16384, int64(x>>40)%5, int64(x>>50)%3
			if n > 0 {
				want[key{v, h}] += n
				adds++
			}
			tally.Add(n, v, h)
		}
		tally.Flush()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d distinct costs: the tally's sums differ from the runs'", distinct)
		}
		if distinct == 3 && emits > 15 {
			t.Errorf("3 distinct costs: %d hook calls for %d runs, the table does not sum", emits, adds)
		}
	}
}
