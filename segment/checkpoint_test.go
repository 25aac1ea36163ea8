package segment_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

// Leader-epoch checkpoints. Vectors: the format comment of Kafka's LeaderEpochCheckpointFile
// ("0", "2", "0 1", "1 2"), and real files read with cat -A from /work/shared/realdata
// (ronem/__consumer_offsets-31/leader-epoch-checkpoint: "0\n3\n0 0\n2 3\n10 4\n").
func TestLeaderEpochCheckpoint(t *testing.T) {
	good := []struct {
		name, data string
		want       []segment.EpochEntry
	}{
		{"Kafka's format comment", "0\n2\n0 1\n1 2\n", []segment.EpochEntry{{0, 1}, {1, 2}}},
		{"ronem __consumer_offsets-31", "0\n3\n0 0\n2 3\n10 4\n", []segment.EpochEntry{{0, 0}, {2, 3}, {10, 4}}},
		{"ronem __cluster_metadata-0", "0\n1\n1 852953\n", []segment.EpochEntry{{1, 852953}}},
		{"empty file", "", nil},
		{"version line only", "0\n", nil},
		{"no entries", "0\n0\n", nil},
		{"no final newline", "0\n1\n3 7", []segment.EpochEntry{{3, 7}}},
		{"CRLF", "0\r\n1\r\n3 7\r\n", []segment.EpochEntry{{3, 7}}},
		{"CR only", "0\r1\r3 7\r", []segment.EpochEntry{{3, 7}}},
		{"tab and trailing space", "0\n1\n3\t7 \n", []segment.EpochEntry{{3, 7}}},
		{"signs", "+0\n+1\n-1 +9223372036854775807\n", []segment.EpochEntry{{-1, 9223372036854775807}}},
	}
	for _, c := range good {
		got, err := segment.ParseLeaderEpochCheckpoint([]byte(c.data), "lec")
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
	bad := []struct {
		name, data string
		pos        int64
		msg        string
	}{
		{"version 1", "1\n1\n0 0\n", 0, "line 1: Unrecognised version:1, expected version: 0 in checkpoint file at: lec"},
		{"version not a number", "x\n", 0, "line 1: Malformed line in checkpoint file [lec]: x"},
		{"version with a space", "0 \n0\n", 0, "line 1: Malformed line in checkpoint file [lec]: 0 "},
		{"count not a number", "0\n1x\n", 2, "line 2: Malformed line in checkpoint file [lec]: 1x"},
		{"count negative", "0\n-1\n", 2, "line 2: Illegal Capacity: -1"},
		{"count above int32", "0\n2147483648\n", 2, "line 2: Malformed line in checkpoint file [lec]: 2147483648"},
		{"fewer entries", "0\n2\n0 0\n", 8, "Expected [2] entries in checkpoint file [lec], but found only [1]"},
		{"more entries", "0\n1\n0 0\n1 5\n", 12, "Expected [1] entries in checkpoint file [lec], but found only [2]"},
		{"three fields", "0\n1\n0 0 0\n", 4, "line 3: Malformed line in checkpoint file [lec]: 0 0 0"},
		{"one field", "0\n1\n7\n", 4, "line 3: Malformed line in checkpoint file [lec]: 7"},
		{"empty entry line", "0\n1\n0 0\n\n", 8, "line 4: Malformed line in checkpoint file [lec]: "},
		{"blank entry line", "0\n1\n \n", 4, "line 3: Malformed line in checkpoint file [lec]:  "},
		// " 0 0".split("\\s+") is ["", "0", "0"]: three fields.
		{"leading space", "0\n1\n 0 0\n", 4, "line 3: Malformed line in checkpoint file [lec]:  0 0"},
		// " 5".split("\\s+") is ["", "5"]: two fields, and Integer.parseInt("") fails.
		{"leading space, two fields", "0\n1\n 5\n", 4, `line 3: For input string: ""`},
		{"epoch not a number", "0\n1\nx 5\n", 4, `line 3: For input string: "x"`},
		{"epoch above int32", "0\n1\n2147483648 5\n", 4, `line 3: For input string: "2147483648"`},
		{"offset not a number", "0\n1\n1 5.0\n", 4, `line 3: For input string: "5.0"`},
		{"not UTF-8", "0\n1\n1 \xff\n", 4, "line 3: not valid UTF-8 (Kafka's reader fails with java.nio.charset.MalformedInputException)"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			got, err := segment.ParseLeaderEpochCheckpoint([]byte(c.data), "lec")
			segmenttest.FormatErrAt(t, err, "lec", c.pos, c.msg)
			if got != nil {
				t.Fatalf("entries %v with an error", got)
			}
		})
	}
}

