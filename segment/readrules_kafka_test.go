package segment_test

// Issue 24, "Tests that must exist": hand-built cases for items 1-4, each answered per
// release line by hand from Kafka's source, then compared with segment.LookupAs. The bytes
// are laid out here field by field (not with kidx's writer) and every expected answer was
// worked out by reading Kafka, never by running kidx. Sources, as cited below:
//
//   T   confluentinc/kafka trunk d79bd502ec (4.5.0-SNAPSHOT), clients/.../record/internal/
//   F   4.0.2 (5d0fe56677), clients/.../record/
//   A   Apache tags named in place (0.8.2.2, 0.10.0.1, 0.10.1.1, 0.10.2.0, 1.1.1, 2.0.0, 2.1.0)
//
// The rules the answers come from (docs/kafka.md §7.5):
//   - 0.8-0.10.0, FileMessageSet.searchFor (A 0.10.0.1 FileMessageSet.scala:129-149): while
//     pos+12 < size: read offset and size; offset >= target is the hit (line 141, before the
//     size check of line 144); size < 14 throws IllegalStateException("Invalid message size");
//     pos += 12 + size (Scala Int, wraps).
//   - 0.10.1, searchForOffsetWithSize (A 0.10.1.1 FileMessageSet.scala:137-157): the size check
//     (line 150) before the offset compare (line 152); no end check either.
//   - 0.10.2, FileRecords.searchForOffsetWithSize (A 0.10.2.0 FileRecords.java:268-275) over
//     FileLogInputStream.nextEntry (lines 55-78): pos+12 >= end ends (line 56); size < 14
//     throws CorruptRecordException (line 66); pos+12+size > end ends (line 72, Java int);
//     the entry's offset field >= target is the hit.
//   - 0.11 on, nextBatch (T FileLogInputStream.java:64-94, F 63-93): pos >= end-17 ends
//     (T:66); size < 14 throws CorruptRecordException "Found record size N smaller than
//     minimum record overhead (14) in file F." (T:77-79); pos > end-12-size ends (T:81); magic
//     byte < 2 makes a LegacyFileChannelRecordBatch, else a DefaultFileChannelRecordBatch
//     (T:87-90). A v2 lastOffset() is loadBatchHeader() (T:202-210), 61 bytes read at the
//     batch's position whatever its size (loadBatchWithSize, T:212-222), an EOF being
//     KafkaException "Failed to load record batch at position P from FileRecords(...)"
//     (T:220); a legacy lastOffset() is the offset field (T AbstractLegacyRecordBatch.java:570)
//     and its baseOffset() is loadFullBatch().baseOffset() (T:560-562), i.e.
//     iterator().next().offset() (T:139-141), deep-iterating a compressed one (T:236-237),
//     whose DeepRecordsIterator refuses a wrapper magic other than 0 or 1 (T:326-327).
//   - 0.11-2.0, 2.1-3.9: searchForOffsetWithSize (A 2.0.0 FileRecords.java:285-292): the first
//     batch with lastOffset() >= target.
//   - 4.0: the same loop, returning batch.baseOffset() (F FileRecords.java:320-327, KAFKA-17803).
//   - 4.1+: searchForOffsetFromPosition (T FileRecords.java:313-343, KAFKA-18989).
//   - Phase 1: OffsetIndex.lookup; before 2.1.0 the plain search (A 2.0.0
//     AbstractIndex.scala:309-334: slot 0 above the target is "none", else the upper-middle
//     binary search over every entry); from 2.1.0 the warm section first (A 2.1.0
//     AbstractIndex.scala:367-400: firstHotEntry = max(0, n-1-1024), its entry below the target
//     means binarySearch(firstHotEntry, n-1)). The reopened view counts size/8 slots (the
//     AbstractIndex constructor on an existing file); the running view the slots before the
//     zero tail.
//
// Confirmed on Kafka's classes: phase 2 of every case below, from the start worked out by
// hand, was run through Kafka's own FileRecords (compiled from source, the snappy, lz4 and
// zstd codecs and the generated message classes stubbed out) at trunk d79bd502ec
// (searchForOffsetFromPosition: line 4.1+), 4.0.2 5d0fe56677 (searchForOffsetWithSize: 4.0),
// 2.0.0 (0.11-2.0) and 0.10.2.0 (0.10.2): the same hit, or the same exception class, in all
// 32 cases. Not run: the Scala lines 0.8-0.10.1 (read only) and phase 1 (read here; the index
// classes themselves were run for docs/kafka.md §5).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
)

