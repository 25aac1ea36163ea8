package segment_test

import (
	"path/filepath"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// Parsers never panic on arbitrary bytes.
func FuzzParsers(f *testing.F) {
	f.Add(segmenttest.ThreeBatches())
	f.Add([]byte{})
	f.Add(make([]byte, 61))
	f.Fuzz(func(t *testing.T, data []byte) {
		segment.ParseBatchHeader(data, "fuzz", 0)
		segment.DecodeRecords(data, "fuzz", 0)
		segment.ParseLegacyHeader(data, "fuzz", 0)
		segment.ParseOffsetIndex(data, 0)
		segment.ParseTimeIndex(data, 0)
		segment.CheckBatch(data, "fuzz", 0)
	})
}

// FuzzLogWalk: the .log walk on arbitrary file contents.
func FuzzLogWalk(f *testing.F) {
	f.Add(segmenttest.ThreeBatches())
	f.Add(segmenttest.ThreeBatches()[:100])
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
		testfiles.MustWrite(t, path, data)
		lf, err := segment.OpenLog(path)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		lf.Walk(0, 0, func(b segment.BatchInfo) bool {
			lf.CheckBatch(b)
			lf.RecordTimestamps(b, func(int64, int64) bool { return true })
			return true
		})
	})
}

// A recipe's repeat counts and sizes are bounded: the 68-byte input found by FuzzWorkloadJSON
// asked for 2^31-1 batches and exhausted memory.
func TestRecipeBounds(t *testing.T) {
	for _, in := range []string{
		`{"appends": [{"repeat": 2147483647, "batches": [{"records": 1}]}]}`,
		`{"appends": [{"batches": [{"records": 1, "repeat": 2147483647}]}]}`,
		`{"appends": [{"repeat": 2000, "batches": [{"records": 1, "repeat": 2000}]}]}`,
		`{"appends": [{"batches": [{"records": 1, "repeat": -1}]}]}`,
		`{"appends": [{"batches": [{"records": 2147483647}]}]}`,
		`{"appends": [{"batches": [{"records": 1, "valueBytes": 2147483647}]}]}`,
	} {
		if _, err := segment.ParseRecipe([]byte(in)); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
	if _, err := segment.ParseRecipe([]byte(`{"appends": [{"repeat": 63, "batches": [{"records": 79, "valueBytes": 197}]}]}`)); err != nil {
		t.Errorf("a golden-sized recipe: %v", err)
	}
}