// Offset checkpoints. Vectors: OffsetCheckpointFileWithFailureHandlerTest
// (shouldPersistAndOverwriteAndReloadFile: foo-1 at 5 and bar-2 at 10;
// shouldThrowIfVersionIsNotRecognised: version 1 with foo-5 at 10; shouldReturnEmptyMapForEmptyFile),
// and donaldy/cleaner-offset-checkpoint read with cat -A.
func TestOffsetCheckpoint(t *testing.T) {
	got, err := segment.ParseOffsetCheckpoint([]byte("0\n2\nfoo 1 5\nbar 2 10\n"), "rp")
	if err != nil || fmt.Sprint(got) != "[{foo 1 5} {bar 2 10}]" {
		t.Fatalf("%v %v", got, err)
	}
	got, err = segment.ParseOffsetCheckpoint([]byte("0\n3\n__consumer_offsets 28 2\n__consumer_offsets 17 1\n__consumer_offsets 39 18\n"), "cleaner-offset-checkpoint")
	want := []segment.OffsetCheckpointEntry{{"__consumer_offsets", 28, 2}, {"__consumer_offsets", 17, 1}, {"__consumer_offsets", 39, 18}}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := segment.ParseOffsetCheckpoint(nil, "rp"); err != nil || got != nil {
		t.Fatalf("empty: %v %v", got, err)
	}
	// log-start-offset-checkpoint with no partition past its first segment (real files: "0\n0\n").
	if got, err := segment.ParseOffsetCheckpoint([]byte("0\n0\n"), "rp"); err != nil || len(got) != 0 {
		t.Fatalf("no entries: %v %v", got, err)
	}
	bad := []struct {
		name, data string
		pos        int64
		msg        string
	}{
		{"version 1", "1\n1\nfoo 5 10\n", 0, "line 1: Unrecognised version:1, expected version: 0 in checkpoint file at: rp"},
		{"two fields", "0\n1\nfoo 5\n", 4, "line 3: Malformed line in checkpoint file [rp]: foo 5"},
		{"four fields", "0\n1\nfoo 5 10 1\n", 4, "line 3: Malformed line in checkpoint file [rp]: foo 5 10 1"},
		{"partition not a number", "0\n1\nfoo p 10\n", 4, `line 3: For input string: "p"`},
		{"offset not a number", "0\n1\nfoo 5 ten\n", 4, `line 3: For input string: "ten"`},
		{"hostile count", "0\n2147483647\nfoo 5 10\n", 22, "Expected [2147483647] entries in checkpoint file [rp], but found only [1]"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := segment.ParseOffsetCheckpoint([]byte(c.data), "rp")
			segmenttest.FormatErrAt(t, err, "rp", c.pos, c.msg)
		})
	}
	// A hostile count allocates nothing for itself.
	data := []byte("0\n2147483647\nfoo 5 10\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < 100; i++ {
		_, _ = segment.ParseOffsetCheckpoint(data, "rp")
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 4096 {
		t.Fatalf("%d bytes per parse of a %d-byte file", per, len(data))
	}
}