// --- bytes, field by field ---

// v2Batch is a DefaultRecordBatch header (DefaultRecordBatch's offsets: BASE_OFFSET 0,
// LENGTH 8, MAGIC 16, CRC 17, ATTRIBUTES 21, LAST_OFFSET_DELTA 23, RECORD_BATCH_OVERHEAD 61)
// with no records, cut to total bytes (26..60 for a short batch) or zero-padded past 61. The
// length field says total-12. CRC and the other fields stay 0: no lookup reads them.
func v2Batch(base int64, lastOffsetDelta int32, total int) []byte {
	b := make([]byte, max(total, 61))
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(int32(total-12)))
	b[16] = 2
	binary.BigEndian.PutUint32(b[23:], uint32(lastOffsetDelta))
	return b[:total]
}

// v0Message is a legacy magic-0 entry with a null key and a null value (LegacyRecord: CRC at
// 12, magic 16, attributes 17, key size 18, value size 22): 12 + RECORD_OVERHEAD_V0 (14) bytes.
func v0Message(offset int64, attributes byte) []byte {
	b := make([]byte, 26)
	binary.BigEndian.PutUint64(b[0:], uint64(offset))
	binary.BigEndian.PutUint32(b[8:], 14)
	b[17] = attributes
	binary.BigEndian.PutUint32(b[18:], 0xFFFFFFFF)
	binary.BigEndian.PutUint32(b[22:], 0xFFFFFFFF)
	return b
}

// frame is a raw 12-byte entry head (offset, size field) followed by pad zero bytes.
func frame(offset int64, size int32, pad int) []byte {
	b := make([]byte, 12+pad)
	binary.BigEndian.PutUint64(b[0:], uint64(offset))
	binary.BigEndian.PutUint32(b[8:], uint32(size))
	return b
}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// indexSlots is an offset index of base offset 0: (relative offset, position) int32 pairs,
// then zeroSlots zero slots (a preallocated tail).
func indexSlots(zeroSlots int, pairs ...int32) []byte {
	b := make([]byte, 4*len(pairs)+8*zeroSlots)
	for i, v := range pairs {
		binary.BigEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

// v2Run is n intact 61-byte v2 batches, batch k at position 61k holding offsets 10k..10k+9.
func v2Run(n int) []byte {
	var out []byte
	for k := 0; k < n; k++ {
		out = append(out, v2Batch(int64(10*k), 9, 61)...)
	}
	return out
}

// --- answers ---

const anyPos = -1 << 62 // an error position not compared

// answer is one release line's answer: the start (phase 1), then either an error (its Java
// class, kidx's byte position, a message fragment) or the hit position (-1: none) and hops
// (-1: not compared).
type answer struct {
	start    int64
	hit      int64
	hops     int
	class    string
	errPos   int64
	fragment string
}

func hit(start, pos int64, hops int) answer { return answer{start: start, hit: pos, hops: hops} }
func none(start int64, hops int) answer     { return answer{start: start, hit: -1, hops: hops} }
func fails(start int64, class string, pos int64, fragment string) answer {
	return answer{start: start, class: class, errPos: pos, fragment: fragment}
}

// byLine lists the seven lines' answers, oldest first (segment.ReadReleases' order).
type byLine [7]answer

// kafkaCase is one segment, one target and one view, answered per line.
type kafkaCase struct {
	name   string
	log    []byte
	index  []byte // nil: no .index (phase 1 answers position 0)
	target int64
	view   segment.IndexView
	want   byLine
}

func writeSegment(t *testing.T, log, index []byte) string {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(logPath, log, 0o644); err != nil {
		t.Fatal(err)
	}
	if index != nil {
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.index"), index, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return logPath
}

func runKafkaCases(t *testing.T, cases []kafkaCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := segment.OpenSegment(writeSegment(t, c.log, c.index))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i, rel := range segment.ReadReleases {
				w := c.want[i]
				got, err := s.LookupAs(c.target, segment.ReadRules{Release: rel, View: c.view})
				if d := judge(w, got, err); d != "" {
					t.Errorf("%s, %s view, target %d: %s", rel, c.view, c.target, d)
				}
			}
		})
	}
}

