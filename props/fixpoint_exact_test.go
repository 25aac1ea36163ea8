package props

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"kidx/model"
)

// Issue 12, item 1: the abstraction must be exact for what it decides. Random concrete
// workloads of the prover's space that reach the same abstract state by different histories
// (different steps, mostly different lengths), extended by the same random suffix, must reach
// the same abstract states and get the same verdict from every proved property at every step
// of the suffix (as long as the property held on both before: a verdict is about the
// transition, docs/proofs.md "Why a fixpoint is a proof"). Thousands of such pairs per rule,
// over configs where the index fills, appends are rejected, segments roll every few batches
// and the counter's values collide with batch sizes (168 = 68 + 100).
func TestAbstractionIsExact(t *testing.T) {
	pairs := 2000
	if testing.Short() {
		pairs = 300
	}
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			exactnessPairs(t, rule, pairs)
		})
	}
}

// exactSpace is the space the exactness test draws from.
var exactSpace = ProveOptions{Alphabet: []int64{68, 100, 168, 4096}, MaxAppend: 3,
	Intervals: []int64{0, 67, 100, 168, 300, 4096}, Segments: []int64{1000, 4300, 8400},
	IndexBytes: []int64{24, 40, model.DefaultSegmentIndexBytes}, Restarts: true}

// exactWorkload is a workload of the space as alphabet indexes per append; materialize turns
// it into steps with the exhaustive walk's convention (batch i has timestamp base+i).
type exactWorkload [][]int

func (w exactWorkload) materialize(alphabet []int64) []model.Step {
	var out []model.Step
	i := 0
	for _, st := range w {
		s, n := proofStep(alphabet, st, i)
		i += n
		out = append(out, s)
	}
	return out
}

func exactnessPairs(t *testing.T, rule model.AppendRule, want int) {
	rng := rand.New(rand.NewPCG(12, uint64(rule)))
	o := exactSpace
	o.Rule = rule
	o.defaults()
	ps := ProvedProperties()
	steps := proofSteps(len(o.Alphabet), o.MaxAppend, o.Restarts)
	found, differentLength, compared := 0, 0, 0
	for found < want {
		cfg := model.DefaultConfig()
		cfg.SegmentBytes = o.Segments[rng.IntN(len(o.Segments))]
		cfg.IndexIntervalBytes = o.Intervals[rng.IntN(len(o.Intervals))]
		cfg.SegmentIndexBytes = o.IndexBytes[rng.IntN(len(o.IndexBytes))]
		slotCap := slotCapFor(cfg, o.Alphabet)
		// Random workloads of this config; every prefix's state is recorded, and a prefix that
		// reaches a recorded state by another history makes a pair.
		seen := map[abstractState]exactWorkload{}
		for range 40 {
			var w exactWorkload
			p := newPartialRun(0, cfg, rule, model.Exact)
			for range 1 + rng.IntN(60) {
				st := steps[rng.IntN(len(steps))]
				// Mostly single batches, so that segments fill slowly and states repeat, and
				// a restart one step in eight (the last of steps).
				switch r := rng.IntN(8); {
				case r == 0:
					st = steps[len(steps)-1]
				case r > 2:
					st = steps[rng.IntN(len(o.Alphabet))]
				}
				w = append(w, st)
				mat := w.materialize(o.Alphabet)
				p = p.extend(mat[len(mat)-1])
				a := abstractOf(p, rule, slotCap)
				other, ok := seen[a]
				if !ok {
					seen[a] = slices.Clone(w)
					continue
				}
				if slices.EqualFunc(other, w, slices.Equal) || a.stopped {
					continue
				}
				found++
				if len(other) != len(w) {
					differentLength++
				}
				suffix := make(exactWorkload, 1+rng.IntN(12))
				for i := range suffix {
					suffix[i] = steps[rng.IntN(len(steps))]
				}
				compared += compareFutures(t, ps, o, cfg, slotCap, other, slices.Clone(w), suffix)
				if t.Failed() {
					return
				}
			}
		}
	}
	t.Logf("%d pairs (%d of different lengths), %d verdicts compared", found, differentLength, compared)
	if differentLength < want/10 {
		t.Errorf("only %d of %d pairs have prefixes of different lengths", differentLength, found)
	}
}

// compareFutures extends both prefixes step by step by the suffix and compares their
// abstract states and verdicts; it returns the number of verdicts compared.
func compareFutures(t *testing.T, ps []*Property, o ProveOptions, cfg model.Config, slotCap int64, w1, w2, suffix exactWorkload) int {
	t.Helper()
	return compareFuturesOf(t, ps, o, cfg, w1, w2, suffix,
		func(w exactWorkload) any { return exactState(o, cfg, slotCap, w) },
		func(w exactWorkload) string { return observeLast(o, cfg, w) })
}

