package parsers

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
)

// The binary parsers of a log directory's other files (segment/snapshot.go, txnindex.go; the
// text checkpoints are fuzzed in fuzz/parsers/decoding, quorum-state being JSON): no panic, bounded allocation, every error a *segment.FormatError inside the
// input, and what is accepted checked against a decoding or re-encoding done here.

// FuzzProducerSnapshot: arbitrary bytes as a producer-state snapshot (ProducerStateManager.
// readSnapshot). Checked: no panic, bounded allocation (a count is never trusted beyond the
// bytes), errors inside the input; an accepted snapshot has version 1, the CRC-32C of bytes
// [6, end) in bytes 2..5, as many entries as its count, each equal to its 46 bytes decoded
// here, and re-encoded here it parses to the same entries.
func FuzzProducerSnapshot(f *testing.F) {
	f.Add(parsecheck.MustUnhex(f, "0001 4867 4bc7 0000 0000")) // the empty table of 26 real files
	// donaldy/myTopic-0/00000000000000000038.snapshot (3 producers), from xxd.
	f.Add(parsecheck.MustUnhex(f, `0001 1a3a 695a 0000 0003 0000 0000 0000 0fa1 0000 0000 000b 0000 0000 0000 000b
		0000 0002 0000 0184 d7d1 5005 ffff ffff ffff ffff ffff ffff 0000 0000 0000 0fa2
		0000 0000 000b 0000 0000 0000 0017 0000 000b 0000 0184 d7da 9d7c ffff ffff ffff
		ffff ffff ffff 0000 0000 0000 0fa3 0000 0000 000d 0000 0000 0000 0025 0000 000d
		0000 0184 d801 1c10 ffff ffff ffff ffff ffff ffff`))
	f.Add(parsecheck.MustUnhex(f, "0001 0000 0000 7fff ffff")) // 2^31-1 entries in 10 bytes
	f.Add(parsecheck.MustUnhex(f, "0001 0000 0000 ffff ffff")) // count -1
	f.Add([]byte{})
	for _, b := range parsecheck.RealLogDirFiles(f, func(n string) bool { return strings.HasSuffix(n, segment.SnapshotSuffix) }, 4) {
		f.Add(b)
	}
	table := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		var es []segment.ProducerSnapshotEntry
		var err error
		parsecheck.CheckAlloc(t, parsecheck.SampleOf(data, 0).Alloc, "ParseProducerSnapshot", len(data), func() { es, err = segment.ParseProducerSnapshot(data, "fuzz.snapshot") })
		parsecheck.CheckFormatErr(t, "ParseProducerSnapshot", err, "fuzz.snapshot", len(data))
		if err != nil {
			if es != nil {
				t.Fatalf("entries with an error")
			}
			return
		}
		be := binary.BigEndian
		if len(data) < 10 || be.Uint16(data) != 1 || be.Uint32(data[2:]) != crc32.Checksum(data[6:], table) ||
			int64(be.Uint32(data[6:])) != int64(len(es)) || len(data) < 10+46*len(es) {
			t.Fatalf("accepted %d bytes with %d entries", len(data), len(es))
		}
		re := make([]byte, 10, 10+46*len(es))
		be.PutUint16(re, 1)
		be.PutUint32(re[6:], uint32(len(es)))
		for i, e := range es {
			b := data[10+46*i:]
			if e.ProducerID != int64(be.Uint64(b)) || e.ProducerEpoch != int16(be.Uint16(b[8:])) || e.LastSequence != int32(be.Uint32(b[10:])) ||
				e.LastOffset != int64(be.Uint64(b[14:])) || e.OffsetDelta != int32(be.Uint32(b[22:])) || e.Timestamp != int64(be.Uint64(b[26:])) ||
				e.CoordinatorEpoch != int32(be.Uint32(b[34:])) || e.CurrentTxnFirstOffset != int64(be.Uint64(b[38:])) {
				t.Fatalf("entry %d %+v does not match its bytes", i, e)
			}
			re = append(re, b[:46]...)
		}
		be.PutUint32(re[2:], crc32.Checksum(re[6:], table))
		back, err := segment.ParseProducerSnapshot(re, "re")
		if err != nil || fmt.Sprint(back) != fmt.Sprint(es) {
			t.Fatalf("re-encoded: %v %v", back, err)
		}
	})
}

// FuzzTxnIndex: arbitrary bytes as a .txnindex (TransactionIndex.allAbortedTxns) and a base
// offset for its sanityCheck. Checked: no panic, bounded allocation; the entries are the whole
// 34-byte entries before the first whose first byte (AbortedTxn.version() is buffer.get(0)) is
// above 0, each equal to its bytes; an error exactly when there is such an entry or a partial
// one; SanityCheckTxnIndex fails exactly when an entry ends before the base offset.
func FuzzTxnIndex(f *testing.F) {
	var five []byte
	for _, t := range [][4]int64{{0, 0, 10, 11}, {1, 5, 15, 13}, {2, 18, 35, 25}, {3, 32, 50, 40}, {3, 50, 60, 55}} { // TransactionIndexTest
		five = binary.BigEndian.AppendUint16(five, 0)
		for _, v := range t {
			five = binary.BigEndian.AppendUint64(five, uint64(v))
		}
	}
	f.Add(five, int64(0))
	f.Add(five, int64(100))
	f.Add(five[:35], int64(0))
	f.Add(append([]byte{1}, five[1:]...), int64(0))
	f.Add([]byte{}, int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		var txns []segment.AbortedTxn
		var err error
		parsecheck.CheckAlloc(t, parsecheck.SampleOf(data, base).Alloc, "ParseTxnIndex", len(data), func() { txns, err = segment.ParseTxnIndex(data, "fuzz.txnindex") })
		parsecheck.CheckFormatErr(t, "ParseTxnIndex", err, "fuzz.txnindex", len(data))
		whole := len(data) / 34
		good := 0
		for good < whole && int8(data[34*good]) <= 0 {
			good++
		}
		if len(txns) != good || (err != nil) != (good < whole || len(data)%34 != 0) {
			t.Fatalf("%d bytes: %d entries (%d good of %d), error %v", len(data), len(txns), good, whole, err)
		}
		be := binary.BigEndian
		below := false
		for i, x := range txns {
			b := data[34*i:]
			if x.Version != int16(int8(b[0])) || x.ProducerID != int64(be.Uint64(b[2:])) || x.FirstOffset != int64(be.Uint64(b[10:])) ||
				x.LastOffset != int64(be.Uint64(b[18:])) || x.LastStableOffset != int64(be.Uint64(b[26:])) {
				t.Fatalf("entry %d %+v does not match its bytes", i, x)
			}
			below = below || x.LastOffset < base
		}
		serr := segment.SanityCheckTxnIndex(txns, base, "fuzz.txnindex")
		parsecheck.CheckFormatErr(t, "SanityCheckTxnIndex", serr, "fuzz.txnindex", len(data))
		if (serr != nil) != below {
			t.Fatalf("sanity check %v, an entry below %d: %v", serr, base, below)
		}
	})
}
