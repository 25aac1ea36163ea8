package dump

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kidx/internal/printsafe"
	"kidx/segment"
)

// Options mirror kafka-dump-log's flags.
type Options struct {
	JSON             bool      // --format json: one JSON object per file (keys in docs/segment.md)
	Deep             bool      // --deep-iteration: one line per record (every batch kind, see Records)
	PrintData        bool      // --print-data-log: Deep, and each record's key and payload as UTF-8 text
	VerifyOnly       bool      // --verify-index-only: no per-entry lines, mismatches still collected
	IndexSanityCheck bool      // --index-sanity-check: only run sanityCheck
	MaxMessageSize   int64     // --max-message-size (default 5242880)
	MaxBytes         int64     // --max-bytes for .log files (0: Integer.MAX_VALUE)
	Stderr           io.Writer // mismatch summaries; nil: not printed
	// Decoder is the record parser (--offsets-decoder, --transaction-log-decoder,
	// --cluster-metadata-decoder); any but DecodeText implies PrintData
	// (DumpLogSegmentsOptions.shouldPrintDataLog). docs/dump-decoders.md.
	Decoder Decoder
	// DecoderEra is the release line whose printed form the coordinator decoders give
	// (--kafka-version; default: 4.1 and later).
	DecoderEra DecoderEra
	// SkipRecordMetadata is --skip-record-metadata: a record line without its "offset: ..."
	// part and control text (the text form only; JSON keeps every field).
	SkipRecordMetadata bool
}

// SchemaID names the JSON form of a dump: every Result carries it first
// (docs/schema/kidx.dump.1.json).
const SchemaID = "kidx.dump/1"

// Batch is one batch of a .log dump (JSON keys are stable).
type Batch struct {
	BaseOffset           int64    `json:"baseOffset"`
	LastOffset           int64    `json:"lastOffset"`
	Count                *int32   `json:"count"`
	BaseSequence         int32    `json:"baseSequence"`
	LastSequence         int32    `json:"lastSequence"`
	ProducerID           int64    `json:"producerId"`
	ProducerEpoch        int16    `json:"producerEpoch"`
	PartitionLeaderEpoch int32    `json:"partitionLeaderEpoch"`
	IsTransactional      bool     `json:"isTransactional"`
	IsControl            bool     `json:"isControl"`
	DeleteHorizonMs      *int64   `json:"deleteHorizonMs"`
	Position             int64    `json:"position"`
	TimestampType        string   `json:"timestampType"`
	MaxTimestamp         int64    `json:"maxTimestamp"`
	Size                 int64    `json:"size"`
	Magic                int8     `json:"magic"`
	CompressCodec        string   `json:"compressCodec"`
	CRC                  uint32   `json:"crc"`
	IsValid              bool     `json:"isValid"`
	Records              []Record `json:"records,omitempty"`
	RecordsError         string   `json:"recordsError,omitempty"` // deep iteration: why the records stopped
}

// Record is one record line of a deep dump.
type Record struct {
	Offset     int64    `json:"offset"`
	Timestamp  int64    `json:"timestamp"`
	KeySize    int      `json:"keySize"`
	ValueSize  int      `json:"valueSize"`
	Sequence   int32    `json:"sequence"`
	HeaderKeys []string `json:"headerKeys"`
	IsValid    *bool    `json:"isValid,omitempty"` // legacy records: LegacyRecord.isValid
	CRC        *uint32  `json:"crc,omitempty"`     // legacy records: the stored CRC-32
	Control    string   `json:"control,omitempty"` // control batches: DumpLogSegments' control text
	Key        *string  `json:"key,omitempty"`     // --print-data-log: the key as printed (UTF-8 text, or the decoder's text); absent: not printed
	Payload    *string  `json:"payload,omitempty"` // --print-data-log: the value as printed
	// The JSON a decoder printed as the key or payload, embedded (absent when it printed text).
	KeyJSON     json.RawMessage `json:"keyJson,omitempty"`
	PayloadJSON json.RawMessage `json:"payloadJson,omitempty"`
}

