package segment

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"testing"

	"kidx/internal/testfiles"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A real client's codec as the oracle: kmsg decodes every batch and its
// records. The CRC is also recomputed here (CRC-32C over bytes [21, end))
// and compared with the field kmsg decoded; kgo_test.go runs the consumer's
// own parse, kgo.ProcessFetchPartition, which validates it as a client does.
var crc32c = crc32.MakeTable(crc32.Castagnoli)

// TestKmsgDecodesWriterBatches: every batch the writer produces (record
// recipes and size-targeted batches) is decoded by kmsg.RecordBatch.ReadFrom
// with the right fields, its CRC checks, and its records decode with kmsg.
func TestKmsgDecodesWriterBatches(t *testing.T) {
	for _, name := range []string{"random-i512-per-batch", "smallindex-per-append", "nonmonotonic-ts"} {
		for _, form := range []string{"recipe", "workload"} {
			dir := writeGoldenForm(t, name, form)
			n := 0
			for _, f := range testfiles.ListFiles(t, dir) {
				if filepath.Ext(f) != LogSuffix {
					continue
				}
				data := testfiles.MustRead(t, filepath.Join(dir, f))
				base, _ := OffsetFromFileName(f)
				next := base
				for pos := 0; pos < len(data); {
					size := 12 + int(binary.BigEndian.Uint32(data[pos+8:]))
					raw := data[pos : pos+size]
					var kb kmsg.RecordBatch
					if err := kb.ReadFrom(raw); err != nil {
						t.Fatalf("%s/%s@%d: kmsg: %v", name, f, pos, err)
					}
					if kb.FirstOffset != next || kb.Magic != 2 || int(kb.Length) != size-12 || kb.ProducerID != -1 || kb.ProducerEpoch != -1 || kb.FirstSequence != -1 || kb.PartitionLeaderEpoch != 0 || kb.Attributes != 0 {
						t.Fatalf("%s/%s@%d: kmsg fields %+v", name, f, pos, kb)
					}
					if got := crc32.Checksum(raw[21:], crc32c); uint32(kb.CRC) != got {
						t.Fatalf("%s/%s@%d: CRC field %d, computed %d", name, f, pos, uint32(kb.CRC), got)
					}
					// Walk the records with kmsg: each starts with a zig-zag
					// varint length (binary.Varint is zig-zag like Kafka's).
					rec := kb.Records
					maxTs := int64(-1)
					for i := int32(0); i < kb.NumRecords; i++ {
						l, k := binary.Varint(rec)
						var kr kmsg.Record
						if err := kr.ReadFrom(rec[:k+int(l)]); err != nil {
							t.Fatalf("record %d: %v", i, err)
						}
						if kr.OffsetDelta != i {
							t.Fatalf("record %d offset delta %d", i, kr.OffsetDelta)
						}
						maxTs = max(maxTs, kb.FirstTimestamp+kr.TimestampDelta64)
						rec = rec[k+int(l):]
					}
					if len(rec) != 0 || maxTs != kb.MaxTimestamp {
						t.Fatalf("%s/%s@%d: %d trailing record bytes, max ts %d vs header %d", name, f, pos, len(rec), maxTs, kb.MaxTimestamp)
					}
					next = kb.FirstOffset + int64(kb.LastOffsetDelta) + 1
					pos += size
					n++
				}
			}
			if n == 0 {
				t.Fatal("no batches checked")
			}
		}
	}
}

// TestReadersReadKmsgBatches: batches encoded by kmsg (AppendTo) are read by
// the .log walk, pass CheckBatch and decode to the same records.
func TestReadersReadKmsgBatches(t *testing.T) {
	var file []byte
	type want struct {
		base, last, maxTs int64
		keys              []string
	}
	var wants []want
	off := int64(100)
	for b := 0; b < 5; b++ {
		var recs []byte
		var keys []string
		n := b + 1
		for i := 0; i < n; i++ {
			r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i * 3), Key: []byte{'a' + byte(b), '0' + byte(i)}, Value: bytes.Repeat([]byte{'x'}, 10*i)}
			if i == 1 {
				r.Headers = []kmsg.Header{{Key: "h", Value: []byte("v")}}
			}
			body := r.AppendTo(nil)[1:] // placeholder length 0 is one byte
			r.Length = int32(len(body))
			recs = r.AppendTo(recs)
			keys = append(keys, string(r.Key))
		}
		kb := kmsg.RecordBatch{FirstOffset: off, PartitionLeaderEpoch: 7, Magic: 2, LastOffsetDelta: int32(n - 1),
			FirstTimestamp: 1000 * int64(b), MaxTimestamp: 1000*int64(b) + int64(3*(n-1)), ProducerID: 42, ProducerEpoch: 3, FirstSequence: 9, NumRecords: int32(n), Records: recs}
		raw := kb.AppendTo(nil)
		binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
		binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32c))
		file = append(file, raw...)
		wants = append(wants, want{off, off + int64(n-1), kb.MaxTimestamp, keys})
		off += int64(n)
	}
	path := filepath.Join(t.TempDir(), FilenamePrefixFromOffset(100)+LogSuffix)
	testfiles.MustWrite(t, path, file)
	lf, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	i := 0
	res := lf.Walk(0, 0, func(b BatchInfo) bool {
		w := wants[i]
		if b.BaseOffset() != w.base || b.LastOffset() != w.last || b.MaxTimestamp() != w.maxTs || b.Header.ProducerID != 42 || b.Header.PartitionLeaderEpoch != 7 || b.Header.LastSequence() != 9+int32(w.last-w.base) {
			t.Errorf("batch %d: %+v", i, b.Header)
		}
		if err := lf.CheckBatch(b); err != nil {
			t.Errorf("batch %d: %v", i, err)
		}
		data, _ := lf.ReadBatch(b)
		_, recs, err := DecodeRecords(append([]byte(nil), data...), path, b.Position)
		if err != nil || len(recs) != len(w.keys) {
			t.Fatalf("batch %d records: %v", i, err)
		}
		for j, r := range recs {
			if string(r.Key) != w.keys[j] || len(r.Value) != 10*j || (j == 1) != (len(r.Headers) == 1) {
				t.Errorf("batch %d record %d: %+v", i, j, r)
			}
		}
		i++
		return true
	})
	if res.Err != nil || i != len(wants) || res.TrailingBytes() != 0 {
		t.Fatalf("walk: %d batches, %+v", i, res)
	}
}

// writeGoldenForm writes golden case name into a temp dir, from its record-level recipe
// (form "recipe") or its batch-level workload (form "workload"), and returns the dir.
func writeGoldenForm(t *testing.T, name, form string) string {
	t.Helper()
	dir := t.TempDir()
	var err error
	if form == "recipe" {
		var r *Recipe
		if r, err = ParseRecipe(testfiles.MustRead(t, filepath.Join(testfiles.GoldenDir, name, "kafka-input.json"))); err == nil {
			_, err = WriteRecipe(dir, r)
		}
	} else {
		var w *Workload
		if w, err = ParseWorkload(testfiles.MustRead(t, filepath.Join(testfiles.GoldenDir, name, "workload.json"))); err == nil {
			_, err = WriteWorkload(dir, w)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
