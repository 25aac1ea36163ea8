package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"kidx/dump"
	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/segment"
)

func init() { registerCommand(newDumpCmd) }

// dumpCmdOptions is kidx dump's flags and arguments.
type dumpCmdOptions struct {
	format string
	files  []string // --files
	// The decoder flags (kafka-dump-log's) and --kafka-version, read into opts by Validate.
	offsetsDecoder, transactionLogDecoder, clusterMetadataDecoder, shareGroupStateDecoder bool
	kafkaVersion                                                                          string
	opts                                                                                  dump.Options
	named                                                                                 []string // the arguments and --files
	paths                                                                                 []string // Validate: the files to dump, directories expanded
	stderr                                                                                io.Writer
}

func newDumpCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &dumpCmdOptions{stderr: stderr}
	cmd := &cobra.Command{
		Use:   "dump [FILE|DIR]... [--files FILE,...]",
		Short: "Print the files of a log directory the way kafka-dump-log --files does",
		Long: `dump prints files as Kafka's DumpLogSegments (kafka-dump-log.sh --files) does:
"offset: N position: P" for .index, "timestamp: T offset: O" for .timeindex, one line per
batch for .log (--deep-iteration: one per record, for every codec, legacy wrappers and control
batches included; --print-data-log: also each record's key and payload), producer .snapshot
and .txnindex entries, KRaft .checkpoint snapshots as logs, with Kafka's mismatch summaries on
stderr. The files kafka-dump-log ignores but a healthy log directory holds
(leader-epoch-checkpoint, partition.metadata, quorum-state, meta.properties, the offset
checkpoints, .kafka_cleanshutdown) are decoded in kidx's own, labelled words. Beside Kafka's
output, "kidx:" lines on stderr say what Kafka's tool does not (a live, preallocated index; a
.log that is missing; what an exception means). Files are opened read-only.

Files are named as arguments, with kafka-dump-log's --files a,b,... or both. A directory
stands for its files in name order (segment names sort by base offset), as DIR/* would;
its subdirectories, FIFOs, sockets and devices are skipped with a note (name a partition
directory, not a log.dirs entry).

Exit codes: 0 every file dumped; 1 a file's content stops Kafka's tool (an index failing
--index-sanity-check, an index entry with no batch at its position, a corrupt .log): the
other files are still dumped; 2 a path that does not exist or cannot be read, a segment file
whose name is not a base offset, or a bad flag. Kafka's mismatch summaries do not change the
exit code (a per-append era index has them in a healthy log): kidx verify judges an index.
--format json prints one JSON object per file, "schema": "kidx.dump/1" first (keys in
docs/segment.md, docs/logdir-files.md, docs/dump-decoders.md; docs/schema/kidx.dump.1.json).

Decoders (kafka-dump-log's; each implies --print-data-log, docs/dump-decoders.md):
--offsets-decoder prints __consumer_offsets' records (offset commits, group metadata, the
consumer groups of KIP-848), --transaction-log-decoder __transaction_state's,
--cluster-metadata-decoder the KRaft metadata records of __cluster_metadata and its
.checkpoint snapshots, --share-group-state-decoder __share_group_state's (4.1 and later's
form). A record a decoder cannot read is printed as Kafka prints it ("Unknown record type N
at offset O, skipping.", "Error at offset O, skipping. ..."), with a "kidx: note:" on stderr
showing its raw bytes. Kafka's printed form changed: --kafka-version X.Y.Z gives a release's
(4.1 and later, the default: {"type":"1","data":{...}} JSON keys and {"version":"3",
"data":{...}} values; 4.0: the same JSON for offsets, the transaction log in text; 3.x and
before: "offset_commit::group=...", "transaction_metadata::transactionalId=..."). Two
decoders are refused (kafka-dump-log silently uses the first). --skip-record-metadata
prints the records without their "offset: ..." part and control text, as Kafka does.`,
		RunE: runOptions(o, stdout, stderr),
	}
	f := cmd.Flags()
	registerFormat(f, &o.format, textOrJSON, "")
	f.StringSliceVar(&o.files, "files", nil, "kafka-dump-log's --files: comma-separated files (or directories) to dump, beside the arguments")
	f.BoolVar(&o.opts.Deep, "deep-iteration", false, "print every record of .log files")
	f.BoolVar(&o.opts.PrintData, "print-data-log", false, "print every record with its key and payload as UTF-8 text (implies --deep-iteration)")
	f.BoolVar(&o.opts.VerifyOnly, "verify-index-only", false, "print no index entries, only the mismatches")
	f.BoolVar(&o.opts.IndexSanityCheck, "index-sanity-check", false, "only run Kafka's index sanityCheck (a failure exits 1)")
	f.Int64Var(&o.opts.MaxMessageSize, "max-message-size", 5242880, "slice size read at each index entry")
	f.Int64Var(&o.opts.MaxBytes, "max-bytes", 0, "limit the bytes of .log files dumped (0: no limit)")
	f.BoolVar(&o.offsetsDecoder, "offsets-decoder", false, "print each record as __consumer_offsets' offset commit or group metadata (implies --print-data-log)")
	f.BoolVar(&o.transactionLogDecoder, "transaction-log-decoder", false, "print each record as __transaction_state's transaction metadata (implies --print-data-log)")
	f.BoolVar(&o.clusterMetadataDecoder, "cluster-metadata-decoder", false, "print each record as a KRaft metadata record of __cluster_metadata (implies --print-data-log)")
	f.BoolVar(&o.shareGroupStateDecoder, "share-group-state-decoder", false, "print each record as __share_group_state's share snapshot or update (implies --print-data-log)")
	f.BoolVar(&o.opts.SkipRecordMetadata, "skip-record-metadata", false, "print records without their \"offset: ...\" metadata and control text (text output only)")
	f.StringVar(&o.kafkaVersion, "kafka-version", "", "with --offsets-decoder or --transaction-log-decoder: the Kafka release X.Y.Z whose printed form to give (default: 4.1 and later's JSON)")
	return cmd
}

