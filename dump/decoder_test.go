package dump

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/internal/segmenttest"
	"kidx/kafkamsg"
	"kidx/segment"
)

// parsed runs the decoder of opts on one record at offset 0 and returns Kafka's (key,
// payload) as DumpLogSegmentsTest compares them ("" and false: None).
func parsed(t *testing.T, opts Options, key, value []byte) (string, bool, string, bool, error) {
	t.Helper()
	p, err := parseRecord(segment.DecodedRecord{Key: key, Value: value}, opts)
	var k, v string
	if p.key != nil {
		k = *p.key
	}
	if p.payload != nil {
		v = *p.payload
	}
	return k, p.key != nil, v, p.payload != nil, err
}

func typed(recordType int16, body []byte) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(recordType)), body...)
}

// Kafka's own vectors (DumpLogSegmentsTest.testOffsetsMessageParser, trunk): a GroupMetadata
// value at version 4 with a consumer member whose subscription (version 3: topics [foo],
// userData null, owned foo-0, generation 0, rack "rack") and assignment (foo-0) are
// replaced by their JSON; the same member with bytes that are no consumer protocol keeps them
// in base64; a record without a key stops the tool.
func TestOffsetsDecoderKafkaVectors(t *testing.T) {
	opts := Options{Decoder: DecodeOffsets}
	sub := (&kmsg.ConsumerMemberMetadata{Version: 3, Topics: []string{"foo"},
		OwnedPartitions: []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "foo", Partitions: []int32{0}}}, Generation: 0, Rack: kmsg.StringPtr("rack")}).AppendTo(nil)
	asg := (&kmsg.ConsumerMemberAssignment{Version: 3, Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: "foo", Partitions: []int32{0}}}}).AppendTo(nil)
	member := func(sub, asg []byte) []byte {
		return (&kmsg.GroupMetadataValue{Version: 4, ProtocolType: "consumer", Generation: 10, Protocol: kmsg.StringPtr("range"), Leader: kmsg.StringPtr("member"),
			CurrentStateTimestamp: -1, Members: []kmsg.GroupMetadataValueMember{{MemberID: "member", InstanceID: kmsg.StringPtr("instance"), ClientID: "client",
				ClientHost: "host", RebalanceTimeoutMillis: 1000, SessionTimeoutMillis: 100, Subscription: sub, Assignment: asg}}}).AppendTo(nil)
	}
	key := (&kmsg.GroupMetadataKey{Version: 2, Group: "group"}).AppendTo(nil)
	k, _, v, _, err := parsed(t, opts, key, member(sub, asg))
	if err != nil || k != `{"type":"2","data":{"group":"group"}}` ||
		v != `{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":[{"topic":"foo","partitions":[0]}],"userData":null}}]}}` {
		t.Errorf("consumer group metadata:\n%s\n%s\n%v", k, v, err)
	}
	_, _, v, _, _ = parsed(t, opts, key, member([]byte("Subscription"), []byte("Assignment")))
	if v != `{"version":"4","data":{"protocolType":"consumer","generation":10,"protocol":"range","leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member","groupInstanceId":"instance","clientId":"client","clientHost":"host","rebalanceTimeout":1000,"sessionTimeout":100,"subscription":"U3Vic2NyaXB0aW9u","assignment":"QXNzaWdubWVudA=="}]}}` {
		t.Errorf("malformed consumer protocol: %s", v)
	}
	_, _, _, _, err = parsed(t, opts, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "Failed to decode message at offset 0 using the specified decoder (message had a missing key)") {
		t.Errorf("missing key: %v", err)
	}
	// An offset commit's value at a version OffsetCommitValue does not have (0-4):
	// UnknownRecordVersionException, "skipping", no payload.
	k, _, _, hasV, err := parsed(t, opts, typed(1, []byte{0, 1, 'g', 0, 1, 't', 0, 0, 0, 0}), []byte{0, 5})
	if err != nil || k != "Error at offset 0, skipping. Found an unknown record version 5 for 1 type" || hasV {
		t.Errorf("unknown value version: %q %v %v", k, hasV, err)
	}
	// Kafka 4.1+ reads record type 0 as LegacyOffsetCommitValue (version 0 only); 4.0 read it
	// as OffsetCommitValue (0-4).
	v1 := []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 10}
	k, _, _, _, _ = parsed(t, opts, typed(0, []byte{0, 1, 'g', 0, 1, 't', 0, 0, 0, 3}), v1)
	if k != "Error at offset 0, skipping. Found an unknown record version 1 for 0 type" {
		t.Errorf("4.1+ type 0 value v1: %q", k)
	}
	k, _, v, _, _ = parsed(t, Options{Decoder: DecodeOffsets, DecoderEra: Era40}, typed(0, []byte{0, 1, 'g', 0, 1, 't', 0, 0, 0, 3}), v1)
	if k != `{"type":"0","data":{"group":"g","topic":"t","partition":3}}` || v != `{"version":"1","data":{"offset":7,"metadata":"","commitTimestamp":9,"expireTimestamp":10}}` {
		t.Errorf("4.0 type 0 value v1: %q %q", k, v)
	}
	// The records kmsg does not have go to kafkamsg: a ConsumerGroupMetadata tombstone, an
	// unknown record type.
	k, _, v, _, _ = parsed(t, opts, typed(3, []byte{0, 5, 'g', 'r', 'o', 'u', 'p'}), nil)
	if k != `{"type":"3","data":{"groupId":"group"}}` || v != "<DELETE>" {
		t.Errorf("consumer group tombstone: %q %q", k, v)
	}
	k, _, _, hasV, _ = parsed(t, opts, typed(32767, nil), []byte{})
	if k != "Unknown record type 32767 at offset 0, skipping." || hasV {
		t.Errorf("unknown type: %q %v", k, hasV)
	}
}

