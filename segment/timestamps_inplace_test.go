package segment

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"kidx/internal/testfiles"
)

// The walk parses a whole header with parseWholeBatchHeader: it must give every field of the
// v2 header (DefaultRecordBatch, docs/kafka.md §1.3) exactly as ParseBatchHeader's checked
// reader does.
func TestParseWholeBatchHeaderIsParseBatchHeader(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	b := make([]byte, RecordBatchOverhead)
	for i := 0; i < 2000; i++ {
		rng.Read(b)
		want, err := ParseBatchHeader(b, "x.log", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseWholeBatchHeader(b); got != want {
			t.Fatalf("header %x: parseWholeBatchHeader %+v, ParseBatchHeader %+v", b, got, want)
		}
	}
}

// timestampsOf is what RecordTimestamps gives fn, stopping after stopAfter records (< 0: never),
// and its error.
func timestampsOf(l *LogFile, b BatchInfo, stopAfter int) string {
	var out bytes.Buffer
	n := 0
	err := l.RecordTimestamps(b, func(off, ts int64) bool {
		fmt.Fprintf(&out, "(%d,%d)", off, ts)
		n++
		return n != stopAfter
	})
	fmt.Fprintf(&out, " err=%v", err)
	return out.String()
}

// RecordTimestamps reads uncompressed v2 batches in place (bytes in memory, or mapped); the
// records it reports and the error it returns must be those of Kafka's record iteration as
// Records decodes it (DefaultRecordBatch.iterator, DefaultRecord.readFrom: issue 13 item 2
// asks for speed "without changing any result"). The reference is a pread LogFile, which has
// no in-place path and goes through Records. Batches are damaged at random bytes after the
// size field (attributes, record count and records included), so that every refusal of
// readV2Record, the compressed and control fallbacks, and a stop in mid-batch are met.
func TestRecordTimestampsInPlaceIsRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	dir := t.TempDir()
	path := filepath.Join(dir, FilenamePrefixFromOffset(100)+LogSuffix)
	checked, damaged := 0, 0
	for i := 0; i < 600; i++ {
		var recs []RecordSpec
		for j := 0; j < 1+rng.Intn(12); j++ {
			r := RecordSpec{Timestamp: 1_700_000_000_000 + rng.Int63n(5000) - 2500}
			if rng.Intn(2) == 0 {
				r.Key = make([]byte, rng.Intn(5))
			}
			if rng.Intn(4) != 0 {
				r.Value = make([]byte, rng.Intn(200))
			}
			recs = append(recs, r)
		}
		opts := BatchDefaults
		if rng.Intn(4) == 0 {
			opts.Attributes = 0x08 // LogAppendTime: every record reports the batch's max timestamp
		}
		data := AppendBatch(nil, 100, recs, opts)
		switch {
		case i%6 == 0:
		case i%6 == 1:
			// One record fewer counted than written: bytes left after the last record.
			data[60]--
			damaged++
		default:
			for k := 0; k < 1+rng.Intn(3); k++ {
				data[12+rng.Intn(len(data)-12)] = byte(rng.Intn(256))
			}
			damaged++
		}
		testfiles.MustWrite(t, path, data)
		mem := LogFileFromBytes(path, data)
		mapped, err := OpenLogWith(path, AccessMmap)
		if err != nil {
			t.Fatal(err)
		}
		ref := logFileOn(path, bytes.NewReader(data), int64(len(data)))
		b, err := ref.NextBatch(0, ref.Size())
		if err != nil {
			mapped.Close()
			continue
		}
		for _, stop := range []int{-1, 1, 3} {
			want := timestampsOf(ref, b, stop)
			if got := timestampsOf(mem, b, stop); got != want {
				t.Fatalf("case %d, stop %d: in memory %s, Records %s", i, stop, got, want)
			}
			if got := timestampsOf(mapped, b, stop); got != want {
				t.Fatalf("case %d, stop %d: mapped %s, Records %s", i, stop, got, want)
			}
			checked++
		}
		mapped.Close()
	}
	if checked < 1000 || damaged < 400 {
		t.Fatalf("only %d comparisons (%d damaged batches)", checked, damaged)
	}
}
