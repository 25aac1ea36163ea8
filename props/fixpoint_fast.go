package props

import (
	"fmt"
	"sync"
	"sync/atomic"

	"kidx/model"
)

// fastChild is one transition of the fast path: the successor state, the step (an index
// into proofSteps) and the properties it fails (stepOutcome's bits).
type fastChild struct {
	state abstractState
	step  int32
	fresh bool
	fails uint32
}

// proveConfigFast is proveConfig outside the product, with the states stepped by
// abstractStepper instead of a cloned model log (docs/proofs.md, "The fast path"). The
// exploration is the same breadth-first search with the same dominance and the same
// (node, step) order in the merge, so its figures and counterexamples are those of the
// model path (tested: TestFastPathEqualsModelPath). Each visit keeps its parent and step
// rather than a workload; a counterexample is rebuilt from them and checked again with the
// property's own Check on the model, and a disagreement is an error, not a result.
func proveConfigFast(ps []*Property, o ProveOptions, cfg model.Config) (configResult, error) {
	cr := configResult{complete: true, cex: make([]*Counterexample, len(ps)), depth: make([]int, len(ps))}
	steps := proofSteps(o)
	slotCap := slotCapFor(cfg, o.Alphabet)
	st := newAbstractStepper(cfg, o.Rule, o.Alphabet, slotCap, o.Recovers)
	// The empty workload is a workload too: its verdicts come from the model, as on the
	// model path.
	root := proofNode{run: newPartialRun(0, cfg, o.Rule, nil, model.Exact)}
	open := func(i int) bool { return cr.cex[i] == nil && ps[i] != Plateau }
	for i, v := range verdicts(ps, o, cfg, root, open, false) {
		if v != nil {
			cr.cex[i] = &Counterexample{Workload: (&Case{Config: cfg, Rule: o.Rule}).Workload(), Explanation: v.Explanation, Compare: v.Compare}
		}
	}
	// bit i of stepOutcome.fails is ProvedProperties()[i]; ps is that list. The visited
	// set maps a state but its size (packed when the config's widths fit) to the least
	// size seen, as on the model path (dominated, visit).
	pk := newPacker(st, slotCap)
	if !pk.ok {
		return proveConfigFastWide(ps, o, cfg)
	}
	visited := map[packedState]int64{}
	dominatedFast := func(a abstractState) bool {
		least, seen := visited[pk.pack(a)]
		return seen && least <= a.size
	}
	visitFast := func(a abstractState) bool {
		k := pk.pack(a)
		_, seen := visited[k]
		visited[k] = a.size
		return !seen
	}
	visitFast(st.fresh)
	// parent and stepOf, per visit: how it was reached (the root is visit 0).
	parent, stepOf := []int32{-1}, []int32{-1}
	type fastNode struct {
		state abstractState
		visit int32
	}
	level := []fastNode{{state: st.fresh}}
	for depth := 1; len(level) > 0; depth++ {
		children := make([][]fastChild, len(level))
		var next atomic.Int64
		var wg sync.WaitGroup
		chunk := max(1, len(level)/(8*o.Workers))
		for range min(o.Workers, len(level)) {
			wg.Go(func() {
				for {
					lo := int(next.Add(int64(chunk))) - chunk
					if lo >= len(level) {
						return
					}
					for n := lo; n < min(lo+chunk, len(level)); n++ {
						out := make([]fastChild, len(steps))
						for si, s := range steps {
							var so stepOutcome
							switch s[0] {
							case restartStep:
								so = st.restart(level[n].state)
							case recoverStep:
								so = st.recover(level[n].state)
							default:
								so = st.appendLetters(level[n].state, s)
							}
							out[si] = fastChild{state: so.next, step: int32(si), fails: so.fails,
								fresh: !dominatedFast(so.next)}
						}
						children[n] = out
					}
				}
			})
		}
		wg.Wait()
		var nextLevel []fastNode
		for n := range level {
			for _, ch := range children[n] {
				cr.transitions++
				for i := range ps {
					if ch.fails != 0 && ch.fails&(1<<i) != 0 && cr.cex[i] == nil {
						steps := fastWorkload(parent, stepOf, level[n].visit, ch.step)
						cx, err := confirmCounterexample(ps[i], o, cfg, steps)
						if err != nil {
							return cr, err
						}
						cr.cex[i], cr.depth[i] = cx, depth
					}
				}
				if !ch.fresh || dominatedFast(ch.state) {
					continue
				}
				if visitFast(ch.state) {
					cr.diameter = depth
				}
				cr.visits++
				parent, stepOf = append(parent, level[n].visit), append(stepOf, ch.step)
				if !ch.state.stopped {
					nextLevel = append(nextLevel, fastNode{state: ch.state, visit: int32(len(parent) - 1)})
				}
			}
			children[n] = nil
		}
		level = nextLevel
		if int64(len(visited)) > o.MaxStates && len(level) > 0 {
			cr.complete = false
			break
		}
	}
	cr.states = int64(len(visited))
	cr.visits++ // the root
	return cr, nil
}

// fastWorkload is the steps (proofSteps indexes) from the root to visit v, then step.
func fastWorkload(parent, stepOf []int32, v, step int32) []int32 {
	out := []int32{step}
	for ; v > 0; v = parent[v] {
		out = append(out, stepOf[v])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// confirmCounterexample materializes a fast-path counterexample and checks it with the
// property's own Check on the model: the explanation is the model's, and a workload the
// model does not confirm is the stepper's error, reported as such.
func confirmCounterexample(p *Property, o ProveOptions, cfg model.Config, idx []int32) (*Counterexample, error) {
	all := proofSteps(o)
	var steps []model.Step
	batches := 0
	for _, i := range idx {
		s, n := proofStep(o.Alphabet, all[i], batches)
		batches += n
		steps = append(steps, s)
	}
	c := Case{Steps: steps, Config: cfg, Rule: o.Rule}
	v := evaluate(p, &c)
	if v == nil {
		return nil, fmt.Errorf("kidx bug: the prover's fast path says %s fails on this workload and the model says it holds (rerun with the model path to compare): %s",
			p.Name, mustWorkloadJSON(c.Workload()))
	}
	return &Counterexample{Workload: c.Workload(), Explanation: v.Explanation, Compare: v.Compare}, nil
}

func mustWorkloadJSON(w model.Workload) string {
	b, err := w.MarshalJSON()
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// proveConfigFastWide is for a config whose states do not pack into 128 bits (segments near
// 2^31 bytes with an index that can fill): the model path, whose key is the struct.
func proveConfigFastWide(ps []*Property, o ProveOptions, cfg model.Config) (configResult, error) {
	return proveConfig(ps, o, cfg, false), nil
}
