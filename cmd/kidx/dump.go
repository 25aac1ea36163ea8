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
		Short: "Print the files of a log directory the way kafka-dump-log --files does",
		Long: `dump prints files as Kafka's DumpLogSegments (kafka-dump-log.sh --files) does:
"offset: N position: P" for .index, "timestamp: T offset: O" for .timeindex, one line per
batch for .log (--deep-iteration: one per record, for every codec, legacy wrappers and control
batches included), producer .snapshot and .txnindex entries, KRaft .checkpoint snapshots as
logs, with Kafka's mismatch summaries on stderr. The files kafka-dump-log ignores but a healthy
log directory holds (leader-epoch-checkpoint, partition.metadata, quorum-state, meta.properties,
the offset checkpoints, .kafka_cleanshutdown) are decoded in kidx's own, labelled words. Beside
Kafka's output, "kidx: note:" lines on stderr say what Kafka's tool does not (a live,
preallocated index; a .log that is missing). Files are opened read-only.
--format json prints one JSON object per file (keys in docs/segment.md and docs/logdir-files.md).`,
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
