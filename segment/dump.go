package segment

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// DumpOptions mirror kafka-dump-log's flags.
type DumpOptions struct {
	JSON             bool      // --format json: one JSON object per file (keys in docs/segment.md)
	Deep             bool      // --deep-iteration: one line per record (uncompressed batches)
	VerifyOnly       bool      // --verify-index-only: no per-entry lines, mismatches still collected
	IndexSanityCheck bool      // --index-sanity-check: only run sanityCheck
	MaxMessageSize   int64     // --max-message-size (default 5242880)
	MaxBytes         int64     // --max-bytes for .log files (0: Integer.MAX_VALUE)
	Stderr           io.Writer // mismatch summaries; nil: not printed
}

// DumpBatch is one batch of a .log dump (JSON keys are stable).
type DumpBatch struct {
	BaseOffset           int64        `json:"baseOffset"`
	LastOffset           int64        `json:"lastOffset"`
	Count                *int32       `json:"count"`
	BaseSequence         int32        `json:"baseSequence"`
	LastSequence         int32        `json:"lastSequence"`
	ProducerID           int64        `json:"producerId"`
	ProducerEpoch        int16        `json:"producerEpoch"`
	PartitionLeaderEpoch int32        `json:"partitionLeaderEpoch"`
	IsTransactional      bool         `json:"isTransactional"`
	IsControl            bool         `json:"isControl"`
	DeleteHorizonMs      *int64       `json:"deleteHorizonMs"`
	Position             int64        `json:"position"`
	TimestampType        string       `json:"timestampType"`
	MaxTimestamp         int64        `json:"maxTimestamp"`
	Size                 int64        `json:"size"`
	Magic                int8         `json:"magic"`
	CompressCodec        string       `json:"compressCodec"`
	CRC                  uint32       `json:"crc"`
	IsValid              bool         `json:"isValid"`
	Records              []DumpRecord `json:"records,omitempty"`
}

// DumpRecord is one record line of a deep dump.
type DumpRecord struct {
	Offset     int64    `json:"offset"`
	Timestamp  int64    `json:"timestamp"`
	KeySize    int      `json:"keySize"`
	ValueSize  int      `json:"valueSize"`
	Sequence   int32    `json:"sequence"`
	HeaderKeys []string `json:"headerKeys"`
}

// DumpResult is the JSON form of one file's dump.
type DumpResult struct {
	File                string           `json:"file"`
	Kind                string           `json:"kind"` // log, index, timeindex, unknown
	BaseOffset          int64            `json:"baseOffset"`
	Empty               bool             `json:"empty,omitempty"`
	SanityCheck         string           `json:"sanityCheck,omitempty"` // "passed" or the error
	IndexEntries        []IndexEntry     `json:"indexEntries,omitempty"`
	TimeIndexEntries    []TimeIndexEntry `json:"timeIndexEntries,omitempty"`
	Batches             []DumpBatch      `json:"batches,omitempty"`
	InvalidBytes        int64            `json:"invalidBytes,omitempty"`
	IndexMismatches     [][2]int64       `json:"indexMismatches,omitempty"`     // [indexOffset, logOffset]
	TimestampMismatches [][2]int64       `json:"timestampMismatches,omitempty"` // [indexTimestamp, logTimestamp]
	OutOfOrder          [][2]int64       `json:"outOfOrderTimestamps,omitempty"`
	NotFound            [][2]int64       `json:"offsetsNotFound,omitempty"` // [indexedOffset, foundLogOffset]
	NonConsecutive      [][2]int64       `json:"nonConsecutiveOffsets,omitempty"`
	Error               string           `json:"error,omitempty"`
}

// MarshalJSON keeps entry keys lower-case and stable.
func (e IndexEntry) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"offset":%d,"position":%d}`, e.Offset, e.Position)), nil
}

// MarshalJSON keeps entry keys lower-case and stable.
func (e TimeIndexEntry) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"timestamp":%d,"offset":%d}`, e.Timestamp, e.Offset)), nil
}

