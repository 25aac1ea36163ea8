package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

func init() { registerCommand(newSimCmd) }

// The built-in scenario: the seed post 000's experiment (docs/background.md).
const (
	defaultBatchBytes   = 16350
	defaultBatchRecords = 79
	defaultRecords      = 5000
	defaultSimSegment   = 65536
)

// simOptions is kidx sim's flags.
type simOptions struct {
	model                             modelFlags
	workloadPath, format, gen         string
	from                              replayFlags
	batchBytes, batchRecords, records int64
	batches                           int64
	duration                          time.Duration
	seed                              uint64

	// Complete: what the flags' values alone do not tell.
	batchShapeGiven  bool // --batch-bytes or --batch-records given
	recordsGiven     bool // --records given: else it holds the built-in generator's default
	generatorBounded bool // --batches, --duration or --seed given: they bound --gen
	seedDrawn        bool // the seed came from the clock, not --seed

	generator sim.Source // Validate: --gen, parsed
}

func newSimCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &simOptions{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run a workload through the exact model: segments, index entries, lookup cost of every offset",
		Long: `sim runs a workload through kidx's exact model of Kafka's log and prints, per segment,
the offset-index and time-index entries and the exact phase-2 lookup cost over every offset.

The workload comes from --workload FILE (docs/contract.md §3 JSON), from --gen SPEC (a generator of
kidx help workloads, bounded by --records, --batches or --duration, seeded by --seed), from
--from-logdir DIR (a real partition replayed as kidx explain infers it: its era, interval,
appends, restarts and segment boundaries; sim then says whether that baseline reproduces the
real index), or from the built-in generator: --records records in batches of --batch-records records and
--batch-bytes bytes (a last partial batch shrinks its bytes in proportion, at least the
smallest batch of its records). The
default is the seed post's experiment (docs/background.md): 5000 records, 79 per batch, 16350-byte batches,
segment.bytes=65536. Config comes from Kafka's defaults, then the file, then --config.
--kafka-version X.Y.Z runs that release's era (kidx help versions), --rule per-batch (Kafka
4.1-4.4) or per-append (3.7-4.0.0) one of the two current eras; else the file's "kafkaVersion"
or "rule". Beside the hops, the header reads are the batch headers Kafka's own phase-2 loop
reads in that era. sim keeps every batch to list the indexes; for long workloads use kidx whatif.`,
		Example: `  kidx sim
  kidx sim --config index.interval.bytes=20000
  kidx sim --workload testdata/kafka-golden/follower3-per-append/workload.json --format json
  kidx sim --kafka-version 4.0.0 --batch-bytes 300 --batch-records 2 --records 100000
  kidx sim --kafka-version 1.1.1 --config index.interval.bytes=100 --batch-bytes 82 --batch-records 3 --records 15
  kidx sim --gen 'follower:fetch=1048576,lognormal:median=16384,sigma=0.6' --records 1M --seed 7 --config segment.bytes=16777216`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	o.model.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.workloadPath, "workload", "", "workload file (docs/contract.md §3 JSON)")
	o.from.register(f, "replay a real partition as kidx explain infers it (era, interval, appends, restarts, segment boundaries)")
	f.Int64Var(&o.batchBytes, "batch-bytes", defaultBatchBytes, "generator: bytes of a full batch (sizeInBytes)")
	f.Int64Var(&o.batchRecords, "batch-records", defaultBatchRecords, "generator: records per batch")
	f.Var(newCountValue(&o.records, defaultRecords), "records", "total records, for the built-in generator or --gen (decimal K, M, G: 10M = 10,000,000)")
	f.StringVar(&o.gen, "gen", "", "workload generator spec (kidx help workloads)")
	f.Var(newCountValue(&o.batches, 0), "batches", "--gen: total batches")
	f.DurationVar(&o.duration, "duration", 0, "--gen: simulated producer time")
	f.Uint64Var(&o.seed, "seed", 0, "--gen: generator seed (default: from the clock, printed on stderr)")
	registerFormat(f, &o.format, textOrJSON, "")
	return cmd
}

