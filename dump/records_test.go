package dump

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"kidx/codec"
	"kidx/internal/segmenttest"
	"kidx/segment"
)

// The record lines of DumpLogSegments.dumpLog: "| offset: O <batch timestampType>: T keySize:
// K valueSize: V", " sequence: S headerKeys: [a,b]" for magic >= 2, " isValid: B crc: C}" for
// legacy records (Kafka's Scala prints the stray brace), then the control text. Expected
// lines for the real file are read off its bytes: the first message of hamlet-none-0 is
// size 0x36, CRC 0x7a5c91c4 = 2052886980, magic 0, null key, a 40-byte value; the gzip
// wrapper holding it is at position 0: offset 253, size field 6278 (6290 bytes on disk),
// CRC 0xde28f1ac = 3727225260.
func TestDumpDeepIterationRealKafka08(t *testing.T) {
	var out strings.Builder
	path := segmenttest.RealdataPath(t, "kafkalite/hamlet-gzip-0/00000000000000000000.log")
	if err := File(&out, path, Options{Deep: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[2] != "offset: 253 position: 0 NoTimestampType: -1 size: 6290 magic: 0 compresscodec: gzip crc: 3727225260 isvalid: true" ||
		lines[3] != "| offset: 0 NoTimestampType: -1 keySize: -1 valueSize: 40 isValid: true crc: 2052886980}" {
		t.Fatalf("gzip wrapper dump:\n%s\n%s", lines[2], lines[3])
	}
	if n := strings.Count(out.String(), "\n| offset: "); n != 5382 {
		t.Fatalf("%d record lines, want 5382", n)
	}
}

// The same record lines for batches built here (expected lines written from the record
// fields, per DumpLogSegments.dumpLog's format), a corrupt batch the dump goes past, and the
// JSON form.
func TestDumpDeepIterationBuiltBatches(t *testing.T) {
	var out strings.Builder
	section := segmenttest.V2Records(segmenttest.SampleRecs)
	marker := segmenttest.V2Records([]segmenttest.Rec{{Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 3}}})
	inner := bytes.Join([][]byte{segmenttest.LegacyMsg(0, 1, 0, 50, nil, []byte("a")), segmenttest.LegacyMsg(1, 1, 0, 60, nil, []byte("b"))}, nil)
	lf, _ := segmenttest.OpenBytes(t,
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 0, Attrs: int16(codec.Zstd), LastDelta: 2, BaseTs: 1000, MaxTs: 1009, BaseSeq: 7, Count: 3}, segmenttest.Franz(t, codec.Zstd, section)),
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 3, Attrs: 0x30, BaseTs: 2000, MaxTs: 2000, BaseSeq: -1, Count: 1, ProducerID: 4}, marker),
		segmenttest.LegacyMsg(6, 1, byte(codec.Snappy), 77, nil, segmenttest.Franz(t, codec.Snappy, inner)), // inner 5, 6: a gap after 3
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 7, Attrs: int16(codec.Gzip), BaseSeq: -1, Count: 5}, []byte("corrupt gzip")),
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 12, LastDelta: 0, BaseTs: 3, MaxTs: 3, BaseSeq: -1, Count: 1}, segmenttest.V2Records(segmenttest.SampleRecs[:1])),
	)
	lf.Close()
	out.Reset()
	var stderr strings.Builder
	err := File(&out, lf.Path, Options{Deep: true, Stderr: &stderr})
	var fe *segment.FormatError
	if !errors.As(err, &fe) || fe.Pos != 61+int64(len(segmenttest.V2Batch(segmenttest.V2Hdr{}, segmenttest.Franz(t, codec.Zstd, section))))+int64(len(segmenttest.V2Batch(segmenttest.V2Hdr{}, marker)))+int64(len(segmenttest.LegacyMsg(6, 1, 2, 77, nil, segmenttest.Franz(t, codec.Snappy, inner)))) {
		t.Fatalf("dump error %v", err)
	}
	want := []string{
		"| offset: 0 CreateTime: 1000 keySize: 2 valueSize: 2 sequence: 7 headerKeys: []",
		"| offset: 1 CreateTime: 1005 keySize: -1 valueSize: 9 sequence: 8 headerKeys: [a,b]",
		"| offset: 2 CreateTime: 1009 keySize: 2 valueSize: -1 sequence: 9 headerKeys: [trace]",
		"| offset: 3 CreateTime: 2000 keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 3",
		"| offset: 5 CreateTime: 50 keySize: -1 valueSize: 1 isValid: true crc: " + fmt.Sprint(crc32.ChecksumIEEE(inner[16:segmenttest.LegacyLen(inner)])) + "}",
		"| offset: 6 CreateTime: 60 keySize: -1 valueSize: 1 isValid: true crc: " + fmt.Sprint(crc32.ChecksumIEEE(inner[segmenttest.LegacyLen(inner)+16:])) + "}",
		"| offset: 12 CreateTime: 3 keySize: 2 valueSize: 2 sequence: -1 headerKeys: []",
	}
	var got []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| ") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("record lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Non-consecutive offsets, inner legacy offsets included (printed newest first).
	if want := "  6 is followed by 12\n  3 is followed by 5\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Fatalf("stderr:\n%s", stderr.String())
	}

	// JSON: legacy batches have count null and -1 for the v2-only fields
	// (AbstractLegacyRecordBatch); legacy records carry isValid and crc; control records
	// their text; the failing batch its error.
	out.Reset()
	_ = File(&out, lf.Path, Options{Deep: true, JSON: true})
	var res struct {
		Batches []map[string]any `json:"batches"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	leg := res.Batches[2]
	for _, k := range []string{"baseSequence", "lastSequence", "producerId", "producerEpoch", "partitionLeaderEpoch"} {
		if leg[k] != float64(-1) {
			t.Fatalf("legacy %s = %v", k, leg[k])
		}
	}
	if leg["count"] != nil || leg["timestampType"] != "CreateTime" {
		t.Fatalf("legacy batch %v", leg)
	}
	r0 := leg["records"].([]any)[0].(map[string]any)
	if r0["isValid"] != true || r0["offset"] != float64(5) || r0["crc"] == nil {
		t.Fatalf("legacy record %v", r0)
	}
	if c := res.Batches[1]["records"].([]any)[0].(map[string]any)["control"]; c != "endTxnMarker: COMMIT coordinatorEpoch: 3" {
		t.Fatalf("control %v", c)
	}
	if e, _ := res.Batches[3]["recordsError"].(string); !strings.Contains(e, "gzip") {
		t.Fatalf("recordsError %q", e)
	}
	if _, ok := res.Batches[0]["records"].([]any)[0].(map[string]any)["isValid"]; ok {
		t.Fatal("v2 record with isValid")
	}
}
