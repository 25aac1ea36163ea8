package parsers

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
)

// The parsers of a log directory's other files (segment/snapshot.go, txnindex.go,
// checkpoint.go): no panic, bounded allocation, every error a *segment.FormatError inside the
// input, and what is accepted checked against a decoding or re-encoding done here.

// realLogDirFiles reads, in place, the files of /work/shared/realdata (the module root's
// ../shared) whose base name matches, at most max of them. These files are stored verbatim (only
// index files lose their zero tails there), so they need no restore. None when ../shared is
// absent: the inline seeds below have the same shapes.
func realLogDirFiles(tb testing.TB, match func(name string) bool, max int) [][]byte {
	var out [][]byte
	root := filepath.Join("..", "..", "..", "shared", "realdata")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(out) >= max || !match(d.Name()) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			out = append(out, b)
		}
		return nil
	})
	return out
}

func mustUnhex(tb testing.TB, s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// checkFormatErr: err is nil or a *segment.FormatError naming file at a byte of the input.
func checkFormatErr(t *testing.T, what string, err error, file string, n int) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *segment.FormatError
	if !errors.As(err, &fe) || fe.File != file || fe.Pos < 0 || fe.Pos > int64(n) || fe.Msg == "" {
		t.Fatalf("%s: error %v (%T) is not a FormatError of %s inside its %d bytes", what, err, err, file, n)
	}
}

// FuzzProducerSnapshot: arbitrary bytes as a producer-state snapshot (ProducerStateManager.
// readSnapshot). Checked: no panic, bounded allocation (a count is never trusted beyond the
// bytes), errors inside the input; an accepted snapshot has version 1, the CRC-32C of bytes
// [6, end) in bytes 2..5, as many entries as its count, each equal to its 46 bytes decoded
// here, and re-encoded here it parses to the same entries.
func FuzzProducerSnapshot(f *testing.F) {
	f.Add(mustUnhex(f, "0001 4867 4bc7 0000 0000")) // the empty table of 26 real files
	// donaldy/myTopic-0/00000000000000000038.snapshot (3 producers), from xxd.
	f.Add(mustUnhex(f, `0001 1a3a 695a 0000 0003 0000 0000 0000 0fa1 0000 0000 000b 0000 0000 0000 000b
		0000 0002 0000 0184 d7d1 5005 ffff ffff ffff ffff ffff ffff 0000 0000 0000 0fa2
		0000 0000 000b 0000 0000 0000 0017 0000 000b 0000 0184 d7da 9d7c ffff ffff ffff
		ffff ffff ffff 0000 0000 0000 0fa3 0000 0000 000d 0000 0000 0000 0025 0000 000d
		0000 0184 d801 1c10 ffff ffff ffff ffff ffff ffff`))
	f.Add(mustUnhex(f, "0001 0000 0000 7fff ffff")) // 2^31-1 entries in 10 bytes
	f.Add(mustUnhex(f, "0001 0000 0000 ffff ffff")) // count -1
	f.Add([]byte{})
	for _, b := range realLogDirFiles(f, func(n string) bool { return strings.HasSuffix(n, segment.SnapshotSuffix) }, 4) {
		f.Add(b)
	}
	table := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		var es []segment.ProducerSnapshotEntry
		var err error
		checkAlloc(t, sampleOf(data, 0).alloc, "ParseProducerSnapshot", len(data), func() { es, err = segment.ParseProducerSnapshot(data, "fuzz.snapshot") })
		checkFormatErr(t, "ParseProducerSnapshot", err, "fuzz.snapshot", len(data))
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
		checkAlloc(t, sampleOf(data, base).alloc, "ParseTxnIndex", len(data), func() { txns, err = segment.ParseTxnIndex(data, "fuzz.txnindex") })
		checkFormatErr(t, "ParseTxnIndex", err, "fuzz.txnindex", len(data))
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
		checkFormatErr(t, "SanityCheckTxnIndex", serr, "fuzz.txnindex", len(data))
		if (serr != nil) != below {
			t.Fatalf("sanity check %v, an entry below %d: %v", serr, base, below)
		}
	})
}

