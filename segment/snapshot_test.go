package segment_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// donaldy/myTopic-0/00000000000000000038.snapshot (Kafka 2.7.1), 148 bytes, copied from xxd.
const myTopicSnapshotHex = `
0001 1a3a 695a 0000 0003 0000 0000 0000
0fa1 0000 0000 000b 0000 0000 0000 000b
0000 0002 0000 0184 d7d1 5005 ffff ffff
ffff ffff ffff ffff 0000 0000 0000 0fa2
0000 0000 000b 0000 0000 0000 0017 0000
000b 0000 0184 d7da 9d7c ffff ffff ffff
ffff ffff ffff 0000 0000 0000 0fa3 0000
0000 000d 0000 0000 0000 0025 0000 000d
0000 0184 d801 1c10 ffff ffff ffff ffff
ffff ffff`

func TestProducerSnapshotRealFiles(t *testing.T) {
	es, err := segment.ParseProducerSnapshot(testfiles.Hex(t, testfiles.EmptySnapshotHex), "empty.snapshot")
	if err != nil || len(es) != 0 {
		t.Fatalf("empty snapshot: %v, %v", es, err)
	}
	es, err = segment.ParseProducerSnapshot(testfiles.Hex(t, myTopicSnapshotHex), "38.snapshot")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(es) != fmt.Sprint(segmenttest.MyTopicEntries) {
		t.Fatalf("entries\n  %+v\nwant\n  %+v", es, segmenttest.MyTopicEntries)
	}
	// firstSequence = lastSequence - offsetDelta, firstOffset = lastOffset - offsetDelta: 9..11,
	// 0..11 and 0..13; offsets 9..11, 12..23, 24..37.
	for i, want := range [][2]int64{{9, 9}, {0, 12}, {0, 24}} {
		if e := es[i]; int64(e.FirstSequence()) != want[0] || e.FirstOffset() != want[1] || !e.HasBatch() || e.HasOngoingTxn() {
			t.Errorf("entry %d: first sequence %d, first offset %d, batch %v, txn %v", i, e.FirstSequence(), e.FirstOffset(), e.HasBatch(), e.HasOngoingTxn())
		}
	}
}

// ProducerStateManagerTest.testProducerSequenceWithWrapAroundBatchRecord: first sequence
// Integer.MAX_VALUE - 10, last sequence 9, offsets 2000..2020 (offset delta 20). The snapshot
// keeps the last sequence and the delta; BatchMetadata.firstSeq wraps back to MAX_VALUE - 10.
func TestProducerSnapshotSequenceWrap(t *testing.T) {
	e := segment.ProducerSnapshotEntry{LastSequence: 9, LastOffset: 2020, OffsetDelta: 20}
	if e.FirstSequence() != 2147483637 || e.FirstOffset() != 2000 {
		t.Fatalf("first sequence %d, first offset %d", e.FirstSequence(), e.FirstOffset())
	}
	// ProducerStateManagerTest.testProducerSequenceWrapAround: a batch of one at MAX_VALUE.
	if e := (segment.ProducerSnapshotEntry{LastSequence: 2147483647}); e.FirstSequence() != 2147483647 {
		t.Fatalf("first sequence %d", e.FirstSequence())
	}
	// last_offset -1 (a producer whose only entry is a marker): no batch metadata.
	if (segment.ProducerSnapshotEntry{LastOffset: -1}).HasBatch() || !(segment.ProducerSnapshotEntry{CurrentTxnFirstOffset: 0}).HasOngoingTxn() {
		t.Fatal("HasBatch/HasOngoingTxn")
	}
}

