package props

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kidx/model"
)

// Sometimes is the third kind of property, for the prover only (Stateright's term): a hazard
// that some workload of the space reaches. A witness is a finding, not a failure.
const Sometimes Kind = "sometimes"

// Proof results (docs/proofs.md, "Results").
const (
	Proved  = "proved"  // an invariant or question holds on every workload of the space, of any length
	Witness = "witness" // a sometimes property is reached: the counterexample shows how
	Unknown = "unknown" // the exploration stopped before its fixpoint (--max-states)
	// Violated and Finding (check.go) keep their meaning: an invariant's counterexample, a
	// question's. A sometimes property with no witness in a complete exploration is Violated:
	// the hazard is unreachable in the space.
)

// IndexFullRoll (sometimes): a segment rolls because its offset or time index is full.
var IndexFullRoll = &Property{
	Name:    "IndexFullRoll",
	Kafka:   "LogSegment.shouldRoll: offsetIndex.isFull() || timeIndex.isFull() (docs/kafka.md §8)",
	KindFor: always(Sometimes),
	Check: func(c *Case) *Violation {
		for _, s := range c.Run().Segments {
			if s.RollReason() == model.RollOffsetIndexFull || s.RollReason() == model.RollTimeIndexFull {
				return violation("shouldRoll rolls on a full index", "segment %d rolled: %s (segment.index.bytes=%d)",
					s.BaseOffset(), s.RollReason(), c.Config.SegmentIndexBytes)
			}
		}
		return nil
	},
}

// MidAppendOverflow (sometimes): an index overflows inside one append, and Kafka throws.
var MidAppendOverflow = &Property{
	Name:    "MidAppendOverflow",
	Kafka:   NoIndexOverflowMidAppend.Kafka,
	KindFor: always(Sometimes),
	// Every overflow, outside fix (a)'s assumption too: the witness shows the fix's limit.
	Check: func(c *Case) *Violation { return appendOverflow(c, false) },
}

// Cliff (sometimes): a segment holds two or more units its rule checks (batches per-batch,
// appends per-append) and its offset index is empty, so every lookup in it scans from the
// segment's start because the interval is past every check's counter. (A segment's first
// unit is never indexed whatever the interval: one per-append append of two batches is not
// the cliff.)
var Cliff = &Property{
	Name:    "Cliff",
	Kafka:   "no entry until bytesSinceLastIndexEntry > index.interval.bytes (docs/kafka.md §2.2): with I >= the segment's bytes before its last batch, the index stays empty",
	KindFor: always(Sometimes),
	Check: func(c *Case) *Violation {
		r := c.Run()
		for i, s := range r.Segments {
			if segmentUnits(r.Traces[i], len(s.Batches()), c.Rule) > 1 && s.OffsetIndex().Entries() == 0 {
				return violation("no entry until the counter passes the interval", "segment %d: %d batches, %d bytes, an empty offset index (index.interval.bytes=%d)",
					s.BaseOffset(), len(s.Batches()), s.Size(), c.Config.IndexIntervalBytes)
			}
		}
		return nil
	},
}

// RecoverOverflow (sometimes): LogSegment.recover throws because an index fills while it
// rebuilds (per batch, docs/kafka.md §3): a segment written under a rule that indexes less
// often, or whose counter restarted, can need more entries than segment.index.bytes holds,
// and the broker cannot load the log. Decided with recover steps only (ProveOptions.Recovers).
var RecoverOverflow = &Property{
	Name:    "RecoverOverflow",
	Kafka:   "LogSegment.recover: offsetIndex.append / timeIndex.maybeAppend throw on a full index while rebuilding per batch (docs/kafka.md §2.4, §3)",
	KindFor: always(Sometimes),
	Check: func(c *Case) *Violation {
		for _, e := range c.Run().Log.Events() {
			if e.Step < len(c.Steps) && c.Steps[e.Step].Recover && (e.Kind == model.EventOffsetIndexFull || e.Kind == model.EventTimeIndexFull) {
				return violation("recover() rebuilds per batch, with its own counter", "step %d (recover): %s: Kafka throws %q (segment.index.bytes=%d)",
					e.Step, e.Kind, e.Message, c.Config.SegmentIndexBytes)
			}
		}
		return nil
	},
}

