package testfiles

import "encoding/binary"

// TxnBytes encodes aborted transactions as AbortedTxn.toByteBuffer does (putShort(version),
// then four putLong), independently of the parser.
func TxnBytes(version int16, txns ...[4]int64) []byte {
	var b []byte
	for _, t := range txns {
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		for _, v := range t {
			b = binary.BigEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// The five transactions of TransactionIndexTest.testPositionSetCorrectlyWhenOpened, and
// testSanityCheck: the same index opened with start offset 100 fails sanityCheck.
var KafkaTestTxns = [][4]int64{{0, 0, 10, 11}, {1, 5, 15, 13}, {2, 18, 35, 25}, {3, 32, 50, 40}, {3, 50, 60, 55}}

// The empty producer-state snapshot, read with xxd from 26 real files of
// /work/shared/realdata (e.g. ldi-poc/__consumer_offsets-6/00000000000000000013.snapshot):
// version 1, CRC-32C 0x48674bc7 (of the four zero bytes of the count), 0 entries.
const EmptySnapshotHex = "0001 4867 4bc7 0000 0000"
