package segment

import (
	"math/rand"
	"sort"
	"testing"
)

// WarmSearchAgrees (docs/contract.md §6) and AbstractIndex.indexSlotRangeFor: the warm
// section search returns the same slot as a plain binary search, on
// indexes larger and smaller than the 1024-entry warm section.
func TestWarmSearchAgreesWithBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 1024, 1025, 1026, 5000} {
		var img []byte
		var offs []int64
		o := int64(1000)
		for i := 0; i < n; i++ {
			o += 1 + rng.Int63n(5)
			offs = append(offs, o)
			img = EncodeIndexEntry(img, 1000, IndexEntry{Offset: o, Position: int64(i)})
		}
		x := OffsetIndex{indexFile: indexFile{BaseOffset: 1000, data: img}, n: n, valid: n}
		for k := 0; k < 2000; k++ {
			target := 990 + rng.Int63n(o-980+1)
			want := sort.Search(len(offs), func(i int) bool { return offs[i] > target }) - 1
			_, slot, st := x.Lookup(target)
			if slot != want {
				t.Fatalf("n=%d target %d: slot %d, want %d", n, target, slot, want)
			}
			if n > 0 && st.SlotsCompared == 0 {
				t.Fatal("no slot compared")
			}
		}
	}
}
