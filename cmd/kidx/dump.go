package main

import (
	"io"

	"github.com/spf13/cobra"

	"kidx/segment"
)

func init() { registerCommand(newDumpCmd) }

func newDumpCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		format string
		opts   segment.DumpOptions
	)
	cmd := &cobra.Command{
		Use:   "dump FILE...",
		Short: "Print .index, .timeindex and .log files the way kafka-dump-log --files does",
		Long: `dump prints segment files as Kafka's DumpLogSegments (kafka-dump-log.sh --files) does:
"offset: N position: P" for .index, "timestamp: T offset: O" for .timeindex, one line per
batch for .log, with Kafka's mismatch summaries on stderr. Files are opened read-only.
--format json prints one JSON object per file (keys in docs/segment.md).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if err := formatFlag(format, "text", "json"); err != nil {
				return err
			}
			opts.JSON = format == "json"
			opts.Stderr = stderr
			for _, f := range files {
				if err := segment.Dump(stdout, f, opts); err != nil {
					return usageErr("%v", err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	cmd.Flags().BoolVar(&opts.Deep, "deep-iteration", false, "print every record of .log files")
	cmd.Flags().BoolVar(&opts.VerifyOnly, "verify-index-only", false, "print no entries, only the mismatches")
	cmd.Flags().BoolVar(&opts.IndexSanityCheck, "index-sanity-check", false, "only run Kafka's index sanityCheck")
	cmd.Flags().Int64Var(&opts.MaxMessageSize, "max-message-size", 5242880, "slice size read at each index entry")
	cmd.Flags().Int64Var(&opts.MaxBytes, "max-bytes", 0, "limit the bytes of .log files dumped (0: no limit)")
	return cmd
}
