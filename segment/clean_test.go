package segment_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// The clean step's workload, worked by hand (docs/segment.md "The clean step"): segment.ms 50
// rolls on the batches' timestamps, so two small segments precede the active one and group
// together (350 + 220 <= segment.bytes 1000).
//
//	segment 0: b0 offsets 0-1 (2 records, 100 B, ts 1000) at 0, b1 offset 2 (100 B, ts 1001)
//	           at 100, b2 offset 3 (150 B, ts 1002) at 200; per batch, the check
//	           'bytes since the last entry > 100' is first true at b2: index [(3, 200)],
//	           time index [(1002, 3)]
//	segment 4: b3 offsets 4-5 (2 records, 120 B, ts 1100; 1100 - 1000 > 50 rolled) at 0,
//	           b4 offset 6 (100 B, ts 1101) at 120: index [(6, 120)], time [(1101, 6)]
//	segment 7: b5 offset 7 (80 B, ts 1200), the active segment
//
// The clean drops b1 and rewrites b3 to 80 bytes with max timestamp 1099 and delete horizon
// 5000. The cleaned segment 0 is b0 (at 0), b2 (at 100), b3' (at 250), b4 (at 330): 430 bytes.
const cleanWorkload = `{"config": {"segment.bytes": 1000, "index.interval.bytes": 100, "segment.index.bytes": 120, "segment.ms": 50},
 "rule": %q,
 "steps": [
  {"append": [{"records": 2, "bytes": 100, "maxTimestamp": 1000}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1001}]},
  {"append": [{"records": 1, "bytes": 150, "maxTimestamp": 1002}]},
  {"append": [{"records": 2, "bytes": 120, "maxTimestamp": 1100}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1101}]},
  {"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1200}]},
  {"clean": %s}
 ]}`

const cleanStep = `{"drop": [2], "rewrite": [{"baseOffset": 4, "bytes": 80, "maxTimestamp": 1099, "deleteHorizonMs": 5000}]%s}`

const cleanDir = "/logs/clean-0"