// Dump prints one file as `kafka-dump-log --files` does (DumpLogSegments):
// "Dumping <file>", then per kind the entry or batch lines, "<file> is
// empty." for an index without entries, "Found N invalid bytes at the end of
// <name>" for a .log; summaries go to opts.Stderr in DumpLogSegments'
// wording. With opts.JSON it writes one JSON object (DumpResult) instead.
// Files are only opened O_RDONLY.
func Dump(w io.Writer, path string, opts DumpOptions) error {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = 5242880
	}
	res := &DumpResult{File: path, Kind: "unknown"}
	var text strings.Builder
	tw := io.Writer(&text)
	if opts.JSON {
		tw = io.Discard
	}
	fmt.Fprintf(tw, "Dumping %s\n", path)
	name := filepath.Base(path)
	base, berr := OffsetFromFileName(name)
	res.BaseOffset = base
	var err error
	switch ext := filepath.Ext(name); {
	case berr != nil && (ext == LogSuffix || ext == IndexSuffix || ext == TimeIndexSuffix):
		err = berr
	case ext == LogSuffix:
		res.Kind = "log"
		err = dumpLog(tw, path, base, opts, res)
	case ext == IndexSuffix:
		res.Kind = "index"
		err = dumpIndex(tw, path, base, opts, res)
	case ext == TimeIndexSuffix:
		res.Kind = "timeindex"
		err = dumpTimeIndex(tw, path, base, opts, res)
	default:
		if opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "Ignoring unknown file %s\n", path)
		}
	}
	if err != nil {
		res.Error = err.Error()
	}
	if opts.JSON {
		enc := json.NewEncoder(w)
		if e := enc.Encode(res); e != nil {
			return e
		}
		return err
	}
	if _, e := io.WriteString(w, text.String()); e != nil {
		return e
	}
	if opts.Stderr != nil {
		writeDumpSummary(opts.Stderr, path, res)
	}
	return err
}

func writeDumpSummary(w io.Writer, path string, res *DumpResult) {
	ap := absPath(path)
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

// dumpIndex is DumpLogSegments.dumpIndex.
func dumpIndex(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
	x, err := OpenOffsetIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Len() == 0 {
		res.Empty = true
		fmt.Fprintf(w, "%s is empty.\n", path)
		return nil
	}
	if opts.IndexSanityCheck {
		if err := x.SanityCheck(); err != nil {
			res.SanityCheck = err.Error()
			return err
		}
		res.SanityCheck = "passed"
		fmt.Fprintf(w, "%s passed sanity check.\n", path)
		return nil
	}
	lf, lerr := OpenLog(siblingPath(path, LogSuffix))
	if lerr == nil {
		defer lf.Close()
	}
	res.IndexEntries = []IndexEntry{}
	for i := 0; i < x.Len(); i++ {
		e := x.entry(i)
		if e.Offset == base && i > 0 {
			break
		}
		if lerr != nil {
			return lerr
		}
		b, err := lf.NextBatch(e.Position, min(lf.Size(), e.Position+opts.MaxMessageSize))
		if err == errNoBatch {
			return fmt.Errorf("%s: entry %d: no batch at position %d of %s (java.util.NoSuchElementException)", path, i, e.Position, lf.Path)
		}
		if err != nil {
			return err
		}
		if b.LastOffset() != e.Offset {
			res.IndexMismatches = append(res.IndexMismatches, [2]int64{e.Offset, b.LastOffset()})
		}
		res.IndexEntries = append(res.IndexEntries, e)
		if !opts.VerifyOnly {
			fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Position)
		}
	}
	return nil
}