// provedProperties are the properties a space decides: ProvedProperties, then with recover
// steps RecoveryRebuildsSameIndex and RecoverOverflow (the fast path's bits follow this
// order).
func provedProperties(o ProveOptions) []*Property {
	ps := ProvedProperties()
	if o.Recovers {
		ps = append(ps, RecoveryRebuildsSameIndex, RecoverOverflow)
	}
	return ps
}

// ProvedProperties are the properties the fixpoint decides, in docs/contract.md §6's order,
// then the sometimes properties. Plateau, which compares the run with one at interval 0, is
// decided by a second exploration over the product of both runs (proveConfig's product
// mode). The others compare two runs over the whole log with no finite state
// (DensityMonotone) or need a product not built (MaxScanMonotoneInInterval); with recover
// steps in the space (provedProperties), RecoveryRebuildsSameIndex and RecoverOverflow are
// decided too. NotProved says so.
func ProvedProperties() []*Property {
	return []*Property{FirstBatchNeverIndexed, ScanBound, Plateau, EmptyAboveSegment, EntriesAtBatchBoundaries,
		StrictlyIncreasing, LookupHitsTarget, NoIndexOverflowMidAppend,
		IndexFullRoll, MidAppendOverflow, Cliff}
}

// NotProved names the properties of All that the fixpoint does not decide, with the reason.
var NotProved = map[string]string{
	"DensityMonotone":           "compares the total entries of two runs over the whole log, which no finite state bounds; kidx prove --parametric proves it for every configuration",
	"MaxScanMonotoneInInterval": "compares the maximum scan of two runs over the whole log (a product of two explorations, not built); kidx prove --parametric refutes it with a replayable workload",
	"RecoveryRebuildsSameIndex": "needs recover steps in the space (--recovers)",
	"WarmSearchAgrees":          "is about the index search over n entries, for every n; the abstract state leaves n out (an assumption of the proof, checked by kidx check and model's search tests)",
}

// ProveOptions are the space of a fixpoint proof (docs/proofs.md, "The space").
type ProveOptions struct {
	Rule model.AppendRule
	// Era, when set, is a candidate era (model.ParseEraSpec) proved in place of Rule's; Rule
	// is then Era.Rule(). Its base must be one of the two rules' eras, the ones the
	// abstraction is tested on (fixpoint_exact_test.go), and it takes the model path: the fast
	// path's stepper is written for Kafka's two eras only (docs/proofs.md, "Candidate eras").
	Era        *model.Era
	Alphabet   []int64 // batch sizes (default DefaultAlphabet)
	MaxAppend  int     // batches per append, 1..k (default 1)
	Intervals  []int64 // index.interval.bytes values (default DefaultIntervals)
	Segments   []int64 // segment.bytes values (default DefaultSegments)
	IndexBytes []int64 // segment.index.bytes values (default Kafka's 10 MiB)
	// Restarts adds a clean broker restart (model.Step{Restart: true}) to the steps: the
	// active segment is closed and reopened by a new LogSegment object, whose byte counter
	// is 0 (docs/kafka.md §2.3).
	Restarts bool
	// Recovers adds an unclean restart (model.Step{Recover: true}): LogSegment.recover
	// rebuilds the active segment's indexes per batch (docs/kafka.md §3). The abstract state
	// then carries what recover would rebuild, and RecoveryRebuildsSameIndex and
	// RecoverOverflow are decided.
	Recovers bool
	Mutant   model.Mutant
	// MaxStates stops the exploration of a config past this many states (default 20 M): its
	// undecided properties are then Unknown.
	MaxStates int64
	Workers   int // default GOMAXPROCS
	// ModelPath steps every state with a cloned model log and checks every property with
	// its own Check (the reference; always taken under a mutant and for Plateau's
	// product) instead of abstractStepper (docs/proofs.md, "The fast path").
	ModelPath bool
}