// compareFuturesOf is compareFutures with the state and the step's observation given.
func compareFuturesOf(t *testing.T, ps []*Property, o ProveOptions, cfg model.Config, w1, w2, suffix exactWorkload,
	state func(exactWorkload) any, observe func(exactWorkload) string) int {
	t.Helper()
	// clean[i]: property i held on both workloads so far.
	clean := make([]bool, len(ps))
	v1, v2 := exactVerdicts(ps, o, cfg, w1), exactVerdicts(ps, o, cfg, w2)
	for i := range ps {
		clean[i] = v1[i] == nil && v2[i] == nil
	}
	n := 0
	for j := range suffix {
		x1, x2 := append(slices.Clone(w1), suffix[:j+1]...), append(slices.Clone(w2), suffix[:j+1]...)
		a1, a2 := state(x1), state(x2)
		if a1 != a2 {
			t.Errorf("%s: same state, same suffix, different states:\n%+v after %v\n%+v after %v",
				exactConfig(cfg), a1, x1, a2, x2)
			return n
		}
		// The invariants hold in Kafka's model, so their verdicts agree trivially; what the
		// step does, relative to where it lands, must agree too: then every property of the
		// step agrees, violated or not.
		if b1, b2 := observe(x1), observe(x2); b1 != b2 {
			t.Errorf("%s: same state, same suffix, the last step differs:\n%s\n  after %v\n%s\n  after %v",
				exactConfig(cfg), b1, x1, b2, x2)
			return n
		}
		v1, v2 = exactVerdicts(ps, o, cfg, x1), exactVerdicts(ps, o, cfg, x2)
		for i, p := range ps {
			if !clean[i] {
				continue
			}
			n++
			if (v1[i] == nil) != (v2[i] == nil) {
				t.Errorf("%s: %s: same state, same suffix, different verdicts:\n%v: %v\n%v: %v",
					exactConfig(cfg), p.Name, x1, v1[i], x2, v2[i])
				return n
			}
			clean[i] = v1[i] == nil
		}
	}
	return n
}

// exactState and exactVerdicts replay a workload from scratch (simulate), independently of
// the prover's extended logs.
func exactState(o ProveOptions, cfg model.Config, slotCap int64, w exactWorkload) abstractState {
	p := newPartialRun(0, cfg, o.Rule, model.Exact)
	for _, s := range w.materialize(o.Alphabet) {
		p.apply(s)
	}
	return abstractOf(p, o.Rule, slotCap)
}

func exactVerdicts(ps []*Property, o ProveOptions, cfg model.Config, w exactWorkload) []*Violation {
	c := &Case{Steps: w.materialize(o.Alphabet), Config: cfg, Rule: o.Rule}
	out := make([]*Violation, len(ps))
	for i, p := range ps {
		out[i] = evaluate(p, c)
	}
	return out
}

// observeLast describes what the workload's last step did, relative to where it landed: the
// events it raised, the roll and its reason, whether the rolled segment got a closing
// time-index entry, the offset- and time-index entries it added, and for every offset it
// wrote the lookup's scan, start and hit; then what closing the log adds to the time index.
// Positions are relative to the step's first byte, offsets to its first offset, timestamps
// to its first batch's.
func observeLast(o ProveOptions, cfg model.Config, w exactWorkload) string {
	steps := w.materialize(o.Alphabet)
	before := newPartialRun(0, cfg, o.Rule, model.Exact)
	for _, s := range steps[:len(steps)-1] {
		before.apply(s)
	}
	if before.done() {
		return "stopped before"
	}
	after := before.extend(steps[len(steps)-1])
	var b strings.Builder
	if after.err != nil {
		return "invalid: " + after.err.Error()
	}
	for _, e := range after.log.Events()[len(before.log.Events()):] {
		fmt.Fprintf(&b, "event %s; ", e.Kind)
	}
	if after.done() {
		return b.String() + "stopped"
	}
	segs := after.log.Segments()
	start := before.log.Active().Size()
	// ScanBound's bound for the step's first unit adds the unit before it in the segment.
	prevUnit := int64(0)
	if bs := before.log.Active().Batches(); len(bs) > 0 {
		prevUnit = bs[len(bs)-1].Size
		if o.Rule == model.PerAppend {
			apps := before.traces[len(before.traces)-1].Appends
			prevUnit = apps[len(apps)-1][1] - apps[len(apps)-1][0]
		}
	}
	if len(segs) > len(before.log.Segments()) {
		rolled := segs[len(segs)-2]
		fmt.Fprintf(&b, "roll %s, closing time entries +%d; ", rolled.RollReason(),
			len(rolled.TimeIndex().All())-len(before.log.Active().TimeIndex().All()))
		start, prevUnit = 0, 0
	}
	fmt.Fprintf(&b, "unit before %d; ", prevUnit)
	s := after.log.Active()
	bs := s.Batches()
	j := sort.Search(len(bs), func(k int) bool { return bs[k].Position >= start })
	if j == len(bs) {
		// A rejected append, or a restart: what closing and reopening the segment did.
		bt, at := before.log.Active().TimeIndex(), s.TimeIndex()
		fmt.Fprintf(&b, "nothing written; time entries %+d, last moved %v", len(at.All())-len(bt.All()), bt.LastEntry() != at.LastEntry())
		return b.String()
	}
	firstOff, firstTs := bs[j].BaseOffset, bs[j].MaxTimestamp
	for _, e := range s.OffsetIndex().All() {
		if e.Position >= start {
			fmt.Fprintf(&b, "entry (%d, %d); ", e.Offset-firstOff, e.Position-start)
		}
	}
	for _, e := range s.TimeIndex().All() {
		if e.Offset >= firstOff {
			fmt.Fprintf(&b, "time entry (%d, %d); ", e.Timestamp-firstTs, e.Offset-firstOff)
		}
	}
	for off := firstOff; off <= s.LastOffset(); off++ {
		lr, ok := s.Lookup(off)
		fmt.Fprintf(&b, "lookup +%d: %v scan %d from %d hit %d; ", off-firstOff, ok, lr.ScanBytes, lr.Index.Position-start, lr.Hit.Position-start)
	}
	n := len(s.TimeIndex().All())
	closed := after.fork().finish()
	last := closed.Segments[len(closed.Segments)-1].TimeIndex()
	fmt.Fprintf(&b, "close: time entries +%d", len(last.All())-n)
	if e := last.LastEntry(); len(last.All()) > n {
		fmt.Fprintf(&b, " (%d, %d)", e.Timestamp-firstTs, e.Offset-firstOff)
	}
	return b.String()
}

