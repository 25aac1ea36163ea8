package props

import (
	"flag"
	"fmt"
	"time"

	"pgregory.net/rapid"

	"kidx/model"
)

// ReplicaGenOptions shape the replicated cases ReplicaCaseGen draws.
type ReplicaGenOptions struct {
	Era    model.Era
	MaxOps int // operations per case (default 40); an operation is one or more steps
	// Recovers adds unclean restarts (LogSegment.recover of a replica's active segment).
	Recovers bool
	// FetchWithinRoom keeps every fetch within candidate fix (a)'s assumption: fetchMaxBytes
	// at most RollOnRoomMaxBatches × the smallest batch, so that no chunk has more batches
	// than the time index has slots.
	FetchWithinRoom bool
}

// replicaBatchSizes are the batch sizes of the generator: the smallest batch (68 bytes), a
// small one, and two that make index.interval.bytes fall between batch boundaries.
var replicaBatchSizes = []int64{68, 100, 150, 250}

// replicaIndexBytes are the segment.index.bytes the generator draws: small multiples of 12
// and 8 (from 3 offset slots and 2 time slots), so that both indexes fill within a few dozen
// batches.
var replicaIndexBytes = []int64{24, 36, 48, 60, 72, 96, 120}

// ReplicaCaseGen draws a replicated case at the edges: 2 or 3 replicas, one or two batch
// sizes, an index.interval.bytes at or around a batch size (so that nearly every batch is
// indexed and a byte counter restarted at 0 shifts the index by one batch), a small
// segment.index.bytes, segment.bytes 1 GiB (the index fills first) or a few dozen batches,
// fetchMaxBytes of one to eight batches, followers that may start a few produces into the
// leader's log (a log start offset inside a leader segment), timestamps rising or constant.
// Then operations: bursts of produces (one batch each: a ProduceRequest holds one batch per
// partition), fetches by a follower, clean restarts and recovers of any replica, and
// elections (the follower first fetches until it holds the leader's log: kidx models no
// truncation). The operations are realized on a model.ReplicaSet as they are drawn, so every
// emitted step is one the model takes. Every choice shrinks towards the simplest.
func ReplicaCaseGen(o ReplicaGenOptions) *rapid.Generator[*ReplicaCase] {
	if o.MaxOps == 0 {
		o.MaxOps = 40
	}
	return rapid.Custom(func(t *rapid.T) *ReplicaCase {
		e := rapid.SampledFrom(replicaBatchSizes).Draw(t, "batch")
		sizes := []int64{e}
		if rapid.Bool().Draw(t, "twoSizes") {
			sizes = append(sizes, rapid.SampledFrom(replicaBatchSizes).Draw(t, "batch2"))
		}
		smallest := min(sizes[0], sizes[len(sizes)-1])
		cfg := model.DefaultConfig()
		cfg.IndexIntervalBytes = rapid.SampledFrom([]int64{0, 1, e - 1, e, e + 1, 2*e - 1, 2 * e}).Draw(t, "index.interval.bytes")
		cfg.SegmentIndexBytes = rapid.SampledFrom(replicaIndexBytes).Draw(t, "segment.index.bytes")
		cfg.SegmentBytes = rapid.SampledFrom([]int64{1 << 30, 16 * e, 40 * e}).Draw(t, "segment.bytes")
		count := rapid.IntRange(2, 3).Draw(t, "replicas")
		fetchMax := e*rapid.Int64Range(1, 8).Draw(t, "fetchBatches") + rapid.SampledFrom([]int64{0, -1, 1}).Draw(t, "fetch+")
		if o.FetchWithinRoom {
			fetchMax = min(fetchMax, int64(RollOnRoomMaxBatches(cfg, o.Era))*smallest)
		}
		constantTs := rapid.IntRange(0, 3).Draw(t, "tsMode") == 3
		ts := int64(1000)

		// The followers' start: after the first k produces of the leader (k = 0: the
		// workload's start). Decided before the steps, realized when the offsets are known.
		startAfter := make([]int, count)
		for r := 1; r < count; r++ {
			startAfter[r] = rapid.SampledFrom([]int{0, 0, 0, 1, 2, 3}).Draw(t, fmt.Sprintf("startAfter%d", r))
		}
		// A burst's batches share one size and record count: one draw each per burst keeps
		// the case's draws (and rapid's shrinking) small.
		burst := func(t *rapid.T, n int) []model.Batch {
			b := sizes[0]
			if len(sizes) > 1 {
				b = rapid.SampledFrom(sizes).Draw(t, "bytes")
			}
			records := model.PossibleRecords(b, rapid.Int64Range(1, 2).Draw(t, "records"))
			out := make([]model.Batch, n)
			for i := range out {
				if !constantTs {
					ts++
				}
				out[i] = model.Batch{Records: records, Bytes: b, MaxTimestamp: ts}
			}
			return out
		}
		// The start offsets need the first produces' record counts: draw them first.
		maxAfter := 0
		for _, k := range startAfter {
			maxAfter = max(maxAfter, k)
		}
		var first []model.Batch
		if maxAfter > 0 {
			first = burst(t, maxAfter)
		}
		spec := model.ReplicaSpec{Count: count, FetchMaxBytes: max(1, fetchMax), StartOffsets: make([]int64, count)}
		for r := 1; r < count; r++ {
			for _, b := range first[:startAfter[r]] {
				spec.StartOffsets[r] += b.Records
			}
		}
		rs, err := model.NewReplicaSet(cfg, o.Era, spec)
		if err != nil {
			panic(err) // the spec is built valid above
		}
		var steps []model.Step
		// refused: a step the model refused (an election of a replica that threw): it is not
		// emitted, but it counted as a step of rs, whose events then name other steps.
		refused := false
		apply := func(s model.Step) bool {
			if rs.Apply(s) != nil {
				refused = true
				return false
			}
			steps = append(steps, s)
			return true
		}
		for _, b := range first {
			apply(model.AppendStep(b))
		}
		follower := func(t *rapid.T, label string) int {
			r := rapid.IntRange(0, count-1).Draw(t, label)
			if r == rs.Leader() {
				r = (r + 1) % count
			}
			return r
		}
		ops := rapid.IntRange(1, o.MaxOps).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op <= 3: // a burst of produces, one batch each
				for _, b := range burst(t, rapid.IntRange(1, 8).Draw(t, "burst")) {
					apply(model.AppendStep(b))
				}
			case op <= 6:
				r := follower(t, "fetch")
				for n := rapid.IntRange(1, 3).Draw(t, "fetches"); n > 0; n-- {
					apply(model.Step{Fetch: true, Replica: r, HasReplica: true})
				}
			case op == 7:
				apply(model.Step{Restart: true, Replica: rapid.IntRange(0, count-1).Draw(t, "restart"), HasReplica: true})
			case op == 8 && o.Recovers:
				apply(model.Step{Recover: true, Replica: rapid.IntRange(0, count-1).Draw(t, "recover"), HasReplica: true})
			case op == 9:
				r := follower(t, "elect")
				lead := rs.Replicas()[rs.Leader()]
				// Catch up first: each fetch takes at least one batch, so this ends.
				for rs.Replicas()[r].NextOffset() < lead.NextOffset() && !rs.Replicas()[r].Stopped() {
					if !apply(model.Step{Fetch: true, Replica: r, HasReplica: true}) {
						break
					}
				}
				if !rs.Replicas()[r].Stopped() && rs.Replicas()[r].NextOffset() == lead.NextOffset() {
					apply(model.Step{Elect: true, Replica: r, HasReplica: true})
				}
			}
		}
		w := model.Workload{Config: cfg.Map(), Rule: o.Era.Rule().String(), Replicas: &spec, Steps: steps}
		if o.Era.Candidate == "" {
			w.Rule, w.KafkaVersion = "", o.Era.First.String()
		}
		// The realization is the case's run (model.SimulateReplicas would repeat it): close
		// every replica as SimulateReplicas does.
		c := &ReplicaCase{Workload: w, Config: cfg, Era: o.Era}
		if !refused && rs.Close() == nil {
			c.rs, c.ran = rs, true
		}
		return c
	})
}

