package segment

import (
	"encoding/binary"
	"testing"
)

// txnBytes encodes aborted transactions as AbortedTxn.toByteBuffer does (putShort(version),
// then four putLong), independently of the parser.
func txnBytes(version int16, txns ...[4]int64) []byte {
	var b []byte
	for _, t := range txns {
		b = binary.BigEndian.AppendUint16(b, uint16(version))
		for _, v := range t {
			b = binary.BigEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// TransactionIndexTest.testAbortedTxnSerde: AbortedTxn(983493, 137, 299, 200), written out by
// hand: version 0000, producer id 0xf01c5, first offset 0x89, last offset 0x12b, LSO 0xc8.
func TestTxnIndexKafkaSerde(t *testing.T) {
	data := ldHex(t, `0000 0000 0000 000f 01c5 0000 0000 0000 0089
		0000 0000 0000 012b 0000 0000 0000 00c8`)
	txns, err := ParseTxnIndex(data, "0.txnindex")
	if err != nil {
		t.Fatal(err)
	}
	want := AbortedTxn{Version: 0, ProducerID: 983493, FirstOffset: 137, LastOffset: 299, LastStableOffset: 200}
	if len(txns) != 1 || txns[0] != want {
		t.Fatalf("%+v, want %+v", txns, want)
	}
	if s := txns[0].String(); s != "AbortedTxn(version=0, producerId=983493, firstOffset=137, lastOffset=299, lastStableOffset=200)" {
		t.Fatalf("String: %s", s)
	}
}

// The five transactions of TransactionIndexTest.testPositionSetCorrectlyWhenOpened, and
// testSanityCheck: the same index opened with start offset 100 fails sanityCheck.
var kafkaTestTxns = [][4]int64{{0, 0, 10, 11}, {1, 5, 15, 13}, {2, 18, 35, 25}, {3, 32, 50, 40}, {3, 50, 60, 55}}

func TestTxnIndexKafkaScenarios(t *testing.T) {
	data := txnBytes(0, kafkaTestTxns...)
	txns, err := ParseTxnIndex(data, "f")
	if err != nil || len(txns) != 5 {
		t.Fatalf("%v %v", txns, err)
	}
	for i, k := range kafkaTestTxns {
		if got := [4]int64{txns[i].ProducerID, txns[i].FirstOffset, txns[i].LastOffset, txns[i].LastStableOffset}; got != k {
			t.Fatalf("entry %d: %v, want %v", i, got, k)
		}
	}
	if err := SanityCheckTxnIndex(txns, 0, "f"); err != nil {
		t.Fatal(err)
	}
	err = SanityCheckTxnIndex(txns, 100, "f")
	ldFormatErr(t, err, "f", 0, "Last offset of aborted transaction AbortedTxn(version=0, producerId=0, firstOffset=0, lastOffset=10, lastStableOffset=11) in index f is less than start offset 100")
	// Start offset 40: entries 0..2 (last offsets 10, 15, 35) are below it; the first is reported.
	err = SanityCheckTxnIndex(txns[2:], 40, "f")
	ldFormatErr(t, err, "f", 0, "Last offset of aborted transaction AbortedTxn(version=0, producerId=2, firstOffset=18, lastOffset=35, lastStableOffset=25) in index f is less than start offset 40")
}

func TestTxnIndexBadInput(t *testing.T) {
	two := txnBytes(0, kafkaTestTxns[:2]...)
	// AbortedTxn.version() is buffer.get(0): only the first byte counts.
	lowByte := append([]byte(nil), two...)
	lowByte[1] = 1 // 00 01: version 0 as Kafka reads it
	negative := append([]byte(nil), two...)
	negative[34] = 0xff // ff 00: version -1, not above CURRENT_VERSION
	v1 := append([]byte(nil), two...)
	v1[34] = 1 // 01 00 in the second entry
	cases := []struct {
		name     string
		data     []byte
		entries  int
		versions []int16
		pos      int64
		msg      string // "" = no error
	}{
		{"empty", nil, 0, nil, 0, ""},
		{"two entries", two, 2, []int16{0, 0}, 0, ""},
		{"version low byte", lowByte, 2, []int16{0, 0}, 0, ""},
		{"version -1", negative, 2, []int16{0, -1}, 0, ""},
		{"version 1", v1, 1, []int16{0}, 34, "Unexpected aborted transaction version 1 in transaction index f, current version is 0"},
		{"33 bytes", two[:33], 0, nil, 0, "33 trailing bytes are not a whole 34-byte aborted transaction entry (Kafka's TransactionIndex ignores them)"},
		{"35 bytes", append(append([]byte(nil), two[:34]...), 7), 1, []int16{0}, 34, "1 trailing bytes are not a whole 34-byte aborted transaction entry (Kafka's TransactionIndex ignores them)"},
		{"67 bytes", two[:67], 1, []int16{0}, 34, "33 trailing bytes are not a whole 34-byte aborted transaction entry (Kafka's TransactionIndex ignores them)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			txns, err := ParseTxnIndex(c.data, "f")
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				ldFormatErr(t, err, "f", c.pos, c.msg)
			}
			if len(txns) != c.entries {
				t.Fatalf("%d entries, want %d", len(txns), c.entries)
			}
			for i, v := range c.versions {
				if txns[i].Version != v {
					t.Fatalf("entry %d: version %d, want %d", i, txns[i].Version, v)
				}
			}
		})
	}
	// Every length of a 5-entry index: floor(n/34) entries, an error exactly when n%34 != 0.
	data := txnBytes(0, kafkaTestTxns...)
	for n := 0; n <= len(data); n++ {
		txns, err := ParseTxnIndex(data[:n], "f")
		if len(txns) != n/34 || (err != nil) != (n%34 != 0) {
			t.Fatalf("%d bytes: %d entries, %v", n, len(txns), err)
		}
	}
}
