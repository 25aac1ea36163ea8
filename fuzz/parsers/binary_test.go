package parsers

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// FuzzIndexFile: an arbitrary .index image. Kafka's view is floor(len/8) entries of int32
// relative offset + int32 position (docs/kafka.md §4). Checked: no panic, bounded allocation,
// the entry count, each entry against a decoding done here, and, through the file reader,
// that OffsetIndex.lookup never returns an entry above the target even on unsorted data
// (docs/kafka.md §5: "the algorithm never returns an entry greater than the target for LLB").
func FuzzIndexFile(f *testing.F) {
	addGoldenSeeds(f, segment.IndexSuffix)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		s := sampleOf(data, base)
		var es []segment.IndexEntry
		checkAlloc(t, s.alloc, "ParseOffsetIndex", len(data), func() { es = segment.ParseOffsetIndex(data, base) })
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
		if s.file {
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
	addGoldenSeeds(f, segment.TimeIndexSuffix)
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		s := sampleOf(data, base)
		var es []segment.TimeIndexEntry
		checkAlloc(t, s.alloc, "ParseTimeIndex", len(data), func() { es = segment.ParseTimeIndex(data, base) })
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
		if s.file {
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
	addGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := sampleOf(data, 0)
		var h segment.BatchHeader
		var err error
		checkAlloc(t, s.alloc, "ParseBatchHeader", len(data), func() { h, err = segment.ParseBatchHeader(data, "fuzz.log", 0) })
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
		checkAlloc(t, s.alloc, "ParseLegacyHeader", len(data), func() { _, _ = segment.ParseLegacyHeader(data, "fuzz.log", 0) })
	})
}

// FuzzRecordDecode: arbitrary bytes as a whole uncompressed v2 batch (DefaultRecord.readFrom,
// docs/kafka.md §1.3). Checked: no panic, bounded allocation (a hostile record count or length
// must not be trusted), no more records than the count field and than 7-byte records fit,
// keys and values inside the input.
func FuzzRecordDecode(f *testing.F) {
	addGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []segment.Record
		var h segment.BatchHeader
		var err error
		checkAlloc(t, sampleOf(data, 0).alloc, "DecodeRecords", len(data), func() { h, recs, err = segment.DecodeRecords(data, "fuzz.log", 0) })
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

// FuzzLogWalk: arbitrary .log bytes through the file reader (FileLogInputStream.nextBatch,
// docs/kafka.md §1.5), read once through mmap and once through pread; both must agree. Checked:
// no panic, batches in order and inside the file (a size field is never trusted beyond the
// file size), a tail of <= 17 bytes never a batch, CRC checks and record iteration of every
// batch without panic, and the lookup of every batch's offsets. The two readers read a real
// file (OpenLogWith, OpenSegment) for every input under go test and one in fileEvery under
// -fuzz; the other inputs go through the same two access paths over the bytes in memory
// (LogFileFromBytes: the mapped path; OpenSegmentFS on a MemFS: the pread path), which cost
// no system call.
func FuzzLogWalk(f *testing.F) {
	addGoldenSeeds(f, segment.LogSuffix)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := sampleOf(data, 0)
		var logs [2]*segment.LogFile // mmap, pread
		var seg *segment.Segment
		if s.file {
			path := writeScratch(t, "logwalk", "00000000000000000000.log", data)
			for k, access := range []segment.Access{segment.AccessMmap, segment.AccessPread} {
				lf, err := segment.OpenLogWith(path, access)
				if err != nil {
					t.Fatal(err)
				}
				defer lf.Close()
				logs[k] = lf
			}
			var err error
			if seg, err = segment.OpenSegment(path); err != nil {
				t.Fatal(err)
			}
		} else {
			logs[0] = segment.LogFileFromBytes("00000000000000000000.log", data)
			seg = openSegmentInMemory(t, data)
			logs[1] = seg.Log
		}
		defer seg.Close()
		var walks [2][]segment.BatchInfo
		var results [2]segment.WalkResult
		for k, lf := range logs {
			checkAlloc(t, s.alloc, "Walk", len(data), func() {
				walks[k] = walks[k][:0]
				results[k] = lf.Walk(0, 0, func(b segment.BatchInfo) bool {
					walks[k] = append(walks[k], b)
					_ = lf.CheckBatch(b)
					_ = lf.RecordTimestamps(b, func(int64, int64) bool { return true })
					return true
				})
			})
		}
		if len(walks[0]) != len(walks[1]) || results[0].ValidBytes != results[1].ValidBytes || (results[0].Err == nil) != (results[1].Err == nil) {
			t.Fatalf("mmap walk %d batches to %d (%v), pread walk %d to %d (%v)", len(walks[0]), results[0].ValidBytes, results[0].Err, len(walks[1]), results[1].ValidBytes, results[1].Err)
		}
		pos := int64(0)
		for i, b := range walks[0] {
			if b != walks[1][i] {
				t.Fatalf("batch %d: mmap %+v, pread %+v", i, b, walks[1][i])
			}
			if b.Position != pos || b.Size < segment.MinRecordOverhead+segment.LogOverhead || b.End() > int64(len(data)) {
				t.Fatalf("batch %d at %d size %d: walk at %d, file %d bytes", i, b.Position, b.Size, pos, len(data))
			}
			pos = b.End()
		}
		if results[0].ValidBytes != pos || results[0].TrailingBytes() < 0 {
			t.Fatalf("valid bytes %d, batches end at %d", results[0].ValidBytes, pos)
		}
		if len(data) <= segment.HeaderSizeUpToMagic && len(walks[0]) > 0 {
			t.Fatalf("a %d-byte file gave a batch", len(data))
		}
		for _, b := range walks[0][:min(len(walks[0]), 8)] {
			_, _ = seg.Lookup(b.LastOffset())
			_, _ = seg.LookupTimestamp(b.MaxTimestamp())
		}
	})
}