// ProducerStateManagerTest.testLoadFromCorruptSnapshot (testLoadFromEmptySnapshotFile,
// testLoadFromTruncatedSnapshotFile, testLoadFromCorruptSnapshotFile): the snapshot at offset 2
// of producer 1 (epoch 0, sequence 1 at offset 1) is truncated to 0 bytes, truncated to half
// its size, or overwritten with 37 zero bytes from the start. Kafka's readSnapshot throws
// CorruptSnapshotException for each; the messages below follow Schema.read / ArrayOf.read.
func TestProducerSnapshotKafkaCorruptions(t *testing.T) {
	good := segmenttest.SnapshotBytes(1, []segment.ProducerSnapshotEntry{{ProducerID: 1, LastSequence: 1, LastOffset: 1, Timestamp: 1700000000000, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1}}, nil)
	if len(good) != 56 {
		t.Fatalf("%d bytes", len(good))
	}
	if es, err := segment.ParseProducerSnapshot(good, "f"); err != nil || len(es) != 1 || es[0].LastOffset != 1 {
		t.Fatalf("%+v %v", es, err)
	}
	zeroed := append(make([]byte, 37), good[37:]...)
	cases := []struct {
		name string
		data []byte
		pos  int64
		msg  string
	}{
		{"empty", nil, 0, "Snapshot failed schema validation: Error reading field 'version': java.nio.BufferUnderflowException"},
		// 28 bytes: the header, producer_id (10..17), epoch (18..19), last_sequence (20..23); last_offset needs 24..31.
		{"truncated to half", good[:28], 24, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'last_offset': java.nio.BufferUnderflowException"},
		// version 0, crc 0, count 0: the schema reads; the version check fails first.
		{"37 zero bytes", zeroed, 0, "Snapshot contained an unknown file version 0"},
	}
	for _, c := range cases {
		_, err := segment.ParseProducerSnapshot(c.data, "f")
		segmenttest.FormatErrAt(t, err, "f", c.pos, c.msg)
	}
}

func TestProducerSnapshotBadInput(t *testing.T) {
	real := testfiles.Hex(t, myTopicSnapshotHex)
	flipped := append([]byte(nil), real...)
	flipped[100] ^= 0x01 // inside entry 2's current_txn_first_offset (bytes 94..101)
	flippedCRC := crc32.Checksum(flipped[6:], crc32.MakeTable(crc32.Castagnoli))
	cases := []struct {
		name string
		data []byte
		pos  int64
		msg  string
	}{
		// The stored CRC of the real file is 0x1a3a695a = 440035674.
		{"flipped byte", flipped, 2, fmt.Sprintf("Snapshot is corrupt (CRC is no longer valid). Stored crc: 440035674. Computed crc: %d", flippedCRC)},
		// CRC field zeroed in the empty snapshot: the CRC-32C of four zero bytes is 0x48674bc7 = 1214729159.
		{"zero crc", testfiles.Hex(t, "0001 0000 0000 0000 0000"), 2, "Snapshot is corrupt (CRC is no longer valid). Stored crc: 0. Computed crc: 1214729159"},
		{"version 2", segmenttest.SnapshotBytes(2, nil, nil), 0, "Snapshot contained an unknown file version 2"},
		{"version -1", segmenttest.SnapshotBytes(-1, segmenttest.MyTopicEntries, nil), 0, "Snapshot contained an unknown file version -1"},
		// A truncated file with an unknown version: the schema error comes first, as in readSnapshot.
		// 20 bytes: producer_id (10..17) and epoch (18..19) are there, last_sequence is not.
		{"version 2 truncated", segmenttest.SnapshotBytes(2, segmenttest.MyTopicEntries, nil)[:20], 20, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'last_sequence': java.nio.BufferUnderflowException"},
		{"1 byte", []byte{0}, 0, "Snapshot failed schema validation: Error reading field 'version': java.nio.BufferUnderflowException"},
		{"5 bytes", real[:5], 2, "Snapshot failed schema validation: Error reading field 'crc': java.nio.BufferUnderflowException"},
		{"9 bytes", real[:9], 6, "Snapshot failed schema validation: Error reading field 'producer_entries': java.nio.BufferUnderflowException"},
		{"count 3, no entry bytes", real[:10], 6, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading array of size 3, only 0 bytes available"},
		{"count 3, 2 bytes", real[:12], 6, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading array of size 3, only 2 bytes available"},
		{"count 3, 3 bytes", real[:13], 10, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'producer_id': java.nio.BufferUnderflowException"},
		// One byte short: entry 3's current_txn_first_offset (bytes 140..147).
		{"147 bytes", real[:147], 140, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'current_txn_first_offset': java.nio.BufferUnderflowException"},
		// 2^31-1 entries announced in 10 bytes.
		{"count 2^31-1", testfiles.Hex(t, "0001 0000 0000 7fff ffff"), 6, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading array of size 2147483647, only 0 bytes available"},
		{"count -1", testfiles.Hex(t, "0001 0000 0000 ffff ffff"), 6, "Snapshot failed schema validation: Error reading field 'producer_entries': Array size -1 cannot be negative"},
		// Count 2 with one entry's bytes: the second entry's producer_id at byte 56.
		{"count 2, one entry", func() []byte {
			b := segmenttest.SnapshotBytes(1, segmenttest.MyTopicEntries[:1], nil)
			binary.BigEndian.PutUint32(b[6:], 2)
			return b
		}(), 56, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'producer_id': java.nio.BufferUnderflowException"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := segment.ParseProducerSnapshot(c.data, "x.snapshot")
			segmenttest.FormatErrAt(t, err, "x.snapshot", c.pos, c.msg)
		})
	}
	// Every truncation of the real file fails (none panics) at a byte inside what is left.
	for n := 0; n < len(real); n++ {
		_, err := segment.ParseProducerSnapshot(real[:n], "x")
		var fe *segment.FormatError
		if !errors.As(err, &fe) || fe.Pos > int64(n) {
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
	// Bytes after the last entry are not read by Schema.read but are covered by the CRC: with a
	// matching CRC Kafka accepts them.
	if es, err := segment.ParseProducerSnapshot(segmenttest.SnapshotBytes(1, segmenttest.MyTopicEntries, []byte{1, 2, 3}), "x"); err != nil || len(es) != 3 {
		t.Fatalf("trailing bytes: %v %v", es, err)
	}
}

// A count that passes ArrayOf's check (no larger than the bytes left) but whose entries are not
// there: the parser must not allocate for the count.
func TestProducerSnapshotBoundedAllocation(t *testing.T) {
	data := make([]byte, 10+1<<20)
	copy(data, testfiles.Hex(t, "0001 0000 0000 000f ffff")) // count 1048575 <= 1 MiB of zeros
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := segment.ParseProducerSnapshot(data, "x")
	runtime.ReadMemStats(&after)
	// 1 MiB holds 22795 zero entries; the 22796th runs out at byte 10+22795*46.
	segmenttest.FormatErrAt(t, err, "x", 10+22795*46, "Snapshot failed schema validation: Error reading field 'producer_entries': Error reading field 'producer_id': java.nio.BufferUnderflowException")
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*uint64(len(data)) {
		t.Fatalf("allocated %d bytes for a %d-byte input", got, len(data))
	}
}
