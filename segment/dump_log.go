package segment

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// dumpLog is DumpLogSegments.dumpLog (batch lines, optional record lines). The caller prints the
// header line (a .log's "Log starting offset", a KRaft snapshot's end offset and epoch).
func dumpLog(w io.Writer, path string, base int64, opts DumpOptions, res *DumpResult) error {
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