// Result is the JSON form of one file's dump.
type Result struct {
	Schema              string                   `json:"schema"` // SchemaID, first
	File                string                   `json:"file"`
	Kind                string                   `json:"kind"` // log, index, timeindex, snapshot, txnindex, kraft-snapshot, bootstrap-snapshot, leader-epoch-checkpoint, offset-checkpoint, partition-metadata, quorum-state, meta-properties, clean-shutdown, lock, unknown
	BaseOffset          int64                    `json:"baseOffset"`
	Empty               bool                     `json:"empty,omitempty"`
	SanityCheck         string                   `json:"sanityCheck,omitempty"` // "passed" or the error
	IndexEntries        []segment.IndexEntry     `json:"indexEntries,omitempty"`
	TimeIndexEntries    []segment.TimeIndexEntry `json:"timeIndexEntries,omitempty"`
	Batches             []Batch                  `json:"batches,omitempty"`
	InvalidBytes        int64                    `json:"invalidBytes,omitempty"`
	IndexMismatches     [][2]int64               `json:"indexMismatches,omitempty"`     // [indexOffset, logOffset]
	TimestampMismatches [][2]int64               `json:"timestampMismatches,omitempty"` // [indexTimestamp, logTimestamp]
	OutOfOrder          [][2]int64               `json:"outOfOrderTimestamps,omitempty"`
	NotFound            [][2]int64               `json:"offsetsNotFound,omitempty"` // [indexedOffset, foundLogOffset]
	NonConsecutive      [][2]int64               `json:"nonConsecutiveOffsets,omitempty"`
	// The other files of a log directory (files.go, docs/logdir-files.md).
	DecodedBy         string                          `json:"decodedBy,omitempty"`         // "kidx": kafka-dump-log does not decode this kind
	SnapshotEndOffset *int64                          `json:"snapshotEndOffset,omitempty"` // kraft-snapshot: from the name
	SnapshotEpoch     *int32                          `json:"snapshotEpoch,omitempty"`     // kraft-snapshot: from the name
	ProducerEntries   []ProducerEntry                 `json:"producerEntries,omitempty"`   // snapshot
	AbortedTxns       []segment.AbortedTxn            `json:"abortedTxns,omitempty"`       // txnindex
	CheckpointKind    string                          `json:"checkpointKind,omitempty"`    // offset-checkpoint: recovery-point, replication, log-start, cleaner
	CheckpointVersion *int                            `json:"checkpointVersion,omitempty"` // leader-epoch-checkpoint, offset-checkpoint
	LeaderEpochs      []segment.EpochEntry            `json:"leaderEpochs,omitempty"`      // leader-epoch-checkpoint
	Offsets           []segment.OffsetCheckpointEntry `json:"offsets,omitempty"`           // offset-checkpoint
	PartitionMetadata *segment.PartitionMetadata      `json:"partitionMetadata,omitempty"`
	QuorumState       *segment.QuorumState            `json:"quorumState,omitempty"`
	MetaProperties    *segment.MetaProperties         `json:"metaProperties,omitempty"`
	CleanShutdown     *segment.CleanShutdown          `json:"cleanShutdown,omitempty"`
	FileSize          *int64                          `json:"fileSize,omitempty"` // clean-shutdown, lock
	// Notes are kidx's own remarks beside DumpLogSegments' output (a live index, a .log that
	// is missing); the text form prints them on stderr as "kidx: note: ...".
	Notes []string `json:"notes,omitempty"`
	// Decoder is the record parser and its era when one was asked for
	// ("offsets-decoder (Kafka 4.1+)").
	Decoder string `json:"decoder,omitempty"`
	Error   string `json:"error,omitempty"`

	undecoded int // records a decoder gave a note for
}

// Problem is a file whose content stops DumpLogSegments with an exception (an index that
// fails its sanity check, an index entry with no batch at its position): a problem found in
// the file, not a usage error. Err is in Kafka's words (its exception text); Explain is kidx's
// own sentence saying what it means.
type Problem struct {
	Err     error
	Explain string
}

func (p *Problem) Error() string { return p.Err.Error() }

func (p *Problem) Unwrap() error { return p.Err }

