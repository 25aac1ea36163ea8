package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

func init() { registerCommand(newWhatIfCmd) }

// maxPartitions bounds --partitions: maps = partitions x segments x 2 stays far inside int64
// (a broker holds thousands of partitions, not billions).
const maxPartitions = 1 << 30

// seedIntervals are the seed post's four index.interval.bytes values (docs/background.md): two on the plateau,
// one thinning, one over the segment size (the cliff).
const seedIntervals = "index.interval.bytes=1,4096,20000,1048576"

func newWhatIfCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		mf                        modelFlags
		out                       reportOutput
		gen, workloadPath, logDir string
		topic                     string
		partition                 int
		records, batches          int64
		duration                  time.Duration
		seed                      uint64
		sweeps                    []string
		compareRules              bool
		partitions, retained      int
		maxMapCount               int64
	)
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
(era, index.interval.bytes, appends, restarts, the files' segment boundaries), so the what-if
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			sources := 0
			for _, set := range []bool{gen != "", workloadPath != "", logDir != ""} {
				if set {
					sources++
				}
			}
			if sources > 1 {
				return usageErr("--gen, --workload and --from-logdir each name the workload: give one")
			}
			if gen == "" && (cmd.Flags().Changed("records") || cmd.Flags().Changed("batches") || cmd.Flags().Changed("duration") || cmd.Flags().Changed("seed")) {
				return usageErr("--records, --batches, --duration and --seed bound the generator: they need --gen")
			}
			if partition < 0 {
				return usageErr("--partition %d: a partition number is 0 or more", partition)
			}
			if logDir == "" && (cmd.Flags().Changed("topic") || cmd.Flags().Changed("partition")) {
				return usageErr("--topic and --partition name the partition to replay: they need --from-logdir")
			}
			if partitions > maxPartitions {
				return usageErr("--partitions %d: at most %d (a broker's memory maps would not be counted right beyond)", partitions, maxPartitions)
			}
			if partitions < 1 {
				return usageErr("--partitions %d: at least 1", partitions)
			}
			if retained < 0 {
				return usageErr("--retained-segments %d: must be >= 0 (0: the segments the workload produced)", retained)
			}
			base := model.DefaultConfig()
			drawn := false // the seed was drawn from the clock, not given
			var fileConfig map[string]int64
			fileRule, fileVersion := "", ""
			opts := reports.WhatIfOptions{}
			switch {
			case gen != "":
				drawn = !cmd.Flags().Changed("seed")
				if drawn {
					seed = uint64(time.Now().UnixNano())
				}
				if records <= 0 && batches <= 0 && duration <= 0 {
					return usageErr("--gen needs a bound: --records, --batches or --duration")
				}
				limits := sim.Limits{Records: records, Batches: batches, Duration: duration}
				// Parse the spec now: a bad spec is refused before anything else is said.
				if _, err := sim.NewGenerator(gen, limits, seed, nil); err != nil {
					return usageErr("--gen %q: %v", gen, err)
				}
				opts.Factory = func(over map[string]string) (sim.Source, error) {
					src, err := sim.NewGenerator(gen, limits, seed, over)
					if err != nil {
						return nil, usageErr("--gen %q: %v", gen, err)
					}
					return src, nil
				}
			case workloadPath != "":
				w, err := readWorkload(workloadPath)
				if err != nil {
					return err
				}
				fileConfig, fileRule, fileVersion = w.Config, w.Rule, w.KafkaVersion
				opts.Source = &sim.WorkloadSource{Name: workloadPath, Workload: w}
			case logDir != "":
				// The replay reproduces today's files (docs/explain.md); a sweep or a --config
				// of segment.bytes/segment.ms makes the segments its own.
				keep := !mf.hasConfig("segment.bytes") && !mf.hasConfig("segment.ms")
				for _, sw := range sweeps {
					if strings.HasPrefix(sw, "segment.bytes=") || strings.HasPrefix(sw, "segment.ms=") {
						keep = false
					}
				}
				var swept []string
				for _, sw := range sweeps {
					if k, _, ok := strings.Cut(sw, "="); ok {
						swept = append(swept, k)
					}
				}
				r, b, err := mf.logDirReplay(logDir, topic, partition, keep, swept...)
				if err != nil {
					return err
				}
				for _, w := range b.Warnings {
					fmt.Fprintf(stderr, "kidx: warning: %s\n", w)
				}
				fileConfig, fileVersion = r.Workload.Config, r.Workload.KafkaVersion
				opts.Source = &sim.WorkloadSource{Name: "replay of " + r.Dir + " as kidx explain infers it", Workload: r.Workload}
				opts.Baseline = b
			default:
				base.SegmentBytes = defaultSimSegment
				// The label names seed post 000 (docs/background.md).
				opts.Source = &sim.WorkloadSource{Name: fmt.Sprintf("seed post 000: %d records, %d per batch, %d-byte batches",
					defaultRecords, defaultBatchRecords, defaultBatchBytes),
					Workload: generatedWorkload(defaultBatchBytes, defaultBatchRecords, defaultRecords)}
				if len(sweeps) == 0 {
					// The seed post's question (docs/background.md), answered whole: its four values, and one point
					// on every piece of the interval axis where the index is different.
					sweeps = []string{seedIntervals}
					opts.ExactIntervals = !compareRules
					if compareRules {
						fmt.Fprintln(stderr, "kidx: note: with --compare-rules the default sweep is the seed's four values only: the exact interval sweep runs one era at a time")
					}
				}
			}
			if compareRules && (mf.rule != "" || mf.kafkaVersion != "") {
				return usageErr("--compare-rules shows both rules: drop --rule/--kafka-version")
			}
			if compareRules {
				fileRule, fileVersion = "", "" // both current eras, whatever the file names
			}
			cfg, era, err := mf.resolve(base, fileConfig, fileRule, fileVersion, stderr)
			if err != nil {
				return err
			}
			opts.Base, opts.Eras = cfg, []model.Era{era}
			opts.KafkaVersion = mf.version(fileRule, fileVersion)
			if compareRules {
				opts.Eras = []model.Era{model.EraForRule(model.PerBatch), model.EraForRule(model.PerAppend)}
			}
			for _, s := range sweeps {
				if given, ok := strings.CutPrefix(s, "index.interval.bytes=exact"); ok {
					// "exact" or "exact,v1,v2,...": every piece, plus the values given.
					if compareRules {
						return usageErr("--sweep index.interval.bytes=exact runs one era: drop --compare-rules")
					}
					opts.ExactIntervals = true
					given = strings.TrimPrefix(given, ",")
					if given == "" {
						continue
					}
					s = "index.interval.bytes=" + given
				}
				sw, err := reports.ParseSweep(s)
				if err != nil {
					return usageErr("--sweep: %v", err)
				}
				if reports.IsProducerKey(sw.Key) && opts.Factory == nil {
					return usageErr("--sweep %s: producer settings can only be swept with --gen producer:...", sw.Key)
				}
				for _, prev := range opts.Sweeps {
					if prev.Key == sw.Key {
						return usageErr("--sweep %s given twice", sw.Key)
					}
				}
				opts.Sweeps = append(opts.Sweeps, sw)
			}
			if !cmd.Flags().Changed("max-map-count") {
				maxMapCount = systemMaxMapCount()
			} else if maxMapCount < 1 {
				return usageErr("--max-map-count %d: must be > 0 (vm.max_map_count is a count of mappings)", maxMapCount)
			}
			opts.Scale = reports.Scale{Partitions: partitions, RetainedSegments: retained, MaxMapCount: maxMapCount}
			if opts.Factory != nil {
				// The spec parses here, before the seed line (the sweep's overrides later).
				if _, err := opts.Factory(nil); err != nil {
					return err
				}
			}
			if drawn {
				// Only a seed kidx drew, and only once every input parsed (issue 11, defect 5).
				fmt.Fprintf(stderr, "kidx: seed %d (replay with --seed %d)\n", seed, seed)
			}
			meter := startProgress(stderr, "batches (all points)", -1)
			opts.Progress = meter.Add
			rep, err := reports.RunWhatIf(opts)
			meter.Done()
			if err != nil {
				if _, ok := err.(*exitError); ok {
					return err
				}
				return usageErr("%v", err)
			}
			return out.write(stdout, renderWhatIf(rep, &out))
		},
	}
	mf.register(cmd)
	out.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&gen, "gen", "", "workload generator spec (see sim.NewGenerator), e.g. producer:rate=2000/s,record=lognormal:median=300")
	f.Var(newCountValue(&records, 0), "records", "generator: total records (decimal K, M, G: 10M = 10,000,000)")
	f.Var(newCountValue(&batches, 0), "batches", "generator: total batches (decimal K, M, G: 10M = 10,000,000)")
	f.DurationVar(&duration, "duration", 0, "generator: simulated producer time")
	f.Uint64Var(&seed, "seed", 0, "generator seed (default: from the clock, printed on stderr)")
	f.StringVar(&workloadPath, "workload", "", "workload file (docs/contract.md §3 JSON)")
	f.StringVar(&logDir, "from-logdir", "", "replay a real partition's batches: a partition dir, or a log.dirs entry with --topic/--partition")
	f.StringVar(&topic, "topic", "", "with --from-logdir: the topic to replay")
	f.IntVar(&partition, "partition", 0, "with --from-logdir: the partition to replay")
	f.StringArrayVar(&sweeps, "sweep", nil, "key=v1,v2,... or key=lo..hi*factor (repeatable: two sweeps make a grid)")
	f.BoolVar(&compareRules, "compare-rules", false, "run every point under both append rules, side by side")
	f.IntVar(&partitions, "partitions", 1, "partitions on the broker, for the memory-map figures")
	f.IntVar(&retained, "retained-segments", 0, "segments kept per partition (0: the segments the workload produced)")
	f.Int64Var(&maxMapCount, "max-map-count", reports.DefaultMaxMapCount, "vm.max_map_count (default: read from /proc/sys/vm/max_map_count, else 65530)")
	return cmd
}