// judge says how LookupAs's answer differs from Kafka's, "" when it does not.
func judge(w answer, got segment.LookupResult, err error) string {
	if got.IndexPosition != w.start {
		return fmt.Sprintf("start %d, Kafka's %d", got.IndexPosition, w.start)
	}
	if w.class != "" {
		var fe *segment.FormatError
		switch {
		case err == nil:
			return fmt.Sprintf("answered (hit %d, found %v), Kafka throws %s", got.HitPosition, got.Found, w.class)
		case !errors.As(err, &fe):
			return fmt.Sprintf("error %v is no *FormatError", err)
		case fe.Class != w.class:
			return fmt.Sprintf("throws %s (%v), Kafka throws %s", fe.Class, err, w.class)
		case w.errPos != anyPos && fe.Pos != w.errPos:
			return fmt.Sprintf("error at byte %d, Kafka's at %d", fe.Pos, w.errPos)
		case !strings.Contains(fe.Msg, w.fragment):
			return fmt.Sprintf("message %q lacks Kafka's %q", fe.Msg, w.fragment)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("error %v, Kafka answers hit %d", err, w.hit)
	}
	if w.hit < 0 {
		if got.Found {
			return fmt.Sprintf("hit %d, Kafka finds none", got.HitPosition)
		}
	} else if !got.Found || got.HitPosition != w.hit {
		return fmt.Sprintf("hit %d (found %v), Kafka's %d", got.HitPosition, got.Found, w.hit)
	}
	if w.hops >= 0 && got.Hops != w.hops {
		return fmt.Sprintf("hops %d, Kafka reads %d headers", got.Hops, w.hops)
	}
	return ""
}

const (
	corrupt   = "CorruptRecordException"
	kafkaExc  = "KafkaException"
	illState  = "IllegalStateException"
	illArg    = "IllegalArgumentException"
	invalid   = "InvalidRecordException"
	loadFails = "Failed to load record batch at position"
	// FileRecords.toString (T FileRecords.java:410-416) of a file FileRecords.open opened:
	// start 0, end Integer.MAX_VALUE (open's end for an existing file, T:450).
	openedRecords = ", start=0, end=2147483647)"
)

// Item 1: a v2 batch of 26..60 bytes. nextBatch refuses only a size below 14 (T:77) and a
// batch past the end (T:81); lastOffset() reads 61 bytes at the batch whatever its size
// (loadBatchHeader, T:202-210), ensureValid's "smaller than 61" is never asked.
func TestKafkaItem1ShortV2Batch(t *testing.T) {
	// A: base 0, 26 bytes (size 14): bytes 23..25 of the 61 read are A's (zero), byte 26 is
	// B's first byte (0x07, the top byte of B's base offset), so A's lastOffsetDelta reads 7.
	// B: base 0x0700000000000010, 61 bytes. File 87 bytes.
	bigBase := int64(0x0700000000000010)
	shortThenNext := cat(v2Batch(0, 0, 26), v2Batch(bigBase, 0, 61))
	// C: base 0, 61 bytes; then A: base 1, 40 bytes (size 28), the file's last batch: A's
	// 61-byte read at 61 meets the end of the 101-byte file.
	shortAtEnd := cat(v2Batch(0, 0, 61), v2Batch(1, 0, 40))
	runKafkaCases(t, []kafkaCase{
		{
			// 0.8-0.10.2 compare A's offset field 0 < 5 and walk on (pos 26, size 14 passes
			// every size check) to B, whose offset field is >= 5. 0.11-4.0: A's lastOffset()
			// = 0 + 7 >= 5, the hit is A after one header. 4.1+: A's base 0 < 5 (prev = A),
			// B's base > 5, so prev.lastOffset() = 7 >= 5 (T:327-328): A, after two headers.
			name: "26-byte-v2-reads-next-batch", log: shortThenNext, target: 5,
			want: byLine{hit(0, 26, 2), hit(0, 26, 2), hit(0, 26, 2), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 2)},
		},
		{
			// Target 1: 0.8-0.10.2 hit A's offset field 1 at 61 (0.10.2: 61+40 = 101 fits).
			// 0.11-4.0: C's lastOffset 0 < 1, A's lastOffset() loads 61 bytes at 61 from a
			// 101-byte file: EOF, KafkaException (T:220). 4.1+: C's base 0 < 1, A's base 1
			// == target (T:320): A, lastOffset never asked, no error.
			name: "40-byte-v2-at-end-target-1", log: shortAtEnd, target: 1,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2),
				fails(0, kafkaExc, 61, ""), fails(0, kafkaExc, 61, loadFails), fails(0, kafkaExc, 61, openedRecords), hit(0, 61, 2)},
		},
		{
			// Target 2: 0.8/0.10.1: A's offset 1 < 2, pos 101, 113 < 101 fails: none.
			// 0.10.2: pos 101, 113 >= 101: none. 0.11-4.0: the load of A fails as above.
			// 4.1+: A's base 1 < 2 (prev = A), end of the batches, then prev.lastOffset()
			// (T:339) loads A: KafkaException.
			name: "40-byte-v2-at-end-target-2", log: shortAtEnd, target: 2,
			want: byLine{none(0, 2), none(0, 2), none(0, 2),
				fails(0, kafkaExc, 61, ""), fails(0, kafkaExc, 61, loadFails), fails(0, kafkaExc, 61, openedRecords), fails(0, kafkaExc, 61, openedRecords)},
		},
	})
}