func parseCleanWorkload(t *testing.T, rule, extra string) *segment.Workload {
	t.Helper()
	w, err := segment.ParseWorkload([]byte(sprintf(cleanWorkload, rule, sprintf(cleanStep, extra))))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func sprintf(format string, args ...any) string {
	return strings.TrimSpace(fmt.Sprintf(format, args...))
}

// cleanedIndexEntries decodes an .index by hand: 8-byte entries (relative offset, position).
func cleanedIndexEntries(t *testing.T, fsys vfs.FS, path string, base int64) [][2]int64 {
	t.Helper()
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for i := 0; i+8 <= len(b); i += 8 {
		out = append(out, [2]int64{base + int64(binary.BigEndian.Uint32(b[i:])), int64(binary.BigEndian.Uint32(b[i+4:]))})
	}
	return out
}

// cleanedTimeEntries decodes a .timeindex by hand: 12-byte entries (timestamp, relative offset).
func cleanedTimeEntries(t *testing.T, fsys vfs.FS, path string, base int64) [][2]int64 {
	t.Helper()
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for i := 0; i+12 <= len(b); i += 12 {
		out = append(out, [2]int64{int64(binary.BigEndian.Uint64(b[i:])), base + int64(binary.BigEndian.Uint32(b[i+8:]))})
	}
	return out
}

// batchStarts walks a .log by hand: each batch's position, base offset and size.
func batchStarts(b []byte) [][3]int64 {
	var out [][3]int64
	for pos := 0; pos+12 <= len(b); {
		size := 12 + int(binary.BigEndian.Uint32(b[pos+8:]))
		out = append(out, [3]int64{int64(pos), int64(binary.BigEndian.Uint64(b[pos:])), int64(size)})
		pos += size
	}
	return out
}

func dirNames(t *testing.T, fsys vfs.FS, dir string) []string {
	t.Helper()
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestCleanStepBytesByHand pins issue 25's clean step on files: the cleaned segment's bytes
// (kept batches copied, the dropped one gone, the rewritten one rebuilt at 80 bytes with the
// delete horizon), its indexes under both rules and both buffer sizes, and the swap's leftovers.
func TestCleanStepBytesByHand(t *testing.T) {
	for _, tc := range []struct {
		name, rule, extra string
		index, time       [][2]int64
	}{
		// Per batch (KAFKA-806), chunking changes nothing: b3' at 250 is the first batch
		// after more than 100 bytes (250 since the start); the final time-index entry of
		// onBecomeInactiveSegment adds (1101, 6).
		{"per-batch", "per-batch", "", [][2]int64{{5, 250}}, [][2]int64{{1099, 5}, {1101, 6}}},
		{"per-batch/small-buffer", "per-batch", `, "ioBufferSize": 120`, [][2]int64{{5, 250}}, [][2]int64{{1099, 5}, {1101, 6}}},
		// Per append, one chunk per source segment: chunk 2 (b3', b4) at 250 names its largest
		// offset 6 and the chunk's max timestamp (1101, 6); the final entry repeats it.
		{"per-append", "per-append", "", [][2]int64{{6, 250}}, [][2]int64{{1101, 6}}},
		// Per append, a 120-byte buffer: chunks [b0], [b1] (dropped, no append), b2 alone
		// after the buffer grew to 240, [b3'], [b4]; the entry comes at [b3'] (offset 5),
		// the final time-index entry (1101, 6) after it.
		{"per-append/small-buffer", "per-append", `, "ioBufferSize": 120`, [][2]int64{{5, 250}}, [][2]int64{{1099, 5}, {1101, 6}}},
		// max.message.bytes below the batch: the buffer grows to 130, then to b2's 150.
		{"per-append/grow-past-max-message", "per-append", `, "ioBufferSize": 120`, [][2]int64{{5, 250}}, [][2]int64{{1099, 5}, {1101, 6}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := parseCleanWorkload(t, tc.rule, tc.extra)
			if strings.Contains(tc.name, "grow-past") {
				w.Config.MaxMessageBytes = 130
			}
			mem, l := writeOnMem(t, w, cleanDir, 6)
			src0, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000000.log"))
			src4, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000004.log"))
			active, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000007.log"))
			if got := batchStarts(src0); len(got) != 3 || len(batchStarts(src4)) != 2 {
				t.Fatalf("source segments: %v, %v; the workload's facts are wrong", got, batchStarts(src4))
			}
			if ev, err := l.Apply(w.Steps[6]); ev != nil || err != nil {
				t.Fatalf("clean: %v %v", ev, err)
			}
			if got, want := l.SegmentBaseOffsets(), []int64{0, 7}; !slices.Equal(got, want) {
				t.Fatalf("segments after the clean %v, want %v", got, want)
			}
			if l.NextOffset() != 8 {
				t.Fatalf("log end %d, want 8 (a clean moves no offset)", l.NextOffset())
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			want := []string{"00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex",
				"00000000000000000007.index", "00000000000000000007.log", "00000000000000000007.timeindex"}
			if got := slices.DeleteFunc(dirNames(t, mem, cleanDir), func(n string) bool { return strings.HasSuffix(n, ".checkpoint") }); !slices.Equal(got, want) {
				t.Fatalf("files after the swap %v, want %v (no .cleaned, .swap or .deleted left)", got, want)
			}
			got, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000000.log"))
			if starts := batchStarts(got); !slices.Equal(starts, [][3]int64{{0, 0, 100}, {100, 3, 150}, {250, 4, 80}, {330, 6, 100}}) {
				t.Fatalf("cleaned batches (position, base, size) %v", starts)
			}
			// Kept batches are byte for byte the sources'.
			if !bytes.Equal(got[:100], src0[:100]) || !bytes.Equal(got[100:250], src0[200:350]) || !bytes.Equal(got[330:430], src4[120:220]) {
				t.Fatal("a kept batch is not the source's bytes")
			}
			// The rebuilt batch, field by field (DefaultRecordBatch's layout).
			b3 := got[250:330]
			if err := segment.CheckBatch(b3, "b3", 250); err != nil {
				t.Fatalf("rebuilt batch: %v", err)
			}
			be := binary.BigEndian
			if base, attrs, lastDelta, baseTs, maxTs, count := int64(be.Uint64(b3)), be.Uint16(b3[21:]), be.Uint32(b3[23:]), int64(be.Uint64(b3[27:])), int64(be.Uint64(b3[35:])), be.Uint32(b3[57:]); base != 4 || attrs != 0x40 || lastDelta != 1 || baseTs != 5000 || maxTs != 1099 || count != 1 {
				t.Fatalf("rebuilt header: base %d attributes %#x lastOffsetDelta %d baseTimestamp %d maxTimestamp %d records %d; want 4 0x40 1 5000 1099 1", base, attrs, lastDelta, baseTs, maxTs, count)
			}
			h, recs, err := segment.DecodeRecords(b3, "b3", 250)
			if err != nil || len(recs) != 1 {
				t.Fatalf("rebuilt records: %v %v", recs, err)
			}
			if r := recs[0]; h.BaseOffset+int64(r.OffsetDelta) != 5 || h.BaseTimestamp+r.TimestampDelta != 1099 || r.Key == nil || r.Value != nil {
				t.Fatalf("rebuilt record: offset %d timestamp %d key %d bytes value nil=%v; want a tombstone at offset 5, 1099", h.BaseOffset+int64(r.OffsetDelta), h.BaseTimestamp+r.TimestampDelta, len(r.Key), r.Value == nil)
			}
			if ix := cleanedIndexEntries(t, mem, filepath.Join(cleanDir, "00000000000000000000.index"), 0); !slices.Equal(ix, tc.index) {
				t.Errorf("cleaned .index %v, want %v", ix, tc.index)
			}
			if tx := cleanedTimeEntries(t, mem, filepath.Join(cleanDir, "00000000000000000000.timeindex"), 0); !slices.Equal(tx, tc.time) {
				t.Errorf("cleaned .timeindex %v, want %v", tx, tc.time)
			}
			if after, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000007.log")); !bytes.Equal(after, active) {
				t.Error("the active segment changed")
			}
		})
	}
}

// TestCleanEverythingDroppedKeepsEmptySegment pins the contract's "an empty cleaned segment is
// still swapped in": Kafka's replaceSegments keeps a segment of 0 bytes and no entries.
func TestCleanEverythingDroppedKeepsEmptySegment(t *testing.T) {
	w, err := segment.ParseWorkload([]byte(sprintf(cleanWorkload, "per-batch", `{"drop": [0, 2, 3, 4, 6]}`)))
	if err != nil {
		t.Fatal(err)
	}
	mem, l := writeOnMem(t, w, cleanDir, 7)
	if got := l.SegmentBaseOffsets(); !slices.Equal(got, []int64{0, 7}) {
		t.Fatalf("segments %v, want [0 7]", got)
	}
	l.Close()
	for _, suf := range []string{".log", ".index", ".timeindex"} {
		if st, err := mem.Stat(filepath.Join(cleanDir, "00000000000000000000"+suf)); err != nil || st.Size() != 0 {
			t.Fatalf("empty cleaned segment's %s: %v (want 0 bytes)", suf, err)
		}
	}
}

// TestCleanStepRefusals pins the contract's invalid steps: each is refused before anything
// changes, with the reason in words.
func TestCleanStepRefusals(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{`{"drop": [5]}`, "batch 5 is no batch"},
		{`{"drop": [7]}`, "batch 7 is no batch"}, // the active segment's
		{`{"rewrite": [{"baseOffset": 1, "bytes": 70}]}`, "batch 1 is no batch"},
		{`{"uncleanableOffset": 8}`, "inside the active segment"},
		{`{"uncleanableOffset": 4, "drop": [4]}`, "batch 4 is no batch"},
	} {
		w, err := segment.ParseWorkload([]byte(sprintf(cleanWorkload, "per-batch", tc.step)))
		if err != nil {
			t.Fatal(err)
		}
		mem, l := writeOnMem(t, w, cleanDir, 6)
		before := dirNames(t, mem, cleanDir)
		_, err = l.Apply(w.Steps[6])
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.step, err, tc.want)
		}
		if got := dirNames(t, mem, cleanDir); !slices.Equal(got, before) {
			t.Errorf("%s: the refusal changed the directory: %v", tc.step, got)
		}
	}
	for _, tc := range []struct{ step, want string }{
		{`{"drop": [2], "rewrite": [{"baseOffset": 2, "bytes": 70}]}`, "both dropped and rewritten"},
		{`{"rewrite": [{"baseOffset": 2, "bytes": 60}]}`, "outside [61"},
		{`{"rewrite": [{"baseOffset": 2}]}`, "needs \"baseOffset\" and \"bytes\""},
		{`{"ioBufferSize": 0}`, "ioBufferSize: 0 is outside"},
		{`{"dropp": [2]}`, "dropp"},
	} {
		_, err := segment.ParseWorkload([]byte(sprintf(cleanWorkload, "per-batch", tc.step)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parse error %v, want %q", tc.step, err, tc.want)
		}
	}
}

