package reports

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// Dist's quantiles equal the nearest-rank quantiles of the full list of values, on
// distributions with few distinct values (one pass) and many (refinement passes), small and
// huge values.
func TestDistExactAgainstSortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var runs [][2]int64
		spread := []int64{5, 1000, 1 << 20, 1 << 40}[trial%4]
		for range 1 + rng.IntN(3000) {
			runs = append(runs, [2]int64{rng.Int64N(5), rng.Int64N(spread)})
		}
		var all []int64
		for _, r := range runs {
			for range r[0] {
				all = append(all, r[1])
			}
		}
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		d := NewDist()
		passes := 0
		for {
			passes++
			for _, r := range runs {
				d.Add(r[0], r[1])
			}
			if d.Resolve() {
				break
			}
			d.BeginRefine()
		}
		if int64(len(all)) != d.Count() {
			t.Fatalf("count %d vs %d", d.Count(), len(all))
		}
		for _, q := range ReportedQuantiles {
			want := int64(0)
			if len(all) > 0 {
				want = all[rankOf(q, int64(len(all)))-1]
			}
			if got := d.Quantile(q); got != want {
				t.Fatalf("trial %d q%d: %d, want %d (passes %d)", trial, q, got, want, passes)
			}
		}
		if passes > 6 {
			t.Fatalf("trial %d: %d passes", trial, passes)
		}
	}
}

func ExampleDist() {
	d := NewDist()
	d.Add(3, 16350) // three offsets walk one batch
	d.Add(1, 0)     // one offset is an index entry: no walk
	d.Resolve()
	fmt.Println(d.Count(), d.Quantile(P50), d.Quantile(P99), d.Max())
	// Output: 4 16350 16350 16350
}
