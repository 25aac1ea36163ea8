package dump

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// logdirRealData restores the real log directories of /work/shared/realdata (the module root's
// ../shared/realdata: this package's ../../shared) into a temporary directory, with their
// preallocated zero tails, and returns it. The files are read there, never copied into the
// project. Without ../shared the test is skipped loudly, unless CI is set: then it fails.
func logdirRealData(t *testing.T) string {
	t.Helper()
	script := filepath.Join("..", "..", "shared", "realdata", "restore.sh")
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the real data is missing: %v", err)
		}
		t.Skipf("SKIPPED: no real log directories (%v); these tests read /work/shared/realdata", err)
	}
	dir := t.TempDir()
	out, err := exec.Command("bash", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", script, dir, err, out)
	}
	return dir
}

// dumpBoth dumps a file as text and as JSON; it returns stdout, stderr, the JSON object and
// the two errors.
func dumpBoth(t *testing.T, path string) (string, string, map[string]any, error, error) {
	t.Helper()
	var out, errOut, js bytes.Buffer
	terr := File(&out, path, Options{Stderr: &errOut})
	jerr := File(&js, path, Options{JSON: true, Stderr: &bytes.Buffer{}})
	var obj map[string]any
	if err := json.Unmarshal(js.Bytes(), &obj); err != nil {
		t.Fatalf("%s: JSON %q: %v", path, js.String(), err)
	}
	return out.String(), errOut.String(), obj, terr, jerr
}

func jsonPath(obj any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := obj.(map[string]any)
			obj = m[k]
		case int:
			a, _ := obj.([]any)
			if k >= len(a) {
				return nil
			}
			obj = a[k]
		}
	}
	return obj
}

