package model

import (
	"fmt"
	"math"
)

// The smallest batch a file can hold (docs/workloads.md, "Batches that can exist"). The model
// itself is arithmetic over (records, bytes) and runs any pair; these rules say which pairs
// Kafka's formats can encode, so that generators draw only those and kidx write refuses the
// rest before it creates a file.
//
// A v2 batch (DefaultRecordBatch) is the 61-byte header followed by its records, each a
// DefaultRecord. The smallest record has a null key, a null value, timestamp delta 0 and no
// headers: body = attributes (1) + timestampDelta varlong 0 (1) + offsetDelta varint(i) +
// key length varint -1 (1) + value length varint -1 (1) + header count varint 0 (1) =
// 5 + varint(i) bytes, plus its length varint (1 byte: a body of at most 11 bytes). Record i
// of a batch has offset delta i, a zig-zag varint of 1 byte for i < 64, 2 for i < 8192, 3 for
// i < 2^20, 4 for i < 2^27, 5 above. So the smallest record is 7 bytes for the first 64
// records of a batch, 8 up to record 8191, 9, 10, then 11, and
//
//	MinBatchBytes(n) = 61 + 7n + max(0, n-64) + max(0, n-8192) + max(0, n-2^20) + max(0, n-2^27)
//
// (1 record: 68 bytes; 64: 509; 79, the seed post's batch (docs/background.md): 629).
//
// A 1-record batch also cannot be 126, 8255, 1048640 or 134217793 bytes: its one record
// would be 65, 8194, 1048579 or 134217732 bytes, and no record is, because a body of 64
// bytes needs a 2-byte length varint (63+1 = 64, 64+2 = 66), and likewise at 8192, 2^20 and
// 2^27. With two records or more, the other record absorbs the byte.
//
// Legacy messages (LegacyRecord, magic 0 and 1) are LOG_OVERHEAD (offset 8 + size 4 = 12)
// plus the record overhead with a null key and an empty value: crc 4, magic 1, attributes 1,
// (v1: timestamp 8), key length 4, value length 4 = 14 (v0) or 22 (v1) bytes: 26 and 34
// bytes. A compressed wrapper of several is one such message whose value holds them
// compressed; like a compressed v2 batch, its size has no floor the record count fixes (the
// codec decides), so only the header's is required.

// Sizes of the smallest legacy entries (LOG_OVERHEAD + LegacyRecord.RECORD_OVERHEAD_V0/_V1).
const (
	MinLegacyV0Bytes = 12 + 14
	MinLegacyV1Bytes = 12 + 22
)

// minRecordStep lists the offset deltas from which the smallest record is one byte longer:
// the zig-zag varint of the offset delta grows at 64, 8192, 2^20 and 2^27.
var minRecordStep = [...]int64{64, 8192, 1 << 20, 1 << 27}

// MinBatchBytes is the smallest sizeInBytes of a batch of records records in message format
// magic: for a v2 batch the 61-byte header plus the smallest DefaultRecord of each offset
// delta; for a legacy message the smallest message. records < 1 gives the header alone.
func MinBatchBytes(records int64, magic LegacyMagic) int64 {
	switch magic {
	case Magic0:
		return MinLegacyV0Bytes
	case Magic1:
		return MinLegacyV1Bytes
	}
	if records < 1 {
		return RecordBatchOverhead
	}
	s := RecordBatchOverhead + 7*records
	for _, at := range minRecordStep {
		if records > at {
			s += records - at
		}
	}
	return s
}

// oneRecordHole reports whether a 1-record v2 batch of bytes bytes is one no record reaches
// (the record would need a body whose length varint does not fit it).
func oneRecordHole(bytes int64) bool {
	switch bytes - RecordBatchOverhead {
	case 65, 8194, 1048579, 134217732:
		return true
	}
	return false
}