// partition.metadata. Vectors: PartitionMetadataReadBufferTest (testReadValidPartitionMetadata,
// testReadFailsForEmptyFile, testReadFailsWhenTopicIdLineIsMissing,
// testReadFailsWhenTopicIdIsMalformed, testReadFailsWhenTopicIdIsZeroUuid) and
// atul-0406/__consumer_offsets-32/partition.metadata, read with xxd: "version: 0\ntopic_id:
// YEO9-o88S26CT6OkgrVHXA" (no final newline). The hex form of that id was computed with
// Python's base64.urlsafe_b64decode.
func TestPartitionMetadata(t *testing.T) {
	m, err := segment.ParsePartitionMetadata([]byte("version: 0\ntopic_id: YEO9-o88S26CT6OkgrVHXA"), "pm")
	if err != nil || m.Version != 0 || m.TopicID.String() != "YEO9-o88S26CT6OkgrVHXA" || m.TopicID.Hex() != "6043bdfa-8f3c-4b6e-824f-a3a482b5475c" {
		t.Fatalf("%+v %v (%s)", m, err, m.TopicID.Hex())
	}
	// The metadata topic's id, Uuid.METADATA_TOPIC_ID = Uuid(0, 1).
	m, err = segment.ParsePartitionMetadata([]byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"), "pm")
	if err != nil || m.TopicID != (segment.KafkaUUID{15: 1}) {
		t.Fatalf("%+v %v", m, err)
	}
	// A later version is accepted (downgrade compatibility), and so are lines after the second.
	if m, err := segment.ParsePartitionMetadata([]byte("version: 7\ntopic_id: YEO9-o88S26CT6OkgrVHXA\nmore: x\n"), "pm"); err != nil || m.Version != 7 {
		t.Fatalf("%+v %v", m, err)
	}
	bad := []struct {
		name, data string
		pos        int64
		msg        string
	}{
		{"empty file", "", 0, "line 1: Malformed line in partition metadata file [pm]: null"},
		{"topic id line missing", "version: 0\n", 11, "line 2: Malformed line in partition metadata file [pm]: null"},
		{"topic id malformed", "version: 0\ntopic_id: not-a-uuid\n", 11,
			"line 2: Malformed line in partition metadata file [pm]: topic_id: not-a-uuid (caused by java.lang.IllegalArgumentException: Input string `not-a-uuid` decoded as 7 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID)"},
		{"zero uuid", "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n", 11, "line 2: Invalid topic ID in partition metadata file (pm)"},
		{"negative version", "version: -1\ntopic_id: YEO9-o88S26CT6OkgrVHXA", 0, "line 1: Unrecognized version of partition metadata file (pm): -1"},
		{"no space after the colon", "version:0\n", 0, "line 1: Malformed line in partition metadata file [pm]: version:0"},
		{"wrong key", "versions: 0\n", 0, "line 1: Malformed line in partition metadata file [pm]: versions: 0"},
		{"version not a number", "version: zero\n", 0, `line 1: Malformed line in partition metadata file [pm]: version: zero (caused by java.lang.NumberFormatException: For input string: "zero")`},
		{"topic id too long", "version: 0\ntopic_id: YEO9-o88S26CT6OkgrVHXAAAA\n", 11,
			"line 2: Malformed line in partition metadata file [pm]: topic_id: YEO9-o88S26CT6OkgrVHXAAAA (caused by java.lang.IllegalArgumentException: Input string with prefix `YEO9-o88S26CT6OkgrVHXAAA` is too long to be decoded as a base64 UUID)"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := segment.ParsePartitionMetadata([]byte(c.data), "pm")
			segmenttest.FormatErrAt(t, err, "pm", c.pos, c.msg)
		})
	}
}

