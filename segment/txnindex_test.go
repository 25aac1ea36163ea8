package segment_test

import (
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// TransactionIndexTest.testAbortedTxnSerde: AbortedTxn(983493, 137, 299, 200), written out by
// hand: version 0000, producer id 0xf01c5, first offset 0x89, last offset 0x12b, LSO 0xc8.
func TestTxnIndexKafkaSerde(t *testing.T) {
	data := testfiles.Hex(t, `0000 0000 0000 000f 01c5 0000 0000 0000 0089
		0000 0000 0000 012b 0000 0000 0000 00c8`)
	txns, err := segment.ParseTxnIndex(data, "0.txnindex")
	if err != nil {
		t.Fatal(err)
	}
	want := segment.AbortedTxn{Version: 0, ProducerID: 983493, FirstOffset: 137, LastOffset: 299, LastStableOffset: 200}
	if len(txns) != 1 || txns[0] != want {
		t.Fatalf("%+v, want %+v", txns, want)
	}
	if s := txns[0].String(); s != "AbortedTxn(version=0, producerId=983493, firstOffset=137, lastOffset=299, lastStableOffset=200)" {
		t.Fatalf("String: %s", s)
	}
}

func TestTxnIndexKafkaScenarios(t *testing.T) {
	data := testfiles.TxnBytes(0, testfiles.KafkaTestTxns...)
	txns, err := segment.ParseTxnIndex(data, "f")
	if err != nil || len(txns) != 5 {
		t.Fatalf("%v %v", txns, err)
	}
	for i, k := range testfiles.KafkaTestTxns {
		if got := [4]int64{txns[i].ProducerID, txns[i].FirstOffset, txns[i].LastOffset, txns[i].LastStableOffset}; got != k {
			t.Fatalf("entry %d: %v, want %v", i, got, k)
		}
	}
	if err := segment.SanityCheckTxnIndex(txns, 0, "f"); err != nil {
		t.Fatal(err)
	}
	err = segment.SanityCheckTxnIndex(txns, 100, "f")
	segmenttest.FormatErrAt(t, err, "f", 0, "Last offset of aborted transaction AbortedTxn(version=0, producerId=0, firstOffset=0, lastOffset=10, lastStableOffset=11) in index f is less than start offset 100")
	// Start offset 40: entries 0..2 (last offsets 10, 15, 35) are below it; the first is reported.
	err = segment.SanityCheckTxnIndex(txns[2:], 40, "f")
	segmenttest.FormatErrAt(t, err, "f", 0, "Last offset of aborted transaction AbortedTxn(version=0, producerId=2, firstOffset=18, lastOffset=35, lastStableOffset=25) in index f is less than start offset 40")
}

func TestTxnIndexBadInput(t *testing.T) {
	two := testfiles.TxnBytes(0, testfiles.KafkaTestTxns[:2]...)
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
			txns, err := segment.ParseTxnIndex(c.data, "f")
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				segmenttest.FormatErrAt(t, err, "f", c.pos, c.msg)
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
	data := testfiles.TxnBytes(0, testfiles.KafkaTestTxns...)
	for n := 0; n <= len(data); n++ {
		txns, err := segment.ParseTxnIndex(data[:n], "f")
		if len(txns) != n/34 || (err != nil) != (n%34 != 0) {
			t.Fatalf("%d bytes: %d entries, %v", n, len(txns), err)
		}
	}
}
