package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"kidx/reports"
)

func init() { registerCommand(newWhatIfCmd) }

// maxPartitions bounds --partitions: maps = partitions x segments x 2 stays far inside int64
// (a broker holds thousands of partitions, not billions).
const maxPartitions = 1 << 30

// seedIntervals are the seed post's four index.interval.bytes values (docs/background.md): two on the plateau,
// one thinning, one over the segment size (the cliff).
const seedIntervals = "index.interval.bytes=1,4096,20000,1048576"

// whatIfOptions is kidx whatif's flags.
type whatIfOptions struct {
	model                modelFlags
	out                  reportOutput
	gen, workloadPath    string
	from                 replayFlags
	records, batches     int64
	duration             time.Duration
	seed                 uint64
	sweeps               []string
	compareRules         bool
	partitions, retained int
	maxMapCount          int64

	// Complete: what the flags' values alone do not tell.
	generatorBounded bool // --records, --batches, --duration or --seed given
	seedDrawn        bool // the seed came from the clock, not --seed
}

func newWhatIfCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &whatIfOptions{}
	cmd := &cobra.Command{
		Use:   "whatif",
		Short: "Sweep configs and producer settings: exact lookup cost, regimes, maps, recommendations",
		Long: `whatif runs one workload through the exact model at every point of a sweep and reports, per
point: segments, entries per segment, index file bytes, exact scan bytes and hops over every
offset (max, mean, p50, p99, p99.9), the ScanBound slack, the regime (plateau, thinning, cliff),
phase-1 pages, what the warm section covers, memory maps at scale, index-full rolls, the
Kafka-version validity of the values, and recommendations derived from those figures.

Workload: --gen SPEC (with --records/--batches/--duration and --seed), --workload FILE, or
--from-logdir DIR [--topic T --partition P]: a real partition replayed as kidx explain infers it
(era, index.interval.bytes, appends, restarts, recoveries, the files' segment boundaries; a
segment the log cleaner wrote is replayed as the cleaner writes it, and its source segment left
beside it is left out, with a note; the report gives each cleaned segment's entries and scan
cost at the baseline's interval and the swept ones), so the what-if
starts from a model that gives back today's files, and the report says whether it does
("baseline reproduces the real index: yes"). --kafka-version and --config
index.interval.bytes, when given, narrow the inference; sweeping or setting segment.bytes or
segment.ms makes the segments come from it instead of the files. segment.bytes and
segment.index.bytes are read off the files where they show them (two rolls or more; a live
segment's preallocated index); each setting the files cannot show and --config does not give
is named on stderr with the value assumed. Without any, the seed post's experiment (docs/background.md): 5000
records, 79 per batch, 16350-byte batches, segment.bytes=65536, swept over
index.interval.bytes=1,4096,20000,1048576.

Sweeps: --sweep key=v1,v2,... or --sweep key=lo..hi*factor (geometric), on any topic config
and, with --gen producer:..., on batch.size and linger.ms. Two sweeps make a grid.

--kafka-version X.Y.Z runs every point in that release's era (kidx help versions); --rule
per-batch (4.1-4.4) or per-append (3.7-4.0.0) in one of the two current eras, --compare-rules
in both. "reads" are the batch headers Kafka's own phase-2 loop reads in the era.`,
		Example: `  kidx whatif
  kidx whatif --format html --out report.html
  kidx whatif --workload w.json --sweep index.interval.bytes=64..1048576*2
  kidx whatif --gen 'producer:rate=2000/s,record=lognormal:median=300' --duration 1h --sweep batch.size=16384,65536 --sweep linger.ms=0,5
  kidx whatif --from-logdir /var/lib/kafka --topic orders --partition 3 --compare-rules`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	o.model.register(cmd)
	o.out.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&o.gen, "gen", "", "workload generator spec (see sim.NewGenerator), e.g. producer:rate=2000/s,record=lognormal:median=300")
	f.Var(newCountValue(&o.records, 0), "records", "generator: total records (decimal K, M, G: 10M = 10,000,000)")
	f.Var(newCountValue(&o.batches, 0), "batches", "generator: total batches (decimal K, M, G: 10M = 10,000,000)")
	f.DurationVar(&o.duration, "duration", 0, "generator: simulated producer time")
	f.Uint64Var(&o.seed, "seed", 0, "generator seed (default: from the clock, printed on stderr)")
	f.StringVar(&o.workloadPath, "workload", "", "workload file (docs/contract.md §3 JSON)")
	o.from.register(f, "replay a real partition's batches")
	f.StringArrayVar(&o.sweeps, "sweep", nil, "key=v1,v2,... or key=lo..hi*factor (repeatable: two sweeps make a grid)")
	f.BoolVar(&o.compareRules, "compare-rules", false, "run every point under both append rules, side by side")
	f.IntVar(&o.partitions, "partitions", 1, "partitions on the broker, for the memory-map figures")
	f.IntVar(&o.retained, "retained-segments", 0, "segments kept per partition (0: the segments the workload produced)")
	f.Int64Var(&o.maxMapCount, "max-map-count", reports.DefaultMaxMapCount, "vm.max_map_count (default: read from /proc/sys/vm/max_map_count, else 65530)")
	return cmd
}

