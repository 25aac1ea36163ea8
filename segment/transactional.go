package segment

import (
	"encoding/binary"
	"fmt"
)

// Transactional batches and their markers (issue 24, "realistic corpus content").
const (
	// attrTransactional and attrControl are DefaultRecordBatch's TRANSACTIONAL_FLAG_MASK (bit 4)
	// and CONTROL_FLAG_MASK (bit 5).
	attrTransactional = 0x10
	attrControl       = 0x20
	// ControlCommit names a COMMIT marker in a workload ("control": "commit"). An ABORT marker
	// is not written: Kafka records an aborted transaction in the segment's .txnindex
	// (UnifiedLog.append: LogSegment.updateTxnIndex) and rebuilds it on recovery, which the
	// writer does not do yet.
	ControlCommit = "commit"
	// ControlBatchSize is an end-transaction marker's batch: the 61-byte header and one
	// control record of 17 bytes (length 1, attributes 1, timestamp delta 1, offset delta 1,
	// key length 1, key 4 (version 0, type), value length 1, value 6 (EndTxnMarker version 0,
	// coordinator epoch), header count 1).
	ControlBatchSize = RecordBatchOverhead + 17
	// TransactionalProducerEpoch is the epoch of the writer's transactional producers.
	TransactionalProducerEpoch = 0
	// DefaultTransactionalProducerID is the producer id of a transactional batch or marker
	// whose workload names none.
	DefaultTransactionalProducerID = 1
	// commitType is ControlRecordType.COMMIT's id (ABORT is 0).
	commitType = 1
)

// appendCommitMarker appends the end-transaction marker batch Kafka's coordinator writes
// (MemoryRecords.withEndTransactionMarker): producer id and epoch, base sequence -1, the
// transactional and control bits, one control record with key (version 0, COMMIT) and value
// (EndTxnMarker version 0, coordinator epoch 0), stamped ts.
func appendCommitMarker(dst []byte, baseOffset, producerID int64, ts int64) []byte {
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), commitType)
	value := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), 0)
	return AppendBatch(dst, baseOffset, []RecordSpec{{Key: key, Value: value, Timestamp: ts}},
		BatchOptions{ProducerID: producerID, ProducerEpoch: TransactionalProducerEpoch, BaseSequence: -1,
			Attributes: attrTransactional | attrControl})
}

// markTransactional turns a built batch into a transactional producer's: the transactional
// bit, the producer id and epoch, and the base sequence (a producer numbers its records per
// partition from 0, ProducerStateManager checks it), with the CRC recomputed.
func markTransactional(b []byte, producerID int64, baseSequence int32) {
	binary.BigEndian.PutUint16(b[attributesOffset:], binary.BigEndian.Uint16(b[attributesOffset:])|attrTransactional)
	binary.BigEndian.PutUint64(b[43:], uint64(producerID))
	binary.BigEndian.PutUint16(b[51:], TransactionalProducerEpoch)
	binary.BigEndian.PutUint32(b[53:], uint32(baseSequence))
	binary.BigEndian.PutUint32(b[crcOffset:], ComputeBatchCRC(b))
}

// checkTransactional refuses what the writer cannot write of a batch's transaction keys.
func (s BatchSpec) checkTransactional() error {
	switch {
	case s.Control != "" && s.Control != ControlCommit:
		return fmt.Errorf("control %q: the writer writes COMMIT markers only (\"commit\"; an ABORT marker needs the segment's .txnindex, not written yet)", s.Control)
	case s.Control != "" && (s.Records != 1 || s.Bytes != ControlBatchSize):
		return fmt.Errorf("a COMMIT marker is 1 record of %d bytes (one control record); %s and %d bytes given", ControlBatchSize, plural(s.Records, "record"), s.Bytes)
	case s.Control != "" && s.Compression != CompressionNone:
		return fmt.Errorf("a COMMIT marker is never compressed")
	case s.ProducerID < 0:
		return fmt.Errorf("producer id %d is negative", s.ProducerID)
	}
	return nil
}