// Kafka's vectors (DumpLogSegmentsTest.testTransactionLogMessageParser): version 0 with only
// the producer id set, version 1 with every field (tagged fields printed when not their
// default: clientTransactionVersion 0 and nextProducerEpoch -1 are not), a tombstone, an
// unknown record type.
func TestTransactionLogDecoderKafkaVectors(t *testing.T) {
	opts := Options{Decoder: DecodeTransactionLog}
	key := (&kmsg.TxnMetadataKey{Version: 0, TransactionalID: "txnId"}).AppendTo(nil)
	v0 := (&kmsg.TxnMetadataValue{Version: 0, ProducerID: 123, Topics: []kmsg.TxnMetadataValueTopic{}}).AppendTo(nil)
	k, _, v, _, err := parsed(t, opts, key, v0)
	if err != nil || k != `{"type":"0","data":{"transactionalId":"txnId"}}` ||
		v != `{"version":"0","data":{"producerId":123,"producerEpoch":0,"transactionTimeoutMs":0,"transactionStatus":0,"transactionPartitions":[],"transactionLastUpdateTimestampMs":0,"transactionStartTimestampMs":0}}` {
		t.Errorf("v0:\n%s\n%s\n%v", k, v, err)
	}
	v1 := (&kmsg.TxnMetadataValue{Version: 1, ClientTransactionVersion: 0, NextProducerID: 10, PreviousProducerID: 11, ProducerEpoch: 2, ProducerID: 12,
		LastUpdateTimestamp: 123, Topics: []kmsg.TxnMetadataValueTopic{{Topic: "topic1", Partitions: []int32{0, 1, 2}}, {Topic: "topic2", Partitions: []int32{3, 4, 5}}},
		StartTimestamp: 13, TimeoutMillis: 14, State: 0, NextProducerEpoch: -1}).AppendTo(nil)
	_, _, v, _, _ = parsed(t, opts, key, v1)
	if v != `{"version":"1","data":{"producerId":12,"previousProducerId":11,"nextProducerId":10,"producerEpoch":2,"transactionTimeoutMs":14,"transactionStatus":0,"transactionPartitions":[{"topic":"topic1","partitionIds":[0,1,2]},{"topic":"topic2","partitionIds":[3,4,5]}],"transactionLastUpdateTimestampMs":123,"transactionStartTimestampMs":13}}` {
		t.Errorf("v1: %s", v)
	}
	if _, _, v, _, _ = parsed(t, opts, key, nil); v != "<DELETE>" {
		t.Errorf("tombstone: %q", v)
	}
	k, _, _, hasV, _ := parsed(t, opts, typed(32767, nil), []byte{})
	if k != "Unknown record type 32767 at offset 0, skipping." || hasV {
		t.Errorf("unknown type: %q %v", k, hasV)
	}
	if _, _, _, _, err := parsed(t, opts, nil, nil); err == nil || !strings.Contains(err.Error(), "(message had a missing key)") {
		t.Errorf("missing key: %v", err)
	}
}