// FuzzCheckpointFiles: arbitrary bytes through every text parser of a log directory:
// leader-epoch-checkpoint and the offset checkpoints (CheckpointFile), partition.metadata,
// meta.properties, quorum-state, .kafka_cleanshutdown. Checked: no panic, bounded allocation,
// errors inside the input; an accepted checkpoint written back here in Kafka's format
// (CheckpointWriteBuffer) parses to the same entries; an accepted partition.metadata has a
// non-zero topic id and written back (PartitionMetadata.encode) parses to the same.
func FuzzCheckpointFiles(f *testing.F) {
	for _, s := range []string{
		"0\n1\n0 0\n", "0\n3\n0 0\n2 3\n10 4\n", "0\n1\n1 852953\n", "0\n0\n", "", "0\n2147483647\n0 0\n", "0\n-1\n", " 0 0\n",
		"0\n3\n__consumer_offsets 28 2\n__consumer_offsets 17 1\n__consumer_offsets 39 18\n", "0\r\n1\r\nfoo 1 5\r\n",
		"version: 0\ntopic_id: YEO9-o88S26CT6OkgrVHXA", "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
		"#\n#Fri Jan 30 16:43:51 UTC 2026\nnode.id=1\ndirectory.id=XHhkr4tkSsD900pOQ8pPfg\nversion=1\ncluster.id=q1w2e3r4t5y6u7i8o9p0\n",
		"#\nversion=0\nbroker.id=0\n", "a\\\n  b=c\\u0041\\", "cluster.id=\\u00zz",
		`{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`,
		`{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`,
		`{"version":0,"brokerEpoch":11}`,
	} {
		f.Add([]byte(s))
	}
	names := map[string]bool{segment.LeaderEpochCheckpointName: true, segment.RecoveryPointCheckpointName: true, segment.ReplicationCheckpointName: true,
		segment.LogStartOffsetCheckpointName: true, segment.CleanerOffsetCheckpointName: true, segment.PartitionMetadataName: true,
		segment.MetaPropertiesName: true, segment.QuorumStateName: true, segment.CleanShutdownName: true}
	seen := map[string]bool{}
	for _, b := range realLogDirFiles(f, func(n string) bool { return names[n] }, 200) {
		if !seen[string(b)] {
			seen[string(b)] = true
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := len(data)
		measure := sampleOf(data, 0).alloc
		var les []segment.EpochEntry
		var err error
		checkAlloc(t, measure, "ParseLeaderEpochCheckpoint", n, func() { les, err = segment.ParseLeaderEpochCheckpoint(data, "lec") })
		checkFormatErr(t, "ParseLeaderEpochCheckpoint", err, "lec", n)
		if err == nil {
			var b strings.Builder
			fmt.Fprintf(&b, "0\n%d\n", len(les))
			for _, e := range les {
				fmt.Fprintf(&b, "%d %d\n", e.Epoch, e.StartOffset)
			}
			back, err := segment.ParseLeaderEpochCheckpoint([]byte(b.String()), "re")
			if err != nil || fmt.Sprint(back) != fmt.Sprint(les) {
				t.Fatalf("%q read as %v, written back as %q: %v %v", data, les, b.String(), back, err)
			}
		}
		var ocs []segment.OffsetCheckpointEntry
		checkAlloc(t, measure, "ParseOffsetCheckpoint", n, func() { ocs, err = segment.ParseOffsetCheckpoint(data, "oc") })
		checkFormatErr(t, "ParseOffsetCheckpoint", err, "oc", n)
		if err == nil {
			var b strings.Builder
			fmt.Fprintf(&b, "0\n%d\n", len(ocs))
			for _, e := range ocs {
				fmt.Fprintf(&b, "%s %d %d\n", e.Topic, e.Partition, e.Offset)
			}
			back, err := segment.ParseOffsetCheckpoint([]byte(b.String()), "re")
			if err != nil || fmt.Sprint(back) != fmt.Sprint(ocs) {
				t.Fatalf("%q read as %v, written back as %q: %v %v", data, ocs, b.String(), back, err)
			}
		}
		var pm segment.PartitionMetadata
		checkAlloc(t, measure, "ParsePartitionMetadata", n, func() { pm, err = segment.ParsePartitionMetadata(data, "pm") })
		checkFormatErr(t, "ParsePartitionMetadata", err, "pm", n)
		if err == nil {
			back, err := segment.ParsePartitionMetadata([]byte(fmt.Sprintf("version: %d\ntopic_id: %s", pm.Version, pm.TopicID)), "re")
			if pm.TopicID.IsZero() || pm.Version < 0 || err != nil || back != pm {
				t.Fatalf("%q read as %+v; written back: %+v %v", data, pm, back, err)
			}
		}
		checkAlloc(t, measure, "ParseMetaProperties", n, func() { _, err = segment.ParseMetaProperties(data, "mp") })
		checkFormatErr(t, "ParseMetaProperties", err, "mp", n)
		checkAllocN(t, measure, "ParseQuorumState", n, jsonAllocFactor, func() { _, err = segment.ParseQuorumState(data, "qs") })
		checkFormatErr(t, "ParseQuorumState", err, "qs", n)
		checkAllocN(t, measure, "ParseCleanShutdown", n, jsonAllocFactor, func() { _ = segment.ParseCleanShutdown(data) })
	})
}
