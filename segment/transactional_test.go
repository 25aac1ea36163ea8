package segment_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 24, "transactional batches and control markers": a COMMIT marker as Kafka's
// coordinator writes it (MemoryRecords.withEndTransactionMarker), worked by hand: 78 bytes,
// attributes 0x30 (isTransactional | isControl), producer id and epoch, base sequence -1, one
// record: length 16 (zig-zag 0x20), attributes 0, timestamp delta 0, offset delta 0, key length
// 4 (0x08) key 00 00 00 01 (version 0, COMMIT), value length 6 (0x0c) value 00 00 00 00 00 00
// (EndTxnMarker version 0, coordinator epoch 0), header count 0. A transactional batch before
// it carries the transactional bit, the producer and base sequence 0; the next one of the same
// producer base sequence = the records before it.
func TestCommitMarkerByHand(t *testing.T) {
	const ts = 1_700_000_000_005
	w := &segment.Workload{Config: segment.DefaultConfig(), Rule: segment.PerBatch, Steps: []segment.Step{
		{Append: []segment.BatchSpec{{Records: 3, Bytes: 200, MaxTimestamp: ts - 1, Transactional: true, ProducerID: 7}}},
		{Append: []segment.BatchSpec{{Records: 2, Bytes: 300, MaxTimestamp: ts - 1, Transactional: true, ProducerID: 7, Compression: segment.CompressionZstd}}},
		{Append: []segment.BatchSpec{{Records: 1, Bytes: segment.ControlBatchSize, MaxTimestamp: ts, Control: segment.ControlCommit, Transactional: true, ProducerID: 7}}},
	}}
	mem := vfs.NewMemFS()
	if _, err := segment.WriteWorkloadFS(mem, "/p", w); err != nil {
		t.Fatal(err)
	}
	log, err := mem.ReadFileShared(filepath.Join("/p", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 200+300+78 {
		t.Fatalf("%d bytes", len(log))
	}
	be := binary.BigEndian
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	for i, b := range []struct {
		pos, size int
		attr      uint16
		seq       int32
	}{{0, 200, 0x10, 0}, {200, 300, 0x14, 3}} {
		batch := log[b.pos : b.pos+b.size]
		if be.Uint16(batch[21:]) != b.attr || int64(be.Uint64(batch[43:])) != 7 || be.Uint16(batch[51:]) != 0 || int32(be.Uint32(batch[53:])) != b.seq ||
			be.Uint32(batch[17:]) != crc32.Checksum(batch[21:], castagnoli) {
			t.Errorf("batch %d: attributes %#x producer %d epoch %d base sequence %d crc ok %v", i, be.Uint16(batch[21:]),
				int64(be.Uint64(batch[43:])), be.Uint16(batch[51:]), int32(be.Uint32(batch[53:])), be.Uint32(batch[17:]) == crc32.Checksum(batch[21:], castagnoli))
		}
	}
	m := log[500:]
	want := []byte{0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 66, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0}
	want = be.AppendUint64(want, ts)
	want = be.AppendUint64(want, ts)
	want = be.AppendUint64(want, 7)
	want = append(want, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1)
	want = append(want, 0x20, 0, 0, 0, 0x08, 0, 0, 0, 1, 0x0c, 0, 0, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(want[17:], crc32.Checksum(want[21:], castagnoli))
	if !bytes.Equal(m, want) {
		t.Fatalf("marker\n% x\nwant\n% x", m, want)
	}
}

func TestTransactionalRefusals(t *testing.T) {
	for _, tc := range []struct {
		spec segment.BatchSpec
		want string
	}{
		{segment.BatchSpec{Records: 1, Bytes: 78, Control: "abort"}, "COMMIT markers only"},
		{segment.BatchSpec{Records: 2, Bytes: 78, Control: "commit"}, "1 record of 78 bytes"},
		{segment.BatchSpec{Records: 1, Bytes: 79, Control: "commit"}, "1 record of 78 bytes"},
		{segment.BatchSpec{Records: 1, Bytes: 78, Control: "commit", Compression: segment.CompressionGzip}, "never compressed"},
		{segment.BatchSpec{Records: 1, Bytes: 100, Transactional: true, ProducerID: -2}, "producer id -2 is negative"},
	} {
		w := &segment.Workload{Config: segment.DefaultConfig(), Steps: []segment.Step{{Append: []segment.BatchSpec{tc.spec}}}}
		if err := w.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
	if _, err := segment.ParseWorkload([]byte(`{"batches": [{"records": 1, "bytes": 78, "control": "abort"}]}`)); err == nil || !strings.Contains(err.Error(), "batches[0]: control \"abort\"") {
		t.Errorf("abort parsed: %v", err)
	}
	if _, err := segment.ParseWorkload([]byte(`{"batches": [{"records": 1, "bytes": 78, "control": "commit", "transactional": false}]}`)); err == nil || !strings.Contains(err.Error(), "a marker is transactional") {
		t.Errorf("a non-transactional marker parsed: %v", err)
	}
	w, err := segment.ParseWorkload([]byte(`{"batches": [{"records": 1, "bytes": 78, "control": "commit", "producerId": 4}]}`))
	if err != nil || !w.Steps[0].Append[0].Transactional || w.Steps[0].Append[0].ProducerID != 4 {
		t.Fatalf("%+v, %v", w, err)
	}
}
