package reports

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"kidx/model"
	"kidx/sim"
)

// SourceFactory builds the workload for one set of producer settings (sim.NewGenerator with
// overrides). Sources that are not the producer model ignore the map.
type SourceFactory func(overrides map[string]string) (sim.Source, error)

// WhatIfOptions describe a what-if sweep.
type WhatIfOptions struct {
	// Source is the workload; Factory, when set, builds one per distinct producer setting
	// (and is required for sweeps of batch.size or linger.ms).
	Source  sim.Source
	Factory SourceFactory
	// Base is the config every point starts from; the sweeps then set their keys.
	Base  model.Config
	Rules []model.AppendRule // one, or both for --compare-rules
	// Eras, when set, are the Kafka eras every point runs under (one point per era), in place
	// of Rules' own eras (model.EraForRule).
	Eras   []model.Era
	Sweeps []Sweep
	// KafkaVersion, if set, is the release whose config ranges are checked (else the latest
	// rules, 4.1+, are used and said so).
	KafkaVersion string
	Scale        Scale
	// Workers splits the sweep points across goroutines (0: GOMAXPROCS).
	Workers int
	// Progress, if set, is called with the number of batches fed so far (all points).
	Progress func(batches int64)
	// Baseline, when the source replays a real partition, says whether that replay gives back
	// the partition's real indexes (sim.LogDirReplay.Check).
	Baseline *Baseline
	// ExactIntervals sweeps index.interval.bytes at every value where the run changes (one
	// point per IntervalPiece, besides the swept values given): the whole step function.
	ExactIntervals bool
}

// Baseline is what a replay of a real partition reproduces: the what-if starts from a model
// that gives back today's files, or says where it does not.
type Baseline struct {
	Dir        string
	Reproduces bool
	Detail     string // the first difference when it does not
	Era        string // the era the replay runs
	Interval   int64  // the index.interval.bytes it runs
	Restarts   int    // the byte-counter restarts it replays
	// Unindexed counts the segments without index files, not compared (the replay stands for
	// the rebuild a broker's next start does); Compared the others.
	Unindexed, Compared int
	Notes               []string
	// Warnings name the settings the files do not show and nobody gave, with the value
	// assumed (the CLI says them on stderr; Notes say them in the report).
	Warnings []string
}

// Scale is the at-scale context of the map-count figures.
type Scale struct {
	Partitions       int   // partitions on the broker
	RetainedSegments int   // segments kept per partition; 0: the segments the workload produced
	MaxMapCount      int64 // vm.max_map_count
}

// WhatIf is a complete what-if report.
type WhatIf struct {
	Source string
	Rules  []model.AppendRule // each era's rule
	Eras   []model.Era
	Sweeps []Sweep
	Scale  Scale
	// KafkaVersion is the release the validity warnings refer to.
	KafkaVersion string
	// Baseline, for a replayed real partition, says whether the replay reproduces it.
	Baseline *Baseline
	// Base is the configuration the sweep starts from (the operator's own).
	Base model.Config
	// Pieces, with exact intervals, cut the interval axis where the run changes;
	// PiecesComplete is false when there were more than the sweep follows.
	Pieces         []IntervalPiece
	PiecesComplete bool
	Points         []*Point
	// Passes is how many times the workload was replayed (1, plus refinement passes for exact
	// quantiles of many distinct values).
	Passes  int
	Batches int64 // batches in one pass of the workload (the last one's, with several)
	// Workloads are the workloads run, one per producer setting of a producer sweep (one
	// otherwise), each with its own description and batch count.
	Workloads []WorkloadRun
	Elapsed   time.Duration
}

// WorkloadRun is one workload of a report: what it is and its batches in one pass.
type WorkloadRun struct {
	Source  string
	Batches int64
}

// chunk is how many batches are generated at once and fed to every point.
const chunk = 1 << 16

