package segment

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// Producer-state snapshots ("<20-digit offset>.snapshot", KIP-98, Kafka 0.11+): the table of
// active producer ids a broker reloads instead of replaying the log. Written and read by
// ProducerStateManager.writeSnapshot/readSnapshot (storage module; kafka.log.ProducerStateManager
// in Scala before 3.5). The layout is the Struct schema PID_SNAPSHOT_MAP_SCHEMA, big-endian:
//
//	version  int16   PRODUCER_SNAPSHOT_VERSION = 1 (the only version ever written)
//	crc      uint32  CRC-32C of every byte after this field (from byte 6 to the end of the file)
//	count    int32   number of entries (ArrayOf)
//	count x 46-byte entries (PRODUCER_SNAPSHOT_ENTRY_SCHEMA):
//	  producer_id int64, epoch int16, last_sequence int32, last_offset int64,
//	  offset_delta int32, timestamp int64, coordinator_epoch int32,
//	  current_txn_first_offset int64 (-1: no ongoing transaction)
//
// An empty table is the 10 bytes 00 01 48 67 4b c7 00 00 00 00 (CRC-32C of four zero bytes).
const (
	ProducerSnapshotVersion   = 1  // ProducerStateManager.PRODUCER_SNAPSHOT_VERSION
	ProducerSnapshotEntrySize = 46 // the fixed size of one PRODUCER_SNAPSHOT_ENTRY_SCHEMA struct
	producerSnapshotHeader    = 10 // version + crc + count
	producerSnapshotCRCFrom   = 6  // PRODUCER_ENTRIES_OFFSET: the CRC covers [6, end)
)

// ProducerSnapshotEntry is one entry of a producer-state snapshot, field for field as written.
type ProducerSnapshotEntry struct {
	ProducerID            int64 `json:"producerId"`
	ProducerEpoch         int16 `json:"producerEpoch"`
	LastSequence          int32 `json:"lastSequence"`
	LastOffset            int64 `json:"lastOffset"` // -1: no data batch (the producer's only entry is a marker)
	OffsetDelta           int32 `json:"offsetDelta"`
	Timestamp             int64 `json:"timestamp"`
	CoordinatorEpoch      int32 `json:"coordinatorEpoch"`
	CurrentTxnFirstOffset int64 `json:"currentTxnFirstOffset"` // -1: no ongoing transaction
}

// HasBatch says whether Kafka keeps batch metadata for the entry: readSnapshot builds a
// BatchMetadata only when last_offset >= 0.
func (e ProducerSnapshotEntry) HasBatch() bool { return e.LastOffset >= 0 }

// HasOngoingTxn says whether the entry has a transaction in progress (readSnapshot:
// current_txn_first_offset >= 0 gives OptionalLong.of, anything else OptionalLong.empty).
func (e ProducerSnapshotEntry) HasOngoingTxn() bool { return e.CurrentTxnFirstOffset >= 0 }

// FirstSequence is BatchMetadata.firstSeq: DefaultRecordBatch.decrementSequence(last_sequence,
// offset_delta), which wraps below 0 back to Integer.MAX_VALUE (sequence numbers wrap).
func (e ProducerSnapshotEntry) FirstSequence() int32 {
	if e.LastSequence < e.OffsetDelta {
		// Java int arithmetic, wrapping exactly as Kafka's does.
		return int32(uint32(1<<31-1) - uint32(e.OffsetDelta-e.LastSequence) + 1)
	}
	return e.LastSequence - e.OffsetDelta
}

// FirstOffset is BatchMetadata.firstOffset: last_offset - offset_delta.
func (e ProducerSnapshotEntry) FirstOffset() int64 { return e.LastOffset - int64(e.OffsetDelta) }

// snapshotCRCTable is the CRC-32C (Castagnoli) table of Kafka's Crc32C.
var snapshotCRCTable = crc32.MakeTable(crc32.Castagnoli)

// The field names of the snapshot schema, as Kafka's SchemaException messages name them.
var producerEntryFields = [...]struct {
	name string
	size int
}{
	{"producer_id", 8}, {"epoch", 2}, {"last_sequence", 4}, {"last_offset", 8},
	{"offset_delta", 4}, {"timestamp", 8}, {"coordinator_epoch", 4}, {"current_txn_first_offset", 8},
}

