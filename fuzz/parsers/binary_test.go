package parsers

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
)

// FuzzIndexFile: an arbitrary .index image. Kafka's view is floor(len/8) entries of int32
// relative offset + int32 position (docs/kafka.md §4). Checked: no panic, bounded allocation,
// the entry count, each entry against a decoding done here, and, through the file reader,
// that OffsetIndex.lookup never returns an entry above the target even on unsorted data
// (docs/kafka.md §5: "the algorithm never returns an entry greater than the target for LLB").
func FuzzIndexFile(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.IndexSuffix)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		s := parsecheck.SampleOf(data, base)
		var es []segment.IndexEntry
		parsecheck.CheckAlloc(t, s.Alloc, "ParseOffsetIndex", len(data), func() { es = segment.ParseOffsetIndex(data, base) })
		if len(es) != len(data)/8 {
			t.Fatalf("%d entries from %d bytes", len(es), len(data))
		}
		for i, e := range es {
			rel := int64(int32(binary.BigEndian.Uint32(data[8*i:])))
			pos := int64(int32(binary.BigEndian.Uint32(data[8*i+4:])))
			if e.Offset != base+rel || e.Position != pos {
				t.Fatalf("entry %d: %+v, bytes say (%d, %d)", i, e, base+rel, pos)
			}
		}
		if s.File {
			x := openIndexFile(t, data, base, segment.IndexSuffix)
			defer x.Close()
			if x.Len() != len(es) || x.DumpLen() > x.Len() {
				t.Fatalf("Len %d DumpLen %d, want %d entries", x.Len(), x.DumpLen(), len(es))
			}
			checkValidView(t, data, 8, 0, x.ValidLen(), x.TailGarbage())
			_ = x.SanityCheck()
			for _, e := range es[:min(len(es), 4)] {
				for _, target := range []int64{e.Offset - 1, e.Offset, e.Offset + 1} {
					got, slot, _ := x.Lookup(target)
					if slot >= x.ValidLen() {
						t.Fatalf("Lookup(%d) slot %d is past the %d valid entries", target, slot, x.ValidLen())
					}
					if slot >= len(es) || (slot >= 0 && (got != es[slot] || got.Offset > target)) || (slot < 0 && got != (segment.IndexEntry{Offset: base})) {
						t.Fatalf("Lookup(%d) = %+v slot %d", target, got, slot)
					}
				}
			}
		}
	})
}

// checkValidView checks an index's valid entries and tail against docs/segment.md, "Valid
// entries", restated here slot by slot: the entries end at the first slot i > 0 whose relative
// offset (at relAt) is 0; a lone all-zero slot 0 in a file of several slots is no entry. The
// tail garbage is the first slot after them with a non-zero byte.
func checkValidView(t *testing.T, data []byte, size, relAt, gotValid, gotGarbage int) {
	t.Helper()
	slots := len(data) / size
	want := slots
	for i := 1; i < slots; i++ {
		if binary.BigEndian.Uint32(data[i*size+relAt:]) == 0 {
			want = i
			break
		}
	}
	if want == 1 && slots > 1 && bytes.Count(data[:size], []byte{0}) == size {
		want = 0
	}
	if gotValid != want {
		t.Fatalf("ValidLen %d, want %d", gotValid, want)
	}
	wantGarbage := -1
	for i := want * size; i < len(data); i++ {
		if data[i] != 0 {
			wantGarbage = i / size
			break
		}
	}
	if gotGarbage != wantGarbage {
		t.Fatalf("TailGarbage %d, want %d", gotGarbage, wantGarbage)
	}
}

// FuzzTimeIndexFile: an arbitrary .timeindex image, 12-byte entries of int64 timestamp and
// int32 relative offset (docs/kafka.md §6); the same checks as FuzzIndexFile.
func FuzzTimeIndexFile(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.TimeIndexSuffix)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		s := parsecheck.SampleOf(data, base)
		var es []segment.TimeIndexEntry
		parsecheck.CheckAlloc(t, s.Alloc, "ParseTimeIndex", len(data), func() { es = segment.ParseTimeIndex(data, base) })
		if len(es) != len(data)/12 {
			t.Fatalf("%d entries from %d bytes", len(es), len(data))
		}
		for i, e := range es {
			ts := int64(binary.BigEndian.Uint64(data[12*i:]))
			rel := int64(int32(binary.BigEndian.Uint32(data[12*i+8:])))
			if e.Timestamp != ts || e.Offset != base+rel {
				t.Fatalf("entry %d: %+v, bytes say (%d, %d)", i, e, ts, base+rel)
			}
		}
		if s.File {
			x := openTimeIndexFile(t, data, base)
			defer x.Close()
			if x.Len() != len(es) || x.DumpLen() > x.Len() {
				t.Fatalf("Len %d DumpLen %d, want %d", x.Len(), x.DumpLen(), len(es))
			}
			checkValidView(t, data, 12, 8, x.ValidLen(), x.TailGarbage())
			_ = x.SanityCheck()
			if v := x.ValidLen(); v > 0 && x.LastEntry() != es[v-1] {
				t.Fatalf("LastEntry %+v, want the last valid entry %+v", x.LastEntry(), es[v-1])
			}
			for _, e := range es[:min(len(es), 4)] {
				got, slot, _ := x.Lookup(e.Timestamp)
				if slot >= len(es) || (slot >= 0 && (got != es[slot] || got.Timestamp > e.Timestamp)) {
					t.Fatalf("Lookup(%d) = %+v slot %d", e.Timestamp, got, slot)
				}
			}
		}
	})
}

