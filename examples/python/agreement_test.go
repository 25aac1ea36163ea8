package python

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

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
		if rng.IntN(6) == 0 { // a gzip'd v1 wrapper of 1-3 inner messages, or a gzip'd v2 batch of records
			var b []byte
			var last int64
			if rng.IntN(2) == 0 {
				b, last = gzipWrapper(rng, offset)
			} else {
				b, last = gzipV2Batch(rng, offset)
			}
			log, lasts = append(log, b...), append(lasts, last)
			offset = last + 1
			continue
		}
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
		binary.BigEndian.PutUint64(b[35:], uint64(rng.IntN(3))) // max timestamp 0..2
		log, lasts = append(log, b...), append(lasts, offset+int64(delta))
		offset += int64(delta) + 1
	}
	for i := range positions {
		if i > 0 && rng.IntN(2) == 0 {
			index = binary.BigEndian.AppendUint32(index, uint32(lasts[i]-base))
			index = binary.BigEndian.AppendUint32(index, uint32(positions[i]))
		}
	}
	hostile := []uint32{0, 13, 14, 26, 40, 0x7fffffff, 0x80000000, 0xfffffff4, 0xffffffff}
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
			if len(positions) > 0 && rng.IntN(2) == 0 { // a magic byte read below 2, or a base offset moved
				if at := positions[rng.IntN(len(positions))]; at+17 <= len(log) {
					log[at+16] = byte(rng.IntN(4)) - 1
				}
				if at := positions[rng.IntN(len(positions))]; at+8 <= len(log) {
					log[at+7] ^= byte(rng.IntN(4))
				}
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

// gzipWrapper is a v1 gzip wrapper (docs/kafka.md §1.4) of 1-3 inner v1 messages of relative
// offsets, sometimes log-append time, sometimes damaged inside (an inner size under 14, a
// compressed inner message, a null value, a truncated stream); its offset is the last inner one.
func gzipWrapper(rng *rand.Rand, first int64) ([]byte, int64) {
	n := 1 + rng.IntN(3)
	var inner []byte
	for i := 0; i < n; i++ {
		m := legacyMessage(1, int64(i), 0, int64(1000+rng.IntN(3)), []byte("v"))
		if rng.IntN(12) == 0 {
			m[17] = byte(1 + rng.IntN(7)) // a compressed or unknown codec inside
		}
		if rng.IntN(15) == 0 {
			binary.BigEndian.PutUint32(m[8:], uint32(rng.IntN(14))) // a size under 14
		}
		inner = append(inner, m...)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(inner)
	w.Close()
	value := z.Bytes()
	if rng.IntN(12) == 0 {
		value = value[:rng.IntN(len(value))]
	}
	last := first + int64(n) - 1
	attributes := byte(1)
	if rng.IntN(3) == 0 {
		attributes |= 0x08 // log-append time: the wrapper's timestamp for every inner message
	}
	b := legacyMessage(1, last, attributes, int64(1000+rng.IntN(3)), value)
	if rng.IntN(15) == 0 {
		binary.BigEndian.PutUint32(b[len(b)-len(value)-4:], 0xffffffff) // a null value
		b = b[:len(b)-len(value)]
		binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	}
	return b, last
}

// legacyMessage is an entry of one v0/v1 message with a null key (docs/kafka.md §1.4).
func legacyMessage(magic byte, offset int64, attributes byte, timestamp int64, value []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint64(b, uint64(offset))
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, magic, attributes) // size and crc (unchecked by lookups)
	if magic == 1 {
		b = binary.BigEndian.AppendUint64(b, uint64(timestamp))
	}
	b = binary.BigEndian.AppendUint32(b, 0xffffffff)
	b = binary.BigEndian.AppendUint32(b, uint32(len(value)))
	b = append(b, value...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	return b
}

// gzipV2Batch is a v2 batch of 1-4 records (docs/kafka.md §1.3), gzip'd or not, sometimes
// log-append time, with record bytes sometimes damaged.
func gzipV2Batch(rng *rand.Rand, base int64) ([]byte, int64) {
	n := 1 + rng.IntN(4)
	var records []byte
	for i := 0; i < n; i++ {
		// body: attributes, timestamp delta, offset delta, null key, one-byte value, no header
		records = append(records, 14, 0, byte(rng.IntN(4))<<1, byte(i)<<1, 1, 2, 'v', 0)
	}
	if rng.IntN(6) == 0 {
		records[rng.IntN(len(records))] = byte(rng.IntN(256))
	}
	attributes := uint16(0)
	if rng.IntN(3) > 0 {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(records)
		w.Close()
		records, attributes = z.Bytes(), 1
	}
	if rng.IntN(4) == 0 {
		attributes |= 0x08
	}
	b := make([]byte, 61, 61+len(records))
	b = append(b, records...)
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	b[16] = 2
	binary.BigEndian.PutUint16(b[21:], attributes)
	binary.BigEndian.PutUint32(b[23:], uint32(n-1))
	binary.BigEndian.PutUint64(b[27:], 1000)
	binary.BigEndian.PutUint64(b[35:], uint64(1000+rng.IntN(4)))
	binary.BigEndian.PutUint32(b[57:], uint32(n))
	return b, base + int64(n) - 1
}

// The Python reader and the Go reader (package kafkaindex) are written apart from the same
// rules; on 150 hostile segments (15 of them at the top of the offset range; gzip'd wrappers and
// batches among them) they give the same answer to every offset, timestamp and segment query,
// in every release line (in both index views for each variant of phase 1), and the Python one never crashes (a non-zero exit
// would be a crash in the protocol). One Python process answers them all, in the long-lived
// mode: one request per release line and view.
func TestAgreesWithGoReaderOnHostileSegments(t *testing.T) {
	py := python3(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(14, 4))
	type query struct {
		Kind       string `json:"kind"`
		Segment    string `json:"segment,omitempty"`
		BaseOffset int64  `json:"baseOffset"`
		Offset     int64  `json:"offset"`
		Timestamp  int64  `json:"timestamp"`
	}
	var queries []query
	for i := 0; i < 150; i++ {
		base := int64(1000 * i)
		if i >= 135 {
			base = 1<<63 - 1 - int64(i-135) // offsets that wrap: Java's long addition, Go's int64
		}
		log, index := hostileSegment(rng, base)
		var timeIndex []byte // (timestamp, relative offset) slots, sometimes a zero tail
		for n := rng.IntN(4); n > 0; n-- {
			timeIndex = binary.BigEndian.AppendUint64(timeIndex, uint64(999+rng.IntN(6)))
			timeIndex = binary.BigEndian.AppendUint32(timeIndex, uint32(rng.IntN(12)))
		}
		if rng.IntN(3) == 0 {
			timeIndex = append(timeIndex, make([]byte, 12*rng.IntN(3))...)
		}
		stem := kafkaindex.SegmentName(base)
		for name, b := range map[string][]byte{".log": log, ".index": index, ".timeindex": timeIndex} {
			if err := os.WriteFile(filepath.Join(dir, stem+name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, rel := range []int64{-1, 0, 1, 2, 3, 5, 8, 13, 21, 40} {
			queries = append(queries, query{Kind: "offset", Segment: stem, BaseOffset: base, Offset: base + rel})
		}
		for _, ts := range []int64{-1, 0, 1000, 1002} {
			queries = append(queries, query{Kind: "timestamp", Segment: stem, BaseOffset: base, Timestamp: ts})
		}
		queries = append(queries, query{Kind: "segment", Offset: base + int64(rng.IntN(2000)) - 1000})
	}
	var stdin bytes.Buffer
	type request struct{ release, view string }
	var requests []request
	for _, r := range kafkaindex.Releases {
		// The view changes phase 1 only, whose variants are 0.8's, the plain search and the warm one.
		views := []kafkaindex.View{kafkaindex.ViewRunning}
		if r == kafkaindex.Release08 || r == kafkaindex.Release011 || r == kafkaindex.Release21 {
			views = append(views, kafkaindex.ViewReopened)
		}
		for _, v := range views {
			req, err := json.Marshal(map[string]any{"protocol": 2, "partition": dir, "release": r.String(), "indexView": v.String(), "queries": queries})
			if err != nil {
				t.Fatal(err)
			}
			stdin.Write(append(req, '\n'))
			requests = append(requests, request{r.String(), v.String()})
		}
	}
	r, hung := runReaderFor(t, 2*time.Minute, py, []string{"-"}, stdin.Bytes())
	if hung || r.code != 0 {
		t.Fatalf("hung %v, exit %d\n%s", hung, r.code, r.stderr)
	}
	lines, err := handmade.ParseLines(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(queries)*len(requests) {
		t.Fatalf("%d lines for %d queries", len(lines), len(queries)*len(requests))
	}
	segments := map[string]*kafkaindex.Segment{}
	defer func() {
		for _, s := range segments {
			s.Close()
		}
	}()
	kinds := map[string]int{}
	mismatches := 0
	for ri, req := range requests {
		release, _ := kafkaindex.ParseRelease(req.release)
		view, _ := kafkaindex.ParseView(req.view)
		rules := kafkaindex.Rules{Release: release, View: view}
		for qi, q := range queries {
			var want handmade.Line
			kind := q.Kind
			switch q.Kind {
			case "segment":
				base, err := kafkaindex.FloorSegment(dir, q.Offset)
				if err != nil {
					t.Fatal(err)
				}
				want = handmade.Line{BaseOffset: &base}
			case "offset", "timestamp":
				seg := segments[q.Segment]
				if seg == nil {
					if seg, err = kafkaindex.Open(dir, q.BaseOffset); err != nil {
						t.Fatal(err)
					}
					segments[q.Segment] = seg
				}
				var rerr *kafkaindex.ReadError
				if q.Kind == "offset" {
					a := seg.LookupAs(q.Offset, rules)
					rerr = a.Err
					want = handmade.Line{Start: &a.Start, Hit: &a.Hit}
					if a.Hit < 0 {
						kind += "-end"
					}
				} else {
					a := seg.LookupTimestamp(q.Timestamp, rules)
					rerr = a.Err
					want = handmade.Line{Start: &a.Start, Offset: &a.Offset, Timestamp: &a.Timestamp}
					if a.Offset < 0 {
						kind += "-none"
					}
				}
				if rerr != nil {
					msg, file, at := rerr.Message, rerr.File, rerr.Byte
					want = handmade.Line{Error: &msg, File: &file, Byte: &at}
					kind = q.Kind + "-error"
				}
			}
			kinds[kind]++
			if m := handmade.Mismatch(want, lines[ri*len(queries)+qi]); m != "" {
				if mismatches++; mismatches <= 20 {
					t.Errorf("%s %s: %s %s offset %d timestamp %d: Go and Python differ: %s", req.release, req.view, q.Kind, q.Segment, q.Offset, q.Timestamp, m)
				}
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d mismatches in all", mismatches)
	}
	// The cases must reach every kind of answer, or the comparison shows little.
	for _, k := range []string{"offset", "offset-end", "offset-error", "timestamp", "timestamp-none", "timestamp-error", "segment"} {
		if kinds[k] < 200 {
			t.Errorf("only %d answers of kind %s: %v", kinds[k], k, kinds)
		}
	}
	t.Logf("answers: %v", kinds)
}