// Item 2: 4.1 reads one batch past the hit (searchForOffsetFromPosition, T:313-343): it stops
// at base == target (T:320), else at the first base > target, and only then asks the
// previous batch's lastOffset() (T:325-334); after the last batch, the previous one (T:339).
func TestKafkaItem2OneBatchPastTheHit(t *testing.T) {
	// A: offsets 0..4 at 0; B at 61: base 5, its size field -1 (61 bytes follow, so B is not
	// a tail nextBatch skips: 61 < 122-17).
	minusOne := cat(v2Batch(0, 4, 61), v2Batch(5, 4, 61))
	binary.BigEndian.PutUint32(minusOne[61+8:], 0xFFFFFFFF)
	// A 0..4, B 5..9 with its base offset damaged to 2, C 10..14.
	damagedBase := cat(v2Batch(0, 4, 61), v2Batch(2, 4, 61), v2Batch(10, 4, 61))
	// A with its lastOffsetDelta damaged from 4 to 100, B 5..9, C 10..14.
	damagedDelta := cat(v2Batch(0, 100, 61), v2Batch(5, 4, 61), v2Batch(10, 4, 61))
	intact := cat(v2Batch(0, 4, 61), v2Batch(5, 4, 61), v2Batch(10, 4, 61))
	var legacy []byte // four v0 messages, offsets 0..3, 26 bytes each
	for o := int64(0); o < 4; o++ {
		legacy = append(legacy, v0Message(o, 0)...)
	}
	runKafkaCases(t, []kafkaCase{
		{
			// 0.8-0.10.0: B's offset 5 >= 2 is compared before its size (A 0.10.0.1
			// FileMessageSet.scala:141): hit B. 0.10.1: B's size -1 < 14 first (A 0.10.1.1
			// :150): IllegalStateException at B's size field (69). 0.10.2: nextEntry's
			// size check (A 0.10.2.0 FileLogInputStream.java:66). 0.11-4.0: A's lastOffset
			// 4 >= 2: A, B never read. 4.1+: A's base 0 < 2, so nextBatch reads B: "Found
			// record size -1 smaller than minimum record overhead (14)" (T:77-79).
			name: "size-minus-one-after-the-hit", log: minusOne, target: 2,
			want: byLine{hit(0, 61, 2), fails(0, illState, 69, "Invalid message size: -1"),
				fails(0, corrupt, 69, "Record size is smaller than minimum record overhead (14)."),
				hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), fails(0, corrupt, 69, "Found record size -1 smaller than minimum record overhead (14)")},
		},
		{
			// Target 0: every line stops at A (4.1+: base == target, T:320) and never reads B.
			name: "size-minus-one-after-an-exact-hit", log: minusOne, target: 0,
			want: byLine{hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1)},
		},
		{
			// Target 3. 0.8-0.10.2: offset fields 0, 2 < 3, C's 10 >= 3: C. 0.11-4.0: A's
			// lastOffset 4 >= 3: A. 4.1+: bases 0, 2 < 3 (prev = B), C's 10 > 3, B's
			// lastOffset 2+4 = 6 >= 3: B, after three headers.
			name: "damaged-base-offset-changes-the-winner", log: damagedBase, target: 3,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 61, 3)},
		},
		{
			// Target 7. 0.8-0.10.2: C (offset fields). 0.11-4.0: A's lastOffset 100 >= 7: A.
			// 4.1+: bases 0, 5 < 7 (prev = B), C's 10 > 7, B's lastOffset 9 >= 7: B.
			name: "damaged-last-offset-delta-changes-the-winner", log: damagedDelta, target: 7,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 61, 3)},
		},
		// Header reads on intact v2 data. Target 7 (inside B): 0.11-4.0 read A, B; 4.1+
		// reads C too (its base 10 > 7 decides). The pre-0.11 lines compare B's offset
		// field, a base offset, and overshoot to C (what they would do with v2 bytes).
		{name: "hops-v2-inside-B", log: intact, target: 7,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 3)}},
		// Target 5 = B's base: 4.1+ stops at B (T:320), as many headers as the others.
		{name: "hops-v2-at-B-base", log: intact, target: 5,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2)}},
		// Target 12, in the last batch: 4.1+ reaches the end and asks C (T:339): three
		// headers, as 0.11-4.0. The offset-field lines find none.
		{name: "hops-v2-in-last-batch", log: intact, target: 12,
			want: byLine{none(0, 3), none(0, 3), none(0, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3)}},
		// Target 15, past the last offset 14: none anywhere, after three headers.
		{name: "hops-v2-past-the-end", log: intact, target: 15,
			want: byLine{none(0, 3), none(0, 3), none(0, 3), none(0, 3), none(0, 3), none(0, 3), none(0, 3)}},
		// Legacy v0 messages 0..3, target 2: every line reads three headers and stops at the
		// third message (4.1+: baseOffset() 2 == target; an uncompressed message's
		// baseOffset is its own offset, T:231-245).
		{name: "hops-legacy", log: legacy, target: 2,
			want: byLine{hit(0, 52, 3), hit(0, 52, 3), hit(0, 52, 3), hit(0, 52, 3), hit(0, 52, 3), hit(0, 52, 3), hit(0, 52, 3)}},
		// Target 4, past the last message: none after four headers everywhere.
		{name: "hops-legacy-past-the-end", log: legacy, target: 4,
			want: byLine{none(0, 4), none(0, 4), none(0, 4), none(0, 4), none(0, 4), none(0, 4), none(0, 4)}},
	})
}