// File prints one file as `kafka-dump-log --files` does (DumpLogSegments):
// "Dumping <file>", then per kind the entry or batch lines, "<file> is
// empty." for an index without entries, "Found N invalid bytes at the end of
// <name>" for a .log; summaries go to opts.Stderr in DumpLogSegments'
// wording. With opts.JSON it writes one JSON object (Result) instead.
// Files are only opened O_RDONLY.
func File(w io.Writer, path string, opts Options) error {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 5242880
	}
	// DumpLogSegmentsOptions: shouldPrintDataLog is print-data-log or any decoder;
	// isDeepIteration is deep-iteration or shouldPrintDataLog.
	opts.PrintData = opts.PrintData || opts.Decoder != DecodeText
	opts.Deep = opts.Deep || opts.PrintData
	res := &Result{Schema: SchemaID, File: path, Kind: "unknown"}
	// Text streams out as it is made (a deep dump of a large .log is many times its size);
	// JSON is one object, built whole.
	text := bufio.NewWriterSize(w, 64<<10)
	tw := io.Writer(text)
	if opts.JSON {
		tw = io.Discard
	}
	fmt.Fprintf(tw, "Dumping %s\n", printsafe.Name(path))
	name := filepath.Base(path)
	base, berr := segment.OffsetFromFileName(name)
	res.BaseOffset = base
	var err error
	switch ext := filepath.Ext(name); {
	case berr != nil && (ext == segment.LogSuffix || ext == segment.IndexSuffix || ext == segment.TimeIndexSuffix):
		err = berr
	case ext == segment.LogSuffix:
		res.Kind = "log"
		fmt.Fprintf(tw, "Log starting offset: %d\n", base)
		err = dumpLog(tw, path, base, opts, res)
	case ext == segment.IndexSuffix:
		res.Kind = "index"
		err = dumpIndex(tw, path, base, opts, res)
	case ext == segment.TimeIndexSuffix:
		res.Kind = "timeindex"
		err = dumpTimeIndex(tw, path, base, opts, res)
	case ext == segment.SnapshotSuffix:
		res.Kind = "snapshot"
		err = dumpProducerSnapshot(tw, path, opts, res)
	case ext == segment.TxnIndexSuffix && berr != nil:
		res.Kind = "txnindex"
		err = berr // TransactionIndex(offsetFromFile(file), file)
	case ext == segment.TxnIndexSuffix:
		res.Kind = "txnindex"
		err = dumpTxnIndex(tw, path, opts, res)
	case ext == segment.KRaftSnapshotSuffix:
		err = dumpKRaftCheckpoint(tw, path, name, opts, res)
	default:
		var known bool
		if known, err = dumpLogDirFile(tw, path, name, res); !known && opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "Ignoring unknown file %s\n", printsafe.Name(path))
		}
	}
	if err != nil {
		res.Error = err.Error()
	}
	if opts.Decoder != DecodeText && res.Batches != nil {
		// The files whose records were parsed: a .log, a KRaft snapshot.
		res.Decoder = fmt.Sprintf("%s (Kafka %s)", opts.Decoder, opts.DecoderEra)
		if opts.Decoder == DecodeClusterMetadata {
			res.Decoder = opts.Decoder.String()
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(w)
		if e := enc.Encode(res); e != nil {
			return e
		}
		return err
	}
	if e := text.Flush(); e != nil {
		return e
	}
	if opts.Stderr != nil {
		writeDumpSummary(opts.Stderr, path, res)
	}
	return err
}

func writeDumpSummary(w io.Writer, path string, res *Result) {
	for _, n := range res.Notes {
		fmt.Fprintf(w, "kidx: note: %s\n", printsafe.Line(n))
	}
	ap := printsafe.Name(segment.KafkaPath(path))
	if len(res.IndexMismatches) > 0 {
		fmt.Fprintf(w, "Mismatches in :%s\n", ap)
		for i := len(res.IndexMismatches) - 1; i >= 0; i-- {
			m := res.IndexMismatches[i]
			fmt.Fprintf(w, "  Index offset: %d, log offset: %d\n", m[0], m[1])
		}
	}
	if len(res.TimestampMismatches) > 0 {
		fmt.Fprintf(w, "Found timestamp mismatch in :%s\n", ap)
		for _, m := range res.TimestampMismatches {
			fmt.Fprintf(w, "  Index timestamp: %d, log timestamp: %d\n", m[0], m[1])
		}
	}
	if len(res.OutOfOrder) > 0 {
		fmt.Fprintf(w, "Found out of order timestamp in :%s\n", ap)
		for _, m := range res.OutOfOrder {
			fmt.Fprintf(w, "  Index timestamp: %d, Previously indexed timestamp: %d\n", m[0], m[1])
		}
	}
	if len(res.NotFound) > 0 {
		fmt.Fprintln(w, "The following indexed offsets are not found in the log.")
		for _, m := range res.NotFound {
			fmt.Fprintf(w, "Indexed offset: %d, found log offset: %d\n", m[0], m[1])
		}
	}
	if len(res.NonConsecutive) > 0 {
		fmt.Fprintf(w, "Non-consecutive offsets in %s\n", ap)
		for i := len(res.NonConsecutive) - 1; i >= 0; i-- {
			m := res.NonConsecutive[i]
			fmt.Fprintf(w, "  %d is followed by %d\n", m[0], m[1])
		}
	}
}

func siblingPath(path string, suffix string) string {
	name := filepath.Base(path)
	stem, _, _ := strings.Cut(name, ".")
	return filepath.Join(filepath.Dir(path), stem+suffix)
}