func (o *whatIfOptions) Complete(cmd *cobra.Command, _ []string) error {
	f := cmd.Flags()
	o.generatorBounded = f.Changed("records") || f.Changed("batches") || f.Changed("duration") || f.Changed("seed")
	o.from.complete(cmd)
	o.seedDrawn = o.gen != "" && !f.Changed("seed")
	if o.seedDrawn {
		o.seed = uint64(time.Now().UnixNano())
	}
	if !f.Changed("max-map-count") {
		// Never below 1: the --max-map-count check refuses only a value given.
		o.maxMapCount = systemMaxMapCount()
	}
	return nil
}

// Validate refuses what the flags alone make impossible. The checks that come after reading
// the workload (--compare-rules with a rule, the sweeps, --max-map-count) are sweepOptions',
// so that an unreadable workload is still the error reported.
func (o *whatIfOptions) Validate() error {
	if err := o.out.check(); err != nil {
		return err
	}
	sources := 0
	for _, set := range []bool{o.gen != "", o.workloadPath != "", o.from.logDir != ""} {
		if set {
			sources++
		}
	}
	if sources > 1 {
		return usageErr("--gen, --workload and --from-logdir each name the workload: give one")
	}
	if o.gen == "" && o.generatorBounded {
		return usageErr("--records, --batches, --duration and --seed bound the generator: they need --gen")
	}
	if err := o.from.validate(); err != nil {
		return err
	}
	if o.partitions > maxPartitions {
		return usageErr("--partitions %d: at most %d (a broker's memory maps would not be counted right beyond)", o.partitions, maxPartitions)
	}
	if o.partitions < 1 {
		return usageErr("--partitions %d: at least 1", o.partitions)
	}
	if o.retained < 0 {
		return usageErr("--retained-segments %d: must be >= 0 (0: the segments the workload produced)", o.retained)
	}
	if o.gen == "" {
		return nil
	}
	if o.records <= 0 && o.batches <= 0 && o.duration <= 0 {
		return usageErr("--gen needs a bound: --records, --batches or --duration")
	}
	// Parse the spec now: a bad spec is refused before anything else is said.
	_, err := o.generator()(nil)
	return err
}

func (o *whatIfOptions) Run(stdout, stderr io.Writer) error {
	opts, err := o.sweepOptions(stderr)
	if err != nil {
		return err
	}
	if o.seedDrawn {
		// Only a seed kidx drew, and only once every input parsed (issue 11, defect 5).
		fmt.Fprintf(stderr, "kidx: seed %d (replay with --seed %d)\n", o.seed, o.seed)
	}
	rep, err := runWhatIf(opts, stderr)
	if err != nil {
		return err
	}
	return o.out.write(stdout, renderWhatIf(rep, &o.out))
}

// runWhatIf runs the sweep, its progress on stderr. An error of the model's is the input's:
// exit 2.
func runWhatIf(opts reports.WhatIfOptions, stderr io.Writer) (*reports.WhatIf, error) {
	meter := startProgress(stderr, "batches (all points)", -1)
	opts.Progress = meter.Add
	rep, err := reports.RunWhatIf(opts)
	meter.Done()
	if err != nil {
		if _, ok := err.(*exitError); ok {
			return nil, err
		}
		return nil, usageErr("%v", err)
	}
	return rep, nil
}