// Item 3: a v2 batch whose magic byte reads below 2 is a LegacyFileChannelRecordBatch
// (nextBatch, T:87-88); its lastOffset() is the offset field (T AbstractLegacyRecordBatch:570),
// its baseOffset() a full load and, when byte 17 (LegacyRecord.ATTRIBUTES_OFFSET 5 after the
// 12-byte framing; a v2 batch's first CRC byte) says compressed, the deep iterator
// (T:236-237), which refuses a wrapper magic other than 0 or 1 (T:326-327). 4.0 asks
// baseOffset() of the hit only (F FileRecords.java:324); 4.1+ of every batch it reads (T:320).
func TestKafkaItem3MagicBelowTwo(t *testing.T) {
	withMiddle := func(magic, byte17 byte) []byte {
		b := cat(v2Batch(0, 4, 61), v2Batch(5, 4, 61), v2Batch(10, 4, 61))
		b[61+16], b[61+17] = magic, byte17
		return b
	}
	magic0 := withMiddle(0, 0x00)         // uncompressed attributes
	magicMinus1 := withMiddle(0xFF, 0x01) // magic -1, gzip attributes
	magic1Id5 := withMiddle(1, 0x05)      // magic 1, compression id 5
	magic5 := withMiddle(5, 0x01)         // magic 5: >= 2, a v2 batch for nextBatch
	const badMagic = "Invalid wrapper magic found in legacy deep record iterator -1"
	runKafkaCases(t, []kafkaCase{
		// Magic 0, uncompressed: B is legacy, lastOffset = baseOffset = its offset field 5.
		// Target 5: B everywhere (4.1+: base 5 == 5).
		{name: "magic-0-uncompressed-target-5", log: magic0, target: 5,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2)}},
		// Target 7: B's lastOffset 5 < 7 (the v2 reading would be 9): C. 4.1+: prev = B,
		// C's base 10 > 7, B's lastOffset 5 < 7: C.
		{name: "magic-0-uncompressed-target-7", log: magic0, target: 7,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3)}},
		// Magic -1, gzip. Target 5: before 4.0 B (lastOffset 5); 4.0 takes the hit's
		// baseOffset(): InvalidRecordException; 4.1+ asks B's baseOffset() on the way.
		{name: "magic-minus-1-compressed-at-the-hit", log: magicMinus1, target: 5,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2),
				fails(0, invalid, 61, badMagic), fails(0, invalid, 61, badMagic)}},
		// Target 7: the hit is C (v2), so 4.0 answers; 4.1+ passed B and threw there.
		{name: "magic-minus-1-compressed-passed", log: magicMinus1, target: 7,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3),
				fails(0, invalid, 61, badMagic)}},
		// Target 2: 0.11-4.0 answer A, but 4.1+ reads B's baseOffset() to learn B's base is
		// past the target, and throws. The offset-field lines hit B (5 >= 2).
		{name: "magic-minus-1-compressed-after-the-hit", log: magicMinus1, target: 2,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1),
				fails(0, invalid, 61, badMagic)}},
		// Target 0: 4.1+ stops at A (base == target) before B.
		{name: "magic-minus-1-compressed-exact-hit-before", log: magicMinus1, target: 0,
			want: byLine{hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1), hit(0, 0, 1)}},
		// Magic 1, compression id 5: isCompressed() asks CompressionType.forId(5), which
		// throws IllegalArgumentException "Unknown compression type id: 5" (T
		// CompressionType.java:157) before the deep iterator; 4.0 at the hit, 4.1+ on the way.
		{name: "magic-1-compression-id-5", log: magic1Id5, target: 5,
			want: byLine{hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2),
				fails(0, illArg, 61, "Unknown compression type id: 5"), fails(0, illArg, 61, "Unknown compression type id: 5")}},
		// Magic 5 is >= 2: a DefaultFileChannelRecordBatch, whose lastOffset() (5+4 = 9) and
		// baseOffset() (the offset field) never look at the magic or the attributes: no error
		// on any line. Target 7: 0.11-4.0 B; 4.1+ prev = B, C's base 10 > 7, 9 >= 7: B.
		{name: "magic-5-is-v2", log: magic5, target: 7,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 3)}},
	})
}