// The text eras (GroupMetadataManager.formatRecordKeyAndValue, TransactionLog.
// formatRecordKeyAndValue), expected texts written from those methods: an offset commit
// with and without metadata, a key version neither 0-2 ("unknown::version=N", no payload),
// a transaction's partitions in Scala's HashSet order, an Empty transaction's none.
func TestTextEraDecoders(t *testing.T) {
	offsets := Options{Decoder: DecodeOffsets, DecoderEra: EraText}
	key := (&kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "orders", Partition: 3}).AppendTo(nil)
	val := (&kmsg.OffsetCommitValue{Version: 3, Offset: 42, LeaderEpoch: 5, Metadata: "m", CommitTimestamp: 1}).AppendTo(nil)
	k, _, v, _, err := parsed(t, offsets, key, val)
	if err != nil || k != "offset_commit::group=g,partition=orders-3" || v != "offset=42,metadata=m" {
		t.Errorf("offset commit: %q %q %v", k, v, err)
	}
	k, _, v, hasV, _ := parsed(t, offsets, typed(7, nil), []byte{0, 0})
	if k != "unknown::version=7" || hasV {
		t.Errorf("unknown key version: %q %q", k, v)
	}
	if _, _, _, _, err := parsed(t, offsets, key, []byte{0, 9}); err == nil || !strings.Contains(err.Error(), "Unknown offset message version: 9") {
		t.Errorf("unknown value version: %v", err)
	}
	// Group metadata of a group that is no consumer group: each member's assignment in
	// GroupMetadataManager.hex, "%X" of the bytes as an unsigned number: 0x00 0x0A 0xFF is "AFF".
	gm := (&kmsg.GroupMetadataValue{Version: 3, ProtocolType: "connect", Generation: 7, Protocol: kmsg.StringPtr("sessioned"),
		Members: []kmsg.GroupMetadataValueMember{{MemberID: "a", Assignment: []byte{0x00, 0x0a, 0xff}}}}).AppendTo(nil)
	_, _, v, _, _ = parsed(t, offsets, (&kmsg.GroupMetadataKey{Version: 2, Group: "c"}).AppendTo(nil), gm)
	if v != `{"protocolType":"connect","protocol":"sessioned","generationId":7,"assignment":"{a=AFF}"}` {
		t.Errorf("group metadata text: %s", v)
	}

	txn := Options{Decoder: DecodeTransactionLog, DecoderEra: Era40}
	tkey := (&kmsg.TxnMetadataKey{TransactionalID: "tx"}).AppendTo(nil)
	// Partitions t-1 and t-0: TopicPartition.hashCode = 31*(31+p) + "t".hashCode() (116):
	// 1108 for t-1, 1077 for t-0; improved (h ^ h>>>16) unchanged; buckets 1108&15 = 4 and
	// 1077&15 = 5: t-1 first.
	ongoing := (&kmsg.TxnMetadataValue{Version: 0, ProducerID: 9, ProducerEpoch: 1, TimeoutMillis: 60000, State: 1,
		Topics: []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{0, 1}}}, LastUpdateTimestamp: 77, StartTimestamp: 70}).AppendTo(nil)
	k, _, v, _, err = parsed(t, txn, tkey, ongoing)
	if err != nil || k != "transaction_metadata::transactionalId=tx" ||
		v != "producerId:9,producerEpoch:1,state=Ongoing,partitions=[t-1,t-0],txnLastUpdateTimestamp=77,txnTimeoutMs=60000" {
		t.Errorf("ongoing: %q %q %v", k, v, err)
	}
	empty := (&kmsg.TxnMetadataValue{Version: 0, ProducerID: 9, State: 0, Topics: []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{0}}}}).AppendTo(nil)
	if _, _, v, _, _ = parsed(t, txn, tkey, empty); v != "producerId:9,producerEpoch:0,state=Empty,partitions=[],txnLastUpdateTimestamp=0,txnTimeoutMs=0" {
		t.Errorf("empty: %q", v)
	}
	if _, _, _, _, err := parsed(t, txn, tkey, (&kmsg.TxnMetadataValue{Version: 0, State: 8}).AppendTo(nil)); err == nil || !strings.Contains(err.Error(), "Unknown transaction state id 8") {
		t.Errorf("state 8: %v", err)
	}
}

// scalaHashMapSim is Scala 2.13's mutable.HashMap put0 and growTable written out literally:
// buckets of nodes kept sorted by (signed) improved hash, a table of 16 doubling when an add
// brings the size to 0.75 of it, the nodes of each bucket split in order into the lower and
// upper halves. It is the brute force scalaHashOrder is checked against.
func scalaHashMapSim(keys []string, hash func(string) int32) []string {
	type node struct {
		key  string
		hash int32
	}
	table := make([][]node, 16)
	size := 0
	for _, k := range keys {
		h := uint32(hash(k))
		ih := int32(h ^ (h >> 16))
		if size+1 >= len(table)*3/4 {
			grown := make([][]node, 2*len(table))
			for _, b := range table {
				for _, n := range b {
					i := uint32(n.hash) & uint32(len(grown)-1)
					grown[i] = append(grown[i], n)
				}
			}
			table = grown
		}
		i := uint32(ih) & uint32(len(table)-1)
		b := table[i]
		j := 0
		dup := false
		for j < len(b) && b[j].hash <= ih {
			if b[j].hash == ih && b[j].key == k {
				dup = true
				break
			}
			j++
		}
		if dup {
			continue
		}
		table[i] = append(b[:j:j], append([]node{{k, ih}}, b[j:]...)...)
		size++
	}
	var out []string
	for _, b := range table {
		for _, n := range b {
			out = append(out, n.key)
		}
	}
	return out
}