// FuzzBatchHeader: arbitrary bytes as a v2 batch header (docs/kafka.md §1.3) and as a legacy
// v0/v1 header (§1.4). Checked: no panic, bounded allocation, every field read from its
// documented byte offset, a header only from >= 61 bytes, CheckBatch accepting only a batch
// whose stored CRC-32C over [21, end) matches.
func FuzzBatchHeader(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := parsecheck.SampleOf(data, 0)
		var h segment.BatchHeader
		var err error
		parsecheck.CheckAlloc(t, s.Alloc, "ParseBatchHeader", len(data), func() { h, err = segment.ParseBatchHeader(data, "fuzz.log", 0) })
		if (err == nil) != (len(data) >= segment.RecordBatchOverhead) {
			t.Fatalf("%d bytes: err %v", len(data), err)
		}
		if err == nil {
			be := binary.BigEndian
			if h.BaseOffset != int64(be.Uint64(data)) || h.Length != int32(be.Uint32(data[8:])) || h.Magic != int8(data[16]) ||
				h.CRC != be.Uint32(data[17:]) || h.LastOffsetDelta != int32(be.Uint32(data[23:])) || h.MaxTimestamp != int64(be.Uint64(data[35:])) ||
				h.RecordCount != int32(be.Uint32(data[57:])) || h.SizeInBytes() != 12+int64(h.Length) {
				t.Fatalf("header %+v does not match the bytes", h)
			}
			cerr := segment.CheckBatch(data, "fuzz.log", 0)
			if cerr == nil && segment.ComputeBatchCRC(data) != h.CRC {
				t.Fatalf("CheckBatch accepted a batch whose CRC does not match")
			}
		}
		parsecheck.CheckAlloc(t, s.Alloc, "ParseLegacyHeader", len(data), func() { _, _ = segment.ParseLegacyHeader(data, "fuzz.log", 0) })
	})
}

// FuzzRecordDecode: arbitrary bytes as a whole uncompressed v2 batch (DefaultRecord.readFrom,
// docs/kafka.md §1.3). Checked: no panic, bounded allocation (a hostile record count or length
// must not be trusted), no more records than the count field and than 7-byte records fit,
// keys and values inside the input.
func FuzzRecordDecode(f *testing.F) {
	parsecheck.AddGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []segment.Record
		var h segment.BatchHeader
		var err error
		parsecheck.CheckAlloc(t, parsecheck.SampleOf(data, 0).Alloc, "DecodeRecords", len(data), func() { h, recs, err = segment.DecodeRecords(data, "fuzz.log", 0) })
		if err != nil {
			return
		}
		if int64(len(recs)) > int64(h.RecordCount) || len(recs) > (len(data)-segment.RecordBatchOverhead)/7 {
			t.Fatalf("%d records from count %d and %d bytes", len(recs), h.RecordCount, len(data))
		}
		for i, r := range recs {
			if r.Position < segment.RecordBatchOverhead || r.Position+int64(r.SizeInBytes) > int64(len(data)) || len(r.Key)+len(r.Value) > r.SizeInBytes {
				t.Fatalf("record %d at %d (%d bytes) outside the %d-byte batch", i, r.Position, r.SizeInBytes, len(data))
			}
		}
	})
}

// FuzzSegmentName: arbitrary file names (LogFileUtils.offsetFromFileName,
// filenamePrefixFromOffset, docs/kafka.md §1.1). Checked: no panic; a recognized name is exactly
// the 20-digit prefix of its base offset plus its suffixes; a parsed offset renders back.
func FuzzSegmentName(f *testing.F) {
	for _, s := range []string{"00000000000000000000.log", "00000000000000004740.index", "00000000000000000316.timeindex",
		"00000000000000000000.log.deleted", "00000000000000000000.index.swap", "00000000000000000000.snapshot",
		"9223372036854775807.log", "-1.log", "99999999999999999999.log", "0.log", ".log", "", "0000000000000000000a.log",
		"00000000000000000000.txnindex.cleaned", "+0000000000000000001.log", "00000000000000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		var sf segment.SegmentFileName
		var ok bool
		parsecheck.CheckAlloc(t, parsecheck.SampleOf([]byte(name), 0).Alloc, "ParseSegmentFileName", len(name), func() { sf, ok = segment.ParseSegmentFileName(name) })
		if ok {
			prefix := segment.FilenamePrefixFromOffset(sf.BaseOffset)
			if len(prefix) != 20 || !strings.HasPrefix(name, prefix+".") || !strings.HasSuffix(name, sf.Transitional) {
				t.Fatalf("%q parsed as %+v (prefix %q)", name, sf, prefix)
			}
		}
		off, err := segment.OffsetFromFileName(name)
		if err == nil && off >= 0 {
			back, err := segment.OffsetFromFileName(segment.FilenamePrefixFromOffset(off) + ".log")
			if err != nil || back != off {
				t.Fatalf("%q: offset %d renders to %q, which parses to %d (%v)", name, off, segment.FilenamePrefixFromOffset(off), back, err)
			}
		}
	})
}

func openIndexFile(t *testing.T, data []byte, base int64, suffix string) *segment.OffsetIndex {
	x, err := segment.OpenOffsetIndex(parsecheck.WriteScratch(t, "index", "x"+suffix, data), base)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func openTimeIndexFile(t *testing.T, data []byte, base int64) *segment.TimeIndex {
	x, err := segment.OpenTimeIndex(parsecheck.WriteScratch(t, "timeindex", "x.timeindex", data), base)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