// meta.properties. Vectors: ldi-poc/meta.properties (v1, KRaft, Kafka 3.7) and
// iechenyb/meta.properties (v0, 2019), copied from cat -A; the error texts are MetaProperties',
// MetaPropertiesVersion's, PropertiesUtils' and Uuid's.
func TestMetaProperties(t *testing.T) {
	v1 := "#\n#Fri Jan 30 16:43:51 UTC 2026\nnode.id=1\ndirectory.id=XHhkr4tkSsD900pOQ8pPfg\nversion=1\ncluster.id=q1w2e3r4t5y6u7i8o9p0\n"
	m, err := segment.ParseMetaProperties([]byte(v1), "mp")
	if err != nil {
		t.Fatal(err)
	}
	// The directory id's bytes (5c7864af...) were computed with Python's base64 module. The
	// cluster id is 20 characters, no Uuid: Kafka keeps cluster.id as a string.
	if m.Version != 1 || m.NodeID == nil || *m.NodeID != 1 || m.ClusterID == nil || *m.ClusterID != "q1w2e3r4t5y6u7i8o9p0" ||
		m.DirectoryID == nil || m.DirectoryID.Hex() != "5c7864af-8b64-4ac0-fdd3-4a4e43ca4f7e" || len(m.Properties) != 4 || m.Properties[0] != (segment.Property{"node.id", "1", 3}) {
		t.Fatalf("%+v", m)
	}
	m, err = segment.ParseMetaProperties([]byte("#\n#Mon Jun 17 15:19:18 CST 2019\nversion=0\nbroker.id=0\n"), "mp")
	if err != nil || m.Version != 0 || m.NodeID == nil || *m.NodeID != 0 || m.ClusterID != nil || m.DirectoryID != nil {
		t.Fatalf("%+v %v", m, err)
	}
	// No version key: version 0; no broker.id: no node id (v0 guarantees no field).
	if m, err := segment.ParseMetaProperties([]byte("cluster.id=abc\n"), "mp"); err != nil || m.Version != 0 || m.NodeID != nil || *m.ClusterID != "abc" {
		t.Fatalf("%+v %v", m, err)
	}
	// Properties.load syntax: ':' and white-space separators, escapes, continuations, '!' comments.
	m, err = segment.ParseMetaProperties([]byte("! comment\n  version : 1\nnode.id 7\ncluster.id=a\\:b\\\n    cd\\u0041\n"), "mp")
	if err != nil || m.Version != 1 || *m.NodeID != 7 || *m.ClusterID != "a:bcdA" {
		t.Fatalf("%+v %v", m, err)
	}
	// The last of a repeated key wins, as in a Properties map.
	if m, err := segment.ParseMetaProperties([]byte("broker.id=1\nbroker.id=2\n"), "mp"); err != nil || *m.NodeID != 2 {
		t.Fatalf("%+v %v", m, err)
	}
	bad := []struct {
		name, data string
		pos        int64
		msg        string
	}{
		{"unknown version", "version=3\n", 0, "line 1: Unknown meta.properties version number 3"},
		{"version not a number", "a=b\nversion=x\n", 4, "line 2: Invalid meta.properties version string 'x'"},
		{"v1 without node.id", "version=1\ncluster.id=abc\n", 0, "Failed to find node.id"},
		{"v1 without cluster.id", "version=1\nnode.id=1\n", 0, "cluster.id was not found."},
		{"v0 broker.id not a number", "version=0\nbroker.id=x\n", 10, "line 2: Unable to read broker.id as a base-10 number."},
		// loadRequiredIntProp does not trim: a trailing space fails Integer.parseInt.
		{"node.id with a trailing space", "version=1\nnode.id=1 \ncluster.id=abc\n", 10, "line 2: Unable to read node.id as a base-10 number."},
		{"node.id above int32", "version=1\nnode.id=2147483648\ncluster.id=abc\n", 10, "line 2: Unable to read node.id as a base-10 number."},
		{"bad directory.id", "version=1\nnode.id=1\ndirectory.id=nope\n", 20,
			"line 3: Unable to read directory.id as a Uuid: Input string `nope` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"},
		{"bad escape", "version=1\nnode.id=1\ncluster.id=\\u00zz\n", 20, "line 3: Malformed \\uxxxx encoding."},
		{"short escape", "cluster.id=\\u00", 0, "line 1: Malformed \\uxxxx encoding."},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := segment.ParseMetaProperties([]byte(c.data), "mp")
			segmenttest.FormatErrAt(t, err, "mp", c.pos, c.msg)
		})
	}
}