// Item 4, phase 1: which entries the index search sees. The log is four 61-byte v2 batches
// (offsets 10k..10k+9 at 61k, 244 bytes); the index has entries (10, 61), (20, 122),
// (30, 183) and a zero tail, which the reopened view reads as (base 0, position 0).
func TestKafkaItem4IndexViews(t *testing.T) {
	log := v2Run(4)
	fewZeros := indexSlots(2, 10, 61, 20, 122, 30, 183)     // 5 slots
	manyZeros := indexSlots(1100, 10, 61, 20, 122, 30, 183) // 1103 slots
	running, reopened := segment.ViewRunning, segment.ViewReopened
	runKafkaCases(t, []kafkaCase{
		// Target 35, running (3 entries): the largest entry <= 35 is (30, 183), plain and warm
		// alike (n = 3, firstHotEntry 0). From 183: 0.11+ hit 183 after one header; the
		// offset-field lines read 30 < 35 and end (pos 244).
		{name: "few-zero-slots-running-35", log: log, index: fewZeros, target: 35, view: running,
			want: byLine{none(183, 1), none(183, 1), none(183, 1), hit(183, 183, 1), hit(183, 183, 1), hit(183, 183, 1), hit(183, 183, 1)}},
		// Reopened (5 slots): warm and plain both run binarySearch(0, 4): mid 2 (30 < 35)
		// lo = 2, mid 3 (zero slot: 0 < 35) lo = 3, mid 4 lo = 4: slot 4, (0, 0): start 0.
		// From 0: 0.11-4.0 four headers to 183; 4.1+ bases 0..30 < 35, then C.. the last
		// batch's lastOffset 39: 183, four headers.
		{name: "few-zero-slots-reopened-35", log: log, index: fewZeros, target: 35, view: reopened,
			want: byLine{none(0, 4), none(0, 4), none(0, 4), hit(0, 183, 4), hit(0, 183, 4), hit(0, 183, 4), hit(0, 183, 4)}},
		// Target 15, reopened, 5 slots: mid 2 (30 > 15) hi = 1, mid 1 (20 > 15) hi = 0:
		// slot 0, (10, 61), the running view's answer too. From 61: 0.11-4.0 one header;
		// 4.1+ reads batch 2 (base 20 > 15) and answers batch 1 (19 >= 15); offset fields:
		// 10 < 15, 20 >= 15 hit 122.
		{name: "few-zero-slots-reopened-15", log: log, index: fewZeros, target: 15, view: reopened,
			want: byLine{hit(61, 122, 2), hit(61, 122, 2), hit(61, 122, 2), hit(61, 61, 1), hit(61, 61, 1), hit(61, 61, 1), hit(61, 61, 2)}},
		// 1103 slots, target 15, reopened. From 2.1.0: firstHotEntry = 1103-1-1024 = 78, a
		// zero slot (0 < 15): binarySearch(78, 1102) over zeros ends on slot 1102: start 0.
		// Before 2.1.0: slot 0 is (10, 61) <= 15, binarySearch(0, 1102): mid 551 is a zero
		// slot, lo climbs to 1102: start 0 too. From 0: 0.11-4.0 two headers (9 < 15,
		// 19 >= 15); 4.1+ three (bases 0, 10, then 20 > 15); offset fields hit 122 (3).
		{name: "many-zero-slots-reopened-15", log: log, index: manyZeros, target: 15, view: reopened,
			want: byLine{hit(0, 122, 3), hit(0, 122, 3), hit(0, 122, 3), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 2), hit(0, 61, 3)}},
		// The same file, running view: the three entries: (10, 61).
		{name: "many-zero-slots-running-15", log: log, index: manyZeros, target: 15, view: running,
			want: byLine{hit(61, 122, 2), hit(61, 122, 2), hit(61, 122, 2), hit(61, 61, 1), hit(61, 61, 1), hit(61, 61, 1), hit(61, 61, 2)}},
	})
}

