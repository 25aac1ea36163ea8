package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"kidx/internal/english"
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

func newSimCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		mf                                modelFlags
		workloadPath, format, gen         string
		logDir, topic                     string
		partition                         int
		batchBytes, batchRecords, records int64
		batches                           int64
		duration                          time.Duration
		seed                              uint64
	)
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := formatFlag(format, "text", "json"); err != nil {
				return err
			}
			generatorFlags := cmd.Flags().Changed("batch-bytes") || cmd.Flags().Changed("batch-records") || cmd.Flags().Changed("records")
			genFlags := cmd.Flags().Changed("batches") || cmd.Flags().Changed("duration") || cmd.Flags().Changed("seed")
			var w model.Workload
			drawn := false        // the generator's seed came from the clock, not --seed
			var stream sim.Source // the text output streams it: no batch is kept
			base := model.DefaultConfig()
			source := ""
			if gen != "" {
				if workloadPath != "" || cmd.Flags().Changed("batch-bytes") || cmd.Flags().Changed("batch-records") {
					return usageErr("--gen excludes --workload, --batch-bytes and --batch-records")
				}
				if !cmd.Flags().Changed("records") && !genFlags {
					return usageErr("--gen needs a bound: --records, --batches or --duration")
				}
				drawn = !cmd.Flags().Changed("seed")
				if drawn {
					seed = uint64(time.Now().UnixNano())
				}
				limits := sim.Limits{Batches: batches, Duration: duration}
				if cmd.Flags().Changed("records") {
					limits.Records = records
				}
				src, err := sim.NewGenerator(gen, limits, seed, nil)
				if err != nil {
					return usageErr("--gen %q: %v", gen, err)
				}
				stream, source = src, src.Describe()
			} else if genFlags {
				return usageErr("--batches, --duration and --seed bound a --gen generator")
			}
			var baseline *reports.Baseline
			if partition < 0 {
				return usageErr("--partition %d: a partition number is 0 or more", partition)
			}
			if logDir == "" && (cmd.Flags().Changed("topic") || cmd.Flags().Changed("partition")) {
				return usageErr("--topic and --partition name the partition to replay: they need --from-logdir")
			}
			switch {
			case logDir != "":
				if gen != "" || workloadPath != "" || generatorFlags {
					return usageErr("--from-logdir excludes --gen, --workload and the generator flags")
				}
				keep := !mf.hasConfig("segment.bytes") && !mf.hasConfig("segment.ms")
				r, b, err := mf.logDirReplay(logDir, topic, partition, keep)
				if err != nil {
					return err
				}
				for _, w := range b.Warnings {
					fmt.Fprintf(stderr, "kidx: warning: %s\n", w)
				}
				w, baseline, source = r.Workload, b, "replay of "+r.Dir+" as kidx explain infers it"
			case gen != "":
			case workloadPath != "":
				if generatorFlags {
					return usageErr("--workload and the generator flags (--batch-bytes, --batch-records, --records) exclude each other")
				}
				var err error
				if w, err = readWorkload(workloadPath); err != nil {
					return err
				}
				source = "workload " + workloadPath
			default:
				switch {
				case batchRecords < 1:
					return usageErr("--batch-records %d: a batch holds at least 1 record", batchRecords)
				case model.PossibleBatchError(batchRecords, batchBytes, model.NotLegacy) != nil:
					return usageErr("--batch-bytes %d --batch-records %d: %v", batchBytes, batchRecords, model.PossibleBatchError(batchRecords, batchBytes, model.NotLegacy))
				case records < 1:
					return usageErr("--records %d: at least 1 record", records)
				}
				base.SegmentBytes = defaultSimSegment
				b := &builtinSource{batchBytes: batchBytes, batchRecords: batchRecords, records: records}
				stream, source = b, b.Describe()
			}
			if logDir == "" { // a replay's batches are a real log's
				warnImpossibleBatches(stderr, w.Steps)
			}
			cfg, era, err := mf.resolve(base, w.Config, w.Rule, w.KafkaVersion, stderr)
			if err != nil {
				return err
			}
			if drawn {
				// Only a seed kidx drew, and only once every input parsed (issue 11, defect 5).
				fmt.Fprintf(stderr, "kidx: seed %d (replay with --seed %d)\n", seed, seed)
			}
			version := mf.version(w.Rule, w.KafkaVersion)
			if stream == nil {
				stream = &sim.WorkloadSource{Name: source, Workload: w}
			}
			if format != "json" {
				if err := writeSimTextStream(stdout, stream, cfg, era, w.StartOffset, source, version); err != nil {
					return err
				}
			} else {
				// JSON lists every entry of every segment: the workload is held, within bounds.
				steps, err := readSteps(stream, maxSimBatches)
				if err != nil {
					return usageErr("%v", err)
				}
				l, err := model.SimulateEra(cfg, era, w.StartOffset, steps, true)
				if err != nil {
					return usageErr("%v", err)
				}
				return writeSimJSON(stdout, l, version, baseline)
			}
			if baseline != nil {
				if baseline.Reproduces {
					fmt.Fprintf(stdout, "baseline reproduces the real index: yes (%s replayed, the files' segment boundaries)\n", english.Plural(int64(baseline.Restarts), "restart"))
				} else {
					fmt.Fprintf(stdout, "baseline reproduces the real index: no: %s\n", baseline.Detail)
				}
				for _, n := range baseline.Notes {
					fmt.Fprintf(stdout, "  note: %s\n", n)
				}
			}
			return nil
		},
	}
	mf.register(cmd)
	cmd.Flags().StringVar(&workloadPath, "workload", "", "workload file (docs/contract.md §3 JSON)")
	cmd.Flags().StringVar(&logDir, "from-logdir", "", "replay a real partition as kidx explain infers it (era, interval, appends, restarts, segment boundaries): a partition dir, or a log.dirs entry with --topic/--partition")
	cmd.Flags().StringVar(&topic, "topic", "", "with --from-logdir: the topic to replay")
	cmd.Flags().IntVar(&partition, "partition", 0, "with --from-logdir: the partition to replay")
	cmd.Flags().Int64Var(&batchBytes, "batch-bytes", defaultBatchBytes, "generator: bytes of a full batch (sizeInBytes)")
	cmd.Flags().Int64Var(&batchRecords, "batch-records", defaultBatchRecords, "generator: records per batch")
	cmd.Flags().Var(newCountValue(&records, defaultRecords), "records", "total records, for the built-in generator or --gen (decimal K, M, G: 10M = 10,000,000)")
	cmd.Flags().StringVar(&gen, "gen", "", "workload generator spec (kidx help workloads)")
	cmd.Flags().Var(newCountValue(&batches, 0), "batches", "--gen: total batches")
	cmd.Flags().DurationVar(&duration, "duration", 0, "--gen: simulated producer time")
	cmd.Flags().Uint64Var(&seed, "seed", 0, "--gen: generator seed (default: from the clock, printed on stderr)")
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	return cmd
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