// Every file of the real log directories that is no segment file dumps without error, as text
// and as JSON; the files with a value written here by hand from xxd/cat -A (see the other test
// files) dump to exactly that.
func TestDumpLogDirFilesRealData(t *testing.T) {
	root := logdirRealData(t)
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if p == filepath.Join(root, "MANIFEST.tsv") || p == filepath.Join(root, "README.md") ||
			strings.HasSuffix(name, segment.LogSuffix) || strings.HasSuffix(name, segment.IndexSuffix) || strings.HasSuffix(name, segment.TimeIndexSuffix) {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if len(files) < 100 {
		t.Fatalf("only %d files in %s", len(files), root)
	}
	kinds := map[string]int{}
	for _, f := range files {
		out, errOut, obj, terr, jerr := dumpBoth(t, f)
		if terr != nil || jerr != nil || errOut != "" {
			t.Errorf("%s: %v / %v, stderr %q", f, terr, jerr, errOut)
			continue
		}
		if !strings.HasPrefix(out, "Dumping "+f+"\n") || obj["file"] != f {
			t.Errorf("%s: %q", f, out)
		}
		k, _ := obj["kind"].(string)
		kinds[k]++
		if kidx := obj["decodedBy"] == "kidx"; kidx != strings.HasPrefix(strings.SplitN(out, "\n", 3)[1], "kidx: ") {
			t.Errorf("%s: decodedBy %v but text %q", f, obj["decodedBy"], out)
		}
	}
	// The counts of each kind under /work/shared/realdata (find -name ... | wc -l, by hand). The
	// first collection: 27 .snapshot files (26 of them the empty table), 4 .checkpoint files (2
	// bootstrap), 26 leader-epoch-checkpoint, 20 *-offset-checkpoint, 14 partition.metadata, 2
	// quorum-state, 5 meta.properties, 2 .kafka_cleanshutdown, no .lock. The second, per origin
	// (k37, k40, k42, zk11): .snapshot 10+17+5+0, leader-epoch-checkpoint 139+62+54+2,
	// partition.metadata 139+62+54+0, *-offset-checkpoint 4 each, bootstrap.checkpoint 1+1+1+0,
	// a KRaft snapshot in k42 only, quorum-state in k42 only, meta.properties 1 each,
	// .kafka_cleanshutdown in k37 and k40, .lock in k37, k42 and zk11.
	want := map[string]int{"snapshot": 27 + 32, "kraft-snapshot": 2 + 1, "bootstrap-snapshot": 2 + 3,
		"leader-epoch-checkpoint": 26 + 257, "offset-checkpoint": 20 + 16, "partition-metadata": 14 + 255,
		"quorum-state": 2 + 1, "meta-properties": 5 + 4, "clean-shutdown": 2 + 2, "lock": 3}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d files of kind %s, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("kinds %v", kinds)
	}

	p := func(rel string) string { return filepath.Join(root, rel) }
	expect := func(rel, want string) {
		t.Helper()
		out, _, _, err, _ := dumpBoth(t, p(rel))
		if err != nil || out != "Dumping "+p(rel)+"\n"+want {
			t.Errorf("%s:\n%s\nwant\n%s", rel, out, "Dumping "+p(rel)+"\n"+want)
		}
	}
	// The three producers decoded by hand in snapshot_test.go, in dumpProducerIdSnapshot's words.
	expect("donaldy/myTopic-0/00000000000000000038.snapshot",
		"producerId: 4001 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1670068129797 firstSequence: 9 lastSequence: 11 lastOffset: 11 offsetDelta: 2 timestamp: 1670068129797\n"+
			"producerId: 4002 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1670068739452 firstSequence: 0 lastSequence: 11 lastOffset: 23 offsetDelta: 11 timestamp: 1670068739452\n"+
			"producerId: 4003 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1670071262224 firstSequence: 0 lastSequence: 13 lastOffset: 37 offsetDelta: 13 timestamp: 1670071262224\n")
	expect("ronem/__cluster_metadata-0/00000000000001737569.snapshot", "") // the 10-byte empty table
	es, err := segment.ReadProducerSnapshot(p("donaldy/myTopic-0/00000000000000000038.snapshot"))
	if err != nil || len(es) != 3 || es[2] != segmenttest.MyTopicEntries[2] {
		t.Errorf("ReadProducerSnapshot: %v %v", es, err)
	}
	expect("ronem/__consumer_offsets-44/leader-epoch-checkpoint",
		"kidx: leader-epoch-checkpoint: Kafka's LeaderEpochCheckpointFile: the first offset of each leader epoch of the partition; kafka-dump-log does not decode this file\n"+
			"version: 0 entries: 3\nepoch: 0 startOffset: 0\nepoch: 4 startOffset: 9\nepoch: 10 startOffset: 11\n")
	expect("donaldy/cleaner-offset-checkpoint",
		"kidx: cleaner-offset-checkpoint: Kafka's OffsetCheckpointFile: the log cleaner's first dirty offset of each compacted partition; kafka-dump-log does not decode this file\n"+
			"version: 0 entries: 3\ntopic: __consumer_offsets partition: 28 offset: 2\ntopic: __consumer_offsets partition: 17 offset: 1\ntopic: __consumer_offsets partition: 39 offset: 18\n")
	expect("iechenyb/cleaner-offset-checkpoint", // 0 bytes
		"kidx: cleaner-offset-checkpoint: Kafka's OffsetCheckpointFile: the log cleaner's first dirty offset of each compacted partition; kafka-dump-log does not decode this file\n"+
			"empty file (Kafka reads it as no entries)\n")
	expect("atul-0406/__consumer_offsets-32/partition.metadata",
		"kidx: partition.metadata: Kafka's PartitionMetadataFile: the partition's topic id (KIP-516); kafka-dump-log does not decode this file\n"+
			"version: 0 topicId: YEO9-o88S26CT6OkgrVHXA topicUuid: 6043bdfa-8f3c-4b6e-824f-a3a482b5475c\n")
	expect("ronem/__cluster_metadata-0/quorum-state",
		"kidx: quorum-state: Kafka's FileQuorumStateStore: the KRaft election state of the metadata log; kafka-dump-log does not decode this file\n"+
			"dataVersion: 1 leaderId: 1 leaderEpoch: 1 votedId: -1 votedDirectoryId: AAAAAAAAAAAAAAAAAAAAAA\n")
	expect("ldi-poc/__cluster_metadata-0/quorum-state",
		"kidx: quorum-state: Kafka's FileQuorumStateStore: the KRaft election state of the metadata log; kafka-dump-log does not decode this file\n"+
			"dataVersion: 0 clusterId: \"\" leaderId: 1 leaderEpoch: 1 votedId: -1 appliedOffset: 0 currentVoters: [1]\n")
	expect("ronem/meta.properties",
		"kidx: meta.properties: Kafka's MetaProperties: the cluster, node and directory ids of the log directory; kafka-dump-log does not decode this file\n"+
			"version: 1 nodeId: 1 clusterId: 0wHLXdrKStejkyBzi8qBEw directoryId: yYuMrFRVQVSX0VVQPcMSrA\n"+
			"property: cluster.id=0wHLXdrKStejkyBzi8qBEw\nproperty: directory.id=yYuMrFRVQVSX0VVQPcMSrA\nproperty: node.id=1\nproperty: version=1\n")
	expect("ronem/.kafka_cleanshutdown",
		"kidx: .kafka_cleanshutdown: Kafka's clean-shutdown marker: the broker stopped cleanly, so no log recovery runs at the next start; kafka-dump-log does not decode this file\n"+
			"version: 0 brokerEpoch: 11\n")
	expect("atul-0406/.kafka_cleanshutdown",
		"kidx: .kafka_cleanshutdown: Kafka's clean-shutdown marker: the broker stopped cleanly, so no log recovery runs at the next start; kafka-dump-log does not decode this file\n"+
			"empty (releases before 3.7 write an empty marker)\n")

	// KRaft snapshots dumped as logs. The batch figures were read with xxd from the files' first
	// and last batch headers: ronem's snapshot 852953 starts with a control batch (base offset 0,
	// length 0x9a: size 166, epoch 1, CRC 0x85328a96 = 2234682006, last offset delta 2, count 3)
	// and ends with the control batch at byte 4898 (base offset 0x43 = 67, length 0x3f: size 75),
	// which ends the 4973-byte file. ldi-poc's bootstrap.checkpoint starts with a batch of size
	// 0x47 + 12 = 83, CRC 0x5fce4ded = 1607355885.
	out, _, obj, err, _ := dumpBoth(t, p("ronem/__cluster_metadata-0/00000000000000852953-0000000001.checkpoint"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if err != nil || lines[1] != "Snapshot end offset: 852953, epoch: 1" ||
		!strings.HasPrefix(lines[2], "baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 1 isTransactional: false isControl: true ") ||
		!strings.Contains(lines[2], " position: 0 ") || !strings.Contains(lines[2], " size: 166 magic: 2 compresscodec: none crc: 2234682006 isvalid: true") ||
		!strings.HasPrefix(lines[len(lines)-1], "baseOffset: 67 lastOffset: 67 count: 1 ") || !strings.Contains(lines[len(lines)-1], " position: 4898 ") ||
		!strings.Contains(lines[len(lines)-1], " size: 75 ") {
		t.Errorf("KRaft snapshot dump: %v\n%s", err, out)
	}
	if obj["kind"] != "kraft-snapshot" || obj["snapshotEndOffset"] != 852953.0 || obj["snapshotEpoch"] != 1.0 || jsonPath(obj, "batches", 0, "size") != 166.0 || obj["invalidBytes"] != nil {
		t.Errorf("KRaft snapshot JSON: %v", obj)
	}
	out, _, obj, err, _ = dumpBoth(t, p("ldi-poc/bootstrap.checkpoint"))
	lines = strings.Split(out, "\n")
	if err != nil || lines[1] != "KRaft bootstrap snapshot" || !strings.HasPrefix(lines[2], "baseOffset: 0 lastOffset: 0 count: 1 ") ||
		!strings.Contains(lines[2], " size: 83 magic: 2 compresscodec: none crc: 1607355885 isvalid: true") || obj["kind"] != "bootstrap-snapshot" || obj["snapshotEndOffset"] != nil {
		t.Errorf("bootstrap dump: %v\n%s\n%v", err, out, obj)
	}

	// The lead's entry point: donaldy's replication-offset-checkpoint has 53 partitions, among
	// them "myTopic 0 38" (cat -A, line 12).
	cps, err := segment.ReadOffsetCheckpoint(p("donaldy/replication-offset-checkpoint"))
	if err != nil || len(cps) != 53 || cps[9] != (segment.OffsetCheckpointEntry{Topic: "myTopic", Partition: 0, Offset: 38}) {
		t.Errorf("ReadOffsetCheckpoint: %d entries, %v", len(cps), err)
	}
	les, err := segment.ReadLeaderEpochCheckpoint(p("ronem/__cluster_metadata-0/leader-epoch-checkpoint"))
	if err != nil || len(les) != 1 || les[0] != (segment.EpochEntry{Epoch: 1, StartOffset: 852953}) {
		t.Errorf("ReadLeaderEpochCheckpoint: %v %v", les, err)
	}
	if m, err := segment.ReadMetaProperties(p("donaldy/meta.properties")); err != nil || m.Version != 0 || *m.NodeID != 0 || *m.ClusterID != "d0053poFTbGwSWThjV1DEg" {
		t.Errorf("ReadMetaProperties: %+v %v", m, err)
	}
	if q, err := segment.ReadQuorumState(p("ldi-poc/__cluster_metadata-0/quorum-state")); err != nil || q.DataVersion != 0 {
		t.Errorf("ReadQuorumState: %+v %v", q, err)
	}
	if m, err := segment.ReadPartitionMetadata(p("ldi-poc/__cluster_metadata-0/partition.metadata")); err != nil || m.TopicID != (segment.KafkaUUID{15: 1}) {
		t.Errorf("ReadPartitionMetadata: %+v %v", m, err)
	}
}

// Each kind in a temporary directory: text and JSON, good and bad.
func TestDumpLogDirFilesEachKind(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		path := filepath.Join(dir, name)
		testfiles.MustWrite(t, path, data)
		return path
	}
	text := func(path string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := File(&out, path, Options{Stderr: &errOut})
		return out.String(), errOut.String(), err
	}
	asJSON := func(path string) (map[string]any, error) {
		var js bytes.Buffer
		err := File(&js, path, Options{JSON: true})
		var obj map[string]any
		if jerr := json.Unmarshal(js.Bytes(), &obj); jerr != nil {
			t.Fatalf("%s: %q: %v", path, js.String(), jerr)
		}
		return obj, err
	}

	t.Run("snapshot", func(t *testing.T) {
		// A producer in a transaction from offset 5 whose only entry is a marker (last_offset -1):
		// OptionalLong[5], no batch part, and the Scala tool's trailing space.
		path := write("00000000000000000010.snapshot", segmenttest.SnapshotBytes(1, []segment.ProducerSnapshotEntry{
			{ProducerID: 7, ProducerEpoch: 3, LastSequence: -1, LastOffset: -1, Timestamp: 99, CoordinatorEpoch: 2, CurrentTxnFirstOffset: 5}}, nil))
		out, errOut, err := text(path)
		want := "Dumping " + path + "\nproducerId: 7 producerEpoch: 3 coordinatorEpoch: 2 currentTxnFirstOffset: OptionalLong[5] lastTimestamp: 99 \n"
		if err != nil || out != want || errOut != "" {
			t.Fatalf("%q %q %v, want %q", out, errOut, err, want)
		}
		obj, err := asJSON(path)
		if err != nil || obj["kind"] != "snapshot" || obj["baseOffset"] != 10.0 || jsonPath(obj, "producerEntries", 0, "currentTxnFirstOffset") != 5.0 ||
			jsonPath(obj, "producerEntries", 0, "batch") != nil || jsonPath(obj, "producerEntries", 0, "lastTimestamp") != 99.0 {
			t.Fatalf("%v %v", obj, err)
		}
		empty := write("00000000000000000011.snapshot", testfiles.Hex(t, testfiles.EmptySnapshotHex))
		if obj, err := asJSON(empty); err != nil || obj["empty"] != true || obj["producerEntries"] != nil {
			t.Fatalf("%v %v", obj, err)
		}
	})

	t.Run("corrupt snapshot", func(t *testing.T) {
		path := write("00000000000000000012.snapshot", testfiles.Hex(t, "0001 0000 0000 0000 0000"))
		out, errOut, err := text(path)
		msg := "Snapshot is corrupt (CRC is no longer valid). Stored crc: 0. Computed crc: 1214729159"
		if err == nil || out != "Dumping "+path+"\n" || errOut != msg+"\n" {
			t.Fatalf("%q %q %v", out, errOut, err)
		}
		segmenttest.FormatErrAt(t, err, path, 2, msg)
		obj, err := asJSON(path)
		if err == nil || obj["error"] != path+": byte 2: "+msg {
			t.Fatalf("%v %v", obj, err)
		}
	})

	t.Run("txnindex", func(t *testing.T) {
		path := write("00000000000000000000.txnindex", testfiles.TxnBytes(0, testfiles.KafkaTestTxns[:2]...))
		out, errOut, err := text(path)
		want := "Dumping " + path + "\nversion: 0 producerId: 0 firstOffset: 0 lastOffset: 10 lastStableOffset: 11\nversion: 0 producerId: 1 firstOffset: 5 lastOffset: 15 lastStableOffset: 13\n"
		if err != nil || out != want || errOut != "" {
			t.Fatalf("%q %q %v", out, errOut, err)
		}
		obj, err := asJSON(path)
		if err != nil || obj["kind"] != "txnindex" || jsonPath(obj, "abortedTxns", 1, "lastStableOffset") != 13.0 || jsonPath(obj, "abortedTxns", 1, "version") != 0.0 {
			t.Fatalf("%v %v", obj, err)
		}
		// A partial last entry: ignored as by Kafka, said on stderr and in invalidBytes.
		partial := write("00000000000000000034.txnindex", append(testfiles.TxnBytes(0, testfiles.KafkaTestTxns[0]), 1, 2, 3))
		out, errOut, err = text(partial)
		if err != nil || strings.Count(out, "\n") != 2 || errOut != "kidx: "+partial+": 3 trailing bytes after the last whole 34-byte entry (Kafka's TransactionIndex ignores them)\n" {
			t.Fatalf("%q %q %v", out, errOut, err)
		}
		if obj, err := asJSON(partial); err != nil || obj["invalidBytes"] != 3.0 {
			t.Fatalf("%v %v", obj, err)
		}
		// An unknown version: Kafka's allAbortedTxns throws before anything is printed.
		v1 := testfiles.TxnBytes(0, testfiles.KafkaTestTxns[:2]...)
		v1[34] = 1
		bad := write("00000000000000000068.txnindex", v1)
		out, _, err = text(bad)
		if out != "Dumping "+bad+"\n" {
			t.Fatalf("%q", out)
		}
		segmenttest.FormatErrAt(t, err, bad, 34, "Unexpected aborted transaction version 1 in transaction index "+bad+", current version is 0")
		// UnifiedLog.offsetFromFile needs a number before the first '.'.
		if _, _, err := text(write("x.txnindex", nil)); err == nil {
			t.Fatal("no error for a .txnindex without a base offset")
		}
	})

	t.Run("kraft snapshot", func(t *testing.T) {
		b, err := segment.BuildSizedBatch(0, 3, 120, 1700000000000)
		if err != nil {
			t.Fatal(err)
		}
		path := write("00000000000000000003-0000000002.checkpoint", b)
		out, _, err := text(path)
		lines := strings.Split(out, "\n")
		if err != nil || len(lines) != 4 || lines[1] != "Snapshot end offset: 3, epoch: 2" || !strings.HasPrefix(lines[2], "baseOffset: 0 lastOffset: 2 count: 3 ") || !strings.Contains(lines[2], " size: 120 ") {
			t.Fatalf("%q %v", out, err)
		}
		obj, err := asJSON(path)
		if err != nil || obj["kind"] != "kraft-snapshot" || obj["snapshotEndOffset"] != 3.0 || obj["snapshotEpoch"] != 2.0 || jsonPath(obj, "batches", 0, "count") != 3.0 {
			t.Fatalf("%v %v", obj, err)
		}
		// The same bytes under the bootstrap name.
		boot := write(segment.BootstrapCheckpointName, b)
		if out, _, err := text(boot); err != nil || strings.Split(out, "\n")[1] != "KRaft bootstrap snapshot" {
			t.Fatalf("%q %v", out, err)
		}
		// A .checkpoint whose name Snapshots.parse cannot read.
		if _, _, err := text(write("foo.checkpoint", b)); err == nil || !strings.Contains(err.Error(), "not a KRaft snapshot name") {
			t.Fatalf("%v", err)
		}
		// .checkpoint.part and .checkpoint.deleted end in ".part" / ".deleted": ignored, as by kafka-dump-log.
		for _, n := range []string{"00000000000000000003-0000000002.checkpoint.deleted", "00000000000000000003-0000000002-123.checkpoint.part"} {
			if out, errOut, err := text(write(n, b)); err != nil || out != "Dumping "+filepath.Join(dir, n)+"\n" || errOut != "Ignoring unknown file "+filepath.Join(dir, n)+"\n" {
				t.Fatalf("%s: %q %q %v", n, out, errOut, err)
			}
		}
	})

	header := func(name, what string) string {
		return "kidx: " + name + ": " + what + "; kafka-dump-log does not decode this file\n"
	}
	for _, c := range []struct {
		name, data, kind string
		want             string // after "Dumping <path>\n"
		jsonKey          string
		jsonWant         any
	}{
		{segment.LeaderEpochCheckpointName, "0\n2\n0 1\n1 2\n", "leader-epoch-checkpoint",
			header(segment.LeaderEpochCheckpointName, "Kafka's LeaderEpochCheckpointFile: the first offset of each leader epoch of the partition") +
				"version: 0 entries: 2\nepoch: 0 startOffset: 1\nepoch: 1 startOffset: 2\n", "leaderEpochs", []any{map[string]any{"epoch": 0.0, "startOffset": 1.0}, map[string]any{"epoch": 1.0, "startOffset": 2.0}}},
		{segment.RecoveryPointCheckpointName, "0\n1\nfoo 1 5\n", "offset-checkpoint",
			header(segment.RecoveryPointCheckpointName, "Kafka's OffsetCheckpointFile: each partition's recovery point (the log is flushed below it; recovery starts there)") +
				"version: 0 entries: 1\ntopic: foo partition: 1 offset: 5\n", "checkpointKind", "recovery-point"},
		{segment.ReplicationCheckpointName, "0\n1\nbar 2 10\n", "offset-checkpoint",
			header(segment.ReplicationCheckpointName, "Kafka's OffsetCheckpointFile: each partition's high watermark") +
				"version: 0 entries: 1\ntopic: bar partition: 2 offset: 10\n", "offsets", []any{map[string]any{"topic": "bar", "partition": 2.0, "offset": 10.0}}},
		{segment.LogStartOffsetCheckpointName, "0\n0\n", "offset-checkpoint",
			header(segment.LogStartOffsetCheckpointName, "Kafka's OffsetCheckpointFile: the log start offset of each partition where it is past the first segment's base offset") +
				"version: 0 entries: 0\n", "checkpointKind", "log-start"},
		{segment.CleanerOffsetCheckpointName, "", "offset-checkpoint",
			header(segment.CleanerOffsetCheckpointName, "Kafka's OffsetCheckpointFile: the log cleaner's first dirty offset of each compacted partition") +
				"empty file (Kafka reads it as no entries)\n", "empty", true},
		{segment.PartitionMetadataName, "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", "partition-metadata",
			header(segment.PartitionMetadataName, "Kafka's PartitionMetadataFile: the partition's topic id (KIP-516)") +
				"version: 0 topicId: AAAAAAAAAAAAAAAAAAAAAQ topicUuid: 00000000-0000-0000-0000-000000000001\n",
			"partitionMetadata", map[string]any{"version": 0.0, "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "topicUuid": "00000000-0000-0000-0000-000000000001"}},
		{segment.QuorumStateName, `{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"J8aAPcfLQt2bqs1JT_rMgQ","data_version":1}`, "quorum-state",
			header(segment.QuorumStateName, "Kafka's FileQuorumStateStore: the KRaft election state of the metadata log") +
				"dataVersion: 1 leaderId: -1 leaderEpoch: 2 votedId: 1 votedDirectoryId: J8aAPcfLQt2bqs1JT_rMgQ\n",
			"quorumState", map[string]any{"dataVersion": 1.0, "leaderId": -1.0, "leaderEpoch": 2.0, "votedId": 1.0, "votedDirectoryId": "J8aAPcfLQt2bqs1JT_rMgQ"}},
		{segment.MetaPropertiesName, "#\nversion=0\nbroker.id=3\n", "meta-properties",
			header(segment.MetaPropertiesName, "Kafka's MetaProperties: the cluster, node and directory ids of the log directory") +
				"version: 0 nodeId: 3\nproperty: version=0\nproperty: broker.id=3\n", "metaProperties", map[string]any{"version": 0.0, "clusterId": nil, "nodeId": 3.0, "directoryId": nil,
				"properties": []any{map[string]any{"key": "version", "value": "0", "line": 2.0}, map[string]any{"key": "broker.id", "value": "3", "line": 3.0}}}},
		{segment.CleanShutdownName, "not json", "clean-shutdown",
			header(segment.CleanShutdownName, "Kafka's clean-shutdown marker: the broker stopped cleanly, so no log recovery runs at the next start") +
				"content Kafka cannot read (not JSON: invalid character 'o' in literal null (expecting 'u')): Kafka reads no broker epoch; the shutdown still counts as clean\n", "fileSize", 8.0},
		{segment.LockFileName, "", "lock",
			header(segment.LockFileName, "the log directory's lock file: a running broker holds a FileLock on it; its content is not used") + "size: 0\n", "fileSize", 0.0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := write(c.name, []byte(c.data))
			out, errOut, err := text(path)
			if err != nil || errOut != "" || out != "Dumping "+path+"\n"+c.want {
				t.Fatalf("%v %q\n%s\nwant\n%s", err, errOut, out, "Dumping "+path+"\n"+c.want)
			}
			obj, err := asJSON(path)
			got, _ := json.Marshal(obj[c.jsonKey])
			want, _ := json.Marshal(c.jsonWant)
			if err != nil || obj["kind"] != c.kind || obj["decodedBy"] != "kidx" || !bytes.Equal(got, want) {
				t.Fatalf("%v: kind %v decodedBy %v %s = %s, want %s", err, obj["kind"], obj["decodedBy"], c.jsonKey, got, want)
			}
		})
	}

	t.Run("bad text files", func(t *testing.T) {
		for _, c := range []struct{ name, data, msg string }{
			{segment.LeaderEpochCheckpointName, "0\n2\n0 1\n", "Expected [2] entries in checkpoint file [" + filepath.Join(dir, segment.LeaderEpochCheckpointName) + "], but found only [1]"},
			{segment.PartitionMetadataName, "version: 0\n", "line 2: Malformed line in partition metadata file [" + filepath.Join(dir, segment.PartitionMetadataName) + "]: null"},
			{segment.QuorumStateName, `{"data_version":5}`, "line 1: data_version (5) is not within the min (0) and max (1) supported version"},
			{segment.MetaPropertiesName, "version=9\n", "line 1: Unknown meta.properties version number 9"},
		} {
			path := write(c.name, []byte(c.data))
			out, _, err := text(path)
			var fe *segment.FormatError
			if !strings.HasPrefix(out, "Dumping "+path+"\nkidx: "+c.name+": ") || !errors.As(err, &fe) || fe.Msg != c.msg {
				t.Errorf("%s: %q %v, want %q", c.name, out, err, c.msg)
			}
			if obj, err := asJSON(path); err == nil || !strings.HasSuffix(obj["error"].(string), c.msg) {
				t.Errorf("%s: JSON %v %v", c.name, obj, err)
			}
		}
	})

	t.Run("unknown", func(t *testing.T) {
		path := write("notes.txt", []byte("hi"))
		out, errOut, err := text(path)
		if err != nil || out != "Dumping "+path+"\n" || errOut != "Ignoring unknown file "+path+"\n" {
			t.Fatalf("%q %q %v", out, errOut, err)
		}
		if obj, err := asJSON(path); err != nil || obj["kind"] != "unknown" || obj["decodedBy"] != nil {
			t.Fatalf("%v %v", obj, err)
		}
	})
}
