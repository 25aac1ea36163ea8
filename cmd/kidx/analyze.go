package main

import (
	"errors"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"kidx/reports"
	"kidx/reports/chart"
)

func init() { registerCommand(newAnalyzeCmd) }

func newAnalyzeCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		out         reportOutput
		top         int
		maxMapCount int64
	)
	cmd := &cobra.Command{
		Use:   "analyze DIR",
		Short: "Analyze a broker's log directory (read-only): actual index density, exact lookup cost, findings, maps",
		Long: `analyze reads DIR, a broker's log.dirs entry or a single partition directory, without writing
anything, and reports per partition: segments, the actual index density, the exact phase-2 scan
statistics of every offset computed from the real .log batch headers and .index entries (max,
mean, p50, p99, p99.9 of scan bytes and hops), the verify findings (as kidx verify), the map count
and recommendations. Logs are streamed header by header, never loaded whole.
Exit 0: no problems; 1: verify found problems (the report says which); 2: usage or input error.`,
		Example: `  kidx analyze /var/lib/kafka/data --top 20
  kidx analyze /var/lib/kafka/data/orders-3 --format json
  kidx analyze /var/lib/kafka/data --format html --out analyze.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if top < 0 {
				return usageErr("--top %d: must be >= 0 (0: every partition)", top)
			}
			if !cmd.Flags().Changed("max-map-count") {
				maxMapCount = systemMaxMapCount()
			}
			prog, done := progress(stderr, "log bytes")
			a, err := reports.AnalyzeDir(args[0], reports.AnalyzeOptions{Top: top, MaxMapCount: maxMapCount, Progress: prog})
			done()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usageErr("%s: no such directory", args[0])
				}
				return usageErr("%v", err)
			}
			render := a.WriteText
			switch out.format {
			case "json":
				render = a.WriteJSON
			case "markdown":
				render = a.WriteMarkdown
			case "html":
				render = func(w io.Writer) error {
					figs, err := chart.Analyze(a)
					if err != nil {
						return err
					}
					return a.WriteHTML(w, figs)
				}
			}
			if err := out.write(stdout, render); err != nil {
				return err
			}
			if a.Problems > 0 {
				return problemsFound
			}
			return nil
		},
	}
	out.register(cmd.Flags())
	cmd.Flags().IntVar(&top, "top", 0, "show only the N partitions with the worst lookup cost (0: all)")
	cmd.Flags().Int64Var(&maxMapCount, "max-map-count", reports.DefaultMaxMapCount, "vm.max_map_count (default: read from /proc/sys/vm/max_map_count, else 65530)")
	return cmd
}