func (o *ProveOptions) defaults() {
	defaultSpace(&o.Alphabet, &o.Intervals, &o.Segments)
	if o.Era != nil {
		o.Rule = o.Era.Rule()
	}
	if o.MaxAppend == 0 {
		o.MaxAppend = 1
	}
	if len(o.IndexBytes) == 0 {
		o.IndexBytes = []int64{model.DefaultSegmentIndexBytes}
	}
	if o.MaxStates == 0 {
		o.MaxStates = 20_000_000
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Validate checks the space and the assumptions the abstraction rests on (docs/proofs.md,
// "Assumptions"); a space that breaks one is refused rather than proved.
func (o ProveOptions) Validate() error {
	o.defaults()
	if err := AlphabetError(o.Alphabet); err != nil {
		return err
	}
	if e := o.Era; e != nil && e.Candidate != model.EraForRule(model.PerBatch).ID && e.Candidate != model.EraForRule(model.PerAppend).ID {
		return fmt.Errorf("era %s: the fixpoint proves candidates on the two rules' eras only (base %s or %s), the ones its abstraction is tested on",
			e.ID, model.EraForRule(model.PerBatch).ID, model.EraForRule(model.PerAppend).ID)
	}
	// Up to 3: the largest append the exactness test draws (fixpoint_exact_test.go).
	if o.MaxAppend < 1 || o.MaxAppend > 3 {
		return fmt.Errorf("batches per append %d: want 1..3", o.MaxAppend)
	}
	smallest, most := slices.Min(o.Alphabet), int64(0)
	for k := range o.Alphabet {
		most = max(most, exhaustiveBatch(o.Alphabet, k, 0).Records)
	}
	for _, S := range o.Segments {
		for _, I := range o.Intervals {
			for _, ib := range o.IndexBytes {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = S, I, ib
				if err := cfg.Validate(); err != nil {
					return err
				}
			}
		}
		// A segment holds at most S/smallest batches (shouldRoll keeps it within S, a larger
		// append is rejected). Their timestamps are consecutive milliseconds, so a segment
		// spans fewer than segment.ms: no time-based roll. Their offsets stay far below 2^31:
		// no relative-offset overflow. Neither is in the abstract state, so both must be
		// impossible.
		batches := S/smallest + 1
		if batches >= model.DefaultSegmentMs {
			return fmt.Errorf("segment.bytes %d holds up to %d batches, whose timestamps would span segment.ms: the space would reach time-based rolls, which the abstraction leaves out", S, batches)
		}
		if batches*most >= math.MaxInt32 {
			return fmt.Errorf("segment.bytes %d holds up to %d offsets: relative offsets could overflow, which the abstraction leaves out", S, batches*most)
		}
	}
	return nil
}

// Proof is the outcome of Prove over one rule's space.
type Proof struct {
	Options     ProveOptions
	States      int64 // distinct abstract states but the size (visited keys), over every config
	Visits      int64 // states expanded: a key once per smaller size it was reached with
	Transitions int64 // (state, step) pairs explored, over every config
	Diameter    int   // the largest BFS depth of a state, over every config
	Complete    bool  // every config reached its fixpoint
	Elapsed     time.Duration
	Results     []ProofResult
}

// ProofResult is one property's outcome. Counterexample is the shortest workload (fewest
// steps; the first config in the space's order among equals) that violates the property
// or witnesses it.
type ProofResult struct {
	Property       *Property
	Kind           Kind
	Result         string
	Counterexample *Counterexample
}

// Prove explores, breadth first, every abstract state the space's workloads reach, for each
// config, and checks every property on every transition (docs/proofs.md). At the fixpoint
// (no new state), a property never violated holds for workloads of any length over the space.
// A transition's verdict is computed by the property's own Check on the concrete workload
// that reaches it (the state's representative, the first found, extended by the step), so a
// counterexample is a real, replayable workload whatever the abstraction.
func Prove(o ProveOptions) (*Proof, error) {
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	ps := provedProperties(o)
	pf := &Proof{Options: o, Complete: true}
	best := make([]*Counterexample, len(ps))
	bestDepth := make([]int, len(ps))
	for _, S := range o.Segments {
		for _, I := range o.Intervals {
			for _, ib := range o.IndexBytes {
				cfg := model.DefaultConfig()
				cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = S, I, ib
				// The config's own exploration, then, where Plateau's premise (0 < I < every
				// batch) can hold, the product with the run at interval 0.
				for _, product := range []bool{false, true} {
					if product && (I == 0 || I >= slices.Max(o.Alphabet)) {
						continue
					}
					var cr configResult
					if !product && !o.ModelPath && o.Mutant == model.Exact && o.Era == nil {
						var err error
						if cr, err = proveConfigFast(ps, o, cfg); err != nil {
							return nil, err
						}
					} else {
						cr = proveConfig(ps, o, cfg, product)
					}
					pf.States += cr.states
					pf.Visits += cr.visits
					pf.Transitions += cr.transitions
					pf.Diameter = max(pf.Diameter, cr.diameter)
					pf.Complete = pf.Complete && cr.complete
					for i, cx := range cr.cex {
						if cx != nil && (best[i] == nil || cr.depth[i] < bestDepth[i]) {
							best[i], bestDepth[i] = cx, cr.depth[i]
						}
					}
				}
			}
		}
	}
	for i, p := range ps {
		k := KindUnder(p, o.Rule, o.Era)
		r := ProofResult{Property: p, Kind: k, Counterexample: best[i]}
		switch {
		case best[i] != nil && k == Sometimes:
			r.Result = Witness
		case best[i] != nil:
			r.Result = outcome(k, true)
		case !pf.Complete:
			r.Result = Unknown
		case k == Sometimes:
			r.Result = Violated
		default:
			r.Result = Proved
		}
		pf.Results = append(pf.Results, r)
	}
	pf.Elapsed = time.Since(start)
	return pf, nil
}

// proofNode is a state of the frontier with its representative: the workload that first
// reached it and that workload's log, not closed.
type proofNode struct {
	steps   []model.Step
	batches int // batches in steps: the next batch's timestamp is base + batches
	run     *partialRun
	// In product mode: the same workload's log at index.interval.bytes=0, and the smallest
	// batch so far (0 before the first).
	zero     *partialRun
	smallest int64
}

// proofKey is a state of the visited set: the log's abstract state, and in product mode the
// run at interval 0's and the smallest batch so far (Plateau's premise).
type proofKey struct {
	main, zero abstractState
	smallest   int64
}

// terminal says no step leaves the state: Kafka stopped the log, or (product mode) a batch at
// most the interval was written, so Plateau's premise never holds again on any extension.
func (k proofKey) terminal(cfg model.Config, product bool) bool {
	return k.main.stopped || product && (k.zero.stopped || k.smallest > 0 && k.smallest <= cfg.IndexIntervalBytes)
}

// visitKey splits a state into the visited set's key and the resource that orders states of
// one key (docs/proofs.md, "Size as a resource"): outside the product, the active segment's
// size is left out of the key, and a state is dominated by one of the same key with a size
// at most its own, reached at the same or an earlier level. In product mode the key is the
// whole state (two runs can roll at different sizes, so neither size dominates).
func (k proofKey) visitKey(product bool) (proofKey, int64) {
	if product {
		return k, 0
	}
	s := k.main.size
	k.main.size = 0
	return k, s
}

// dominated says the visited set holds the state's key with a size at most its own.
func dominated(visited map[proofKey]int64, k proofKey, product bool) bool {
	key, size := k.visitKey(product)
	least, seen := visited[key]
	return seen && least <= size
}

// visit records the state in the visited set; it reports whether the key is new.
func visit(visited map[proofKey]int64, k proofKey, product bool) bool {
	key, size := k.visitKey(product)
	_, seen := visited[key]
	visited[key] = size
	return !seen
}

func (nd *proofNode) key(o ProveOptions, slotCap int64) proofKey {
	k := proofKey{main: abstractOfWith(nd.run, o.Rule, slotCap, o.Recovers)}
	if nd.zero != nil {
		k.zero, k.smallest = abstractOfWith(nd.zero, o.Rule, slotCap, o.Recovers), nd.smallest
	}
	return k
}

// configResult is one config's exploration.
type configResult struct {
	// states: distinct visited keys (abstract states but the size); visits: the states
	// expanded, a key once per size that improved on the least before it.
	states, visits, transitions int64
	diameter                    int
	complete                    bool
	cex                         []*Counterexample
	depth                       []int
}

// proofChild is one transition: the extended workload, its state and log, and the
// properties it violates (or witnesses).
type proofChild struct {
	node  proofNode
	state proofKey
	fresh bool // not dominated in the visited set of earlier levels (the merge decides within the level)
	fails []int
	why   []*Violation
}

// proveConfig is the breadth-first exploration of one config. Each level's nodes are
// expanded by o.Workers goroutines; the merge then walks the children in (node, step) order,
// so the visited set, the representatives and the counterexamples are those of a
// sequential BFS whatever the scheduling. In product mode the state is the product of the
// log's and the same workload's at interval 0, and only Plateau is checked; otherwise every
// property but Plateau.
func proveConfig(ps []*Property, o ProveOptions, cfg model.Config, product bool) configResult {
	cr := configResult{complete: true, cex: make([]*Counterexample, len(ps)), depth: make([]int, len(ps))}
	steps := proofSteps(o)
	root := proofNode{run: newPartialRun(0, cfg, o.Rule, o.Era, o.Mutant)}
	if product {
		zc := cfg
		zc.IndexIntervalBytes = 0
		root.zero = newPartialRun(0, zc, o.Rule, o.Era, o.Mutant)
	}
	slotCap := slotCapFor(cfg, o.Alphabet)
	visited := map[proofKey]int64{}
	visit(visited, root.key(o, slotCap), product)
	open := func(i int) bool { return cr.cex[i] == nil && (ps[i] == Plateau) == product }
	// depth 0: the empty workload is a workload too.
	for i, v := range verdicts(ps, o, cfg, root, open, false) {
		if v != nil {
			cr.cex[i] = &Counterexample{Workload: (&Case{Config: cfg, Rule: o.Rule, Era: o.Era}).Workload(), Explanation: v.Explanation, Compare: v.Compare}
		}
	}
	level := []proofNode{root}
	for depth := 1; len(level) > 0; depth++ {
		children := make([][]proofChild, len(level))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(o.Workers, len(level)) {
			wg.Go(func() {
				for {
					n := int(next.Add(1) - 1)
					if n >= len(level) {
						return
					}
					children[n] = expand(ps, o, cfg, slotCap, level[n], steps, visited, open, product)
				}
			})
		}
		wg.Wait()
		var nextLevel []proofNode
		for n := range level {
			for _, ch := range children[n] {
				cr.transitions++
				for j, i := range ch.fails {
					if cr.cex[i] == nil {
						c := Case{Steps: ch.node.steps, Config: cfg, Rule: o.Rule, Era: o.Era}
						cr.cex[i] = &Counterexample{Workload: c.Workload(), Explanation: ch.why[j].Explanation, Compare: ch.why[j].Compare}
						cr.depth[i] = depth
					}
				}
				if !ch.fresh || dominated(visited, ch.state, product) {
					continue
				}
				if visit(visited, ch.state, product) {
					cr.diameter = depth
				}
				cr.visits++
				if !ch.state.terminal(cfg, product) {
					nextLevel = append(nextLevel, ch.node)
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
	return cr
}

// restartStep and recoverStep mark a restart and a recover in proofSteps' lists.
const (
	restartStep = -1
	recoverStep = -2
)

// proofSteps lists the space's steps: every append of 1..k batches as alphabet indexes,
// shortest first, then a restart ([restartStep]) and a recover ([recoverStep]) when the
// space has them.
func proofSteps(o ProveOptions) [][]int {
	out := appendSteps(len(o.Alphabet), o.MaxAppend, o.Restarts)
	if o.Recovers {
		out = append(out, []int{recoverStep})
	}
	return out
}

// appendSteps is proofSteps without recovers.
func appendSteps(alphabet, k int, restarts bool) [][]int {
	var out [][]int
	var gen func(prefix []int, n int)
	gen = func(prefix []int, n int) {
		if len(prefix) == n {
			out = append(out, slices.Clone(prefix))
			return
		}
		for a := range alphabet {
			gen(append(prefix, a), n)
		}
	}
	for n := 1; n <= k; n++ {
		gen(nil, n)
	}
	if restarts {
		out = append(out, []int{restartStep})
	}
	return out
}

// proofStep is the workload step of a proofSteps entry when the workload has written
// batches batches so far (the next batch's timestamp is base + batches), and the batches it
// adds.
func proofStep(alphabet []int64, st []int, batches int) (model.Step, int) {
	if len(st) == 1 && st[0] == restartStep {
		return model.Step{Restart: true}, 0
	}
	if len(st) == 1 && st[0] == recoverStep {
		return model.Step{Recover: true}, 0
	}
	bs := make([]model.Batch, len(st))
	for j, k := range st {
		bs[j] = exhaustiveBatch(alphabet, k, batches+j)
	}
	return model.AppendStep(bs...), len(bs)
}

// expand computes every transition of one node. visited is only read (the merge writes it
// between levels).
func expand(ps []*Property, o ProveOptions, cfg model.Config, slotCap int64, nd proofNode, steps [][]int, visited map[proofKey]int64, open func(int) bool, product bool) []proofChild {
	out := make([]proofChild, 0, len(steps))
	for _, st := range steps {
		step, added := proofStep(o.Alphabet, st, nd.batches)
		ws := append(slices.Clip(nd.steps), step)
		child := proofNode{steps: ws, batches: nd.batches + added, run: nd.run.extend(step)}
		if product {
			child.zero, child.smallest = nd.zero.extend(step), nd.smallest
			for _, b := range step.Append {
				if child.smallest == 0 || b.Bytes < child.smallest {
					child.smallest = b.Bytes
				}
			}
		}
		ch := proofChild{node: child, state: child.key(o, slotCap)}
		ch.fresh = !dominated(visited, ch.state, product)
		// A state dominated on an earlier level is never expanded from here: its log is closed
		// in place rather than copied first.
		for i, v := range verdicts(ps, o, cfg, child, open, !ch.fresh) {
			if v != nil {
				ch.fails, ch.why = append(ch.fails, i), append(ch.why, v)
			}
		}
		if !ch.fresh {
			ch.node.run, ch.node.zero = nil, nil
			if len(ch.fails) == 0 {
				ch.node.steps = nil
			}
		}
		out = append(out, ch)
	}
	return out
}

// verdicts evaluates the open properties on the node's workload, whose run is its log
// closed: on a copy, unless last says the node's log is not needed afterwards.
func verdicts(ps []*Property, o ProveOptions, cfg model.Config, nd proofNode, open func(int) bool, last bool) []*Violation {
	out := make([]*Violation, len(ps))
	run := nd.run
	if !last {
		run = run.fork()
	}
	c := Case{Steps: nd.steps, Config: cfg, Rule: o.Rule, Era: o.Era, Mutant: o.Mutant, run: run.finish()}
	for i, p := range ps {
		if open(i) {
			out[i] = evaluate(p, &c)
		}
	}
	return out
}
