package segment

import (
	"encoding/binary"
	"fmt"
)

// Transaction indexes ("<20-digit base offset>.txnindex", KIP-98, Kafka 0.11+): one entry per
// transaction aborted in the segment, appended when the ABORT marker is written
// (TransactionIndex.append), so that READ_COMMITTED fetches can return the aborted ranges. The
// file is created on the first abort only. Entries are AbortedTxn's 34 bytes, big-endian:
//
//	version int16, producerId int64, firstOffset int64, lastOffset int64, lastStableOffset int64
const (
	AbortedTxnSize           = 34 // AbortedTxn.TOTAL_SIZE
	AbortedTxnCurrentVersion = 0  // AbortedTxn.CURRENT_VERSION
)

// AbortedTxn is one .txnindex entry.
type AbortedTxn struct {
	// Version is the entry's version as Kafka reads it: AbortedTxn.version() is
	// buffer.get(0), the first byte of the int16 field, sign-extended (in every release, Scala
	// and Java), so 00 01 reads as version 0 and 01 00 as version 1.
	Version          int16 `json:"version"`
	ProducerID       int64 `json:"producerId"`
	FirstOffset      int64 `json:"firstOffset"`
	LastOffset       int64 `json:"lastOffset"`
	LastStableOffset int64 `json:"lastStableOffset"`
}

// String is AbortedTxn.toString, which Kafka's CorruptIndexException messages embed.
func (t AbortedTxn) String() string {
	return fmt.Sprintf("AbortedTxn(version=%d, producerId=%d, firstOffset=%d, lastOffset=%d, lastStableOffset=%d)",
		t.Version, t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
}

// ParseTxnIndex decodes a .txnindex image as TransactionIndex.allAbortedTxns does: whole
// 34-byte entries from the start; an entry whose version is above AbortedTxn.CURRENT_VERSION
// stops it with Kafka's KafkaException message ("Unexpected aborted transaction version 1 in
// transaction index <file>, current version is 0"). Kafka's iterator silently ignores a partial
// entry at the end (hasNext wants 34 bytes); here a length that is not a multiple of 34 is an
// error too, returned after the whole entries. In both cases the entries before the problem come
// back with the *FormatError, which names the byte where it went wrong.
func ParseTxnIndex(data []byte, file string) ([]AbortedTxn, error) {
	txns, trailing, err := ParseTxnIndexTolerant(data, file)
	if err == nil && trailing > 0 {
		whole := len(data) - trailing
		err = formatErr(file, int64(whole), "%d trailing bytes are not a whole %d-byte aborted transaction entry (Kafka's TransactionIndex ignores them)", trailing, AbortedTxnSize)
	}
	return txns, err
}

// ParseTxnIndexTolerant is ParseTxnIndex with Kafka's tolerance: a partial last entry is reported as a
// byte count, not as an error.
func ParseTxnIndexTolerant(data []byte, file string) (txns []AbortedTxn, trailing int, err error) {
	n := len(data) / AbortedTxnSize
	txns = make([]AbortedTxn, 0, n)
	be := binary.BigEndian
	for i := 0; i < n; i++ {
		b := data[i*AbortedTxnSize : (i+1)*AbortedTxnSize]
		t := AbortedTxn{
			Version:          int16(int8(b[0])),
			ProducerID:       int64(be.Uint64(b[2:])),
			FirstOffset:      int64(be.Uint64(b[10:])),
			LastOffset:       int64(be.Uint64(b[18:])),
			LastStableOffset: int64(be.Uint64(b[26:])),
		}
		if t.Version > AbortedTxnCurrentVersion {
			return txns, 0, formatErr(file, int64(i*AbortedTxnSize), "Unexpected aborted transaction version %d in transaction index %s, current version is %d",
				t.Version, file, AbortedTxnCurrentVersion)
		}
		txns = append(txns, t)
	}
	return txns, len(data) - n*AbortedTxnSize, nil
}

// ReadTxnIndex reads and decodes a .txnindex file (opened O_RDONLY).
func ReadTxnIndex(path string) ([]AbortedTxn, error) {
	data, err := ReadLogDirFile(path, MaxLogDirFile)
	if err != nil {
		return nil, err
	}
	return ParseTxnIndex(data, path)
}

// SanityCheckTxnIndex is TransactionIndex.sanityCheck, which LogLoader runs on every segment's
// transaction index at startup: no aborted transaction may end before the segment's base offset
// (CorruptIndexException "Last offset of aborted transaction <txn> in index <file> is less than
// start offset <base>"). The error names the entry's byte position.
func SanityCheckTxnIndex(txns []AbortedTxn, startOffset int64, file string) error {
	for i, t := range txns {
		if t.LastOffset < startOffset {
			return formatErr(file, int64(i*AbortedTxnSize), "Last offset of aborted transaction %s in index %s is less than start offset %d", t, file, startOffset)
		}
	}
	return nil
}
