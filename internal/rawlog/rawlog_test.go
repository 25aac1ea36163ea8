package rawlog

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// Hand-made entries. Only the fields rawlog reads are meaningful; CRCs are left zero (rawlog
// does not check them).

// v2 is a v2 batch of total bytes on disk (>= 61) with the given base offset and lastOffsetDelta.
func v2(base int64, lastDelta int32, total int) []byte {
	b := make([]byte, total)
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(total-12))
	b[16] = 2
	binary.BigEndian.PutUint32(b[23:], uint32(lastDelta))
	binary.BigEndian.PutUint32(b[57:], uint32(lastDelta+1))
	return b
}

// legacy is a v0 or v1 message with a null key: 26 + len(value) bytes (v0), 34 + len(value) (v1).
func legacy(magic byte, offset int64, codec byte, value []byte) []byte {
	var m []byte
	m = binary.BigEndian.AppendUint64(m, uint64(offset))
	m = binary.BigEndian.AppendUint32(m, 0) // size, set below
	m = binary.BigEndian.AppendUint32(m, 0) // crc
	m = append(m, magic, codec)
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, 1700000000000)
	}
	m = binary.BigEndian.AppendUint32(m, 0xffffffff) // key -1
	m = binary.BigEndian.AppendUint32(m, uint32(len(value)))
	m = append(m, value...)
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	return m
}