// Scala 2.13's HashMap and HashSet order (GroupMetadata's members, a transaction's
// partitions), against the literal simulation: "P" (80) and "a" (97) are bucket 0 and 1 of a
// 16-table but 16 and 1 of a 32-table; random member ids and topic-partitions.
func TestScalaHashOrder(t *testing.T) {
	order := func(keys []string, hash func(string) int32) []string {
		var out []string
		for _, i := range scalaHashOrder(keys, hash, true) {
			out = append(out, keys[i])
		}
		return out
	}
	if got := order([]string{"a", "P"}, javaStringHash); strings.Join(got, ",") != "P,a" {
		t.Errorf("16-table: %v", got)
	}
	twelve := []string{"a", "P", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	if got := order(twelve, javaStringHash); got[0] != "a" || got[len(got)-1] != "P" {
		t.Errorf("32-table: %v", got)
	}
	r := rand.New(rand.NewPCG(26, 26))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(60)
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("consumer-%d-%x", r.IntN(9), r.Uint64())
			if r.IntN(10) == 0 && i > 0 {
				keys[i] = keys[r.IntN(i)] // a member id seen twice keeps its place
			}
		}
		if a, b := order(keys, javaStringHash), scalaHashMapSim(keys, javaStringHash); !slices.Equal(a, b) {
			t.Fatalf("keys %v:\n order %v\n sim   %v", keys, a, b)
		}
	}
	if javaStringHash("a") != 97 || javaStringHash("ab") != 97*31+98 || javaStringHash("\U0001F600") != 55357*31+56832 {
		t.Errorf("String.hashCode over UTF-16")
	}
}

