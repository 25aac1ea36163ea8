package dump

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"kidx/internal/printsafe"
	"kidx/kafkamsg"
	"kidx/segment"
)

// dumpLog is DumpLogSegments.dumpLog (batch lines, optional record lines). The caller prints the
// header line (a .log's "Log starting offset", a KRaft snapshot's end offset and epoch).
func dumpLog(w io.Writer, path string, base int64, opts Options, res *Result) error {
	lf, err := segment.OpenLog(path)
	if err != nil {
		return err
	}
	defer lf.Close()
	lf.SetReadAhead(1 << 20)
	lf.SetPrefetch(true)
	end := lf.Size()
	if opts.MaxBytes > 0 {
		end = min(end, opts.MaxBytes)
	}
	lastOffset := int64(-1)
	res.Batches = []Batch{}
	var recErrs []error
	var stopped error // a record the parser could not read: DumpLogSegments stops
	walk := lf.Walk(0, end, func(b segment.BatchInfo) bool {
		d := Batch{BaseOffset: b.BaseOffset(), LastOffset: b.LastOffset(), Position: b.Position, Size: b.Size, Magic: b.Magic,
			MaxTimestamp: b.MaxTimestamp(), TimestampType: "CreateTime", CompressCodec: "none"}
		d.IsValid = lf.CheckBatch(b) == nil
		if b.IsLegacy() {
			// AbstractLegacyRecordBatch: countOrNull null, NO_SEQUENCE, NO_PRODUCER_ID,
			// NO_PRODUCER_EPOCH, NO_PARTITION_LEADER_EPOCH.
			d.BaseSequence, d.LastSequence, d.ProducerID, d.ProducerEpoch, d.PartitionLeaderEpoch = -1, -1, -1, -1, -1
			d.CRC = b.Legacy.CRC
			d.CompressCodec = segment.Compression(b.Legacy.Attributes & 7).String()
			d.TimestampType = segment.LegacyTimestampType(b.Magic, b.Legacy.Attributes)
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
		if opts.Deep {
			// DumpLogSegments.dumpLog's deep iteration: one "| offset: ..." line per record,
			// every kind (Records), and non-consecutive offsets across batches, inner
			// legacy offsets included. A batch whose records cannot be decoded (corrupt,
			// or over the decompression limit) keeps the records it gave; its error is
			// kept and the dump goes on with the next batch.
			var line strings.Builder
			var fatal error
			err := lf.Records(b, segment.RecordLimits{}, func(r segment.DecodedRecord) bool {
				if lastOffset != -1 && r.Offset != lastOffset+1 {
					res.NonConsecutive = append(res.NonConsecutive, [2]int64{lastOffset, r.Offset})
				}
				lastOffset = r.Offset
				dr := dumpRecord(r, b.IsLegacy())
				if opts.PrintData && !(!b.IsLegacy() && b.Header.IsControl()) {
					// DumpLogSegments.dumpLog: printContents && !batch.isControlBatch.
					p, perr := parseRecord(r, opts)
					if perr != nil {
						fatal = perr
						return false
					}
					dr.Key, dr.Payload = p.key, p.payload
					if opts.JSON && p.keyJSON != nil {
						dr.KeyJSON = json.RawMessage(kafkamsg.JSON(p.keyJSON))
					}
					if opts.JSON && p.payloadJSON != nil {
						dr.PayloadJSON = json.RawMessage(kafkamsg.JSON(p.payloadJSON))
					}
					if p.note != "" {
						addDecoderNote(res, p.note)
					}
				}
				if opts.JSON {
					d.Records = append(d.Records, dr)
				}
				line.Reset()
				writeRecordLine(&line, r, dr, b.IsLegacy(), opts.SkipRecordMetadata)
				io.WriteString(w, line.String())
				return true
			})
			if fatal != nil {
				// The parser threw in Kafka: the tool stops there.
				if opts.JSON {
					res.Batches = append(res.Batches, d)
				}
				stopped = fatal
				return false
			}
			if err != nil {
				d.RecordsError = err.Error()
				recErrs = append(recErrs, err)
			}
		}
		if opts.JSON {
			res.Batches = append(res.Batches, d)
		}
		return true
	})
	finishDecoderNotes(res)
	if stopped != nil {
		return errors.Join(append(recErrs, stopped)...)
	}
	if walk.Err != nil {
		return errors.Join(append(recErrs, walk.Err)...)
	}
	if tb := lf.Size() - walk.ValidBytes; tb > 0 && opts.MaxBytes <= 0 {
		res.InvalidBytes = tb
		fmt.Fprintf(w, "Found %d invalid bytes at the end of %s\n", tb, printsafe.Name(filepath.Base(path)))
	}
	return joinRecordErrors(recErrs)
}

// maxReportedRecordErrors bounds the errors one dump returns (each names its file and byte).
const maxReportedRecordErrors = 20

func joinRecordErrors(errs []error) error {
	if len(errs) > maxReportedRecordErrors {
		more := fmt.Errorf("and %d more batches whose records could not be decoded", len(errs)-maxReportedRecordErrors)
		errs = append(errs[:maxReportedRecordErrors:maxReportedRecordErrors], more)
	}
	return errors.Join(errs...)
}

// dumpRecord is the JSON form of one deep-iteration record.
func dumpRecord(r segment.DecodedRecord, legacy bool) Record {
	dr := Record{Offset: r.Offset, Timestamp: r.Timestamp, KeySize: len(r.Key), ValueSize: len(r.Value), Sequence: r.Sequence,
		HeaderKeys: r.HeaderKeys, Control: r.Control}
	if dr.HeaderKeys == nil {
		dr.HeaderKeys = []string{}
	}
	if r.Key == nil {
		dr.KeySize = -1
	}
	if r.Value == nil {
		dr.ValueSize = -1
	}
	if legacy {
		valid, crc := r.LegacyValid, r.LegacyCRC
		dr.IsValid, dr.CRC = &valid, &crc
	}
	return dr
}

// writeRecordLine is DumpLogSegments.dumpLog's record line: "| offset: O <type>: T keySize:
// K valueSize: V", then for magic >= 2 " sequence: S headerKeys: [a,b]", for a legacy
// record " isValid: B crc: C}" (the stray brace is Kafka's: s" isValid: ${r.isValid} crc:
// ${r.checksum}}"), then for a control batch the control text.
//
// With --skip-record-metadata (skip) none of that is printed: the line is "| key: K payload:
// P", or " payload: P" when the parser gives no key (the cluster-metadata decoder), or empty
// for a control record (dumpLog's prefix "| " is only printed before the first part).
func writeRecordLine(w *strings.Builder, r segment.DecodedRecord, dr Record, legacy, skip bool) {
	prefix := "| "
	if !skip {
		fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %d", r.Offset, r.TimestampType, r.Timestamp, dr.KeySize, dr.ValueSize)
		prefix = " "
		if !legacy {
			fmt.Fprintf(w, " sequence: %d headerKeys: [%s]", r.Sequence, strings.Join(dr.HeaderKeys, ","))
		} else {
			fmt.Fprintf(w, " isValid: %t crc: %d}", r.LegacyValid, r.LegacyCRC)
		}
		if r.Control != "" {
			w.WriteString(" ")
			w.WriteString(r.Control)
		}
	}
	// --print-data-log (DumpLogSegments.dumpLog, printContents and not a control batch): the
	// parser's key and payload, each printed when it gives one (the default parser decodes
	// them with StringDecoder, UTF-8, and gives none for null).
	if dr.Key != nil {
		w.WriteString(prefix)
		w.WriteString("key: ")
		w.WriteString(*dr.Key)
	}
	if dr.Payload != nil {
		w.WriteString(" payload: ")
		w.WriteString(*dr.Payload)
	}
	w.WriteString("\n")
}

// dataText is a key or value as --print-data-log prints it: nil (null) stays nil; bytes are
// decoded as UTF-8, each byte that is not part of a valid sequence becoming U+FFFD (Java's
// decoder replaces a maximal ill-formed subsequence with one U+FFFD, so a truncated
// multi-byte sequence prints one replacement in Kafka and one per byte here).
func dataText(b []byte) *string {
	if b == nil {
		return nil
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	s := sb.String()
	return &s
}

// maxDecoderNotes bounds the notes a file's undecoded records get (each names its offset and
// raw bytes); the rest are counted in one more note.
const maxDecoderNotes = 20

func addDecoderNote(res *Result, note string) {
	res.undecoded++
	if res.undecoded <= maxDecoderNotes {
		res.Notes = append(res.Notes, note)
	}
}

func finishDecoderNotes(res *Result) {
	if more := res.undecoded - maxDecoderNotes; more > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("and %d more records the decoder could not decode", more))
		res.undecoded = maxDecoderNotes
	}
}
