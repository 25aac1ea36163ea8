package segment

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// chainTestLog writes a .log of n batches of seeded random sizes (100 to 9,000 bytes) and
// returns its path and every batch's position.
func chainTestLog(t *testing.T, n int, seed uint64) (string, []byte, []int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var data []byte
	var pos []int64
	for i := range n {
		b, err := BuildSizedBatch(int64(i)*3, 3, 100+rng.IntN(8900), 1700000000000+int64(i))
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, int64(len(data)))
		data = append(data, b...)
	}
	path := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(0)+LogSuffix)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data, pos
}

// walked is what a walk gave fn, and its result.
type walked struct {
	pos []int64
	res WalkResult
}

func walkAll(stopAfter int, walk func(fn func(BatchInfo) bool) WalkResult) walked {
	var w walked
	w.res = walk(func(b BatchInfo) bool {
		w.pos = append(w.pos, b.Position)
		return stopAfter <= 0 || len(w.pos) < stopAfter
	})
	return w
}

func sameWalk(t *testing.T, what string, got, want walked) {
	t.Helper()
	if !slices.Equal(got.pos, want.pos) || got.res.Batches != want.res.Batches || got.res.ValidBytes != want.res.ValidBytes ||
		got.res.End != want.res.End || fmt.Sprint(got.res.Err) != fmt.Sprint(want.res.Err) {
		t.Fatalf("%s: %d batches %+v; want %d batches %+v", what, len(got.pos), got.res, len(want.pos), want.res)
	}
}

// chainCases are the chain starts a walk may be given: valid batch starts at several chain
// counts (ChainStarts over an index of every batch), and a damaged index's (inside batches,
// out of order, repeated, at or past the end, before the start, a mix).
func chainCases(pos []int64, size int64, seed uint64) map[string][]int64 {
	entries := make([]IndexEntry, len(pos)-1)
	for i, p := range pos[1:] {
		entries[i] = IndexEntry{Offset: int64(i+1) * 3, Position: p}
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	cases := map[string][]int64{}
	for _, k := range []int{2, 3, 8, 32, 64} {
		cases[fmt.Sprintf("%d chains", k)] = ChainStarts(entries, nil, 0, size, k)
	}
	var inside, mixed, reversed []int64
	for i := 1; i < len(pos); i += len(pos) / 20 {
		inside = append(inside, pos[i]+1+int64(rng.IntN(90)))
		mixed = append(mixed, pos[i], pos[i]+7)
		reversed = append(reversed, pos[i])
	}
	slices.Reverse(reversed)
	cases["inside batches"] = inside
	cases["valid and inside"] = mixed
	cases["out of order"] = reversed
	cases["repeated"] = []int64{pos[10], pos[10], pos[len(pos)/2], pos[10], pos[len(pos)/2]}
	cases["at and past the end"] = []int64{pos[len(pos)/2], size - 5, size, size + 100, 1 << 40}
	cases["before the start"] = []int64{-1, 0, pos[len(pos)/3]}
	cases["random positions"] = func() []int64 {
		var out []int64
		for range 40 {
			out = append(out, rng.Int64N(size+200)-100)
		}
		return out
	}()
	// Every other chain valid: the walk drops one, walks across it, and joins the next.
	var alternate []int64
	for i := 1; i < len(pos); i += len(pos) / 30 {
		if len(alternate)%2 == 0 {
			alternate = append(alternate, pos[i])
		} else {
			alternate = append(alternate, pos[i]+3)
		}
	}
	cases["alternate valid and inside"] = alternate
	return cases
}

// WalkChains gives fn exactly Walk's batches, and returns Walk's result, whatever its chain
// starts: valid ones at 2 to one per batch chains, and a damaged index's; on a whole log,
// with fn stopping early, from a start and to an end inside the file.
func TestWalkChainsIsWalk(t *testing.T) {
	path, data, pos := chainTestLog(t, 2000, 7)
	size := int64(len(data))
	for _, access := range []Access{AccessPread, AccessMmap} {
		lf, err := OpenLogWith(path, access)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		lf.SetReadAhead(4096)
		ranges := [][2]int64{{0, 0}, {pos[100], 0}, {0, pos[1500] + 50}, {pos[300], pos[1700]}}
		for name, starts := range chainCases(pos, size, 7) {
			for _, r := range ranges {
				for _, stop := range []int{0, 5, 1500} {
					want := walkAll(stop, func(fn func(BatchInfo) bool) WalkResult { return lf.Walk(r[0], r[1], fn) })
					got := walkAll(stop, func(fn func(BatchInfo) bool) WalkResult { return lf.WalkChains(r[0], r[1], starts, fn) })
					sameWalk(t, fmt.Sprintf("access %d, %s, range %v, stop after %d", access, name, r, stop), got, want)
				}
			}
		}
		// As many chains as batches: one per batch start.
		want := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.Walk(0, 0, fn) })
		got := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.WalkChains(0, 0, pos, fn) })
		sameWalk(t, fmt.Sprintf("access %d, a chain per batch", access), got, want)
	}
}

// On a log that stops being valid (a size field under 14 in batch 1200, a tail cut inside the
// last batch, a v2 batch shorter than its header), every chain past the damage is dropped or
// ends where Walk ends, with Walk's error.
func TestWalkChainsDamagedLog(t *testing.T) {
	path, data, pos := chainTestLog(t, 2000, 11)
	damage := map[string]func([]byte) []byte{
		"size under 14": func(d []byte) []byte { binary.BigEndian.PutUint32(d[pos[1200]+8:], 3); return d },
		"v2 batch too short": func(d []byte) []byte {
			binary.BigEndian.PutUint32(d[pos[1200]+8:], 40)
			return d
		},
		"cut tail": func(d []byte) []byte { return d[:pos[1999]+30] },
		"garbage after 1500": func(d []byte) []byte {
			rng := rand.New(rand.NewPCG(3, 3))
			for i := pos[1500]; i < int64(len(d)); i++ {
				d[i] = byte(rng.Uint32())
			}
			return d
		},
	}
	for name, f := range damage {
		d := f(slices.Clone(data))
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		lf, err := OpenLogWith(path, AccessPread)
		if err != nil {
			t.Fatal(err)
		}
		lf.SetReadAhead(4096)
		want := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.Walk(0, 0, fn) })
		for cname, starts := range chainCases(pos, int64(len(d)), 11) {
			got := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.WalkChains(0, 0, starts, fn) })
			sameWalk(t, name+", "+cname, got, want)
		}
		lf.Close()
	}
}

// ChainStarts spreads its picks over the range, in byPos order when given, and SplitHint is
// its middle pick.
func TestChainStarts(t *testing.T) {
	entries := []IndexEntry{{10, 1000}, {5, 500}, {20, 2000}, {15, 1500}}
	byPos := []int{1, 0, 3, 2}
	if got := ChainStarts(entries, byPos, 0, 2400, 4); !slices.Equal(got, []int64{1000, 1500, 2000}) {
		t.Errorf("ChainStarts by position: %v", got)
	}
	if got := SplitHint(entries, byPos, 2400); got != 1500 {
		t.Errorf("SplitHint: %d", got)
	}
	if got := SplitHint(nil, nil, 2400); got != -1 {
		t.Errorf("SplitHint of no entries: %d", got)
	}
	if got := ChainStarts(entries, byPos, 0, 2400, 1); len(got) != 0 {
		t.Errorf("one chain: %v", got)
	}
}