// simJSON is the docs/contract.md §4 document, with the era's keys: "era" (model.Era.ID) always, and
// "kafkaVersion" when a release picked it.
type simJSON struct {
	Rule         string           `json:"rule"`
	Era          string           `json:"era"`
	KafkaVersion string           `json:"kafkaVersion,omitempty"`
	Config       map[string]int64 `json:"config"`
	Segments     []segmentJSON    `json:"segments"`
	Events       []model.Event    `json:"events"`
	// Baseline, with --from-logdir: whether the replay gives back the partition's indexes.
	Baseline *simBaselineJSON `json:"baseline,omitempty"`
}

type simBaselineJSON struct {
	Dir                 string   `json:"dir"`
	ReproducesRealIndex bool     `json:"reproducesRealIndex"`
	Detail              string   `json:"detail"`
	Restarts            int      `json:"restarts"`
	Notes               []string `json:"notes"`
}

type segmentJSON struct {
	BaseOffset  int64           `json:"baseOffset"`
	SizeBytes   int64           `json:"sizeBytes"`
	BatchCount  int             `json:"batchCount"`
	LastOffset  int64           `json:"lastOffset"`
	OffsetIndex [][2]int64      `json:"offsetIndex"`
	TimeIndex   [][2]int64      `json:"timeIndex"`
	Scan        model.ScanStats `json:"scan"`
	RollReason  string          `json:"rollReason,omitempty"`
}

func simDocument(l *model.Log, version string) simJSON {
	doc := simJSON{Rule: l.Rule().String(), Era: l.Era().ID, KafkaVersion: version, Config: l.Config().Map(), Events: l.Events()}
	if doc.Events == nil {
		doc.Events = []model.Event{}
	}
	for _, s := range l.Segments() {
		sj := segmentJSON{BaseOffset: s.BaseOffset(), SizeBytes: s.Size(), BatchCount: len(s.Batches()),
			LastOffset: s.LastOffset(), OffsetIndex: [][2]int64{}, TimeIndex: [][2]int64{}, Scan: s.Scan(),
			RollReason: string(s.RollReason())}
		for _, e := range s.OffsetIndex().All() {
			sj.OffsetIndex = append(sj.OffsetIndex, [2]int64{e.Offset, e.Position})
		}
		for _, e := range s.TimeIndex().All() {
			sj.TimeIndex = append(sj.TimeIndex, [2]int64{e.Timestamp, e.Offset})
		}
		doc.Segments = append(doc.Segments, sj)
	}
	return doc
}

func writeSimJSON(w io.Writer, l *model.Log, version string, b *reports.Baseline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	doc := simDocument(l, version)
	if b != nil {
		notes := b.Notes
		if notes == nil {
			notes = []string{}
		}
		doc.Baseline = &simBaselineJSON{Dir: b.Dir, ReproducesRealIndex: b.Reproduces, Detail: b.Detail, Restarts: b.Restarts, Notes: notes}
	}
	return enc.Encode(doc)
}

// eraLabel names the era a run follows: "rule per-batch (era 4.1-4.4)", or with a release
// "Kafka 1.1.1 (era 0.11-1.1, rule per-append)".
func eraLabel(era model.Era, version string) string {
	if version != "" {
		return fmt.Sprintf("Kafka %s (era %s, rule %s)", version, era.ID, era.Rule())
	}
	return fmt.Sprintf("rule %s (era %s)", era.Rule(), era.ID)
}