// Item 4, phase 1 before and after 2.1.0 on entries out of order: 1100 batches, entries
// (10i, 61i) for i = 0..1099, entry 0's relative offset damaged to 100000. Target 5003.
// Before 2.1.0 (A 2.0.0 AbstractIndex.scala:315): entry 0 (100000) > 5003 means no entry:
// start 0. From 2.1.0 (A 2.1.0 AbstractIndex.scala:390-393): firstHotEntry 75 holds 750 <
// 5003, binarySearch(75, 1099) finds slot 500 (5000): start 30500.
func TestKafkaItem4PlainVersusWarmSearch(t *testing.T) {
	const n = 1100
	log := v2Run(n)
	pairs := make([]int32, 0, 2*n)
	for i := int32(0); i < n; i++ {
		pairs = append(pairs, 10*i, 61*i)
	}
	pairs[0] = 100000
	runKafkaCases(t, []kafkaCase{{
		// From 0: offset fields 0..5000 < 5003, batch 501 (offset 5010) at 30561 after 502
		// headers; 0.11-2.0 the batch 500 (lastOffset 5009) after 501 headers. From 30500:
		// 2.1-4.0 one header; 4.1+ two (batch 501's base 5010 > 5003 decides).
		name: "out-of-order-slot-0", log: log, index: indexSlots(0, pairs...), target: 5003,
		want: byLine{hit(0, 30561, 502), hit(0, 30561, 502), hit(0, 30561, 502), hit(0, 30500, 501),
			hit(30500, 30500, 1), hit(30500, 30500, 1), hit(30500, 30500, 2)},
	}})
}