func (o *dumpCmdOptions) Complete(_ *cobra.Command, args []string) error {
	o.named = append(args, o.files...)
	o.opts.JSON = o.format == "json"
	o.opts.Stderr = o.stderr
	return nil
}

// Validate checks the flags, then every named path before anything is printed.
func (o *dumpCmdOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	// Silently read as defaults before; a value that means nothing is refused.
	if o.opts.MaxMessageSize < 1 {
		return usageErr("--max-message-size %d: must be > 0 (the bytes read at each index entry)", o.opts.MaxMessageSize)
	}
	if o.opts.MaxBytes < 0 {
		return usageErr("--max-bytes %d: must be >= 0 (0: the whole .log)", o.opts.MaxBytes)
	}
	if err := o.validateDecoder(); err != nil {
		return err
	}
	var err error
	o.paths, err = dumpPaths(o.named, o.stderr)
	return err
}

// validateDecoder reads the decoder flags into opts. Kafka's DumpLogSegmentsOptions.messageParser
// takes the first of --offsets-decoder, --transaction-log-decoder, --cluster-metadata-decoder,
// --share-group-state-decoder that is given and ignores the others; kidx refuses two, which can only be a mistake.
func (o *dumpCmdOptions) validateDecoder() error {
	var given []string
	for _, d := range []struct {
		on  bool
		dec dump.Decoder
	}{{o.offsetsDecoder, dump.DecodeOffsets}, {o.transactionLogDecoder, dump.DecodeTransactionLog}, {o.clusterMetadataDecoder, dump.DecodeClusterMetadata},
		{o.shareGroupStateDecoder, dump.DecodeShareGroupState}} {
		if d.on {
			given = append(given, "--"+d.dec.String())
			o.opts.Decoder = d.dec
		}
	}
	if len(given) > 1 {
		return usageErr("%s: give one decoder (kafka-dump-log would use only the first of --offsets-decoder, --transaction-log-decoder, --cluster-metadata-decoder, --share-group-state-decoder)", strings.Join(given, " and "))
	}
	if o.kafkaVersion == "" {
		return nil
	}
	if o.opts.Decoder == dump.DecodeShareGroupState {
		return usageErr("--kafka-version %s: --share-group-state-decoder prints 4.1 and later's form only (4.0's own share parser is not reproduced)", o.kafkaVersion)
	}
	if o.opts.Decoder != dump.DecodeOffsets && o.opts.Decoder != dump.DecodeTransactionLog {
		return usageErr("--kafka-version %s: it selects the printed form of --offsets-decoder and --transaction-log-decoder (the other output of dump is the same in every release)", o.kafkaVersion)
	}
	v, err := model.ParseKafkaVersion(o.kafkaVersion)
	if err != nil {
		return usageErr("--kafka-version: %v", err)
	}
	o.opts.DecoderEra = dumpDecoderEra(v)
	return nil
}

