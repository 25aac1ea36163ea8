package segmenttest

import (
	"path/filepath"

	"kidx/segment"
)

// WriteUniformSegment writes a partition directory dir holding one closed segment of batches
// batches of batchBytes bytes each (79 records, one timestamp), under the per-batch rule at
// Kafka's defaults (index.interval.bytes 4096: every batch of 4 KiB or more is indexed), and
// returns the .log's path. 1<<16 batches of 16 KiB is the 1 GiB segment of the analyze
// benchmarks, 1<<14 the 268,435,456-byte one.
func WriteUniformSegment(dir string, batches, batchBytes int) (string, error) {
	return writeRepeatedBatch(dir, batches, 79, batchBytes)
}

// SmallestBatchBytes is the size of a v2 batch of one record with no key, an empty value and
// no headers: the 61-byte batch header and a 7-byte record (issue 27's 68-byte batches).
const SmallestBatchBytes = 68

// WriteSmallBatchSegment writes a partition directory dir holding one closed segment of
// batches one-record batches of SmallestBatchBytes each (one timestamp), as
// WriteUniformSegment does: 31,580,641 of them make the largest segment Kafka holds
// (2^31-1 bytes), the most batches a segment can have.
func WriteSmallBatchSegment(dir string, batches int) (string, error) {
	return writeRepeatedBatch(dir, batches, 1, SmallestBatchBytes)
}

// writeRepeatedBatch writes one closed segment of batches copies of one batch of records
// records and batchBytes bytes, under the per-batch rule with segment.bytes at Kafka's
// largest, and returns the .log's path.
func writeRepeatedBatch(dir string, batches, records, batchBytes int) (string, error) {
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 1<<31 - 1
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		return "", err
	}
	batch, err := segment.BuildSizedBatch(0, records, batchBytes, 1_700_000_000_000)
	if err != nil {
		return "", err
	}
	for range batches {
		if _, err := l.Append(batch); err != nil {
			return "", err
		}
	}
	if err := l.Close(); err != nil {
		return "", err
	}
	return filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix), nil
}