// Item 4, phase 2 of the lines before 0.11 on legacy entries.
func TestKafkaItem4OldLines(t *testing.T) {
	// A v0 message (offset 0) and an entry with offset 1 and size 0, 8 bytes after its head:
	// 46 bytes.
	sizeZero := cat(v0Message(0, 0), frame(1, 0, 8))
	// The same with size 100: the entry runs past the end of the file.
	pastEnd := cat(v0Message(0, 0), frame(1, 100, 8))
	// A 16-byte tail (offset 1, size 0): 42 bytes.
	tail16 := cat(v0Message(0, 0), frame(1, 0, 4))
	// An entry of offset 5 and size 2^31-1, 14 bytes after its head: 52 bytes.
	huge := cat(v0Message(0, 0), frame(5, 0x7FFFFFFF, 14))
	runKafkaCases(t, []kafkaCase{
		{
			// 0.8-0.10.0 compares the offset 1 >= 1 before the size (A 0.10.0.1
			// FileMessageSet.scala:141): hit 26. 0.10.1: size 0 < 14 first (A 0.10.1.1
			// :150-151) at byte 34. 0.10.2: pos+12 = 38 < 46, size 0: CorruptRecordException
			// (A 0.10.2.0 FileLogInputStream.java:66). 0.11+: 26 < 46-17 = 29, size 0
			// (T:77-79). 4.1+ passes the message (base 0 < 1) and reads the entry too.
			name: "size-zero-entry", log: sizeZero, target: 1,
			want: byLine{hit(0, 26, 2), fails(0, illState, 34, "Invalid message size: 0"),
				fails(0, corrupt, 34, "Record size is smaller than minimum record overhead (14)."),
				fails(0, corrupt, 34, "Found record size 0"), fails(0, corrupt, 34, "Found record size 0"),
				fails(0, corrupt, 34, "Found record size 0"), fails(0, corrupt, 34, "Found record size 0")},
		},
		{
			// No end check before 0.10.2: offset 1 >= 1 at 26, although 26+112 > 46. 0.10.2:
			// 26+12+100 > 46 ends the log (line 72): none, one entry read. 0.11+: 26 >
			// 46-12-100 (T:81): none.
			name: "entry-past-the-end", log: pastEnd, target: 1,
			want: byLine{hit(0, 26, 2), hit(0, 26, 2), none(0, 1), none(0, 1), none(0, 1), none(0, 1), none(0, 1)},
		},
		{
			// A 16-byte tail: 0.10.2 ends only at pos+12 >= end (38 < 42: it reads the head
			// and throws on size 0); 0.11+ ends at pos >= end-17 (26 >= 25): none. 0.8-0.10.0
			// hit the tail's offset 1; 0.10.1 throws on its size.
			name: "tail-of-16-bytes", log: tail16, target: 1,
			want: byLine{hit(0, 26, 2), fails(0, illState, 34, "Invalid message size: 0"),
				fails(0, corrupt, 34, "Record size is smaller than minimum record overhead (14)."),
				none(0, 1), none(0, 1), none(0, 1), none(0, 1)},
		},
		{
			// Size 2^31-1, target 3 (<= the entry's offset 5). 0.8-0.10.1: no end check: hit
			// 26. 0.10.2: 26+12+(2^31-1) wraps negative, not > 52 (line 72): the entry is
			// returned, offset 5 >= 3: hit 26. 2.0+ (KAFKA-6292, T:81): 26 > 52-12-(2^31-1):
			// none. (0.11.0-1.1.0 still had the wrapping test: not a line of their own.)
			name: "size-2^31-1-hit", log: huge, target: 3,
			want: byLine{hit(0, 26, 2), hit(0, 26, 2), hit(0, 26, 2), none(0, 1), none(0, 1), none(0, 1), none(0, 1)},
		},
		{
			// Target 7 (> 5): the walk steps to 26+12+(2^31-1), a negative int. 0.8-0.10.1:
			// FileChannel.read at a negative position: IllegalArgumentException "Negative
			// position". 0.10.2: Utils.readFullyOrFail: IllegalArgumentException "The file
			// channel position cannot be negative, but it is -2147483611" (A 0.10.2.0
			// Utils.java:823-825). 2.0+: none.
			name: "size-2^31-1-walks-on", log: huge, target: 7,
			want: byLine{fails(0, illArg, anyPos, "Negative position"), fails(0, illArg, anyPos, "Negative position"),
				fails(0, illArg, anyPos, "cannot be negative, but it is -2147483611"),
				none(0, 1), none(0, 1), none(0, 1), none(0, 1)},
		},
	})
}