// quorum-state. Vectors: ldi-poc/__cluster_metadata-0/quorum-state (data_version 0, Kafka 3.7)
// and ronem/__cluster_metadata-0/quorum-state (data_version 1), copied from cat -A, and the
// error texts of FileQuorumStateStore.readStateFromFile.
func TestQuorumState(t *testing.T) {
	q, err := segment.ParseQuorumState([]byte(`{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`), "qs")
	if err != nil || q.DataVersion != 0 || q.ClusterID == nil || *q.ClusterID != "" || q.LeaderID != 1 || q.LeaderEpoch != 1 || q.VotedID != -1 ||
		q.AppliedOffset == nil || *q.AppliedOffset != 0 || fmt.Sprint(q.CurrentVoters) != "[1]" || q.VotedDirectoryID != nil {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = segment.ParseQuorumState([]byte(`{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`), "qs")
	if err != nil || q.DataVersion != 1 || q.ClusterID != nil || q.VotedDirectoryID == nil || *q.VotedDirectoryID != "AAAAAAAAAAAAAAAAAAAAAA" || q.AppliedOffset != nil || q.CurrentVoters != nil {
		t.Fatalf("%+v %v", q, err)
	}
	// currentVoters may be null (nullableVersions 0+); unknown keys are listed.
	q, err = segment.ParseQuorumState([]byte(`{"clusterId":"c","leaderId":-1,"leaderEpoch":0,"votedId":2,"appliedOffset":5,"currentVoters":null,"data_version":0,"zz":1,"aa":2}`+"\nsecond line ignored"), "qs")
	if err != nil || q.CurrentVoters != nil || fmt.Sprint(q.OtherKeys) != "[aa zz]" {
		t.Fatalf("%+v %v", q, err)
	}
	bad := []struct {
		name, data string
		msg        string
	}{
		{"empty", "", "Error while reading the Quorum status from the file qs: File ended prematurely."},
		{"empty first line", "\n{}", "line 1: Error while reading the Quorum status from the file qs: Deserialized node  is not an object node"},
		{"array", "[1]", "line 1: Error while reading the Quorum status from the file qs: Deserialized node [1] is not an object node"},
		{"no data_version", `{"leaderId":1}`, `line 1: Error while reading the Quorum status from the file qs: Deserialized node {"leaderId":1} does not have data_version field`},
		{"data_version 2", `{"data_version":2}`, "line 1: data_version (2) is not within the min (0) and max (1) supported version"},
		{"data_version -1", `{"data_version":-1}`, "line 1: data_version (-1) is not within the min (0) and max (1) supported version"},
		{"v1 without votedDirectoryId", `{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":1}`, "line 1: QuorumStateData: unable to locate field 'votedDirectoryId', which is mandatory in version 1"},
		{"v0 without clusterId", `{"leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[],"data_version":0}`, "line 1: QuorumStateData: unable to locate field 'clusterId', which is mandatory in version 0"},
		// JsonNode.shortValue of a string is 0: data_version "x" reads as version 0.
		{"data_version a string", `{"data_version":"1","leaderId":1}`, "line 1: QuorumStateData: unable to locate field 'clusterId', which is mandatory in version 0"},
		{"leaderId a string", `{"leaderId":"1","leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`, `line 1: quorum-state field 'leaderId' is "1", not an int32`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := segment.ParseQuorumState([]byte(c.data), "qs")
			segmenttest.FormatErrAt(t, err, "qs", 0, c.msg)
		})
	}
}