// dumpDecoderEra is the decoders' printed form of a release (docs/dump-decoders.md): 4.1 and
// later CoordinatorRecordMessageParser's JSON, 4.0 OffsetsMessageParser's JSON and the
// transaction log's text, before 4.0 both in text.
func dumpDecoderEra(v model.KafkaVersion) dump.DecoderEra {
	switch {
	case v.Major > 4 || (v.Major == 4 && v.Minor >= 1):
		return dump.EraCoordinatorJSON
	case v.Major == 4:
		return dump.Era40
	}
	return dump.EraText
}

// Run dumps every file in turn; a file that fails is reported and the others still dumped, the
// exit code the worst of them.
func (o *dumpCmdOptions) Run(stdout, stderr io.Writer) error {
	code := 0
	for _, p := range o.paths {
		if err := dump.File(stdout, p, o.opts); err != nil {
			code = max(code, reportDumpError(stderr, p, err))
		}
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// quotedNames is each name as printsafe.Name prints it.
func quotedNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = printsafe.Name(n)
	}
	return out
}

// reportDumpError says on stderr why path could not be dumped to its end, and returns the
// exit code that stands for it.
func reportDumpError(stderr io.Writer, path string, err error) int {
	c := dumpErrorCode(path, err)
	fmt.Fprintf(stderr, "kidx: %s\n", printsafe.Message(err.Error()))
	var prob *dump.Problem
	switch {
	case errors.As(err, &prob):
		fmt.Fprintf(stderr, "kidx: %s (a problem found: exit 1)\n", printsafe.Line(prob.Explain))
	case c == 1:
		fmt.Fprintf(stderr, "kidx: %s could not be dumped to its end: its content is corrupt (a problem found: exit 1)\n", printsafe.Name(path))
	}
	return c
}

// dumpPaths checks every named path before anything is printed (a typo is a usage error, not
// Kafka's "Ignoring unknown file") and expands directories into their files in name order.
func dumpPaths(named []string, stderr io.Writer) ([]string, error) {
	if len(named) == 0 {
		return nil, usageErr("dump: name at least one file or directory (arguments or --files)")
	}
	var out []string
	for _, p := range named {
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usageErr("%s: no such file or directory", p)
			}
			return nil, usageErr("%v", err)
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				// A FIFO would block the read; a device is no Kafka file.
				return nil, usageErr("%s: not a regular file (a FIFO, socket or device): dump reads Kafka's files", p)
			}
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		var names, subdirs, special []string
		for _, e := range entries {
			full := filepath.Join(p, e.Name())
			st, err := os.Stat(full)
			switch {
			case err == nil && st.IsDir():
				subdirs = append(subdirs, e.Name())
			case err == nil && !st.Mode().IsRegular():
				special = append(special, e.Name())
			default:
				// A dangling link is dumped, and its error reported in its turn.
				names = append(names, full)
			}
		}
		if len(subdirs) > 0 {
			fmt.Fprintf(stderr, "kidx: note: %s: skipping %s %s (dump reads the files of one directory: name a partition directory, or the subdirectory itself)\n",
				printsafe.Name(p), countNoun(len(subdirs), "subdirectory", "subdirectories"), strings.Join(quotedNames(subdirs), ", "))
		}
		if len(special) > 0 {
			fmt.Fprintf(stderr, "kidx: note: %s: skipping %s %s (a FIFO, socket or device: no Kafka file, and never opened)\n",
				printsafe.Name(p), countNoun(len(special), "non-regular file", "non-regular files"), strings.Join(quotedNames(special), ", "))
		}
		if len(names) == 0 {
			return nil, usageErr("%s: a directory with no files to dump", p)
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out, nil
}

// countNoun is "subdirectory" for one, "3 subdirectories" for more.
func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// dumpErrorCode is the exit code of a file dump.File could not finish: 2 when the file
// could not be read or its name is not a segment name (an input error), 1 when its content
// stopped the dump (a problem found in the file).
func dumpErrorCode(path string, err error) int {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return 2
	}
	switch filepath.Ext(path) {
	case segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix, segment.TxnIndexSuffix:
		if _, nerr := segment.OffsetFromFileName(filepath.Base(path)); nerr != nil {
			return 2
		}
	}
	return 1
}
