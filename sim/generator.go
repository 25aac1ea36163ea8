package sim

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"kidx/model"
)

// Limits bound a generated workload; the first limit reached ends it. At least one must be
// set for an endless generator.
type Limits struct {
	Records  int64         // total records (0: no limit)
	Batches  int64         // total batches (0: no limit)
	Duration time.Duration // simulated producer time (0: no limit)
}

// NewGenerator parses a generator spec (`kidx help workloads`), e.g.
// "lognormal:median=16384,sigma=0.6" or
// "producer:rate=2000/s,record=lognormal:median=300,batch.size=16384,linger.ms=5",
// bounded by limits, deterministic from seed. overrides replace top-level parameters of the
// spec (e.g. {"batch.size": "32768"}), which is how sweeps vary producer settings.
func NewGenerator(spec string, limits Limits, seed uint64, overrides map[string]string) (Source, error) {
	n, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	if err := n.applyOverrides(overrides); err != nil {
		return nil, err
	}
	if limits.Records < 0 || limits.Batches < 0 || limits.Duration < 0 {
		return nil, errors.New("limits must not be negative")
	}
	g := &Generator{spec: n, limits: limits, seed: seed}
	base := n
	for base.inner != nil {
		base = base.inner
	}
	bounded := base.kind == "workload" || base.kind == "logdir"
	if !bounded && limits.Records == 0 && limits.Batches == 0 &&
		(limits.Duration == 0 || base.kind != "producer") {
		if base.kind == "producer" {
			return nil, fmt.Errorf("generator %s: give a limit (--records, --batches or --duration)", base.kind)
		}
		return nil, fmt.Errorf("generator %s: give a limit (--records or --batches; --duration needs the producer model's clock)", base.kind)
	}
	// Build once to report every bad key or value now rather than at Open.
	if _, err := g.Open(); err != nil {
		return nil, err
	}
	return g, nil
}

// A Generator is a Source built from a spec: every Open rebuilds the generator tree from
// (spec, seed), so it replays identically.
type Generator struct {
	spec   *specNode
	limits Limits
	seed   uint64
}

// Describe implements Source: the canonical spec, the limits and the seed, enough to replay.
func (g *Generator) Describe() string {
	s := fmt.Sprintf("gen %s seed %d", g.spec, g.seed)
	if g.limits.Records > 0 {
		s += fmt.Sprintf(" records %d", g.limits.Records)
	}
	if g.limits.Batches > 0 {
		s += fmt.Sprintf(" batches %d", g.limits.Batches)
	}
	if g.limits.Duration > 0 {
		s += fmt.Sprintf(" duration %s", g.limits.Duration)
	}
	return s
}

// Seed is the generator's seed.
func (g *Generator) Seed() uint64 { return g.seed }

// Open implements Source.
func (g *Generator) Open() (Stream, error) {
	st := &streams{seed: g.seed}
	return g.build(g.spec, st)
}

func (g *Generator) build(n *specNode, st *streams) (Stream, error) {
	switch n.kind {
	case "follower":
		fetch, err := n.int64("fetch", DefaultFetchBytes, 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		in, err := g.build(n.inner, st)
		if err != nil {
			return nil, err
		}
		return &followerStream{in: stepReader{in: in}, fetch: fetch}, nil
	case "restarts":
		every, err := n.float("every", 1000, 1, 1e12)
		if err != nil {
			return nil, err
		}
		rec, err := n.float("recover", 0.5, 0, 1)
		if err != nil {
			return nil, err
		}
		_, r := st.take()
		in, err := g.build(n.inner, st)
		if err != nil {
			return nil, err
		}
		return &restartStream{in: stepReader{in: in}, every: every, recover: rec, r: r}, nil
	case "workload":
		path, ok := n.params["path"]
		if !ok {
			return nil, errors.New("workload: needs path=FILE")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("workload: path=%s: %w", path, err)
		}
		w, err := model.ParseWorkload(data)
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", path, err)
		}
		return (&WorkloadSource{Name: path, Workload: w}).Open()
	case "logdir":
		path, ok := n.params["path"]
		if !ok {
			return nil, errors.New("logdir: needs path=DIR")
		}
		part, err := n.int64("partition", -1, -1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		src, err := NewLogDirSource(path, n.params["topic"], int(part))
		if err != nil {
			return nil, err
		}
		return src.Open()
	case "producer":
		p, err := buildProducer(n, st)
		if err != nil {
			return nil, err
		}
		return &limitedStream{gen: p, limits: g.limits, clock: func() int64 { return p.clockMs }}, nil
	}
	sb := &sizeBatches{}
	var err error
	if sb.recordBytes, err = n.int64("record.bytes", DefaultRecordBytes, 1, math.MaxInt32); err != nil {
		return nil, err
	}
	if n.kind == "fixed" {
		// At most the records the largest batch (int32 bytes) holds.
		if sb.records, err = n.int64("records", 0, 0, model.MaxBatchRecords(math.MaxInt32)); err != nil {
			return nil, err
		}
	}
	if sb.dist, err = buildSize(n, st, sizeFloor{batch: true, records: sb.records}); err != nil {
		return nil, err
	}
	if sb.tsStart, err = n.int64("ts.start", DefaultTimestampStart, -1, math.MaxInt64/2); err != nil {
		return nil, err
	}
	return &limitedStream{gen: sb, limits: g.limits}, nil
}