// dumpTimeIndex is DumpLogSegments.dumpTimeIndex.
func dumpTimeIndex(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
	x, err := OpenTimeIndex(path, base)
	if err != nil {
		return err
	}
	defer x.Close()
	if opts.IndexSanityCheck {
		if err := x.SanityCheck(); err != nil {
			res.SanityCheck = err.Error()
			return err
		}
		res.SanityCheck = "passed"
		fmt.Fprintf(w, "%s passed sanity check.\n", path)
		return nil
	}
	seg, err := OpenSegment(siblingPath(path, LogSuffix))
	if err != nil {
		return err
	}
	defer seg.Close()
	seg.TimeIndex.Close()
	seg.TimeIndex = x
	r := &VerifyReport{TimeMismatches: map[string][][2]int64{}, TimeOutOfOrder: map[string][][2]int64{}, TimeNotFound: map[string][][2]int64{}}
	verifyTimeIndex(r, seg, nil, nil)
	seg.TimeIndex = nil
	ap := absPath(path)
	res.TimestampMismatches, res.OutOfOrder, res.NotFound = r.TimeMismatches[ap], r.TimeOutOfOrder[ap], r.TimeNotFound[ap]
	n := x.DumpLen()
	res.TimeIndexEntries = x.Entries(n)
	if !opts.VerifyOnly {
		for _, e := range res.TimeIndexEntries {
			fmt.Fprintf(w, "timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
		}
	}
	return nil
}

// dumpLog is DumpLogSegments.dumpLog (batch lines, optional record lines).
func dumpLog(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
	fmt.Fprintf(w, "Log starting offset: %d\n", base)
	lf, err := OpenLog(path)
	if err != nil {
		return err
	}
	defer lf.Close()
	lf.SetReadAhead(1 << 20)
	end := lf.Size()
	if opts.MaxBytes > 0 {
		end = min(end, opts.MaxBytes)
	}
	lastOffset := int64(-1)
	res.Batches = []DumpBatch{}
	var recErr error
	walk := lf.Walk(0, end, func(b BatchInfo) bool {
		d := DumpBatch{BaseOffset: b.BaseOffset(), LastOffset: b.LastOffset(), Position: b.Position, Size: b.Size, Magic: b.Magic,
			MaxTimestamp: b.MaxTimestamp(), TimestampType: "CreateTime", CompressCodec: "none"}
		d.IsValid = lf.CheckBatch(b) == nil
		if b.IsLegacy() {
			d.CRC = b.Legacy.CRC
			d.CompressCodec = Compression(b.Legacy.Attributes & 7).String()
			if b.Magic == 0 {
				d.TimestampType = "NoTimestampType"
			} else if b.Legacy.Attributes&0x08 != 0 {
				d.TimestampType = "LogAppendTime"
			}
			fmt.Fprintf(w, "offset: %d", d.LastOffset)
		} else {
			h := b.Header
			c := h.RecordCount
			d.Count, d.BaseSequence, d.LastSequence, d.ProducerID, d.ProducerEpoch = &c, h.BaseSequence, h.LastSequence(), h.ProducerID, h.ProducerEpoch
			d.PartitionLeaderEpoch, d.IsTransactional, d.IsControl = h.PartitionLeaderEpoch, h.IsTransactional(), h.IsControl()
			d.TimestampType, d.CompressCodec, d.CRC = h.TimestampType(), h.Compression().String(), h.CRC
			horizon := "OptionalLong.empty"
			if h.HasDeleteHorizon() {
				v := h.BaseTimestamp
				d.DeleteHorizonMs = &v
				horizon = fmt.Sprintf("OptionalLong[%d]", v)
			}
			fmt.Fprintf(w, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s",
				d.BaseOffset, d.LastOffset, c, d.BaseSequence, d.LastSequence, d.ProducerID, d.ProducerEpoch, d.PartitionLeaderEpoch, d.IsTransactional, d.IsControl, horizon)
		}
		fmt.Fprintf(w, " position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
			d.Position, d.TimestampType, d.MaxTimestamp, d.Size, d.Magic, d.CompressCodec, d.CRC, d.IsValid)
		if opts.Deep && !b.IsLegacy() {
			data, err := lf.ReadBatch(b)
			if err == nil {
				var h BatchHeader
				var recs []Record
				h, recs, err = DecodeRecords(data, path, b.Position)
				for _, r := range recs {
					off := h.BaseOffset + int64(r.OffsetDelta)
					if lastOffset != -1 && off != lastOffset+1 {
						res.NonConsecutive = append(res.NonConsecutive, [2]int64{lastOffset, off})
					}
					lastOffset = off
					seq := int32(-1)
					if h.BaseSequence != -1 {
						seq = h.BaseSequence + r.OffsetDelta
					}
					ts := h.BaseTimestamp + r.TimestampDelta
					if h.TimestampType() == "LogAppendTime" {
						ts = h.MaxTimestamp
					}
					dr := DumpRecord{Offset: off, Timestamp: ts, KeySize: len(r.Key), ValueSize: len(r.Value), Sequence: seq, HeaderKeys: []string{}}
					if r.Key == nil {
						dr.KeySize = -1
					}
					if r.Value == nil {
						dr.ValueSize = -1
					}
					for _, hd := range r.Headers {
						dr.HeaderKeys = append(dr.HeaderKeys, hd.Key)
					}
					d.Records = append(d.Records, dr)
					fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %d sequence: %d headerKeys: [%s]\n",
						off, h.TimestampType(), ts, dr.KeySize, dr.ValueSize, seq, strings.Join(dr.HeaderKeys, ","))
				}
			}
			if err != nil && recErr == nil {
				recErr = err
			}
		}
		res.Batches = append(res.Batches, d)
		return true
	})
	if walk.Err != nil {
		return walk.Err
	}
	if tb := lf.Size() - walk.ValidBytes; tb > 0 && opts.MaxBytes <= 0 {
		res.InvalidBytes = tb
		fmt.Fprintf(w, "Found %d invalid bytes at the end of %s\n", tb, filepath.Base(path))
	}
	return recErr
}