func messageSet(magic byte, offsets ...int64) []byte {
	var set []byte
	for _, o := range offsets {
		set = append(set, legacy(magic, o, CodecNone, []byte("v"))...)
	}
	return set
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// xerial frames b as Kafka 0.8's snappy output stream does, in blocks of at most 8 bytes of
// input so that several blocks are needed.
func xerial(b []byte) []byte {
	out := append([]byte{}, xerialMagic...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 1)
	for len(b) > 0 {
		n := min(len(b), 8)
		blk := snappy.Encode(nil, b[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
		out = append(out, blk...)
		b = b[n:]
	}
	return out
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func idx(slots ...[2]int32) []byte {
	var b []byte
	for _, s := range slots {
		b = binary.BigEndian.AppendUint32(b, uint32(s[0]))
		b = binary.BigEndian.AppendUint32(b, uint32(s[1]))
	}
	return b
}

// logA: a 70-byte v2 batch 100..102 at 0, a 31-byte v0 message 103 at 70, a 61-byte v2 batch
// 104 at 101, then 10 stray bytes (fewer than 18: the reader ignores them). ValidBytes 162.
func logA() []byte {
	return cat(v2(100, 2, 70), legacy(0, 103, CodecNone, []byte("hello")), v2(104, 0, 61), make([]byte, 10))
}

func TestParseLogHandMade(t *testing.T) {
	data := logA()
	if len(data) != 172 {
		t.Fatalf("logA is %d bytes, want 172", len(data))
	}
	bs, valid, err := ParseLog(data, "a.log")
	if err != nil {
		t.Fatal(err)
	}
	want := []Batch{
		{Position: 0, Size: 70, Magic: 2, Offset: 100, First: 100, Last: 102, Messages: 3},
		{Position: 70, Size: 31, Magic: 0, Offset: 103, First: 103, Last: 103, Messages: 1},
		{Position: 101, Size: 61, Magic: 2, Offset: 104, First: 104, Last: 104, Messages: 1},
	}
	if !slices.Equal(bs, want) || valid != 162 {
		t.Fatalf("ParseLog = %+v, %d\nwant %+v, 162", bs, valid, want)
	}
	l := &Log{Data: data, Batches: bs}
	if got := l.Offsets(); !slices.Equal(got, []int64{100, 101, 102, 103, 104}) {
		t.Errorf("Offsets = %v", got)
	}
}

func TestParseLogTailsAndCorruption(t *testing.T) {
	// A second batch claiming 70 bytes with only 40 present: a truncated tail, no error.
	trunc := cat(v2(0, 0, 70), v2(1, 0, 70)[:40])
	bs, valid, err := ParseLog(trunc, "t.log")
	if err != nil || len(bs) != 1 || valid != 70 {
		t.Errorf("truncated: %d batches, valid %d, %v; want 1, 70, nil", len(bs), valid, err)
	}
	// Exactly 18 bytes left whose size field is 13: corrupt, at byte 70+8.
	bad := make([]byte, 18)
	binary.BigEndian.PutUint32(bad[8:], 13)
	_, valid, err = ParseLog(cat(v2(0, 0, 70), bad), "c.log")
	var fe *FormatError
	if err == nil || !asFormat(err, &fe) || fe.Pos != 78 || valid != 70 {
		t.Errorf("size 13: valid %d, %v; want a FormatError at 78", valid, err)
	}
	// 17 bytes left, even with garbage: ignored (position >= end - 17).
	g := bytes.Repeat([]byte{0xff}, 17)
	if bs, valid, err := ParseLog(cat(v2(0, 0, 70), g), "g.log"); err != nil || len(bs) != 1 || valid != 70 {
		t.Errorf("17-byte tail: %d batches, valid %d, %v", len(bs), valid, err)
	}
	// A v2 entry of 60 bytes (shorter than its header) and magic 3 are errors.
	short := v2(0, 0, 61)[:60]
	binary.BigEndian.PutUint32(short[8:], 48)
	if _, _, err := ParseLog(short, "s.log"); err == nil {
		t.Error("60-byte v2 entry: no error")
	}
	m3 := v2(0, 0, 61)
	m3[16] = 3
	if _, _, err := ParseLog(m3, "m.log"); err == nil || !strings.Contains(err.Error(), "magic 3") {
		t.Errorf("magic 3: %v", err)
	}
	// An empty file has no batches.
	if bs, valid, err := ParseLog(nil, "e.log"); err != nil || len(bs) != 0 || valid != 0 {
		t.Errorf("empty: %v %d %v", bs, valid, err)
	}
}

func asFormat(err error, fe **FormatError) bool {
	e, ok := err.(*FormatError)
	*fe = e
	return ok
}

func TestLegacyCompressedWrappers(t *testing.T) {
	// v0 gzip wrapper of inner offsets 0,1,2 (wrapper offset 2), then v0 xerial-snappy wrapper
	// of 3,4 (offset 4), a v0 raw-snappy wrapper of 5 (offset 5), and a v1 gzip wrapper with
	// relative inner offsets 0,1,2 and wrapper offset 42: it holds 40..42.
	w0 := legacy(0, 2, CodecGzip, gzipped(messageSet(0, 0, 1, 2)))
	w1 := legacy(0, 4, CodecSnappy, xerial(messageSet(0, 3, 4)))
	w2 := legacy(0, 5, CodecSnappy, snappy.Encode(nil, messageSet(0, 5)))
	w3 := legacy(1, 42, CodecGzip, gzipped(messageSet(1, 0, 1, 2)))
	data := cat(w0, w1, w2, w3)
	bs, valid, err := ParseLog(data, "w.log")
	if err != nil {
		t.Fatal(err)
	}
	type fl struct {
		first, last int64
		n           int
		codec       byte
	}
	var got []fl
	for _, b := range bs {
		got = append(got, fl{b.First, b.Last, b.Messages, b.Codec})
	}
	want := []fl{{0, 2, 3, CodecGzip}, {3, 4, 2, CodecSnappy}, {5, 5, 1, CodecSnappy}, {40, 42, 3, CodecGzip}}
	if !slices.Equal(got, want) || valid != int64(len(data)) {
		t.Fatalf("wrappers = %v (valid %d), want %v (valid %d)", got, valid, want, len(data))
	}
	if bs[1].Position != int64(len(w0)) || bs[3].Magic != 1 {
		t.Errorf("positions/magic: %+v", bs)
	}
	l := &Log{Data: data, Batches: bs}
	if o := l.Offsets(); !slices.Equal(o, []int64{0, 1, 2, 3, 4, 5, 40, 41, 42}) {
		t.Errorf("Offsets = %v", o)
	}
	// Lookups without an index: offset 3 walks past the first wrapper (its offset field 2 < 3).
	s := &Segment{Log: &Log{Path: "w.log", Data: data, Batches: bs}}
	c, err := s.Lookup(3)
	if err != nil || !c.Found || c.Start != 0 || c.HitPosition != int64(len(w0)) || c.Hops != 2 || c.ScanBytes != int64(len(w0)) {
		t.Errorf("Lookup(3) = %+v, %v", c, err)
	}
	if c, _ := s.Lookup(1); !c.Found || c.HitPosition != 0 || c.Hops != 1 || c.HitLast != 2 {
		t.Errorf("Lookup(1) = %+v", c)
	}

	// Refused or inconsistent wrappers.
	for name, m := range map[string][]byte{
		"lz4":             legacy(0, 2, CodecLZ4, []byte("whatever")),
		"zstd":            legacy(1, 2, CodecZstd, []byte("whatever")),
		"v0 offset wrong": legacy(0, 7, CodecGzip, gzipped(messageSet(0, 0, 1, 2))),
		"bad gzip":        legacy(0, 2, CodecGzip, []byte("not gzip at all")),
		"empty":           legacy(0, 2, CodecGzip, gzipped(nil)),
		"stray bytes":     legacy(0, 2, CodecGzip, gzipped(append(messageSet(0, 2), 1, 2, 3))),
	} {
		if _, _, err := ParseLog(m, name+".log"); err == nil {
			t.Errorf("%s wrapper: no error", name)
		}
	}
}

func TestValidEntries(t *testing.T) {
	cases := []struct {
		name     string
		data     []byte
		want     []IndexEntry
		end      int
		zeroTail bool
	}{
		{"trimmed", idx([2]int32{3, 70}, [2]int32{4, 101}), []IndexEntry{{0, 103, 70}, {1, 104, 101}}, 2, false},
		{"zero tail", idx([2]int32{3, 70}, [2]int32{0, 0}, [2]int32{0, 0}), []IndexEntry{{0, 103, 70}}, 1, true},
		{"stale slot after the stop", idx([2]int32{3, 70}, [2]int32{0, 0}, [2]int32{4, 101}), []IndexEntry{{0, 103, 70}}, 1, false},
		{"relative 0 with a position ends it too", idx([2]int32{3, 70}, [2]int32{0, 9}), []IndexEntry{{0, 103, 70}}, 1, false},
		{"all zero", make([]byte, 80), nil, 1, true},
		{"zero slot 0 is no entry", idx([2]int32{0, 0}, [2]int32{3, 70}, [2]int32{0, 0}), []IndexEntry{{1, 103, 70}}, 2, true},
		{"slot 0 at the base offset with a position", idx([2]int32{0, 70}), []IndexEntry{{0, 100, 70}}, 1, false},
		{"partial slot", append(idx([2]int32{3, 70}), 0), []IndexEntry{{0, 103, 70}}, 1, false},
		{"empty", nil, nil, 0, false},
	}
	for _, c := range cases {
		got, end := ValidEntries(c.data, 100)
		x := &Index{Data: c.data, Slots: len(c.data) / 8, Entries: got, End: end}
		if !slices.Equal(got, c.want) || end != c.end || x.ZeroTail() != c.zeroTail {
			t.Errorf("%s: %v end %d zeroTail %v; want %v end %d zeroTail %v", c.name, got, end, x.ZeroTail(), c.want, c.end, c.zeroTail)
		}
	}
}

func TestLookupHandMade(t *testing.T) {
	data := logA()
	bs, _, err := ParseLog(data, "a.log")
	if err != nil {
		t.Fatal(err)
	}
	// Index: (103, 70), then the zero tail, then a stale (104, 101) that is not an entry.
	ix := idx([2]int32{3, 70}, [2]int32{0, 0}, [2]int32{4, 101}, [2]int32{0, 0})
	entries, end := ValidEntries(ix, 100)
	s := &Segment{
		Log:   &Log{Path: "a.log", BaseOffset: 100, Data: data, Batches: bs, ValidBytes: 162},
		Index: &Index{BaseOffset: 100, Data: ix, Slots: 4, Entries: entries, End: end},
	}
	want := map[int64]Cost{
		// No entry <= 100..102: from byte 0, the first batch ends at 102.
		100: {Target: 100, EntryOffset: 100, Start: 0, Found: true, HitPosition: 0, HitLast: 102, Hops: 1},
		102: {Target: 102, EntryOffset: 100, Start: 0, Found: true, HitPosition: 0, HitLast: 102, Hops: 1},
		// The entry (103, 70): the v0 message at 70.
		103: {Target: 103, HasEntry: true, EntryOffset: 103, Start: 70, Found: true, HitPosition: 70, HitLast: 103, Hops: 1},
		// 104: the stale slot is ignored, so from 70: two headers, 31 bytes.
		104: {Target: 104, HasEntry: true, EntryOffset: 103, Start: 70, Found: true, HitPosition: 101, HitLast: 104, Hops: 2, ScanBytes: 31},
		// 105 is past the log: two headers read, then the 10-byte tail ends the stream.
		105: {Target: 105, HasEntry: true, EntryOffset: 103, Start: 70, Hops: 2},
	}
	for o, w := range want {
		got, err := s.Lookup(o)
		if err != nil || got != w {
			t.Errorf("Lookup(%d) = %+v, %v\nwant          %+v", o, got, err, w)
		}
	}
	costs, err := s.Costs()
	if err != nil || len(costs) != 5 {
		t.Fatalf("Costs: %d, %v", len(costs), err)
	}
	var tot Totals
	for _, c := range costs {
		tot.Add(c)
	}
	if tot != (Totals{Lookups: 5, TotalScanBytes: 31, MaxScanBytes: 31, TotalHops: 6, MaxHops: 2}) {
		t.Errorf("Totals = %+v", tot)
	}
	// Without the index every lookup starts at 0: 104 reads three headers, 101 bytes.
	s.Index = nil
	if c, _ := s.Lookup(104); c.Start != 0 || c.HitPosition != 101 || c.Hops != 3 || c.ScanBytes != 101 {
		t.Errorf("no index: Lookup(104) = %+v", c)
	}
	// An entry past the end of the log: phase 2 reads nothing and reports the position.
	s.Index = &Index{Entries: []IndexEntry{{0, 101, 500}}}
	if c, err := s.Lookup(102); err == nil || c.Found {
		t.Errorf("entry past the log: %+v, %v", c, err)
	}
}

func TestFilesOnDisk(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "00000000000000000100.log")
	if err := os.WriteFile(logPath, logA(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSegment(logPath)
	if err != nil || s.Index != nil || s.Log.BaseOffset != 100 || len(s.Log.Batches) != 3 {
		t.Fatalf("without .index: %+v, %v", s, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000100.index"), idx([2]int32{3, 70}, [2]int32{0, 0}), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = OpenSegment(logPath)
	if err != nil || s.Index == nil || len(s.Index.Entries) != 1 || s.Index.Slots != 2 || !s.Index.ZeroTail() {
		t.Fatalf("with .index: %+v, %v", s.Index, err)
	}
	if _, err := BaseOffsetFromName("12.log"); err == nil {
		t.Error("12.log: no error")
	}
	if b, err := BaseOffsetFromName("/x/00000000000000004740.timeindex"); err != nil || b != 4740 {
		t.Errorf("BaseOffsetFromName = %d, %v", b, err)
	}
}

// The brute force stays independent of what it checks: no non-test file of this package
// imports a kidx package.
func TestImportsNoKidxPackage(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p := strings.Trim(im.Path.Value, `"`); p == "kidx" || strings.HasPrefix(p, "kidx/") {
				t.Errorf("%s imports %s", n, p)
			}
		}
	}
}