// TestCleanEmptyRewriteTimeLookup pins the 61-byte rewrite (the empty batch Kafka retains for a
// producer's state, DefaultRecordBatch.writeEmptyHeader): base offset and last offset kept, no
// record, base timestamp -1, the max timestamp kept; and a timestamp lookup passes over it, as
// FileRecords.searchForTimestamp iterates its records and finds none.
func TestCleanEmptyRewriteTimeLookup(t *testing.T) {
	w, err := segment.ParseWorkload([]byte(sprintf(cleanWorkload, "per-batch", `{"rewrite": [{"baseOffset": 0, "bytes": 61}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	mem, l := writeOnMem(t, w, cleanDir, 7)
	l.Close()
	got, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, "00000000000000000000.log"))
	b0 := got[:61]
	be := binary.BigEndian
	if base, attrs, lastDelta, baseTs, maxTs, count := int64(be.Uint64(b0)), be.Uint16(b0[21:]), be.Uint32(b0[23:]), int64(be.Uint64(b0[27:])), int64(be.Uint64(b0[35:])), be.Uint32(b0[57:]); base != 0 || attrs != 0 || lastDelta != 1 || baseTs != -1 || maxTs != 1000 || count != 0 {
		t.Fatalf("empty batch: base %d attributes %#x lastOffsetDelta %d baseTimestamp %d maxTimestamp %d records %d; want 0 0 1 -1 1000 0", base, attrs, lastDelta, baseTs, maxTs, count)
	}
	if err := segment.CheckBatch(b0, "b0", 0); err != nil {
		t.Fatal(err)
	}
	s, err := segment.OpenSegmentFS(mem, filepath.Join(cleanDir, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// b0' (offsets 0-1, max 1000, no record), b1 (offset 2, 1001): the first record at or past
	// 1000 is b1's, at offset 2.
	r, err := s.LookupTimestamp(1000)
	if err != nil || !r.Found || r.FoundOffset != 2 || r.FoundTimestamp != 1001 {
		t.Fatalf("lookupTimestamp(1000) = %+v, %v; want offset 2 at 1001", r, err)
	}
}

// TestCleanGroupsBySize pins Cleaner.groupSegmentsBySize on the files (LogCleanerTest's
// testSegmentGrouping, by hand): with segment.bytes 500, segments 0 (350 B) and 4 (220 B) do not
// fit one group (570 > 500), so each is cleaned on its own and keeps its base offset.
func TestCleanGroupsBySize(t *testing.T) {
	src := strings.Replace(sprintf(cleanWorkload, "per-batch", `{"drop": [2]}`), `"segment.bytes": 1000`, `"segment.bytes": 500`, 1)
	w, err := segment.ParseWorkload([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	mem, l := writeOnMem(t, w, cleanDir, 7)
	if got := l.SegmentBaseOffsets(); !slices.Equal(got, []int64{0, 4, 7}) {
		t.Fatalf("segments %v, want [0 4 7]: two groups", got)
	}
	l.Close()
	for name, want := range map[string][][3]int64{
		"00000000000000000000.log": {{0, 0, 100}, {100, 3, 150}},
		"00000000000000000004.log": {{0, 4, 120}, {120, 6, 100}},
	} {
		b, _ := vfs.ReadFile(mem, filepath.Join(cleanDir, name))
		if got := batchStarts(b); !slices.Equal(got, want) {
			t.Errorf("%s: batches %v, want %v", name, got, want)
		}
	}
}