// realdataFiles is every non-empty file of ../shared/realdata matching pattern (origin/dir/file).
func realdataFiles(t *testing.T, pattern string) []string {
	t.Helper()
	root := segmenttest.RealdataPath(t, "")
	all, err := filepath.Glob(filepath.Join(root, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		if st, err := os.Stat(f); err == nil && st.Size() > 0 {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s under %s", pattern, root)
	}
	return out
}

// dumpLines dumps path with opts and returns stdout's lines and the notes.
func dumpLines(t *testing.T, path string, opts Options) ([]string, string) {
	t.Helper()
	var out, errb strings.Builder
	opts.Stderr = &errb
	if err := File(&out, path, opts); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return strings.Split(out.String(), "\n"), errb.String()
}

// Issue 26: the decoders on the real __consumer_offsets partitions (Kafka 2.1 to 4.2, 28
// segments), in each era: every record decodes (no "Error at", "Unknown record type",
// "unknown::", no note), and one offset commit and one consumer group's metadata are pinned
// to lines written from their bytes.
func TestOffsetsDecoderRealdata(t *testing.T) {
	files := realdataFiles(t, "*/__consumer_offsets-*/*.log")
	if len(files) != 28 {
		t.Fatalf("%d __consumer_offsets segments, want the 28 of ../shared/realdata", len(files))
	}
	records := 0
	for _, era := range []DecoderEra{EraCoordinatorJSON, Era40, EraText} {
		for _, f := range files {
			lines, notes := dumpLines(t, f, Options{Decoder: DecodeOffsets, DecoderEra: era})
			for _, l := range lines {
				if !strings.HasPrefix(l, "| ") {
					continue
				}
				records++
				if strings.Contains(l, "Error at") || strings.Contains(l, "Unknown record type") || strings.Contains(l, "unknown::") || !strings.Contains(l, " payload: ") {
					t.Errorf("%s (%s): %s", f, era, l)
				}
			}
			if strings.Contains(notes, "kidx: note: offset") {
				t.Errorf("%s (%s): %s", f, era, notes)
			}
		}
	}
	t.Logf("%d records decoded (3 eras)", records)
	// iechenyb/__consumer_offsets-36, offset 0 (bytes 0x45-0x77): key 0001 (type 1), 000b
	// "flink-group", 0009 "test-0921", 00000000; value 0003 (version 3), offset 0x23 = 35,
	// leaderEpoch ffffffff = -1, metadata 0000 = "", commitTimestamp 0x16b6452fa07 =
	// 1560756288007.
	lines, _ := dumpLines(t, segmenttest.RealdataPath(t, "iechenyb/__consumer_offsets-36/00000000000000000000.log"), Options{Decoder: DecodeOffsets})
	want := `| offset: 0 CreateTime: 1560756288036 keySize: 30 valueSize: 24 sequence: 0 headerKeys: [] key: {"type":"1","data":{"group":"flink-group","topic":"test-0921","partition":0}} payload: {"version":"3","data":{"offset":35,"leaderEpoch":-1,"metadata":"","commitTimestamp":1560756288007}}`
	if lines[3] != want {
		t.Errorf("offset commit:\n got %s\nwant %s", lines[3], want)
	}
	lines, _ = dumpLines(t, segmenttest.RealdataPath(t, "iechenyb/__consumer_offsets-36/00000000000000000000.log"), Options{Decoder: DecodeOffsets, DecoderEra: EraText, SkipRecordMetadata: true})
	if lines[3] != "| key: offset_commit::group=flink-group,partition=test-0921-0 payload: offset=35" {
		t.Errorf("offset commit, 3.x: %s", lines[3])
	}
	// ronem/__consumer_offsets-31, offset 2: key 0002 0015 "console-consumer-7889"; value
	// 0003, protocolType 0008 "consumer", generation 2, protocol 0005 "range", leader 0035
	// (53 bytes) the member id, currentStateTimestamp 0x19b31026850 = 1766053800016, one
	// member: memberId, groupInstanceId ffff (null), clientId 0010 "console-consumer",
	// clientHost 000a "/127.0.0.1", rebalanceTimeout 0x493e0 = 300000, sessionTimeout 0xafc8
	// = 45000; subscription (0x28 bytes): 0003, topics [0012 "topic_transactions"], userData
	// ffffffff (null), ownedPartitions 00000000 ([]), generationId 00000001, rackId ffff
	// (null); assignment (0x26 bytes): 0003, [topic_transactions [0]], userData null.
	path := segmenttest.RealdataPath(t, "ronem/__consumer_offsets-31/00000000000000000000.log")
	lines, _ = dumpLines(t, path, Options{Decoder: DecodeOffsets, SkipRecordMetadata: true})
	member := "console-consumer-a42f8a2e-8233-45f7-b690-d49790562708"
	want = `| key: {"type":"2","data":{"group":"console-consumer-7889"}} payload: {"version":"3","data":{"protocolType":"consumer","generation":2,"protocol":"range","leader":"` + member +
		`","currentStateTimestamp":1766053800016,"members":[{"memberId":"` + member + `","groupInstanceId":null,"clientId":"console-consumer","clientHost":"/127.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,` +
		`"subscription":{"topics":["topic_transactions"],"userData":null,"ownedPartitions":[],"generationId":1,"rackId":null},"assignment":{"assignedPartitions":[{"topic":"topic_transactions","partitions":[0]}],"userData":null}}]}}`
	if lines[3] != want {
		t.Errorf("group metadata:\n got %s\nwant %s", lines[3], want)
	}
	lines, _ = dumpLines(t, path, Options{Decoder: DecodeOffsets, DecoderEra: EraText, SkipRecordMetadata: true})
	if want := `| key: group_metadata::group=console-consumer-7889 payload: {"protocolType":"consumer","protocol":"range","generationId":2,"assignment":"{` + member + `=[topic_transactions-0]}"}`; lines[3] != want {
		t.Errorf("group metadata, 3.x:\n got %s\nwant %s", lines[3], want)
	}
}

// Issue 26: __transaction_state-44 of k37-itumeleng-txn (Kafka 3.7): its 4 records decode, in
// each era; offset 1 pinned. Bytes at 0x75+0x3d: key 0000 (type 0) 0008 "default_"; value
// 0000 (version 0), producerId 0, producerEpoch 0, timeout 0xea60 = 60000, status 01
// (Ongoing), one topic 0026 "_confluent-ksql-default__command_topic" [0], lastUpdate and
// start 0x192764aef33 = 1728561475379.
func TestTransactionLogDecoderRealdata(t *testing.T) {
	path := segmenttest.RealdataPath(t, "k37-itumeleng-txn/__transaction_state-44/00000000000000000000.log")
	const topic = "_confluent-ksql-default__command_topic"
	for era, want := range map[DecoderEra]string{
		EraCoordinatorJSON: `| key: {"type":"0","data":{"transactionalId":"default_"}} payload: {"version":"0","data":{"producerId":0,"producerEpoch":0,"transactionTimeoutMs":60000,"transactionStatus":1,"transactionPartitions":[{"topic":"` + topic + `","partitionIds":[0]}],"transactionLastUpdateTimestampMs":1728561475379,"transactionStartTimestampMs":1728561475379}}`,
		Era40:              "| key: transaction_metadata::transactionalId=default_ payload: producerId:0,producerEpoch:0,state=Ongoing,partitions=[" + topic + "-0],txnLastUpdateTimestamp=1728561475379,txnTimeoutMs=60000",
		EraText:            "| key: transaction_metadata::transactionalId=default_ payload: producerId:0,producerEpoch:0,state=Ongoing,partitions=[" + topic + "-0],txnLastUpdateTimestamp=1728561475379,txnTimeoutMs=60000",
	} {
		lines, notes := dumpLines(t, path, Options{Decoder: DecodeTransactionLog, DecoderEra: era, SkipRecordMetadata: true})
		var recs []string
		for _, l := range lines {
			if strings.HasPrefix(l, "| ") {
				recs = append(recs, l)
			}
		}
		if len(recs) != 4 || notes != "" {
			t.Fatalf("%s: %d records, notes %q", era, len(recs), notes)
		}
		if recs[1] != want {
			t.Errorf("%s:\n got %s\nwant %s", era, recs[1], want)
		}
	}
}

// Issue 26: the cluster-metadata decoder on the real __cluster_metadata logs and snapshots
// (ldi-poc, ronem, k42-malayka-gzip, codecrafters-*): every record decodes. Pinned, from the
// bytes of codecrafters-go's segment: offset 1 is 01 0c 00 | 11 "metadata.version" | 0014
// | 00 (frame 1, FEATURE_LEVEL_RECORD v0, featureLevel 20); offset 2 is 01 02 00 | 05 "pear"
// | 71a59a51 89684f8b 937e4830 c71ec79a | 00 (TOPIC_RECORD v0, its Uuid in URL-safe base64).
func TestClusterMetadataDecoderRealdata(t *testing.T) {
	files := append(realdataFiles(t, "*/__cluster_metadata-0/*.log"), realdataFiles(t, "*/__cluster_metadata-0/*.checkpoint")...)
	for _, f := range files {
		lines, notes := dumpLines(t, f, Options{Decoder: DecodeClusterMetadata})
		for _, l := range lines {
			if strings.HasPrefix(l, "| ") && strings.Contains(l, "Error at") {
				t.Errorf("%s: %s", f, l)
				break
			}
		}
		if notes != "" {
			t.Errorf("%s: %s", f, notes)
		}
	}
	lines, _ := dumpLines(t, segmenttest.RealdataPath(t, "codecrafters-go/__cluster_metadata-0/00000000000000000000.log"), Options{Decoder: DecodeClusterMetadata, SkipRecordMetadata: true})
	if lines[3] != ` payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}` ||
		lines[5] != ` payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"pear","topicId":"caWaUYloT4uTfkgwxx7Hmg"}}` {
		t.Errorf("metadata records:\n%s\n%s", lines[3], lines[5])
	}
}

// The error path of the cluster-metadata decoder while kafkamsg cannot read a record: Kafka's
// "Error at N, skipping. <message>" (no "offset" in it) and a kidx note with the raw bytes.
func TestClusterMetadataDecoderErrorText(t *testing.T) {
	bogus := []byte{0x90, 0x4e, 0x90, 0x4e} // unsigned varints 10000, 10000 (DumpLogSegmentsTest's bogus record)
	p := parseClusterMetadata(segment.DecodedRecord{Offset: 12, Value: bogus})
	if p.key != nil || p.payload == nil || !strings.HasPrefix(*p.payload, "Error at 12, skipping. ") || !strings.Contains(p.note, "value 904e904e") {
		t.Errorf("%v %q", p.key, p.note)
	}
}

// DumpLogSegments.dumpLog with --skip-record-metadata: no "offset: ..." part; "| key: K
// payload: P"; with no key " payload: P"; a control record an empty line. The JSON keeps
// every field and embeds the decoder's JSON.
func TestSkipRecordMetadataAndJSON(t *testing.T) {
	key := (&kmsg.TxnMetadataKey{TransactionalID: "x"}).AppendTo(nil)
	lf, _ := segmenttest.OpenBytes(t,
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 0, BaseSeq: -1, Count: 2, LastDelta: 1}, segmenttest.V2Records([]segmenttest.Rec{{Key: []byte("k"), Value: []byte("v")}, {Value: []byte("only"), OffDelta: 1}})),
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 2, Attrs: 0x20, BaseSeq: -1, Count: 1}, segmenttest.V2Records([]segmenttest.Rec{{Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 3}}})),
		segmenttest.V2Batch(segmenttest.V2Hdr{Base: 3, BaseSeq: -1, Count: 1}, segmenttest.V2Records([]segmenttest.Rec{{Key: key}})),
	)
	lf.Close()
	lines, _ := dumpLines(t, lf.Path, Options{PrintData: true, SkipRecordMetadata: true})
	recs := []string{lines[3], lines[4], lines[6], lines[8]}
	if recs[0] != "| key: k payload: v" || recs[1] != " payload: only" || recs[2] != "" || recs[3] != "| key: "+string(key) {
		t.Errorf("%q", recs)
	}
	// A record without a key stops the coordinator decoders (Kafka's parser throws): the
	// first batch's second record.
	var out strings.Builder
	if err := File(&out, lf.Path, Options{Decoder: DecodeTransactionLog}); err == nil || !strings.Contains(err.Error(), "record at offset 1: Failed to decode message at offset 1") {
		t.Errorf("missing key: %v", err)
	}
	jf, _ := segmenttest.OpenBytes(t, segmenttest.V2Batch(segmenttest.V2Hdr{Base: 3, BaseSeq: -1, Count: 1}, segmenttest.V2Records([]segmenttest.Rec{{Key: key}})))
	jf.Close()
	out.Reset()
	if err := File(&out, jf.Path, Options{JSON: true, Decoder: DecodeTransactionLog}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), `{"schema":"kidx.dump/1","file":`) {
		t.Errorf("schema first: %.60s", out.String())
	}
	var res struct {
		Decoder string
		Batches []struct{ Records []map[string]json.RawMessage }
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	r := res.Batches[0].Records[0]
	if res.Decoder != "transaction-log-decoder (Kafka 4.1+)" || string(r["keyJson"]) != `{"type":"0","data":{"transactionalId":"x"}}` || string(r["payload"]) != `"\u003cDELETE\u003e"` || r["payloadJson"] != nil {
		t.Errorf("%s %s %s %s", res.Decoder, r["keyJson"], r["payload"], r["payloadJson"])
	}
}