// run is one model run: a point, or the hidden I=0 reference that defines the plateau.
type run struct {
	cfg      model.Config
	era      model.Era
	producer []Setting
	point    *Point // nil for a reference run
	agg      aggregate
	scan     *Dist
	hops     *Dist
	events   []model.Event
	rejected int64
	stats    model.ScanStats // the model's exact totals, from the first pass
}

// RunWhatIf runs every point of the sweep grid (under each rule) through the model and
// derives the report's figures and recommendations. Single-batch workloads go through
// model.StatStream: each chunk of batches is produced once and fed to every point, the points
// split across goroutines. Other workloads run point by point through sim.Run.
func RunWhatIf(opts WhatIfOptions) (*WhatIf, error) {
	start := time.Now()
	if len(opts.Eras) == 0 {
		if len(opts.Rules) == 0 {
			opts.Rules = []model.AppendRule{model.PerBatch}
		}
		for _, r := range opts.Rules {
			opts.Eras = append(opts.Eras, model.EraForRule(r))
		}
	}
	opts.Rules = opts.Rules[:0:0]
	for _, e := range opts.Eras {
		opts.Rules = append(opts.Rules, e.Rule())
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Scale.MaxMapCount <= 0 {
		opts.Scale.MaxMapCount = DefaultMaxMapCount
	}
	if opts.Scale.Partitions <= 0 {
		opts.Scale.Partitions = 1
	}
	for _, s := range opts.Sweeps {
		if len(s.Values) == 0 {
			return nil, fmt.Errorf("sweep of %s has no values", s.Key)
		}
		if IsProducerKey(s.Key) && opts.Factory == nil {
			return nil, fmt.Errorf("sweep of %s: producer settings can only be swept when the workload is the producer model (--gen producer:...)", s.Key)
		}
	}
	if opts.Source == nil && opts.Factory == nil {
		return nil, errors.New("no workload source")
	}
	rep := &WhatIf{Rules: opts.Rules, Eras: opts.Eras, Sweeps: opts.Sweeps, Scale: opts.Scale, KafkaVersion: opts.KafkaVersion, Baseline: opts.Baseline, Base: opts.Base}
	if rep.KafkaVersion == "" {
		rep.KafkaVersion = checkedRelease(opts.Eras)
	}
	if opts.ExactIntervals {
		if err := exactSweep(&opts, rep); err != nil {
			return nil, err
		}
		rep.Sweeps = opts.Sweeps
	}

	// Build the points, grouped by producer settings (each group is one workload).
	type group struct {
		key  string
		src  sim.Source
		runs []*run
		refs map[refKey]*run
	}
	groups := map[string]*group{}
	var order []*group
	for _, settings := range Grid(opts.Sweeps) {
		cfg := opts.Base
		var producer []Setting
		for _, s := range settings {
			if IsProducerKey(s.Key) {
				producer = append(producer, s)
				continue
			}
			if err := cfg.SetInt(s.Key, s.Value); err != nil {
				return nil, err
			}
		}
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("point %s: %v", settingsString(settings), err)
		}
		gk := settingsString(producer)
		g := groups[gk]
		if g == nil {
			g = &group{key: gk, refs: map[refKey]*run{}}
			groups[gk] = g
			order = append(order, g)
			src := opts.Source
			if opts.Factory != nil {
				over := map[string]string{}
				for _, p := range producer {
					over[p.Key] = strconv.FormatInt(p.Value, 10)
				}
				var err error
				if src, err = opts.Factory(over); err != nil {
					return nil, err
				}
			}
			g.src = src
			if rep.Source == "" {
				rep.Source = src.Describe()
			}
		}
		for _, era := range opts.Eras {
			p := &Point{Config: cfg, Rule: era.Rule(), Era: era, Producer: producer}
			rep.Points = append(rep.Points, p)
			g.runs = append(g.runs, &run{cfg: cfg, era: era, producer: producer, point: p})
			if k := referenceKey(cfg, era); g.refs[k] == nil {
				g.refs[k] = &run{cfg: k.cfg, era: era}
			}
		}
	}
	for _, g := range order {
		refs := make([]*run, 0, len(g.refs))
		for _, r := range g.refs {
			refs = append(refs, r)
		}
		sort.Slice(refs, func(i, j int) bool { return fmt.Sprint(refs[i].cfg) < fmt.Sprint(refs[j].cfg) })
		all := append(append([]*run(nil), g.runs...), refs...)
		shape, err := probeSource(g.src)
		if err != nil {
			return nil, err
		}
		stream := shape.fast
		for _, e := range opts.Eras {
			// An era StatStream cannot run goes through sim.Run (model.Log) for every point.
			shape.fast = shape.fast && model.StreamSupports(e)
		}
		if stream && !shape.fast {
			// The fast pass would have recorded the batch sizes: one pass over them instead.
			if err := streamSizes(g.src, shape.sizes); err != nil {
				return nil, err
			}
		}
		passes, batches, err := runGroup(g.src, shape, all, opts)
		if err != nil {
			return nil, err
		}
		rep.Passes = max(rep.Passes, passes)
		rep.Batches = batches
		rep.Workloads = append(rep.Workloads, WorkloadRun{Source: g.src.Describe(), Batches: batches})
		for _, r := range g.runs {
			finishPoint(r, g.refs[referenceKey(r.cfg, r.era)], shape, rep)
		}
	}
	// Advice compares points (e.g. the widest plateau), so it comes once every point is done.
	// The pieces' regimes first: a point's advice may point at another piece.
	for _, p := range rep.Points {
		if pc := rep.PieceOf(p.Config.IndexIntervalBytes); pc != nil && rep.basePiecePoint(p) {
			pc.Regime = p.Regime
		}
	}
	for _, p := range rep.Points {
		p.Advice = recommend(p, rep)
		p.Recommendations = texts(p.Advice)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// checkedRelease is the release whose config ranges a run without --kafka-version is
// checked against: the newest current line (latestRules) when the run is in its era, else
// the newest release of the single era the run is in (a per-append workload runs 3.7-4.0.0:
// checked against 4.0.0, not 4.1.0, issue 11 review).
func checkedRelease(eras []model.Era) string {
	if len(eras) != 1 {
		return latestRules
	}
	e := eras[0]
	switch v, _ := model.ParseKafkaVersion(latestRules); {
	case !v.Less(e.First) && (e.Last == model.KafkaVersion{} || !e.Last.Less(v)):
		return latestRules
	case e.Last != model.KafkaVersion{} && e.Last.Patch < 99:
		return e.Last.String()
	}
	return e.First.String()
}

// basePiecePoint says p runs the settings the pieces were cut for (the base config but for
// the interval, the first era, no producer override).
func (r *WhatIf) basePiecePoint(p *Point) bool {
	c := p.Config
	c.IndexIntervalBytes = r.Base.IndexIntervalBytes
	return c == r.Base && len(p.Producer) == 0 && (len(r.Eras) == 0 || p.Era.ID == r.Eras[0].ID)
}

// exactSweep replaces the interval sweep by the exact one: the values given (if any) and one
// per piece of the interval axis none of them falls in.
func exactSweep(opts *WhatIfOptions, rep *WhatIf) error {
	if len(opts.Eras) != 1 {
		return errors.New("the exact interval sweep runs one era at a time (no --compare-rules)")
	}
	var given []int64
	for _, s := range opts.Sweeps {
		if s.Key != "index.interval.bytes" {
			return fmt.Errorf("the exact interval sweep sweeps index.interval.bytes alone (not %s)", s.Key)
		}
		given = s.Values
	}
	src := opts.Source
	if src == nil {
		var err error
		if src, err = opts.Factory(nil); err != nil {
			return err
		}
	}
	pieces, complete, err := ExactIntervals(src, opts.Base, opts.Eras[0])
	if err != nil {
		return err
	}
	rep.Pieces, rep.PiecesComplete = pieces, complete
	// The operator's own value is always a point: the verdict starts from it.
	given = append(given, opts.Base.IndexIntervalBytes)
	opts.Sweeps = []Sweep{{Key: "index.interval.bytes", Values: exactSweepValues(given, pieces)}}
	return nil
}

// refKey names the reference run of a point: the same config with index.interval.bytes=0,
// under the same era. Its index is the densest the batching allows, which defines the
// plateau (docs/contract.md §6 Plateau).
type refKey struct {
	cfg model.Config
	era string
}

func referenceKey(cfg model.Config, era model.Era) refKey {
	cfg.IndexIntervalBytes = 0
	return refKey{cfg, era.ID}
}

func settingsString(s []Setting) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x.Key + "=" + strconv.FormatInt(x.Value, 10)
	}
	return out
}