// .kafka_cleanshutdown: atul-0406's (Kafka 3.6, empty) and ronem's ({"version":0,"brokerEpoch":11},
// read with cat), and CleanShutdownFileHandler.read's tolerance of anything else.
func TestCleanShutdown(t *testing.T) {
	if c := segment.ParseCleanShutdown(nil); !c.Empty || c.BrokerEpoch != nil {
		t.Fatalf("%+v", c)
	}
	c := segment.ParseCleanShutdown([]byte(`{"version":0,"brokerEpoch":11}`))
	if c.Empty || c.Version == nil || *c.Version != 0 || c.BrokerEpoch == nil || *c.BrokerEpoch != 11 || c.Unreadable != "" {
		t.Fatalf("%+v", c)
	}
	for _, s := range []string{"garbage", `{"version":0}`, `{"brokerEpoch":"x"}`, `{"brokerEpoch":1.5}`} {
		if c := segment.ParseCleanShutdown([]byte(s)); c.Unreadable == "" || c.BrokerEpoch != nil {
			t.Errorf("%q: %+v", s, c)
		}
	}
}

// Uuid.fromString's rules.
func TestParseKafkaUUID(t *testing.T) {
	for _, c := range []struct{ in, hex, err string }{
		{"AAAAAAAAAAAAAAAAAAAAAQ", "00000000-0000-0000-0000-000000000001", ""},
		{"AAAAAAAAAAAAAAAAAAAAAQ==", "00000000-0000-0000-0000-000000000001", ""}, // Base64.getUrlDecoder accepts padding
		{"", "", "Input string `` decoded as 0 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"},
		{"AAAAAAAAAAAAAAAAAAAAAAAAA", "", "Input string with prefix `AAAAAAAAAAAAAAAAAAAAAAAA` is too long to be decoded as a base64 UUID"},
		{"AAAAAAAAAAAAAAAAAAAA*Q", "", "Illegal base64 character 2a"},
		{"A", "", "Last unit does not have enough valid bits"},
		{"AAAAAAAAAAAAAAAAAAAA\nAQ", "", "Illegal base64 character a"}, // Go's decoder would skip the newline
	} {
		u, err := segment.ParseKafkaUUID(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || u.Hex() != c.hex {
			t.Errorf("%q: %s %v", c.in, u.Hex(), err)
		}
	}
}

// No text parser panics on any prefix of a valid file, nor on bytes that are all separators.
func TestTextCheckpointsTruncations(t *testing.T) {
	files := map[string]string{
		"lec": "0\n3\n0 0\n2 3\n10 4\n",
		"rp":  "0\n2\nfoo 1 5\nbar 2 10\n",
		"pm":  "version: 0\ntopic_id: YEO9-o88S26CT6OkgrVHXA",
		"mp":  "#\nnode.id=1\ndirectory.id=XHhkr4tkSsD900pOQ8pPfg\nversion=1\ncluster.id=q1w2e3r4t5y6u7i8o9p0\n",
		"qs":  `{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`,
	}
	for name, s := range files {
		for n := 0; n <= len(s); n++ {
			b := []byte(s[:n])
			var err error
			switch name {
			case "lec":
				_, err = segment.ParseLeaderEpochCheckpoint(b, name)
			case "rp":
				_, err = segment.ParseOffsetCheckpoint(b, name)
			case "pm":
				_, err = segment.ParsePartitionMetadata(b, name)
			case "mp":
				_, err = segment.ParseMetaProperties(b, name)
			case "qs":
				_, err = segment.ParseQuorumState(b, name)
			}
			if err != nil && !strings.HasPrefix(err.Error(), name+": byte ") {
				t.Fatalf("%s[:%d]: error %q does not name the file and byte", name, n, err)
			}
		}
	}
}
