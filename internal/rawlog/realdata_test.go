package rawlog

import (
	"os"
	"path/filepath"
	"testing"

	"kidx/internal/realdata"
)

// The brute-force reader on the real data, against hand-written facts of
// ../shared/realdata/README.md and MANIFEST.tsv: what it reads must be what the brokers wrote
// before the other packages are judged against it.
func TestRealDataFacts(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d: %v", len(dirs), realdata.PartitionCount, dirs)
	}
	// Every .log of these healthy directories reads to its end: no legacy lz4/zstd wrapper,
	// no corrupt or truncated entry, no stray tail.
	for _, d := range dirs {
		for _, l := range realdata.LogFiles(d) {
			s, err := OpenSegment(l)
			if err != nil {
				t.Errorf("%s: %v", realdata.Name(root, l), err)
				continue
			}
			if s.Log.ValidBytes != int64(len(s.Log.Data)) {
				t.Errorf("%s: walk stops at %d of %d bytes", realdata.Name(root, l), s.Log.ValidBytes, len(s.Log.Data))
			}
		}
	}

	type fact struct {
		log              string
		batches, offsets int
		first, last      int64 // offsets held: first and last
		magic, codec     byte  // of every entry
		entries          int   // valid index entries
		indexBytes       int64 // size of the .index
		zeroTail         bool
		firstEntry       [2]int64 // (offset, position) of the first valid entry
	}
	const prealloc = 10485760
	facts := []fact{
		// 22 gzip wrappers of 254 messages (the last shorter): 5382 offsets; the 0.8 per-append
		// entry is the append's first offset (254 = the second wrapper's first inner offset).
		{log: "kafkalite/hamlet-gzip-0/00000000000000000000.log", batches: 22, offsets: 5382, first: 0, last: 5381, magic: 0, codec: CodecGzip,
			entries: 21, indexBytes: prealloc, zeroTail: true, firstEntry: [2]int64{254, 6290}},
		{log: "kafkalite/hamlet-snappy-0/00000000000000000000.log", batches: 22, offsets: 5382, first: 0, last: 5381, magic: 0, codec: CodecSnappy,
			entries: 21, indexBytes: prealloc, zeroTail: true},
		{log: "kafkalite/hamlet-none-0/00000000000000000000.log", batches: 5382, offsets: 5382, first: 0, last: 5381, magic: 0, codec: CodecNone,
			entries: 21, indexBytes: prealloc, zeroTail: true},
		{log: "kafkalite/numbers-0/00000000000000000000.log", batches: 11394, offsets: 11394, first: 0, last: 11393, magic: 0, codec: CodecNone,
			entries: 83, indexBytes: prealloc, zeroTail: true},
		{log: "ldi-poc/__cluster_metadata-0/00000000000000000000.log", batches: 4814, magic: 2, entries: 85, indexBytes: prealloc, zeroTail: true},
		{log: "ldi-poc/TestTopicPatient-0/00000000000000000000.log", batches: 3, magic: 2, entries: 0, indexBytes: prealloc, zeroTail: true},
		{log: "iechenyb/string-key-0/00000000000000000000.log", batches: 28068, offsets: 28162, magic: 2, entries: 492, indexBytes: prealloc, zeroTail: true},
		{log: "ronem/__cluster_metadata-0/00000000000001725413.log", batches: 12105, magic: 2, entries: 213, indexBytes: 1704, zeroTail: false},
		{log: "codecrafters-go/__cluster_metadata-0/00000000000000000000.log", batches: 2, magic: 2, entries: -1},
		{log: "codecrafters-gleam/__cluster_metadata-0/00000000000000000000.log", batches: 2, magic: 2, entries: -1},
	}
	for _, f := range facts {
		s, err := OpenSegment(filepath.Join(root, f.log))
		if err != nil {
			t.Errorf("%s: %v", f.log, err)
			continue
		}
		if len(s.Log.Batches) != f.batches {
			t.Errorf("%s: %d entries, want %d", f.log, len(s.Log.Batches), f.batches)
		}
		offs := s.Log.Offsets()
		if f.offsets != 0 && len(offs) != f.offsets {
			t.Errorf("%s: %d offsets, want %d", f.log, len(offs), f.offsets)
		}
		if f.last != 0 && (offs[0] != f.first || offs[len(offs)-1] != f.last) {
			t.Errorf("%s: offsets %d..%d, want %d..%d", f.log, offs[0], offs[len(offs)-1], f.first, f.last)
		}
		for _, b := range s.Log.Batches {
			if b.Magic != f.magic || b.Codec != f.codec {
				t.Errorf("%s: entry at %d has magic %d codec %d, want %d/%d", f.log, b.Position, b.Magic, b.Codec, f.magic, f.codec)
				break
			}
		}
		if f.entries < 0 {
			if s.Index != nil {
				t.Errorf("%s: has a .index; the README says none", f.log)
			}
			continue
		}
		if s.Index == nil {
			t.Errorf("%s: no .index", f.log)
			continue
		}
		if len(s.Index.Entries) != f.entries || int64(len(s.Index.Data)) != f.indexBytes || s.Index.ZeroTail() != f.zeroTail {
			t.Errorf("%s: %d valid entries in %d bytes (zero tail %v), want %d in %d (%v)", f.log, len(s.Index.Entries), len(s.Index.Data), s.Index.ZeroTail(), f.entries, f.indexBytes, f.zeroTail)
		}
		if f.firstEntry != [2]int64{} && len(s.Index.Entries) > 0 {
			if e := s.Index.Entries[0]; e.Offset != f.firstEntry[0] || e.Position != f.firstEntry[1] {
				t.Errorf("%s: first entry (%d, %d), want %v", f.log, e.Offset, e.Position, f.firstEntry)
			}
		}
	}
	// hamlet-gzip's wrappers hold 254 messages each, the last one 48 (22 wrappers, 5382).
	s, err := OpenSegment(filepath.Join(root, "kafkalite/hamlet-gzip-0/00000000000000000000.log"))
	if err == nil {
		for i, b := range s.Log.Batches {
			want := 254
			if i == 21 {
				want = 5382 - 21*254
			}
			if b.Messages != want || b.Last-b.First+1 != int64(want) {
				t.Errorf("hamlet-gzip wrapper %d: %d messages (%d..%d), want %d", i, b.Messages, b.First, b.Last, want)
			}
		}
	}
	// The one segment without a .log: its index is there, trimmed (124344 bytes).
	if st, err := os.Stat(filepath.Join(root, realdata.MissingLogDir, "00000000000000839130.index")); err != nil || st.Size() != 124344 {
		t.Errorf("839130.index: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, realdata.MissingLogDir, "00000000000000839130.log")); err == nil {
		t.Error("839130.log exists; the README says it is missing")
	}
}