// ParseProducerSnapshot decodes a producer-state snapshot as ProducerStateManager.readSnapshot
// does, in its order: the whole schema first (Schema.read), then the version, then the CRC.
// Every failure is a *FormatError whose Msg is the CorruptSnapshotException message Kafka gives
// for the same bytes ("Snapshot failed schema validation: Error reading field 'crc':
// java.nio.BufferUnderflowException", "Snapshot contained an unknown file version 2", "Snapshot
// is corrupt (CRC is no longer valid). Stored crc: X. Computed crc: Y") and whose Pos is the byte
// where it went wrong. Like Kafka, bytes after the last entry are not an error of their own, but
// the CRC covers them. Memory is bounded by the input: a count is never trusted beyond the bytes
// that follow it.
func ParseProducerSnapshot(data []byte, file string) ([]ProducerSnapshotEntry, error) {
	fail := func(pos int, format string, args ...any) error {
		return formatErr(file, int64(pos), "Snapshot failed schema validation: "+format, args...)
	}
	underflow := "java.nio.BufferUnderflowException" // Schema.read: an exception without a message
	if len(data) < 2 {
		return nil, fail(0, "Error reading field 'version': %s", underflow)
	}
	if len(data) < 6 {
		return nil, fail(2, "Error reading field 'crc': %s", underflow)
	}
	if len(data) < producerSnapshotHeader {
		return nil, fail(6, "Error reading field 'producer_entries': %s", underflow)
	}
	be := binary.BigEndian
	version := int16(be.Uint16(data))
	stored := be.Uint32(data[2:])
	count := int32(be.Uint32(data[6:]))
	pos := producerSnapshotHeader
	remaining := len(data) - pos
	// ArrayOf.read.
	if count < 0 {
		return nil, fail(6, "Error reading field 'producer_entries': Array size %d cannot be negative", count)
	}
	if int64(count) > int64(remaining) {
		return nil, fail(6, "Error reading field 'producer_entries': Error reading array of size %d, only %d bytes available", count, remaining)
	}
	entries := make([]ProducerSnapshotEntry, 0, min(int(count), remaining/ProducerSnapshotEntrySize))
	for i := int32(0); i < count; i++ {
		if len(data)-pos < ProducerSnapshotEntrySize {
			// The first field without enough bytes left is the one Schema.read names.
			p := pos
			for _, f := range producerEntryFields {
				if len(data)-p < f.size {
					return nil, fail(p, "Error reading field 'producer_entries': Error reading field '%s': %s", f.name, underflow)
				}
				p += f.size
			}
		}
		b := data[pos : pos+ProducerSnapshotEntrySize]
		entries = append(entries, ProducerSnapshotEntry{
			ProducerID:            int64(be.Uint64(b)),
			ProducerEpoch:         int16(be.Uint16(b[8:])),
			LastSequence:          int32(be.Uint32(b[10:])),
			LastOffset:            int64(be.Uint64(b[14:])),
			OffsetDelta:           int32(be.Uint32(b[22:])),
			Timestamp:             int64(be.Uint64(b[26:])),
			CoordinatorEpoch:      int32(be.Uint32(b[34:])),
			CurrentTxnFirstOffset: int64(be.Uint64(b[38:])),
		})
		pos += ProducerSnapshotEntrySize
	}
	if version != ProducerSnapshotVersion {
		return nil, formatErr(file, 0, "Snapshot contained an unknown file version %d", version)
	}
	if computed := crc32.Checksum(data[producerSnapshotCRCFrom:], snapshotCRCTable); computed != stored {
		return nil, formatErr(file, 2, "Snapshot is corrupt (CRC is no longer valid). Stored crc: %d. Computed crc: %d", stored, computed)
	}
	return entries, nil
}

// ReadProducerSnapshot reads and decodes a .snapshot file (opened O_RDONLY).
func ReadProducerSnapshot(path string) ([]ProducerSnapshotEntry, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return nil, err
	}
	return ParseProducerSnapshot(data, path)
}

// MaxLogDirFile bounds the snapshots, transaction indexes and checkpoint files kidx reads into
// memory: Files.readAllBytes (readSnapshot) and TransactionIndex's int positions stop at 2 GiB.
const MaxLogDirFile = 1<<31 - 1

// ReadLogDirFile reads a whole small log-directory file, opened read-only. A file that shrinks
// while it is read yields what was read.
func ReadLogDirFile(path string, limit int64) ([]byte, error) {
	f, size, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s: %d bytes is larger than kidx reads into memory (%d)", path, size, limit)
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return buf[:n], nil
}