// sourceShape is what one look at the workload tells: whether it is single-batch appends (the
// fast path) and, otherwise, the largest append (the per-append rule's scan bound) and whether
// some append holds several batches (the per-batch overflow hazard).
type sourceShape struct {
	fast           bool
	maxAppendBytes int64
	multiBatch     bool
	restarts       int64 // restart, recover and crash steps: the byte counter starts again at each
	recovers       bool  // some step is a recover or a crash (LogSegment.recover reads every batch)
	// sizes are the workload's batch sizes for the follower-overflow exposure: filled here
	// for step workloads, by the first pass for batch streams.
	sizes *batchSizes
}

func probeSource(src sim.Source) (sourceShape, error) {
	st, err := src.Open()
	if err != nil {
		return sourceShape{}, err
	}
	if _, ok := st.(sim.BatchStream); ok {
		return sourceShape{fast: true, sizes: &batchSizes{}}, nil
	}
	sh := sourceShape{sizes: &batchSizes{}}
	steps := make([]model.Step, 1024)
	for {
		n, err := st.Next(steps)
		for _, s := range steps[:n] {
			sh.maxAppendBytes = max(sh.maxAppendBytes, s.AppendBytes())
			if len(s.Append) > 1 {
				sh.multiBatch = true
			}
			for _, b := range s.Append {
				sh.sizes.add(b.Bytes)
			}
			if s.Restart || s.Recover || s.Crash != nil {
				sh.restarts++
			}
			sh.recovers = sh.recovers || s.Recover || s.Crash != nil
		}
		if errors.Is(err, io.EOF) {
			return sh, nil
		}
		if err != nil {
			return sh, err
		}
	}
}