// ReplicaOptions tune a rapid check of a replicated property.
type ReplicaOptions struct {
	Era    model.Era
	Checks int    // 0: rapid's default (RAPID_CHECKS, else 100)
	Seed   uint64 // 0: rapid's default
	Gen    ReplicaGenOptions
	OnCase func()
	// ShrinkTime bounds rapid's shrinking of a counterexample (rapid.shrinktime; 0:
	// DefaultReplicaShrinkTime). A replicated case runs every replica, and rapid's own
	// default of 30 s would make `kidx check --replicas` slow to answer.
	ShrinkTime time.Duration
}

// DefaultReplicaShrinkTime bounds the shrinking of a replicated counterexample: enough to
// shrink the follower's overflow to a few dozen steps.
const DefaultReplicaShrinkTime = 2 * time.Second

// ReplicaGenFor picks the cases a replicated property is checked on: recovers only for the
// recovery's property (they rebuild the follower's index, hiding the follower's overflow
// otherwise found first), and fetches within fix (a)'s assumption under fix (a).
func ReplicaGenFor(p *ReplicaProperty, o ReplicaOptions) ReplicaGenOptions {
	g := o.Gen
	g.Era = o.Era
	g.Recovers = p == ReplicaRecoverNeverOverflows
	g.FetchWithinRoom = o.Era.RollWhenAppendLacksIndexRoom
	return g
}

// CheckReplicas runs one replicated property through rapid, as Check does for a single log.
func CheckReplicas(p *ReplicaProperty, o ReplicaOptions) (Result, error) {
	if err := rapidFlags(o.Checks, o.Seed); err != nil {
		return Result{}, err
	}
	shrink := o.ShrinkTime
	if shrink <= 0 {
		shrink = DefaultReplicaShrinkTime
	}
	before := flag.Lookup("rapid.shrinktime").Value.String()
	if err := flag.Set("rapid.shrinktime", shrink.String()); err != nil {
		return Result{}, err
	}
	defer func() { _ = flag.Set("rapid.shrinktime", before) }()
	res := Result{Property: p.Name, Kind: p.KindFor(o.Era)}
	return runRapid(res, ReplicaCaseGen(ReplicaGenFor(p, o)), o.OnCase, func(c *ReplicaCase) *Counterexample {
		if v := p.Check(c); v != nil {
			return &Counterexample{Workload: c.Workload, Explanation: v.Explanation}
		}
		return nil
	})
}
