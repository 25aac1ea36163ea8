package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/spf13/cobra"

	"kidx/logdir"
)

func init() { registerCommand(newVerifyCmd) }

// verifyOptions is kidx verify's flags and arguments.
type verifyOptions struct {
	format string
	deep   bool
	all    bool
	judge  judgeFlags
	paths  []string
	opts   logdir.VerifyOptions // Complete: what the flags ask of logdir.Verify
}

func newVerifyCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify PATH...",
		Short: "Judge segment files, partitions or log directories as a Kafka engineer would",
		Long: `verify reads files, segment sets, partition directories or whole log directories (read-only)
and reports every problem with file, byte position and what was expected.

It runs DumpLogSegments' index and time-index checks (in Kafka's words), Kafka's index
sanityCheck, trailing invalid bytes, CRC-32C of every batch (--deep), and the invariants files can
show: entries at batch boundaries and strictly increasing, the first batch never indexed, no
entry closer than index.interval.bytes (--config index.interval.bytes=I).

It judges files as the release that wrote them writes them: which offset an entry names changed
in 2.0 (KAFKA-6530) and 3.9.1/4.0.1/4.1 (KAFKA-806), which offset a time-index entry names
changed in 0.11 and 3.7. With --kafka-version or --rule it uses that release's rules; without,
it infers per segment which releases' rules explain the files and says so. A mismatch the
release explains is reported as info, still in DumpLogSegments' words.

A live segment (indexes preallocated and zero-filled after their entries: the active segment
of a running broker) is healthy and reported as info, with what Kafka would do with it at a
start after an unclean shutdown. Producer snapshots, checkpoints, KRaft snapshots and the other
files of a healthy log directory are recognized (docs/logdir-files.md); an index without its
.log, a .swap file and non-zero bytes in a live index's zero tail are warnings. A byte-counter
restart inside a segment (a broker restart: the scan bound holds per process lifetime) is
placed from the entries, corroborated by producer snapshots, and reported as info.

A segment whose offset or time index is full while its .log goes on past the last entry for
more than index.interval.bytes, or whose offset index holds an entry past a full time index, is
what Kafka's follower index overflow leaves (3.9.1, 4.0.1, 4.1+: a follower's append threw
"Attempt to append to a full time index" and its partition was marked failed): check
follower-index-overflow, with what happened, what to do and the segment.index.bytes that
prevents it (docs/kafka-hazards.md). Live indexes show their capacity; for trimmed ones give
--config segment.index.bytes=N.

Exit 0: no problem; 1: problems found (errors or warnings); 2: usage or input error.`,
		Example: `  kidx verify /var/lib/kafka/data
  kidx verify --deep /var/lib/kafka/data/orders-3
  kidx verify --kafka-version 3.6.1 --config index.interval.bytes=4096 /var/lib/kafka/data/orders-3
  kidx verify --format json 00000000000000000000.index`,
		Args: cobra.MinimumNArgs(1),
		RunE: runOptions(o, stdout, stderr),
	}
	registerFormat(cmd.Flags(), &o.format, textOrJSON, "")
	cmd.Flags().BoolVar(&o.all, "all", false, "text: every finding and a line per partition (default for a log directory: the verdict, the problems, what the next start does and the notes counted)")
	cmd.Flags().BoolVar(&o.deep, "deep", false, "validate every batch's CRC-32C (reads every byte) and decode the records the time index names")
	o.judge.register(cmd)
	o.judge.registerFindingsCap(cmd)
	return cmd
}

func (o *verifyOptions) Complete(_ *cobra.Command, paths []string) error {
	o.paths = paths
	o.opts = logdir.VerifyOptions{Deep: o.deep}
	return nil
}

func (o *verifyOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	// A path named on the command line is a file or a directory; a FIFO, socket or device is an
	// input error, as kidx dump says (reading one could block forever).
	for _, p := range o.paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
			return usageErr("%s is %s, not a file or a directory: not read", p, logdir.SpecialFileKind(st.Mode()))
		}
	}
	return o.judge.options(&o.opts)
}

func (o *verifyOptions) Run(stdout, stderr io.Writer) error {
	report, err := logdir.Verify(o.paths, o.opts)
	if err != nil {
		return usageErr("%v", err)
	}
	if err := renderVerify(stdout, stderr, o.format, o.all, report); err != nil {
		return err
	}
	if report.Problems() > 0 {
		return problemsFound
	}
	return nil
}

// renderVerify writes the report: JSON, or the text report on stdout and DumpLogSegments'
// summary lines on stderr.
func renderVerify(stdout, stderr io.Writer, format string, all bool, report *logdir.VerifyReport) error {
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report.Document())
	}
	report.WriteTextWith(stdout, all)
	report.WriteKafkaSummary(stderr)
	return nil
}