// streamSizes adds a batch stream's sizes to sizes.
func streamSizes(src sim.Source, sizes *batchSizes) error {
	st, err := src.Open()
	if err != nil {
		return err
	}
	bs := st.(sim.BatchStream)
	bytes, records, ts := make([]int32, chunk), make([]int32, chunk), make([]int64, chunk)
	for {
		n, err := bs.NextBatches(bytes, records, ts)
		sizes.addChunk(bytes[:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// runGroup runs every run over one workload: the first pass computes everything, and further
// passes refine the quantiles that one pass could not pin down. It returns the passes made
// and the batches of one pass.
func runGroup(src sim.Source, shape sourceShape, runs []*run, opts WhatIfOptions) (int, int64, error) {
	for _, r := range runs {
		if r.point != nil {
			r.scan, r.hops = NewDist(), NewDist()
		}
	}
	passes := 0
	var batches int64
	active := runs
	for len(active) > 0 {
		passes++
		first := passes == 1
		var err error
		var n int64
		if shape.fast {
			n, err = fastPass(src, active, first, shape.sizes, opts)
		} else {
			n, err = slowPass(src, shape, active, first, opts)
		}
		if err != nil {
			return passes, batches, err
		}
		if first {
			batches = n
		}
		var next []*run
		// Runs that proved the same run share their distributions (runClass): each is
		// resolved once, and refined for all of them.
		resolved := map[*Dist]bool{}
		for _, r := range active {
			if r.point == nil {
				continue
			}
			done, seen := resolved[r.scan]
			if !seen {
				done = r.scan.Resolve()
				done = r.hops.Resolve() && done
				resolved[r.scan] = done
				if !done {
					r.scan.BeginRefine()
					r.hops.BeginRefine()
				}
			}
			if !done {
				next = append(next, r)
			}
		}
		active = next
	}
	return passes, batches, nil
}

// onRun is the hook that feeds a run's distributions on the reference path, through a
// RunTally (flush it before the distributions are read).
func (r *run) onRun() (fn func(count, scanBytes, hops int64), flush func()) {
	if r.point == nil {
		return nil, func() {}
	}
	scan, hops := r.scan, r.hops
	t := model.NewRunTally(func(count, v, h int64) {
		scan.Add(count, v)
		hops.Add(count, h)
	})
	return t.Add, t.Flush
}

// fastPass reads the workload once in chunks and feeds each chunk to every class of runs
// (runClass: one StatStream for all the runs that are still the same run), the classes split
// across workers.
func fastPass(src sim.Source, runs []*run, first bool, sizes *batchSizes, opts WhatIfOptions) (int64, error) {
	st, err := src.Open()
	if err != nil {
		return 0, err
	}
	bs := st.(sim.BatchStream)
	classes, err := newRunClasses(runs, first)
	if err != nil {
		return 0, err
	}
	bytes, records, ts := make([]int32, chunk), make([]int32, chunk), make([]int64, chunk)
	var total int64
	var wg sync.WaitGroup
	for {
		n, err := bs.NextBatches(bytes, records, ts)
		if n > 0 {
			b, rc, t := bytes[:n], records[:n], withTimestamps(ts[:n])
			if first {
				sizes.addChunk(b)
			}
			workers := min(opts.Workers, len(classes))
			outs := make([][]*runClass, workers)
			wg.Add(workers)
			for w := range workers {
				go func(w int) {
					defer wg.Done()
					for i := w; i < len(classes); i += workers {
						classes[i].feed(b, rc, t, first, &outs[w])
					}
				}(w)
			}
			wg.Wait()
			classes = classes[:0]
			for _, out := range outs {
				classes = append(classes, out...)
			}
			total += int64(n)
			if opts.Progress != nil {
				opts.Progress(int64(n) * int64(len(runs)))
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return total, err
		}
	}
	for _, c := range classes {
		stats := c.stream.Close()
		for _, r := range c.members {
			if first {
				r.rejected, r.stats, r.agg = c.stream.Rejected(), stats, *c.agg
				if r.point != nil {
					r.scan, r.hops = c.scan, c.hops
				}
			}
		}
	}
	return total, nil
}

// A runClass is a set of runs of one workload that are, so far, the same run: the same era
// and settings but index.interval.bytes, whose values have decided every index check alike
// (docs/model.md, "Exact interval breakpoints"). They share one model.StatStream over their
// range of values, split where a check parts them (StatStream.AddBatchesUntilSplit), so a
// sweep costs one stream per distinct run, not one per point (the 1 TiB sweep's 32
// intervals and reference run are 14 distinct runs). After the first pass the members
// share their distributions, and each refinement pass runs one stream per distribution.
type runClass struct {
	members    []*run // ascending index.interval.bytes
	stream     *model.StatStream
	agg        *aggregate
	scan, hops *Dist // nil when no member is a point
}

// onRun feeds the class's distributions (the stream sums equal costs first).
func (c *runClass) onRun(count, scanBytes, hops int64) {
	c.scan.Add(count, scanBytes)
	c.hops.Add(count, hops)
}

// newRunClasses groups runs into classes: on the first pass by workload settings and era,
// on a refinement pass by the distributions the first pass gave them.
func newRunClasses(runs []*run, first bool) ([]*runClass, error) {
	type key struct {
		cfg  model.Config
		era  string
		dist *Dist
	}
	byKey := map[key]*runClass{}
	var classes []*runClass
	for _, r := range runs {
		k := key{dist: r.scan}
		if first {
			k = key{cfg: r.cfg, era: r.era.ID}
			k.cfg.IndexIntervalBytes = 0
		}
		c := byKey[k]
		if c == nil {
			c = &runClass{agg: &aggregate{}}
			byKey[k] = c
			classes = append(classes, c)
		}
		c.members = append(c.members, r)
		if r.point != nil && c.scan == nil {
			c.scan, c.hops = r.scan, r.hops
		}
	}
	for _, c := range classes {
		sort.SliceStable(c.members, func(i, j int) bool {
			return c.members[i].cfg.IndexIntervalBytes < c.members[j].cfg.IndexIntervalBytes
		})
		head := c.members[0]
		var onSegment func(model.SegmentSummary)
		if first {
			onSegment = c.agg.add
		}
		var err error
		if c.stream, err = model.NewStatStream(head.cfg, 0, false, onSegment); err != nil {
			return nil, err
		}
		if err := c.stream.SetEra(head.era); err != nil {
			return nil, err
		}
		if !first {
			// The members are one run: its distributions take the representative's costs.
			c.members = c.members[:1]
		}
		if c.scan != nil {
			c.stream.OnRun(c.onRun)
		}
	}
	return classes, nil
}

// feed appends a chunk to the class's stream, splitting the class where its values part;
// the class and any split from it are appended to out.
func (c *runClass) feed(b, rc []int32, t []int64, first bool, out *[]*runClass) {
	for {
		c.stream.SetIntervalRange(c.members[0].cfg.IndexIntervalBytes, c.members[len(c.members)-1].cfg.IndexIntervalBytes)
		n, at := c.stream.AddBatchesUntilSplit(b, rc, t)
		b, rc = b[n:], rc[n:]
		if t != nil {
			t = t[n:]
		}
		if len(b) == 0 {
			*out = append(*out, c)
			return
		}
		c.split(at, first).feed(b, rc, t, first, out)
	}
}

// split moves the members whose interval is at or above at (they add no entry at the check
// that parted them) into a new class, with a copy of everything the class has counted.
func (c *runClass) split(at int64, first bool) *runClass {
	k := sort.Search(len(c.members), func(i int) bool { return c.members[i].cfg.IndexIntervalBytes >= at })
	agg := *c.agg
	up := &runClass{members: c.members[k:], agg: &agg}
	c.members = c.members[:k:k]
	var onSegment func(model.SegmentSummary)
	if first {
		onSegment = up.agg.add
	}
	up.stream = c.stream.Clone(onSegment) // hands the runs so far to c's distributions first
	if c.scan != nil {
		up.scan, up.hops = c.scan.clone(), c.hops.clone()
		up.stream.OnRun(up.onRun) // its members' points take these when the pass ends
	}
	return up
}

// slowPass runs each run through sim.Run (the reference model.Log), runs in parallel.
func slowPass(src sim.Source, shape sourceShape, runs []*run, first bool, opts WhatIfOptions) (int64, error) {
	jobs := make(chan *run)
	errs := make(chan error, len(runs))
	var batches int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(opts.Workers, len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				onRun, flush := r.onRun()
				// Without a recover or crash step the model keeps one append's batches, not a
				// segment's (issue 27: a 2 GiB segment of 68-byte batches held 1.26 GB a run).
				ro := sim.RunOptions{OnRun: onRun, Timestamps: true, Era: r.era, NoRecovers: !shape.recovers}
				if first {
					ro.OnSegment = r.agg.add
				}
				res, err := sim.Run(src, r.cfg, r.era.Rule(), ro)
				flush()
				if err != nil {
					errs <- err
					continue
				}
				if first {
					r.events, r.rejected, r.stats = res.Events, res.Rejected, res.Scan
				}
				mu.Lock()
				batches = max(batches, res.Batches)
				mu.Unlock()
				if opts.Progress != nil {
					opts.Progress(res.Batches)
				}
			}
		}()
	}
	for _, r := range runs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return batches, err
	}
	return batches, nil
}

// withTimestamps returns ts, or nil when every batch of the chunk has no timestamp: the
// stream then skips its timestamp bookkeeping, with the same result (a -1 timestamp never
// creates a time-index entry nor a time roll).
func withTimestamps(ts []int64) []int64 {
	for _, t := range ts {
		if t != model.NoTimestamp {
			return ts
		}
	}
	return nil
}
