package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"kidx/reports"
	"kidx/reports/chart"
)

func init() { registerCommand(newAnalyzeCmd) }

// analyzeOptions is kidx analyze's flags and arguments.
type analyzeOptions struct {
	out         reportOutput
	top         int
	maxMapCount int64
	judge       judgeFlags
	broker      string
	merge       bool
	mapsGiven   bool // --max-map-count was given
	dirs        []string
	opts        reports.AnalyzeOptions // Complete and Validate: what the flags ask of reports.AnalyzeDirs
}

func newAnalyzeCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &analyzeOptions{}
	// openmetrics: the Prometheus text exposition format, for node_exporter's textfile collector.
	o.out.formats = append(append([]string{}, reportFormats...), "openmetrics")
	cmd := &cobra.Command{
		Use:   "analyze DIR... | analyze --merge REPORT.json...",
		Short: "Analyze a broker's log directories (read-only): index density, exact lookup cost, live segments, restarts, maps",
		Long: `analyze reads each DIR, a broker's log.dirs entry or a single partition directory, without
writing anything, and reports per partition: segments, the actual index density, the exact
phase-2 scan statistics of every offset computed from the real .log batch headers and the
indexes' valid entries (max, mean, p50, p99, p99.9 of scan bytes and hops), the releases whose
rules the files show, live segments (with what a start after an unclean shutdown does with
them), byte-counter restarts inside segments and what they cost lookups, the verify findings
(as kidx verify judges them), the map count and recommendations. Only batch headers and the
index files are read. Header reads are the batch headers Kafka's own phase-2 loop reads: for
--kafka-version's release (--rule per-append: before 4.1), else both, before 4.1 (the hops) and
4.1+ (which searches by base offset).

The report opens with the broker's verdict (healthy, needs attention, damaged), what its next
start does (from .kafka_cleanshutdown and the recovery points), its memory-map headroom and the
topics to look at first; then every problem, a roll-up by topic and the partitions that need
attention (--all: every topic and partition, in natural order; --quiet: the verdict and the
problems). The broker is named by the node.id of its meta.properties.

Give every entry of one broker's log.dirs to one run. To watch a fleet, write
--format openmetrics (the Prometheus text exposition format: kidx_broker_*, kidx_log_dir_* and
kidx_partition_* gauges labelled broker, log_dir, topic, partition) into node_exporter's
textfile collector directory on each broker. For a one-off report, run analyze --format json
on each broker (any job runner will do) and merge the reports anywhere:
  kidx analyze --merge broker1.json broker2.json ...
which lists the brokers by memory-map headroom, the worst partitions of the fleet and its live
segments.
Exit 0: no problems; 1: verify found problems (the report says which); 2: usage or input error.`,
		Example: `  kidx analyze /var/lib/kafka/data --top 20
  kidx analyze /data1/kafka /data2/kafka --format json --out $(hostname).json
  kidx analyze --merge broker-*.json
  kidx analyze /var/lib/kafka/data --format openmetrics --out /var/lib/node_exporter/textfile/kidx.prom
  kidx analyze /var/lib/kafka/data/orders-3 --kafka-version 3.6.1 --format html --out analyze.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: runOptions(o, stdout, stderr),
	}
	o.out.register(cmd.Flags())
	o.out.registerRows(cmd.Flags())
	o.judge.register(cmd)
	o.judge.registerFindingsCap(cmd)
	cmd.Flags().IntVar(&o.top, "top", 0, "show only the N partitions with the worst lookup cost (0: all)")
	cmd.Flags().Int64Var(&o.maxMapCount, "max-map-count", reports.DefaultMaxMapCount, "vm.max_map_count (default: read from /proc/sys/vm/max_map_count, else 65530)")
	cmd.Flags().StringVar(&o.broker, "broker", "", "the broker's name in the report (default: the node.id in the log directories' meta.properties, else this host's name)")
	cmd.Flags().BoolVar(&o.merge, "merge", false, "merge analyze --format json reports of several brokers (the arguments are report files)")
	return cmd
}

// Complete takes the defaults the flags leave to this machine: vm.max_map_count and the host's
// name, the broker's name when meta.properties gives none (not for --merge, which reads
// reports, not directories).
func (o *analyzeOptions) Complete(cmd *cobra.Command, args []string) error {
	o.dirs = args
	o.opts = reports.AnalyzeOptions{Top: o.top, MaxMapCount: o.maxMapCount, Broker: o.broker}
	if o.merge {
		return nil
	}
	if o.mapsGiven = cmd.Flags().Changed("max-map-count"); !o.mapsGiven {
		o.opts.MaxMapCount = systemMaxMapCount()
	}
	o.opts.HostName, _ = os.Hostname()
	return nil
}

func (o *analyzeOptions) Validate() error {
	if err := o.out.check(); err != nil {
		return err
	}
	if o.out.all && o.out.quiet {
		return usageErr("--all and --quiet: choose one")
	}
	if o.top < 0 {
		return usageErr("--top %d: must be >= 0 (0: every partition)", o.top)
	}
	if o.merge {
		return nil // mergeReports checks its own inputs
	}
	if err := o.judge.options(&o.opts.Judge); err != nil {
		return err
	}
	o.opts.HeaderReads = o.judge.headerReadsEra()
	if o.mapsGiven && o.maxMapCount <= 0 {
		return usageErr("--max-map-count %d: must be > 0", o.maxMapCount)
	}
	for _, d := range o.dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return usageErr("%s: no such directory", d)
		}
	}
	return nil
}

func (o *analyzeOptions) Run(stdout, stderr io.Writer) error {
	if o.merge {
		return mergeReports(o.dirs, o.top, &o.out, stdout)
	}
	meter := startProgress(stderr, "log bytes", logBytes(o.dirs))
	o.opts.Progress = meter.Add
	a, err := reports.AnalyzeDirs(o.dirs, o.opts)
	meter.Done()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("%v: no such directory", err)
		}
		return usageErr("%v", err)
	}
	if err := o.out.write(stdout, analyzeRenderer(a, o.out.format, &o.out)); err != nil {
		return err
	}
	if a.Problems > 0 {
		return problemsFound
	}
	return nil
}

// analyzeRenderer is the writer of one analysis in the chosen format.
func analyzeRenderer(a *reports.Analysis, format string, out *reportOutput) func(io.Writer) error {
	switch format {
	case "json":
		return a.WriteJSON
	case "openmetrics":
		return a.WriteOpenMetrics
	case "markdown":
		return out.text(a.WriteMarkdownWith)
	case "html":
		return func(w io.Writer) error {
			figs, err := chart.Analyze(a)
			if err != nil {
				return err
			}
			return a.WriteHTML(w, figs)
		}
	}
	return out.text(a.WriteTextWith)
}

// mergeReports reads brokers' analyze JSON reports and writes the fleet report.
func mergeReports(files []string, top int, out *reportOutput, stdout io.Writer) error {
	if out.format != "text" && out.format != "json" {
		return usageErr("--merge writes text or json, not %s", out.format)
	}
	var docs []*reports.AnalysisDoc
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return usageErr("%v", err)
		}
		d, err := reports.ReadAnalysisJSON(f, filepath.Base(path))
		f.Close()
		if err != nil {
			return usageErr("%v", err)
		}
		docs = append(docs, d)
	}
	fleet := reports.MergeFleet(docs, top)
	render := fleet.WriteText
	if out.format == "json" {
		render = fleet.WriteJSON
	}
	if err := out.write(stdout, render); err != nil {
		return err
	}
	if fleet.Problems > 0 {
		return problemsFound
	}
	return nil
}

// logBytes is the size of the .log files under dirs, the total analyze's progress counts
// toward (it reports each segment's log bytes). It only stats: nothing is opened.
func logBytes(dirs []string) int64 {
	var total int64
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".log") {
				if info, err := e.Info(); err == nil {
					total += info.Size()
				}
			}
			return nil
		})
	}
	if total == 0 {
		return -1
	}
	return total
}