// memLogDir is one in-memory filesystem per test process, holding the .log of the current
// input of FuzzLogWalk (a fuzz worker runs one input at a time).
var memLogDir = sync.OnceValue(func() *vfs.MemFS {
	m := vfs.NewMemFS()
	if err := m.MkdirAll("/logwalk", 0o755); err != nil {
		panic(err)
	}
	return m
})

// openSegmentInMemory writes data as the only file of memLogDir and opens it as a segment
// (OpenSegmentFS: the .log read through the pread path over its bytes, no index).
func openSegmentInMemory(t *testing.T, data []byte) *segment.Segment {
	t.Helper()
	m := memLogDir()
	const path = "/logwalk/00000000000000000000.log"
	w, err := m.Create(path)
	if err == nil {
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	seg, err := segment.OpenSegmentFS(m, path)
	if err != nil {
		t.Fatal(err)
	}
	return seg
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
		checkAlloc(t, sampleOf([]byte(name), 0).alloc, "ParseSegmentFileName", len(name), func() { sf, ok = segment.ParseSegmentFileName(name) })
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

// goldenDirs lists the golden Kafka cases (testdata/kafka-golden/*).
func goldenDirs(tb testing.TB) []string {
	ds, err := filepath.Glob("../../testdata/kafka-golden/*")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// addGoldenSeeds adds, for every golden case, its first file with the suffix (at most 2 KiB:
// Kafka's own bytes), a truncation, and a zero tail. The committed corpus in
// testdata/fuzz/<Target>/ adds hostile length fields.
func addGoldenSeeds(f *testing.F, suffix string) {
	for _, g := range goldenDirs(f) {
		files, _ := filepath.Glob(filepath.Join(g, "files", "*"+suffix))
		if len(files) == 0 {
			continue
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 2<<10)]
		switch suffix {
		case segment.LogSuffix:
			f.Add(b)
			f.Add(b[:len(b)*2/3])
			f.Add(append(bytes.Clone(b), make([]byte, 40)...))
		default:
			base, _ := segment.OffsetFromFileName(filepath.Base(files[0]))
			f.Add(b, base)
			f.Add(b[:len(b)*2/3], base)
			f.Add(append(bytes.Clone(b), make([]byte, 48)...), base)
		}
	}
}

func openIndexFile(t *testing.T, data []byte, base int64, suffix string) *segment.OffsetIndex {
	x, err := segment.OpenOffsetIndex(writeScratch(t, "index", "x"+suffix, data), base)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func openTimeIndexFile(t *testing.T, data []byte, base int64) *segment.TimeIndex {
	x, err := segment.OpenTimeIndex(writeScratch(t, "timeindex", "x.timeindex", data), base)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
