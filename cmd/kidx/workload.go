package main

import (
	"os"

	"kidx/model"
)

// readWorkload reads and parses a docs/contract.md §3 workload file; errors name the file and the step
// and field (or the byte of a JSON syntax error).
func readWorkload(path string) (model.Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return model.Workload{}, usageErr("%v", err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		return model.Workload{}, usageErr("%s: %v", path, err)
	}
	return w, nil
}

// seedTimestampBase is the timestamp of offset 0 in the built-in generator, the same base
// the golden vectors use (1700000000000 + the batch's base offset).
const seedTimestampBase = 1_700_000_000_000

// generatedWorkload is the built-in generator of `kidx sim`: records split into batches of
// batchRecords, every full batch batchBytes bytes; a last partial batch of r records shrinks
// its bytes in proportion (batchBytes*r/batchRecords), to at least the smallest batch of r
// records (model.PossibleBytes). Each batch's max timestamp is seedTimestampBase + its base offset.
func generatedWorkload(batchBytes, batchRecords, records int64) model.Workload {
	var batches []model.Batch
	for off := int64(0); off < records; {
		b := builtinBatch(batchBytes, batchRecords, records, off)
		batches = append(batches, b)
		off += b.Records
	}
	return model.BatchesWorkload(batches)
}

// builtinBatch is the built-in generator's batch at base offset off (generatedWorkload).
func builtinBatch(batchBytes, batchRecords, records, off int64) model.Batch {
	n := min(batchRecords, records-off)
	size := batchBytes
	if n < batchRecords {
		size = model.PossibleBytes(n, batchBytes*n/batchRecords)
	}
	return model.Batch{Records: n, Bytes: size, MaxTimestamp: seedTimestampBase + off}
}