func (o *simOptions) Complete(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags()
	o.batchShapeGiven = f.Changed("batch-bytes") || f.Changed("batch-records")
	o.recordsGiven = f.Changed("records")
	o.generatorBounded = f.Changed("batches") || f.Changed("duration") || f.Changed("seed")
	o.from.complete(cmd)
	o.seedDrawn = o.gen != "" && !f.Changed("seed")
	if o.seedDrawn {
		o.seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// builtinFlagsGiven is whether a flag of the built-in generator was given.
func (o *simOptions) builtinFlagsGiven() bool { return o.batchShapeGiven || o.recordsGiven }

func (o *simOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	if o.gen != "" {
		if err := o.parseGenerator(); err != nil {
			return err
		}
	} else if o.generatorBounded {
		return usageErr("--batches, --duration and --seed bound a --gen generator")
	}
	if err := o.from.validate(); err != nil {
		return err
	}
	switch {
	case o.from.logDir != "":
		if o.gen != "" || o.workloadPath != "" || o.builtinFlagsGiven() {
			return usageErr("--from-logdir excludes --gen, --workload and the generator flags")
		}
	case o.gen != "": // parseGenerator checked its companions
	case o.workloadPath != "":
		if o.builtinFlagsGiven() {
			return usageErr("--workload and the generator flags (--batch-bytes, --batch-records, --records) exclude each other")
		}
	default:
		return o.validateBuiltin()
	}
	return nil
}

// parseGenerator checks --gen's companions and parses its spec into o.generator.
func (o *simOptions) parseGenerator() error {
	if o.workloadPath != "" || o.batchShapeGiven {
		return usageErr("--gen excludes --workload, --batch-bytes and --batch-records")
	}
	if !o.recordsGiven && !o.generatorBounded {
		return usageErr("--gen needs a bound: --records, --batches or --duration")
	}
	limits := sim.Limits{Batches: o.batches, Duration: o.duration}
	if o.recordsGiven {
		limits.Records = o.records
	}
	src, err := sim.NewGenerator(o.gen, limits, o.seed, nil)
	if err != nil {
		return usageErr("--gen %q: %v", o.gen, err)
	}
	o.generator = src
	return nil
}

// validateBuiltin refuses a built-in generator's batch that Kafka could not hold.
func (o *simOptions) validateBuiltin() error {
	switch {
	case o.batchRecords < 1:
		return usageErr("--batch-records %d: a batch holds at least 1 record", o.batchRecords)
	case model.PossibleBatchError(o.batchRecords, o.batchBytes, model.NotLegacy) != nil:
		return usageErr("--batch-bytes %d --batch-records %d: %v", o.batchBytes, o.batchRecords, model.PossibleBatchError(o.batchRecords, o.batchBytes, model.NotLegacy))
	case o.records < 1:
		return usageErr("--records %d: at least 1 record", o.records)
	}
	return nil
}

func (o *simOptions) Run(stdout, stderr io.Writer) error {
	in, err := o.workload(stderr)
	if err != nil {
		return err
	}
	w := in.workload
	if o.from.logDir == "" { // a replay's batches are a real log's
		warnImpossibleBatches(stderr, w.Steps)
	}
	cfg, era, err := o.model.resolve(in.base, w.Config, w.Rule, w.KafkaVersion, stderr)
	if err != nil {
		return err
	}
	if o.seedDrawn {
		// Only a seed kidx drew, and only once every input parsed (issue 11, defect 5).
		fmt.Fprintf(stderr, "kidx: seed %d (replay with --seed %d)\n", o.seed, o.seed)
	}
	version := o.model.version(w.Rule, w.KafkaVersion)
	if w.Replicas != nil {
		return runSimReplicas(stdout, w, cfg, era, in.source, version, o.format)
	}
	if o.format == "json" {
		l, err := simulateHeld(in.stream, cfg, era, w.StartOffset)
		if err != nil {
			return err
		}
		return writeSimJSON(stdout, l, version, in.baseline)
	}
	// A replay without a recover step (no segment explain found rebuilt by recovery): its
	// model keeps one append's batches, not a segment's (a 2 GiB segment of 68-byte batches
	// is 31.6 M of them).
	if err := writeSimTextStream(stdout, in.stream, cfg, era, w.StartOffset, in.source, version, o.from.logDir != "" && !in.recovers); err != nil {
		return err
	}
	writeBaselineText(stdout, in.baseline)
	return nil
}

// simWorkload is the workload sim runs.
type simWorkload struct {
	workload model.Workload    // a file's or a replay's: its config, era and start offset
	stream   sim.Source        // its batches
	source   string            // its name in the text report
	base     model.Config      // the config the workload's and the flags' apply to
	baseline *reports.Baseline // --from-logdir: whether the replay gives back the real index
	recovers bool              // --from-logdir: the replay has recover steps (sim.LogDirReplay.Recovers)
}

// workload reads or replays the workload the flags name, or builds the generator's.
func (o *simOptions) workload(stderr io.Writer) (simWorkload, error) {
	in := simWorkload{base: model.DefaultConfig()}
	switch {
	case o.from.logDir != "":
		keep := !o.model.hasConfig("segment.bytes") && !o.model.hasConfig("segment.ms")
		r, b, err := o.model.logDirReplay(o.from.logDir, o.from.topic, o.from.partition, keep)
		if err != nil {
			return in, err
		}
		warnReplay(stderr, b)
		in.workload, in.baseline, in.source, in.stream = r.Workload, b, r.Source().Describe(), r.Source()
		in.recovers = r.Recovers > 0
	case o.gen != "":
		in.stream, in.source = o.generator, o.generator.Describe()
	case o.workloadPath != "":
		w, err := readWorkload(o.workloadPath)
		if err != nil {
			return in, err
		}
		in.workload, in.source = w, "workload "+printsafe.Name(o.workloadPath)
	default:
		in.base.SegmentBytes = defaultSimSegment
		b := &builtinSource{batchBytes: o.batchBytes, batchRecords: o.batchRecords, records: o.records}
		in.stream, in.source = b, b.Describe()
	}
	if in.stream == nil { // a file's or a replay's batches
		in.stream = &sim.WorkloadSource{Name: in.source, Workload: in.workload}
	}
	return in, nil
}

// simulateHeld runs the model over the whole workload at once, for the JSON that lists every
// entry of every segment: the workload is held, within bounds.
func simulateHeld(src sim.Source, cfg model.Config, era model.Era, startOffset int64) (*model.Log, error) {
	steps, err := readSteps(src, maxSimBatches)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	l, err := model.SimulateEra(cfg, era, startOffset, steps, true)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return l, nil
}

// maxSimBatches bounds what sim materializes from a generator: it keeps every batch.
const maxSimBatches = 4 << 20

// readSteps materializes a source's steps, refusing more than maxBatches batches. It counts
// them in a first streamed pass (sources are replayable), so a refused workload costs no
// memory (issue 11: --records 100G --format json reached 800 MB before it was refused).
func readSteps(src sim.Source, maxBatches int) ([]model.Step, error) {
	buf := make([]model.Step, 4096)
	total := 0
	if err := eachChunk(src, buf, func(steps []model.Step) error {
		for _, s := range steps {
			total += len(s.Append)
		}
		if total > maxBatches {
			return fmt.Errorf("more than %d batches: too many for sim --format json, which lists every entry (the text output and kidx whatif stream)", maxBatches)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]model.Step, 0, total)
	err := eachChunk(src, buf, func(steps []model.Step) error {
		for _, s := range steps {
			s.Append = append([]model.Batch(nil), s.Append...) // the stream may reuse them
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// eachChunk streams src's steps through fn, a chunk at a time.
func eachChunk(src sim.Source, buf []model.Step, fn func([]model.Step) error) error {
	st, err := src.Open()
	if err != nil {
		return err
	}
	for {
		n, err := st.Next(buf)
		if ferr := fn(buf[:n]); ferr != nil {
			return ferr
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