// Plateau's product (fixpoint.go's product mode) is exact too: workloads with the same
// product state (the log's abstract state, the same workload's at interval 0, and the
// smallest batch so far), extended by the same suffix, reach the same product states, their
// last steps do the same in both runs, and Plateau's verdicts agree. Intervals below every
// batch (67), between (100, 168) and above most (300), so the premise holds, fails later, or
// never holds.
func TestPlateauProductIsExact(t *testing.T) {
	want := 1000
	if testing.Short() {
		want = 200
	}
	for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
		t.Run(rule.String(), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(13, uint64(rule)))
			o := exactSpace
			o.Rule = rule
			o.defaults()
			steps := proofSteps(len(o.Alphabet), o.MaxAppend, o.Restarts)
			ps := []*Property{Plateau}
			found := 0
			for found < want {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes = o.Segments[rng.IntN(len(o.Segments))]
				cfg.IndexIntervalBytes = []int64{67, 100, 168, 300}[rng.IntN(4)]
				cfg.SegmentIndexBytes = o.IndexBytes[rng.IntN(len(o.IndexBytes))]
				zc := cfg
				zc.IndexIntervalBytes = 0
				slotCap := slotCapFor(cfg, o.Alphabet)
				key := func(w exactWorkload) any {
					k := proofKey{main: exactState(o, cfg, slotCap, w), zero: exactState(o, zc, slotCap, w)}
					for _, s := range w.materialize(o.Alphabet) {
						for _, b := range s.Append {
							if k.smallest == 0 || b.Bytes < k.smallest {
								k.smallest = b.Bytes
							}
						}
					}
					return k
				}
				observe := func(w exactWorkload) string { return observeLast(o, cfg, w) + " | at 0: " + observeLast(o, zc, w) }
				seen := map[any]exactWorkload{}
				for range 30 {
					var w exactWorkload
					for range 1 + rng.IntN(40) {
						st := steps[rng.IntN(len(steps))]
						switch r := rng.IntN(8); {
						case r == 0:
							st = steps[len(steps)-1]
						case r > 2:
							// Batches above the interval mostly, so that the premise holds.
							st = steps[1+rng.IntN(len(o.Alphabet)-1)]
						}
						w = append(w, st)
						k := key(w)
						if k.(proofKey).terminal(cfg, true) {
							break
						}
						other, ok := seen[k]
						if !ok {
							seen[k] = slices.Clone(w)
							continue
						}
						if slices.EqualFunc(other, w, slices.Equal) {
							continue
						}
						found++
						suffix := make(exactWorkload, 1+rng.IntN(8))
						for i := range suffix {
							suffix[i] = steps[rng.IntN(len(steps))]
						}
						compareFuturesOf(t, ps, o, cfg, other, slices.Clone(w), suffix, key, observe)
						if t.Failed() {
							return
						}
					}
				}
			}
			t.Logf("%d pairs", found)
		})
	}
}

func exactConfig(cfg model.Config) string {
	return fmt.Sprintf("S=%d I=%d segment.index.bytes=%d", cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes)
}
