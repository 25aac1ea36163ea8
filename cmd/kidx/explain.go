package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"kidx/explain"
	"kidx/logdir"
)

func init() { registerCommand(newExplainCmd) }

// explainCmdOptions is kidx explain's flags and arguments.
type explainCmdOptions struct {
	format string
	judge  judgeFlags
	paths  []string
	opts   explain.Options // Validate: the eras and interval the flags allow
}

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &explainCmdOptions{}
	cmd := &cobra.Command{
		Use:   "explain DIR...",
		Short: "Find what reproduces each segment's .index and .timeindex byte for byte",
		Long: `explain reads partition directories (or log.dirs entries; read-only) and finds, for every
segment, what reproduces its .index and .timeindex byte for byte from its .log: the Kafka
releases whose rules do (docs/model.md "Eras"), the exact set of index.interval.bytes values that give
this index (found from the distances between batch starts, not by trying values), how the
appends were grouped (one batch each, as a leader writes a producer's batches, or several, as a
follower, the cleaner or an old producer's message set does) and the process lifetimes: where
the byte counter must have restarted (a broker restart, a recovery, a follower's truncation),
with the producer snapshot or the time-index entry that shows it.

Each segment has one of three histories (docs/explain.md "Three histories"): written by
appends; written by the log cleaner in one pass, with no restart inside it (tried where the
segment skips offsets, carries a tombstone's delete horizon or ends below the partition's
cleaner-offset-checkpoint, read from the log directory); or its indexes rebuilt by recover()
at a restart, then appended and closed (tried where no history of appends reproduces the
files, or only with restarts nothing marks). The answer names the history and its evidence.

Every explanation is checked by replaying the release's rule over the .log with one interval
from the set (the configured one, else 4096 when it fits, else the smallest) and comparing the
bytes with the files. A live segment's preallocated indexes are explained up to their zero
tail. Where no release and interval reproduce the files, explain names the first entry that
disagrees and what that means: damage, a cleaner's rewrite, or a release kidx does not know.

--kafka-version (or --rule) tries that release's rules only; --config index.interval.bytes=I
that value only, and places restarts for it.

A partition directory that cannot be listed, or a segment file that cannot be opened, is
reported in verify's words ("unreadable: open: permission denied") and is not reproduced.

Exit 0: every segment with index files is reproduced; 1: one is not, or cannot be read; 2:
usage or input error.`,
		Example: `  kidx explain /var/lib/kafka/data/orders-3
  kidx explain --kafka-version 3.6.1 --config index.interval.bytes=4096 /var/lib/kafka/data
  kidx explain --format json /var/lib/kafka/data/orders-3`,
		Args: cobra.MinimumNArgs(1),
		RunE: runOptions(o, stdout, stderr),
	}
	registerFormat(cmd.Flags(), &o.format, textOrJSON, "")
	o.judge.register(cmd)
	return cmd
}

func (o *explainCmdOptions) Complete(_ *cobra.Command, paths []string) error {
	o.paths = paths
	return nil
}

func (o *explainCmdOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	var err error
	o.opts, err = o.judge.explainOptions()
	return err
}

func (o *explainCmdOptions) Run(stdout, _ io.Writer) error {
	parts, err := explain.Dirs(o.paths, o.opts)
	if err != nil {
		return usageErr("%v", err)
	}
	if len(parts) == 0 {
		return usageErr("%s: no partition directory with segment files", strings.Join(o.paths, ", "))
	}
	if err := renderExplain(stdout, o.format, parts); err != nil {
		return err
	}
	for i := range parts {
		if !parts[i].Reproduced() {
			return problemsFound
		}
	}
	return nil
}

// explainOptions resolves the judging flags for explain: the eras to try and the interval.
func (f *judgeFlags) explainOptions() (explain.Options, error) {
	var vo logdir.VerifyOptions
	if err := f.options(&vo); err != nil {
		return explain.Options{}, err
	}
	opts := explain.Options{Interval: -1}
	if vo.Era != nil {
		opts.Eras = logdir.EraSetOf(*vo.Era)
	}
	if vo.HaveInterval {
		opts.Interval = vo.IndexIntervalBytes
	}
	return opts, nil
}
