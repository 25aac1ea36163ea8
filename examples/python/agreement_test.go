package python

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"kidx/examples/goreader/kafkaindex"
	"kidx/examples/internal/handmade"
)

// hostileSegment is a segment of v2 and legacy entries with random sizes, then damaged as
// the parser fuzzers damage files (issue 14: truncations, zero tails, flipped bytes, hostile
// length fields, entries out of order).
func hostileSegment(rng *rand.Rand, base int64) (log, index []byte) {
	offset := base + int64(rng.IntN(5))
	var positions []int
	var lasts []int64
	for n := rng.IntN(8); n > 0; n-- {
		positions = append(positions, len(log))
		if rng.IntN(4) == 0 { // legacy v0/v1
			magic := byte(rng.IntN(2))
			size := 14 + 8*int(magic) + rng.IntN(20)
			b := make([]byte, 12+size)
			binary.BigEndian.PutUint64(b, uint64(offset))
			binary.BigEndian.PutUint32(b[8:], uint32(size))
			b[16] = magic
			log, lasts = append(log, b...), append(lasts, offset)
			offset++
			continue
		}
		delta := int32(rng.IntN(6))
		b := make([]byte, 61+rng.IntN(60))
		binary.BigEndian.PutUint64(b, uint64(offset))
		binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
		b[16] = 2
		binary.BigEndian.PutUint32(b[23:], uint32(delta))
		log, lasts = append(log, b...), append(lasts, offset+int64(delta))
		offset += int64(delta) + 1
	}
	for i := range positions {
		if i > 0 && rng.IntN(2) == 0 {
			index = binary.BigEndian.AppendUint32(index, uint32(lasts[i]-base))
			index = binary.BigEndian.AppendUint32(index, uint32(positions[i]))
		}
	}
	hostile := []uint32{0, 13, 14, 40, 0x7fffffff, 0x80000000, 0xfffffff4, 0xffffffff}
	for k := rng.IntN(4); k > 0; k-- {
		switch rng.IntN(6) {
		case 0:
			if len(log) > 0 {
				log = log[:rng.IntN(len(log))]
			}
		case 1:
			index = append(index, make([]byte, 8*(1+rng.IntN(4)))...)
		case 2:
			if len(log) > 0 {
				log[rng.IntN(len(log))] ^= byte(1 + rng.IntN(255))
			}
		case 3:
			if len(positions) > 0 && positions[len(positions)-1]+12 <= len(log) {
				at := positions[rng.IntN(len(positions))]
				if at+12 <= len(log) {
					binary.BigEndian.PutUint32(log[at+8:], hostile[rng.IntN(len(hostile))])
				}
			}
		case 4:
			if len(index) >= 16 {
				a, b := 8*rng.IntN(len(index)/8), 8*rng.IntN(len(index)/8)
				var tmp [8]byte
				copy(tmp[:], index[a:a+8])
				copy(index[a:a+8], index[b:b+8])
				copy(index[b:b+8], tmp[:])
			}
		case 5:
			if len(index) >= 8 {
				at := 4 * rng.IntN(len(index)/4)
				binary.BigEndian.PutUint32(index[at:], hostile[rng.IntN(len(hostile))])
			}
		}
	}
	return log, index
}

// The Python reader and the Go reader (package kafkaindex) are written apart from the same
// rules; on 300 hostile segments (30 of them at the top of the offset range) they give the same answer to every query, and the Python one
// never crashes (a non-zero exit would be a crash in the protocol). One process answers them all.
func TestAgreesWithGoReaderOnHostileSegments(t *testing.T) {
	py := python3(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(14, 4))
	type query struct {
		Segment    string `json:"segment"`
		BaseOffset int64  `json:"baseOffset"`
		Offset     int64  `json:"offset"`
	}
	var queries []query
	for i := 0; i < 300; i++ {
		base := int64(1000 * i)
		if i >= 270 {
			base = 1<<63 - 1 - int64(i-270) // offsets that wrap: Java's long addition, Go's int64
		}
		log, index := hostileSegment(rng, base)
		stem := kafkaindex.SegmentName(base)
		if err := os.WriteFile(filepath.Join(dir, stem+".log"), log, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, stem+".index"), index, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, rel := range []int64{-1, 0, 1, 2, 3, 5, 8, 13, 21, 40} {
			queries = append(queries, query{stem, base, base + rel})
		}
	}
	req, err := json.Marshal(map[string]any{"protocol": 1, "partition": dir, "queries": queries})
	if err != nil {
		t.Fatal(err)
	}
	r := runReader(t, py, []string{dir}, req)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines, err := handmade.ParseLines(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(queries) {
		t.Fatalf("%d lines for %d queries", len(lines), len(queries))
	}
	kinds := map[string]int{}
	for i, q := range queries {
		seg, err := kafkaindex.Open(dir, q.BaseOffset)
		if err != nil {
			t.Fatal(err)
		}
		a := seg.Lookup(q.Offset)
		seg.Close()
		var want handmade.Line
		switch {
		case a.Err != nil:
			msg, file, at := a.Err.Message, a.Err.File, a.Err.Byte
			want = handmade.Line{Error: &msg, File: &file, Byte: &at}
			kinds["error"]++
		case a.Hit < 0:
			want = handmade.Line{Start: &a.Start, Hit: &a.Hit}
			kinds["end"]++
		default:
			want = handmade.Line{Start: &a.Start, Hit: &a.Hit}
			kinds["hit"]++
		}
		if m := handmade.Mismatch(want, lines[i]); m != "" {
			t.Errorf("segment %s offset %d: Go and Python differ: %s", q.Segment, q.Offset, m)
		}
	}
	// The cases must reach all three kinds of answer, or the comparison shows little.
	for _, k := range []string{"error", "end", "hit"} {
		if kinds[k] < 50 {
			t.Errorf("only %d answers of kind %s: %v", kinds[k], k, kinds)
		}
	}
	t.Logf("answers: %v", kinds)
}
