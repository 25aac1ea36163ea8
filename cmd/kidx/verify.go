package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"kidx/model"
	"kidx/segment"
)

func init() { registerCommand(newVerifyCmd) }

func newVerifyCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		format  string
		deep    bool
		configs []string
	)
	cmd := &cobra.Command{
		Use:   "verify PATH...",
		Short: "Check segment files, segment sets or log directories as DumpLogSegments and kidx's invariants do",
		Long: `verify reads files, segment sets or whole log directories (read-only) and reports every
problem with file, byte position and what was expected: DumpLogSegments' index and
time-index checks, Kafka's index sanityCheck, trailing invalid bytes, CRC-32C of every
batch (--deep), and the policy invariants files can show (first batch not indexed, entries
at batch boundaries, strictly increasing entries, and the scan bound when
--config index.interval.bytes=I is given). Exit 0: no problem; 1: problems found; 2: usage.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, paths []string) error {
			if err := formatFlag(format, "text", "json"); err != nil {
				return err
			}
			opts := segment.VerifyOptions{Deep: deep}
			if len(configs) > 0 {
				mf := modelFlags{configs: configs}
				cfg, _, err := mf.resolve(model.DefaultConfig(), nil, "", stderr)
				if err != nil {
					return err
				}
				if cmd.Flags().Changed("config") {
					opts.IndexIntervalBytes, opts.HaveInterval = cfg.IndexIntervalBytes, hasKey(configs, "index.interval.bytes")
					if hasKey(configs, "segment.bytes") {
						opts.SegmentBytes = cfg.SegmentBytes
					}
				}
			}
			report, err := segment.Verify(paths, opts)
			if err != nil {
				return usageErr("%v", err)
			}
			if format == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(report); err != nil {
					return err
				}
			} else {
				report.WriteText(stdout)
				report.WriteKafkaSummary(stderr)
			}
			if report.Problems() > 0 {
				return problemsFound
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	cmd.Flags().BoolVar(&deep, "deep", false, "validate every batch's CRC-32C (reads every byte)")
	cmd.Flags().StringArrayVar(&configs, "config", nil, "topic config k=v (index.interval.bytes and segment.bytes enable the scan-bound check)")
	return cmd
}

func hasKey(configs []string, key string) bool {
	for _, group := range configs {
		for _, kv := range splitComma(group) {
			if k, _, ok := cutEq(kv); ok && k == key {
				return true
			}
		}
	}
	return false
}
