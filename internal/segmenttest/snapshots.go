package segmenttest

import (
	"encoding/binary"
	"hash/crc32"

	"kidx/segment"
)

// MyTopicEntries is donaldy/myTopic-0/00000000000000000038.snapshot of ../shared/realdata (Kafka
// 2.7.1, 148 bytes) decoded by hand from its xxd dump (46-byte entries from byte
// 10; timestamps 0x184d7d15005, 0x184d7da9d7c, 0x184d8011c10 converted to decimal).
var MyTopicEntries = []segment.ProducerSnapshotEntry{
	{ProducerID: 4001, ProducerEpoch: 0, LastSequence: 11, LastOffset: 11, OffsetDelta: 2, Timestamp: 1670068129797, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
	{ProducerID: 4002, ProducerEpoch: 0, LastSequence: 11, LastOffset: 23, OffsetDelta: 11, Timestamp: 1670068739452, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
	{ProducerID: 4003, ProducerEpoch: 0, LastSequence: 13, LastOffset: 37, OffsetDelta: 13, Timestamp: 1670071262224, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
}

// SnapshotBytes encodes a snapshot here, independently of the parser: the header, the entries
// field by field in schema order, and the CRC-32C of bytes [6, end).
func SnapshotBytes(version int16, es []segment.ProducerSnapshotEntry, extra []byte) []byte {
	be := binary.BigEndian
	b := be.AppendUint16(nil, uint16(version))
	b = be.AppendUint32(b, 0)
	b = be.AppendUint32(b, uint32(len(es)))
	for _, e := range es {
		b = be.AppendUint64(b, uint64(e.ProducerID))
		b = be.AppendUint16(b, uint16(e.ProducerEpoch))
		b = be.AppendUint32(b, uint32(e.LastSequence))
		b = be.AppendUint64(b, uint64(e.LastOffset))
		b = be.AppendUint32(b, uint32(e.OffsetDelta))
		b = be.AppendUint64(b, uint64(e.Timestamp))
		b = be.AppendUint32(b, uint32(e.CoordinatorEpoch))
		b = be.AppendUint64(b, uint64(e.CurrentTxnFirstOffset))
	}
	b = append(b, extra...)
	be.PutUint32(b[2:], crc32.Checksum(b[6:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// EmptyProducerSnapshot is a producer snapshot with no producer, as 20 of the real
// directories hold it (version 1, CRC-32C 0x48674bc7, no entries; read with xxd from
// ../shared/realdata/ldi-poc/__consumer_offsets-6/00000000000000000013.snapshot).
var EmptyProducerSnapshot = []byte{0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0x00, 0x00, 0x00, 0x00}