// MaxBatchRecords is the most records a v2 batch of bytes bytes holds: the largest n with
// MinBatchBytes(n) <= bytes; 0 when bytes is below the smallest batch of one record.
func MaxBatchRecords(bytes int64) int64 {
	if bytes < MinBatchBytes(1, NotLegacy) {
		return 0
	}
	lo, hi := int64(1), (bytes-RecordBatchOverhead)/7
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if MinBatchBytes(mid, NotLegacy) <= bytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// PossibleBatchError says why no file can hold a batch of records records and bytes bytes in
// message format magic, uncompressed: fewer bytes than the smallest such batch, or one of
// the four sizes a single record cannot make. Nil when a file can hold it.
func PossibleBatchError(records, bytes int64, magic LegacyMagic) error {
	if records < 1 || bytes > math.MaxInt32 {
		return nil // Batch.Validate's errors, not this rule's
	}
	if least := MinBatchBytes(records, magic); bytes < least {
		if magic != NotLegacy {
			return fmt.Errorf("%d bytes is less than %d, the smallest magic-%d message", bytes, least, magic.Magic())
		}
		return fmt.Errorf("a batch of %s needs at least %d bytes (the 61-byte header + %d bytes of the smallest records); %d given",
			recordsText(records), least, least-RecordBatchOverhead, bytes)
	}
	if magic == NotLegacy && records == 1 && oneRecordHole(bytes) {
		return fmt.Errorf("no batch of 1 record is %d bytes: its record would be %d bytes, a size no record has (the length varint grows a byte there); %d or %d bytes can be",
			bytes, bytes-RecordBatchOverhead, bytes-1, bytes+1)
	}
	return nil
}

// Possible says why no file can hold b, nil when one can. Compressed batches are held only to
// the header's minimum (the codec decides their size), and so are batches with an explicit
// base offset: they are replays of real logs, where compaction leaves batches with fewer
// records than the offsets they span, down to the cleaner's empty batch (61 bytes).
func (b Batch) Possible() error {
	if b.Compressed || b.BaseOffset != 0 {
		if least := MinBatchBytes(0, b.Legacy); b.Bytes < least {
			return fmt.Errorf("%d bytes is less than %d, the smallest header", b.Bytes, least)
		}
		return nil
	}
	return PossibleBatchError(b.Records, b.Bytes, b.Legacy)
}

// PossibleRecords is the record count nearest to want (at most want when one fits) that a
// v2 batch of bytes bytes can hold; 0 when bytes holds not even one record.
func PossibleRecords(bytes, want int64) int64 {
	n := min(max(want, 1), MaxBatchRecords(bytes))
	if n == 1 && oneRecordHole(bytes) {
		n = 2 // every hole is far above the smallest batch of 2 records (75 bytes)
	}
	return n
}

// Magic is the format's magic byte: 0, 1, or 2 for NotLegacy.
func (m LegacyMagic) Magic() int {
	switch m {
	case Magic0:
		return 0
	case Magic1:
		return 1
	}
	return 2
}

func recordsText(n int64) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}

// ImpossibleBatches counts the batches of a workload no file can hold, keeping the first
// (kidx sim warns with it; the model runs them all the same).
type ImpossibleBatches struct {
	Count int64
	// FirstStep and FirstBatch place the first one: its step and its place in the append.
	FirstStep, FirstBatch int
	First                 Batch
	FirstErr              error
	steps                 int
}

// Add looks at the next steps of the workload.
func (t *ImpossibleBatches) Add(steps []Step) {
	for _, s := range steps {
		for j, b := range s.Append {
			if err := b.Possible(); err != nil {
				if t.Count == 0 {
					t.FirstStep, t.FirstBatch, t.First, t.FirstErr = t.steps, j, b, err
				}
				t.Count++
			}
		}
		t.steps++
	}
}

// String is one line: how many, and the first.
func (t *ImpossibleBatches) String() string {
	if t.Count == 0 {
		return ""
	}
	what := "1 batch"
	if t.Count > 1 {
		what = fmt.Sprintf("%d batches", t.Count)
	}
	return fmt.Sprintf("%s no file can hold (the model runs them all the same; kidx write refuses them): the first, step %d batch %d (%s, %d bytes): %v",
		what, t.FirstStep, t.FirstBatch, recordsText(t.First.Records), t.First.Bytes, t.FirstErr)
}

// PossibleBytes is the smallest size of at least bytes bytes that a v2 batch of records
// records can have: raised to MinBatchBytes, and past a 1-record size no record makes. For
// generators, which draw sizes and must yield only batches that can exist.
func PossibleBytes(records, bytes int64) int64 {
	b := max(bytes, MinBatchBytes(records, NotLegacy))
	if records == 1 && oneRecordHole(b) {
		b++
	}
	return b
}