// The kmsg rendering against kafkamsg's, generated from Kafka's JSON definitions, on the same
// bytes: every version of OffsetCommitValue, GroupMetadataValue (a protocol type that is not
// "consumer", so no replacement), TransactionLogValue, and the consumer protocol's
// subscription and assignment.
func TestKmsgRenderingMatchesKafkamsg(t *testing.T) {
	check := func(what string, mine kafkamsg.Value, theirs kafkamsg.Value, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: kafkamsg: %v", what, err)
			return
		}
		if a, b := kafkamsg.JSON(mine), kafkamsg.JSON(theirs); a != b {
			t.Errorf("%s:\n kmsg     %s\n kafkamsg %s", what, a, b)
		}
	}
	for v := int16(0); v <= 4; v++ {
		oc := kmsg.OffsetCommitValue{Version: v, Offset: 5, LeaderEpoch: 3, Metadata: "md", CommitTimestamp: 6, ExpireTimestamp: 7, TopicID: [16]byte{1, 2}}
		b := oc.AppendTo(nil)
		theirs, err := kafkamsg.CoordinatorValue(kafkamsg.GroupCoordinator, 1, v, b[2:])
		check("OffsetCommitValue v"+string(rune('0'+v)), offsetCommitValueJSON(&oc), theirs, err)
		gm := kmsg.GroupMetadataValue{Version: v, ProtocolType: "connect", Generation: 2, Protocol: kmsg.StringPtr("p"), CurrentStateTimestamp: 9,
			Members: []kmsg.GroupMetadataValueMember{{MemberID: "m", InstanceID: kmsg.StringPtr("i"), ClientID: "c", ClientHost: "h", RebalanceTimeoutMillis: 4, SessionTimeoutMillis: 3, Subscription: []byte{1}, Assignment: []byte{}}}}
		b = gm.AppendTo(nil)
		theirs, err = kafkamsg.CoordinatorValue(kafkamsg.GroupCoordinator, 2, v, b[2:])
		check("GroupMetadataValue v"+string(rune('0'+v)), groupMetadataValueJSON(&gm), theirs, err)
	}
	for v := int16(0); v <= 1; v++ {
		tx := kmsg.TxnMetadataValue{Version: v, ProducerID: 1, ProducerEpoch: 2, TimeoutMillis: 3, State: 4, Topics: []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{1}}},
			LastUpdateTimestamp: 5, StartTimestamp: 6, PreviousProducerID: 7, NextProducerID: -1, ClientTransactionVersion: 2, NextProducerEpoch: 8}
		b := tx.AppendTo(nil)
		theirs, err := kafkamsg.CoordinatorValue(kafkamsg.TransactionCoordinator, 0, v, b[2:])
		check("TransactionLogValue v"+string(rune('0'+v)), transactionLogValueJSON(&tx), theirs, err)
	}
	for v := int16(0); v <= 3; v++ {
		sub := (&kmsg.ConsumerMemberMetadata{Version: v, Topics: []string{"a", "b"}, UserData: []byte{9},
			OwnedPartitions: []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "a", Partitions: []int32{0, 2}}}, Generation: 5, Rack: kmsg.StringPtr("r")}).AppendTo(nil)
		theirs, err := kafkamsg.Data(kafkamsg.ConsumerProtocol, "ConsumerProtocolSubscription", v, sub[2:])
		check("ConsumerProtocolSubscription v"+string(rune('0'+v)), subscriptionJSON(sub), theirs, err)
		asg := (&kmsg.ConsumerMemberAssignment{Version: v, Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: "a", Partitions: []int32{1}}}}).AppendTo(nil)
		theirs, err = kafkamsg.Data(kafkamsg.ConsumerProtocol, "ConsumerProtocolAssignment", v, asg[2:])
		check("ConsumerProtocolAssignment v"+string(rune('0'+v)), assignmentJSON(asg), theirs, err)
	}
	keys := map[int16][]byte{1: (&kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t", Partition: 4}).AppendTo(nil), 2: (&kmsg.GroupMetadataKey{Version: 2, Group: "g"}).AppendTo(nil)}
	for typ, b := range keys {
		mine, _, err := coordinatorKey(kafkamsg.GroupCoordinator, typ, b, EraCoordinatorJSON)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := kafkamsg.CoordinatorKey(kafkamsg.GroupCoordinator, typ, b[2:])
		check("group key type "+string(rune('0'+typ)), mine, theirs, err)
	}
}

// Kafka's own vectors for --share-group-state-decoder (DumpLogSegmentsTest.
// testShareGroupStateMessageParser, 4.2): a ShareUpdate key (type 1: group "gs1", topic
// Uj5wn_FqTXirEASvVZRY1w, partition 0) and value v0 with one state batch; a ShareSnapshot key
// (type 0) tombstone; an unknown record type; and a ShareSnapshotValue read as a
// ShareUpdateValue, whose stateBatches length lands on a zero byte (null) in the snapshot's
// startOffset.
func TestShareGroupStateDecoderKafkaVectors(t *testing.T) {
	opts := Options{Decoder: DecodeShareGroupState}
	u16 := func(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
	u32 := func(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
	u64 := func(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }
	keyBody := func(group string) []byte {
		b := append(u16(nil, int16(len(group))), group...)
		b = append(b, 0x52, 0x3e, 0x70, 0x9f, 0xf1, 0x6a, 0x4d, 0x78, 0xab, 0x10, 0x04, 0xaf, 0x55, 0x94, 0x58, 0xd7) // the topic id's 16 bytes
		return u32(b, 0)
	}
	// ShareUpdateValue v0 (flexible): snapshotEpoch 0, leaderEpoch 0, startOffset 0, stateBatches
	// as a compact array of 1 (length+1 = 2): firstOffset 0, lastOffset 4, deliveryState 2,
	// deliveryCount 1, no tags; no tags.
	update := u16(nil, 0)
	update = u64(u32(u32(update, 0), 0), 0)
	update = append(update, 2)
	update = append(u16(append(u64(u64(update, 0), 4), 2), 1), 0)
	update = append(update, 0)
	k, _, v, _, err := parsed(t, opts, typed(1, keyBody("gs1")), update)
	if err != nil || k != `{"type":"1","data":{"groupId":"gs1","topicId":"Uj5wn_FqTXirEASvVZRY1w","partition":0}}` ||
		v != `{"version":"0","data":{"snapshotEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]}}` {
		t.Errorf("ShareUpdate:\n%s\n%s\n%v", k, v, err)
	}
	k, _, v, _, _ = parsed(t, opts, typed(0, keyBody("gs1")), nil)
	if k != `{"type":"0","data":{"groupId":"gs1","topicId":"Uj5wn_FqTXirEASvVZRY1w","partition":0}}` || v != "<DELETE>" {
		t.Errorf("tombstone: %q %q", k, v)
	}
	k, _, _, hasV, _ := parsed(t, opts, typed(32767, nil), []byte{})
	if k != "Unknown record type 32767 at offset 0, skipping." || hasV {
		t.Errorf("unknown type: %q %v", k, hasV)
	}
	// new ShareSnapshotValue() at v0: three int32 and three int64 zeros, an empty compact array
	// (1), no tags.
	snapshot := u64(u64(u64(u32(u32(u32(u16(nil, 0), 0), 0), 0), 0), 0), 0)
	snapshot = append(snapshot, 1, 0)
	k, _, _, hasV, _ = parsed(t, opts, typed(1, keyBody("group")), snapshot)
	if want := "Error at offset 0, skipping. Could not read record with version 0 from value's buffer due to: non-nullable field stateBatches was serialized as null."; k != want || hasV {
		t.Errorf("parse error:\n got %q\nwant %q", k, want)
	}
}
