package kafkamsg

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

// bb builds a message's bytes by hand, field by field, in the order and encoding the JSON
// definitions give (each test says which). It is a plain encoder, independent of the reader.
type bb []byte

func (b bb) i8(v int8) bb   { return append(b, byte(v)) }
func (b bb) i16(v int16) bb { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func (b bb) i32(v int32) bb { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func (b bb) i64(v int64) bb { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func (b bb) raw(v ...byte) bb {
	return append(b, v...)
}

// uv is an unsigned varint: seven bits a byte, low first, the top bit saying more follow.
func (b bb) uv(v uint32) bb {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// cstr is a compact string (flexible versions): unsigned varint length+1, then the bytes.
func (b bb) cstr(s string) bb { return append(b.uv(uint32(len(s)+1)), s...) }

// str is a classic string: int16 length, then the bytes.
func (b bb) str(s string) bb { return append(b.i16(int16(len(s))), s...) }

func (b bb) uuid(fill byte) bb {
	for i := 0; i < 16; i++ {
		b = append(b, fill)
	}
	return b
}

func mustJSON(t *testing.T, o *Object, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return JSON(o)
}

// The metadata records: frame version 1, apiKey, version (unsigned varints,
// AbstractApiMessageSerde.write), then the message; every metadata message is flexible in
// all versions ("flexibleVersions": "0+"), so strings and arrays are compact and each struct
// ends with a tagged-field count.
func TestMetadataRecordHandVectors(t *testing.T) {
	// Uuid.toString is base64url without padding: 16 bytes of 0x11 are five "ERER" groups
	// (0x11 0x11 0x11 -> 000100 010001 000100 010001) and "EQ" for the last byte.
	const uuid11 = "ERERERERERERERERERER" + "EQ"
	cases := []struct {
		name  string
		value bb
		want  string
	}{
		{
			// TopicRecord v0: Name (string), TopicId (uuid).
			name:  "TopicRecord v0",
			value: bb{}.raw(1, 2, 0).cstr("foo").raw(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15).uv(0),
			// 00 01 02 | 03 04 05 | 06 07 08 | 09 0a 0b | 0c 0d 0e | 0f -> AAEC AwQF BgcI CQoL DA0O Dw
			want: `{"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"AAECAwQFBgcICQoLDA0ODw"}}`,
		},
		{
			// PartitionRecord v2: PartitionId, TopicId, Replicas, Isr, RemovingReplicas,
			// AddingReplicas, Leader, LeaderEpoch, PartitionEpoch, Directories (1+); tagged:
			// LeaderRecoveryState (tag 0, int8, default 0), EligibleLeaderReplicas (tag 1,
			// default null), LastKnownElr (tag 2, default null). The JSON keeps the
			// definition's order and writes a tagged field only when it is not its default.
			name: "PartitionRecord v2 with directories and tagged fields",
			value: bb{}.raw(1, 3, 2).i32(0).uuid(0x11).
				uv(3).i32(1).i32(2).      // replicas [1,2]
				uv(2).i32(1).             // isr [1]
				uv(1).uv(1).              // removing [], adding []
				i32(1).i32(5).i32(7).     // leader, leaderEpoch, partitionEpoch
				uv(2).uuid(0x22).         // directories [one uuid]
				uv(2).uv(0).uv(1).i8(1).  // 2 tagged fields: tag 0 size 1: recovery state 1
				uv(1).uv(5).uv(2).i32(2), // tag 1 size 5: ELR [2]
			// 0x22 0x22 0x22 -> 001000 100010 001000 100010 = I i I i; the last 0x22 -> "Ig".
			want: `{"type":"PARTITION_RECORD","version":2,"data":{"partitionId":0,"topicId":"` + uuid11 + `","replicas":[1,2],"isr":[1],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderRecoveryState":1,"leaderEpoch":5,"partitionEpoch":7,"directories":["IiIiIiIiIiIiIiIiIiIiIg"],"eligibleLeaderReplicas":[2]}}`,
		},
		{
			// RegisterBrokerRecord v3: BrokerId, IsMigratingZkBroker (2+), IncarnationId,
			// BrokerEpoch, EndPoints [Name, Host, Port uint16, SecurityProtocol int16],
			// Features [Name, Min, Max], Rack (nullable), Fenced, InControlledShutdown (1+);
			// LogDirs is tagged (tag 0, default empty) and absent, so not written.
			name: "RegisterBrokerRecord v3, null rack",
			value: bb{}.raw(1, 0, 3).i32(1).i8(0).uuid(0).i64(16).
				uv(2).cstr("PLAINTEXT").cstr("h").raw(0x23, 0x84).i16(0).uv(0). // port 9092 = 0x2384
				uv(2).cstr("metadata.version").i16(1).i16(20).uv(0).
				uv(0). // rack: compact length 0 = null
				i8(1).i8(0).uv(0),
			want: `{"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":1,"isMigratingZkBroker":false,"incarnationId":"AAAAAAAAAAAAAAAAAAAAAA","brokerEpoch":16,"endPoints":[{"name":"PLAINTEXT","host":"h","port":9092,"securityProtocol":0}],"features":[{"name":"metadata.version","minSupportedVersion":1,"maxSupportedVersion":20}],"rack":null,"fenced":true,"inControlledShutdown":false}}`,
		},
		{
			// FeatureLevelRecord v0: Name, FeatureLevel (int16).
			name:  "FeatureLevelRecord v0",
			value: bb{}.raw(1, 12, 0).cstr("metadata.version").i16(20).uv(0),
			want:  `{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}`,
		},
		{
			// ClientQuotaRecord v0: Entity [EntityType, EntityName (nullable)], Key, Value
			// (float64), Remove. 1024.5 = 2^10 x (1 + 2^-11): exponent 1033 = 0x409, mantissa
			// bit 41 -> 0x4090020000000000.
			name: "ClientQuotaRecord v0, float64",
			value: bb{}.raw(1, 14, 0).uv(2).cstr("user").uv(0).uv(0).
				cstr("producer_byte_rate").raw(0x40, 0x90, 0x02, 0, 0, 0, 0, 0).i8(0).uv(0),
			want: `{"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[{"entityType":"user","entityName":null}],"key":"producer_byte_rate","value":1024.5,"remove":false}}`,
		},
		{
			// NoOpRecord v0: no fields, an empty tagged section.
			name:  "NoOpRecord v0",
			value: bb{}.raw(1, 20, 0).uv(0),
			want:  `{"type":"NO_OP_RECORD","version":0,"data":{}}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := MetadataRecord(c.value)
			if g := mustJSON(t, got, err); g != c.want {
				t.Errorf("got\n%s\nwant\n%s", g, c.want)
			}
		})
	}
}

// MetadataRecordSerdeTest's vectors (Kafka's metadata module), with the texts its
// assertions check; the buffers are Kafka's, trailing zeros included (they allocate 64 bytes).
func TestMetadataRecordSerdeTestVectors(t *testing.T) {
	pad := func(b []byte, n int) []byte { return append(b, make([]byte, n-len(b))...) }
	cases := []struct {
		name, prefix string
		value        []byte
	}{
		{"testDeserializeWithUnhandledFrameVersion", "Could not deserialize metadata record due to unknown frame version 15(only frame version 1 is supported)", pad([]byte{15}, 1)},
		{"testParsingMalformedFrameVersionVarint", "Error while reading frame version", pad([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 64)},
		{"testParsingMalformedMessageTypeVarint", "Error while reading type", pad([]byte{1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, 64)},
		{"testParsingMalformedMessageVersionVarint", "Error while reading version", pad([]byte{1, 8, 0x80, 0x80, 0x80, 0x80, 0x80}, 64)},
		{"testParsingVersionTooLarge", "Value for version was too large", pad([]byte{1, 8, 0xff, 0xff, 0xff, 0x7f, 0x80}, 64)},
		// ff 7f is the varint 0x7f + 0x7f<<7 = 16383; the cause's message is "Unknown metadata
		// id 16383" and getMessage() is the cause's toString.
		{"testParsingUnsupportedApiKey", "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id 16383", pad([]byte{1, 0xff, 0x7f, 0, 0x80}, 64)},
		{"testParsingMalformedMessage", "Failed to deserialize record with type 0", []byte{1, 0, 0, 0x80}},
		// RegisterBrokerRecord v0 {brokerId 1, brokerEpoch 2}, the rest defaults (rack "",
		// fenced true), then one byte more.
		{"testParsingRecordWithGarbageAtEnd", "Found 1 byte(s) of garbage after 0",
			bb{}.raw(1, 0, 0).i32(1).uuid(0).i64(2).uv(1).uv(1).cstr("").i8(1).uv(0).raw(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MetadataRecord(c.value)
			if err == nil {
				t.Fatal("read without error")
			}
			msg, ok := KafkaMessage(err)
			if !ok || !strings.HasPrefix(msg, c.prefix) {
				t.Errorf("Kafka's message %q (ok %v), want it to start with %q", msg, ok, c.prefix)
			}
		})
	}
	// testParsingUnsupportedApiKey: the error is an UnknownRecordTypeError.
	var te *UnknownRecordTypeError
	if _, err := MetadataRecord([]byte{1, 0xff, 0x7f, 0}); !errors.As(err, &te) || te.Type != 16383 {
		t.Errorf("unknown apiKey: %v, want an UnknownRecordTypeError for 16383", err)
	}
	// The frame version 0 of KRaft's 2.8 preview is refused in AbstractApiMessageSerde's words.
	if _, err := MetadataRecord([]byte{0, 2, 0}); err == nil || !strings.HasPrefix(err.Error(), "Could not deserialize metadata record with frame version 0.") {
		t.Errorf("frame version 0: %v", err)
	}
}

// A metadata record at a version outside its validVersions reads as Kafka's generated class
// reads it: TopicRecord's fields are "0+", so v1 reads the v0 layout (no version test is
// compiled in), and ValidVersions tells the caller v1 is not a known version.
func TestMetadataRecordVersionOutsideValidVersions(t *testing.T) {
	got, err := MetadataRecord(bb{}.raw(1, 2, 1).cstr("a").uuid(0).uv(0))
	want := `{"type":"TOPIC_RECORD","version":1,"data":{"name":"a","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}}`
	if g := mustJSON(t, got, err); g != want {
		t.Errorf("got %s, want %s", g, want)
	}
	if lo, hi, ok := ValidVersions(Metadata, 2); !ok || lo != 0 || hi != 0 {
		t.Errorf("ValidVersions(TopicRecord) = %d, %d, %v; want 0, 0, true", lo, hi, ok)
	}
}

// An inline struct's class is generated for its message's validVersions: BrokerEndpoint's
// read begins "if (_version > 3) throw" (RegisterBrokerRecord is 0-3, the struct 0+), so a v4
// RegisterBrokerRecord with an endpoint is refused, in MetadataRecordSerde's words.
func TestInlineStructRefusesALaterVersion(t *testing.T) {
	_, err := MetadataRecord(bb{}.raw(1, 0, 4).i32(1).i8(0).uuid(0).i64(16).
		uv(2).cstr("PLAINTEXT").cstr("h").i16(9092).i16(0).uv(0).uv(1).uv(0).i8(1).i8(0).uv(0))
	var ve *UnknownVersionError
	if msg, _ := KafkaMessage(err); msg != "Failed to deserialize record with type 0" || !errors.As(err, &ve) || ve.Error() != "Can't read version 4 of BrokerEndpoint" {
		t.Errorf("v4 RegisterBrokerRecord: %v (Kafka's text %q)", err, msg)
	}
}

// The reader's bounds: an array longer than the bytes left is refused before allocating, in
// the generated code's words; a non-nullable null and a bad tag too.
func TestReadRefusals(t *testing.T) {
	cases := []struct {
		name, kafka string
		value       []byte
	}{
		// PartitionRecord v0 whose replicas claim 2^28 elements.
		{"array longer than the bytes", "Tried to allocate a collection of size 268435455, but there are only 0 bytes remaining.",
			bb{}.raw(1, 3, 0).i32(0).uuid(0).uv(1 << 28)},
		// TopicRecord v0 whose name is null (compact length 0).
		{"non-nullable null", "non-nullable field name was serialized as null", bb{}.raw(1, 2, 0).uv(0)},
		// PartitionRecord v0 with tag 1 (EligibleLeaderReplicas, tagged from v2 only).
		{"tag not valid for the version", "Tag 1 is not valid for version 0",
			bb{}.raw(1, 3, 0).i32(0).uuid(0).uv(1).uv(1).uv(1).uv(1).i32(0).i32(0).i32(0).uv(1).uv(1).uv(1)},
		// An unknown tag whose size runs past the end.
		{"unknown tag past the end", "Error reading byte array of 9 byte(s): only 0 byte(s) available",
			bb{}.raw(1, 20, 0).uv(1).uv(7).uv(9)},
		{"truncated", "null", bb{}.raw(1, 2, 0).cstr("abc").uuid(0)[:10]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MetadataRecord(c.value)
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a ReadError cause", err)
			}
			if re.Kafka != c.kafka {
				t.Errorf("cause's Kafka text %q, want %q", re.Kafka, c.kafka)
			}
		})
	}
	// An unknown tag is skipped as Readable.readUnknownTaggedField skips it.
	got, err := MetadataRecord(bb{}.raw(1, 20, 0).uv(1).uv(7).uv(2).raw(0xaa, 0xbb))
	if g := mustJSON(t, got, err); g != `{"type":"NO_OP_RECORD","version":0,"data":{}}` {
		t.Errorf("unknown tag: %s", g)
	}
}

// The coordinator records: a key's int16 record type and a value's int16 version precede
// the messages (CoordinatorRecordSerde); the key message is read at version = record type
// and written at version 0.
func TestCoordinatorHandVectors(t *testing.T) {
	// OffsetCommitKey (type 1): group, topic (int16-length strings), partition.
	key, err := CoordinatorKey(GroupCoordinator, 1, bb{}.str("g").str("t").i32(0))
	if g := mustJSON(t, key, err); g != `{"group":"g","topic":"t","partition":0}` {
		t.Errorf("OffsetCommitKey: %s", g)
	}
	// OffsetCommitValue v3 (not flexible): offset, leaderEpoch (3+), metadata, commitTimestamp.
	// 1700000000000 = 0x18BCFE56800.
	const ts = 1700000000000
	v3, err := CoordinatorValue(GroupCoordinator, 1, 3, bb{}.i64(100).i32(5).str("").i64(ts))
	if g := mustJSON(t, v3, err); g != `{"offset":100,"leaderEpoch":5,"metadata":"","commitTimestamp":1700000000000}` {
		t.Errorf("OffsetCommitValue v3: %s", g)
	}
	// v4 is flexible: metadata compact; TopicId is tagged (tag 0, 16 bytes). 0x33 x 16 in
	// base64url: "MzMz" x 5 and "Mw".
	v4, err := CoordinatorValue(GroupCoordinator, 1, 4, bb{}.i64(100).i32(5).cstr("").i64(ts).uv(1).uv(0).uv(16).uuid(0x33))
	if g := mustJSON(t, v4, err); g != `{"offset":100,"leaderEpoch":5,"metadata":"","commitTimestamp":1700000000000,"topicId":"MzMzMzMzMzMzMzMzMzMzMw"}` {
		t.Errorf("OffsetCommitValue v4: %s", g)
	}
	// OffsetCommitValue v1 has expireTimestamp (versions "1" only).
	v1, err := CoordinatorValue(GroupCoordinator, 1, 1, bb{}.i64(7).str("m").i64(1).i64(2))
	if g := mustJSON(t, v1, err); g != `{"offset":7,"metadata":"m","commitTimestamp":1,"expireTimestamp":2}` {
		t.Errorf("OffsetCommitValue v1: %s", g)
	}
	// GroupMetadataValue v3: protocolType, generation, protocol (nullable), leader (nullable),
	// currentStateTimestamp (2+), members [memberId, groupInstanceId (3+, nullable),
	// clientId, clientHost, rebalanceTimeout (1+), sessionTimeout, subscription, assignment
	// (bytes: int32 length)]. 300000 = 0x493E0, 45000 = 0xAFC8; bytes 00 01 -> "AAE=".
	gm, err := CoordinatorValue(GroupCoordinator, 2, 3, bb{}.str("consumer").i32(1).str("range").str("m1").i64(-1).
		i32(1).str("m1").i16(-1).str("c").str("/h").i32(300000).i32(45000).i32(2).raw(0, 1).i32(0))
	want := `{"protocolType":"consumer","generation":1,"protocol":"range","leader":"m1","currentStateTimestamp":-1,"members":[{"memberId":"m1","groupInstanceId":null,"clientId":"c","clientHost":"/h","rebalanceTimeout":300000,"sessionTimeout":45000,"subscription":"AAE=","assignment":""}]}`
	if g := mustJSON(t, gm, err); g != want {
		t.Errorf("GroupMetadataValue v3:\n%s\nwant\n%s", g, want)
	}
	// TransactionLogValue v1 (flexible): ProducerId, ProducerEpoch, TransactionTimeoutMs,
	// TransactionStatus, TransactionPartitions [Topic, PartitionIds], LastUpdate, Start;
	// tagged: ClientTransactionVersion (tag 2) = 2.
	tv, err := CoordinatorValue(TransactionCoordinator, 0, 1, bb{}.i64(7).i16(2).i32(60000).i8(4).
		uv(2).cstr("t").uv(2).i32(0).uv(0).i64(10).i64(9).uv(1).uv(2).uv(2).i16(2))
	want = `{"producerId":7,"producerEpoch":2,"transactionTimeoutMs":60000,"transactionStatus":4,"transactionPartitions":[{"topic":"t","partitionIds":[0]}],"transactionLastUpdateTimestampMs":10,"transactionStartTimestampMs":9,"clientTransactionVersion":2}`
	if g := mustJSON(t, tv, err); g != want {
		t.Errorf("TransactionLogValue v1:\n%s\nwant\n%s", g, want)
	}
}

// CoordinatorRecordSerde's refusals in its words (and Deserializer's exceptions').
func TestCoordinatorRefusals(t *testing.T) {
	_, err := CoordinatorKey(GroupCoordinator, 32767, nil)
	var te *UnknownRecordTypeError
	if !errors.As(err, &te) || err.Error() != "Found an unknown record type 32767" {
		t.Errorf("unknown type: %v", err)
	}
	_, err = CoordinatorValue(GroupCoordinator, 1, 5, nil)
	var ve *UnknownVersionError
	if !errors.As(err, &ve) || err.Error() != "Found an unknown record version 5 for 1 type" {
		t.Errorf("unknown version: %v", err)
	}
	_, err = CoordinatorValue(GroupCoordinator, 1, 3, bb{}.i64(1))
	if msg, _ := KafkaMessage(err); msg != "Could not read record with version 3 from value's buffer due to: null." {
		t.Errorf("truncated value: Kafka's message %q", msg)
	}
}

// DumpLogSegmentsTest's coordinator cases (Kafka's core module): the objects each case
// serializes, encoded here by hand, and the JSON its assertions expect.
func TestDumpLogSegmentsTestVectors(t *testing.T) {
	// testOffsetsMessageParser: ConsumerGroupMetadataKey {groupId "group"} (type 3, not
	// flexible) and ConsumerGroupMetadataValue v0 {epoch 10} (flexible; MetadataHash is
	// tagged with default 0, so not written).
	k, err := CoordinatorKey(GroupCoordinator, 3, bb{}.str("group"))
	if g := mustJSON(t, k, err); g != `{"groupId":"group"}` {
		t.Errorf("ConsumerGroupMetadataKey: %s", g)
	}
	v, err := CoordinatorValue(GroupCoordinator, 3, 0, bb{}.i32(10).uv(0))
	if g := mustJSON(t, v, err); g != `{"epoch":10}` {
		t.Errorf("ConsumerGroupMetadataValue: %s", g)
	}

	// testTransactionLogMessageParser: TransactionLogKey {txnId}; TransactionLogValue v1 with
	// previousProducerId 11 and nextProducerId 10 (tags 0 and 1, not their default -1),
	// clientTransactionVersion 0 (its default: not written).
	k, err = CoordinatorKey(TransactionCoordinator, 0, bb{}.str("txnId"))
	if g := mustJSON(t, k, err); g != `{"transactionalId":"txnId"}` {
		t.Errorf("TransactionLogKey: %s", g)
	}
	v, err = CoordinatorValue(TransactionCoordinator, 0, 1, bb{}.i64(12).i16(2).i32(14).i8(0).
		uv(3).cstr("topic1").uv(4).i32(0).i32(1).i32(2).uv(0).cstr("topic2").uv(4).i32(3).i32(4).i32(5).uv(0).
		i64(123).i64(13).uv(2).uv(0).uv(8).i64(11).uv(1).uv(8).i64(10))
	want := `{"producerId":12,"previousProducerId":11,"nextProducerId":10,"producerEpoch":2,"transactionTimeoutMs":14,"transactionStatus":0,` +
		`"transactionPartitions":[{"topic":"topic1","partitionIds":[0,1,2]},{"topic":"topic2","partitionIds":[3,4,5]}],"transactionLastUpdateTimestampMs":123,` +
		`"transactionStartTimestampMs":13}`
	if g := mustJSON(t, v, err); g != want {
		t.Errorf("TransactionLogValue v1:\n%s\nwant\n%s", g, want)
	}

	// testShareGroupStateMessageParser, ShareUpdate (type 1): ShareUpdateKey {gs1, topicId
	// Uj5wn_FqTXirEASvVZRY1w (bytes 523e709f f16a4d78 ab1004af 559458d7), 0} and ShareUpdateValue
	// v0 (flexible) with one state batch; DeliveryCompleteCount (tag 0) is left at its -1.
	k, err = CoordinatorKey(ShareCoordinator, 1, bb{}.str("gs1").raw(0x52, 0x3e, 0x70, 0x9f, 0xf1, 0x6a, 0x4d, 0x78, 0xab, 0x10, 0x04, 0xaf, 0x55, 0x94, 0x58, 0xd7).i32(0))
	if g := mustJSON(t, k, err); g != `{"groupId":"gs1","topicId":"Uj5wn_FqTXirEASvVZRY1w","partition":0}` {
		t.Errorf("ShareUpdateKey: %s", g)
	}
	v, err = CoordinatorValue(ShareCoordinator, 1, 0, bb{}.i32(0).i32(0).i64(0).uv(2).i64(0).i64(4).i8(2).i16(1).uv(0).uv(0))
	if g := mustJSON(t, v, err); g != `{"snapshotEpoch":0,"leaderEpoch":0,"startOffset":0,"stateBatches":[{"firstOffset":0,"lastOffset":4,"deliveryState":2,"deliveryCount":1}]}` {
		t.Errorf("ShareUpdateValue: %s", g)
	}

	// testOffsetsMessageParser, "Consumer embedded protocol is parsed if possible":
	// GroupMetadataValue v4 (flexible) whose member carries ConsumerProtocol.serializeSubscription
	// and serializeAssignment bytes (an int16 version, 3, then the non-flexible message).
	sub := bb{}.i16(3).i32(1).str("foo").i32(-1).i32(1).str("foo").i32(1).i32(0).i32(0).str("rack")
	asg := bb{}.i16(3).i32(1).str("foo").i32(1).i32(0).i32(-1)
	body := bb{}.cstr("consumer").i32(10).cstr("range").cstr("member").i64(-1).
		uv(2).cstr("member").cstr("instance").cstr("client").cstr("host").i32(1000).i32(100).
		uv(uint32(len(sub) + 1)).raw(sub...).uv(uint32(len(asg) + 1)).raw(asg...).uv(0).uv(0)
	gm, err := CoordinatorValue(GroupCoordinator, 2, 4, body)
	if err != nil {
		t.Fatal(err)
	}
	// DumpLogSegments' OffsetsMessageParser replaces each member's bytes by the message they
	// hold, read at their leading version.
	member := gm.Get("members").(Array)[0].(*Object)
	subJSON, err := Data(ConsumerProtocol, "ConsumerProtocolSubscription", 3, sub[2:])
	if err != nil {
		t.Fatal(err)
	}
	asgJSON, err := Data(ConsumerProtocol, "ConsumerProtocolAssignment", 3, asg[2:])
	if err != nil {
		t.Fatal(err)
	}
	member.Set("subscription", subJSON)
	member.Set("assignment", asgJSON)
	want = `{"protocolType":"consumer","generation":10,"protocol":"range",` +
		`"leader":"member","currentStateTimestamp":-1,"members":[{"memberId":"member",` +
		`"groupInstanceId":"instance","clientId":"client","clientHost":"host",` +
		`"rebalanceTimeout":1000,"sessionTimeout":100,"subscription":{"topics":["foo"],` +
		`"userData":null,"ownedPartitions":[{"topic":"foo","partitions":[0]}],` +
		`"generationId":0,"rackId":"rack"},"assignment":{"assignedPartitions":` +
		`[{"topic":"foo","partitions":[0]}],"userData":null}}]}`
	if g := JSON(gm); g != want {
		t.Errorf("GroupMetadataValue v4 with the consumer protocol:\n%s\nwant\n%s", g, want)
	}
}

// DumpLogSegmentsTest's testDumpMetadataRecords writes these records through
// MetadataRecordSerde (its assertions only look for "TOPIC_RECORD" and the like); their bytes
// encoded by hand, and the JSON the converters write for them.
func TestDumpMetadataRecordsVectors(t *testing.T) {
	for _, c := range []struct {
		name  string
		value []byte
		want  string
	}{
		// RegisterBrokerRecord v0 {brokerId 0, brokerEpoch 10}: the rest defaults (zero uuid,
		// no endpoints or features, rack "" (no default given: the empty string), fenced true);
		// isMigratingZkBroker (2+), inControlledShutdown (1+) and logDirs (3+) are absent at v0.
		{"RegisterBrokerRecord", bb{}.raw(1, 0, 0).i32(0).uuid(0).i64(10).uv(1).uv(1).cstr("").i8(1).uv(0),
			`{"type":"REGISTER_BROKER_RECORD","version":0,"data":{"brokerId":0,"incarnationId":"AAAAAAAAAAAAAAAAAAAAAA","brokerEpoch":10,"endPoints":[],"features":[],"rack":"","fenced":true}}`},
		// PartitionChangeRecord v0 {topicId, leader 1, partitionId 0, isr [0,1,2]}: every
		// field but partitionId and topicId is tagged; the writer emits the non-default ones in
		// tag order: isr (tag 0, 13 bytes), leader (tag 1, 4 bytes). 0x44 x 16 in base64url:
		// "RERE" x 5, then "RA".
		{"PartitionChangeRecord", bb{}.raw(1, 5, 0).i32(0).uuid(0x44).uv(2).uv(0).uv(13).uv(4).i32(0).i32(1).i32(2).uv(1).uv(4).i32(1),
			`{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":0,"topicId":"RERERERERERERERERERE` + `RA","isr":[0,1,2],"leader":1}}`},
	} {
		got, err := MetadataRecord(c.value)
		if g := mustJSON(t, got, err); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}

// The enum names DumpLogSegments prints come from MessageGenerator.toSnakeCase.
func TestRecordTypeNames(t *testing.T) {
	for _, c := range []struct {
		f    Family
		typ  int16
		want string
	}{
		{Metadata, 2, "TOPIC_RECORD"},
		{Metadata, 21, "ZK_MIGRATION_STATE_RECORD"},
		{Metadata, 15, "PRODUCER_IDS_RECORD"},
		{GroupCoordinator, 1, "OFFSET_COMMIT"},
		{GroupCoordinator, 3, "CONSUMER_GROUP_METADATA"},
		{TransactionCoordinator, 0, "TRANSACTION_LOG"},
	} {
		if got, ok := RecordTypeName(c.f, c.typ); !ok || got != c.want {
			t.Errorf("RecordTypeName(%d, %d) = %q, %v; want %q", c.f, c.typ, got, ok, c.want)
		}
	}
	if got := JavaDouble(math.Float64frombits(0x4090020000000000)); got != "1024.5" {
		t.Errorf("1024.5 prints %q", got)
	}
}

// The committed tables name the commit they were generated from (docs/kafkamsg.md).
func TestGeneratedTablesNameThePinnedCommit(t *testing.T) {
	const pinned = "3e3f0c4315204bf16b6d04b7b91eed6855dad56b"
	if generatedFromCommit != pinned {
		t.Errorf("tables generated from %s, docs/kafkamsg.md pins %s", generatedFromCommit, pinned)
	}
	if len(metadataMessages) < 20 || len(groupCoordinatorMessages) < 20 || len(transactionCoordinatorMessages) != 2 ||
		len(shareCoordinatorMessages) != 4 || len(consumerProtocolMessages) != 2 {
		t.Errorf("tables hold %d, %d, %d, %d, %d messages", len(metadataMessages), len(groupCoordinatorMessages),
			len(transactionCoordinatorMessages), len(shareCoordinatorMessages), len(consumerProtocolMessages))
	}
}

// An error's Error() keeps Kafka's text first and adds the cause where Kafka's omits it.
func TestErrorWords(t *testing.T) {
	_, err := MetadataRecord(bb{}.raw(1, 2, 0).cstr("abc"))
	if got := err.Error(); !strings.HasPrefix(got, "Failed to deserialize record with type 2 (buffer underflow") {
		t.Errorf("Error() = %q", got)
	}
	if msg, _ := KafkaMessage(err); msg != "Failed to deserialize record with type 2" {
		t.Errorf("Kafka's text %q", msg)
	}
}

// Three records of ldi-poc's __cluster_metadata-0 (a Kafka 3.7 controller), their bytes copied
// from the partition's first segment and read by hand (uuids converted with Python's base64).
func TestRealRecordsReadByHand(t *testing.T) {
	for _, c := range []struct{ name, hex, want string }{
		{
			// 01 00 03: RegisterBrokerRecord v3. brokerId 1; isMigratingZkBroker 00; the
			// incarnation uuid; brokerEpoch 6; endpoints [PLAINTEXT kafka 0x2384=9092 0] with
			// an empty tagged section; features [metadata.version 1 0x13=19]; rack 00 = null;
			// fenced 01; inControlledShutdown 00; one tagged field: tag 0 (logDirs), 17 bytes,
			// an array of one uuid.
			"RegisterBrokerRecord v3",
			"0100030000000100b5ae51e15b5442f6a096db88cd20fd860000000000000006020a504c41494e54455854066b61666b61238400000002116d657461646174612e76657273696f6e0001001300000100010011025c7864af8b644ac0fdd34a4e43ca4f7e",
			`{"type":"REGISTER_BROKER_RECORD","version":3,"data":{"brokerId":1,"isMigratingZkBroker":false,"incarnationId":"ta5R4VtUQvagltuIzSD9hg","brokerEpoch":6,"endPoints":[{"name":"PLAINTEXT","host":"kafka","port":9092,"securityProtocol":0}],"features":[{"name":"metadata.version","minSupportedVersion":1,"maxSupportedVersion":19}],"rack":null,"fenced":true,"inControlledShutdown":false,"logDirs":["XHhkr4tkSsD900pOQ8pPfg"]}}`,
		},
		{
			// 01 11 00: BrokerRegistrationChangeRecord v0. brokerId 1, brokerEpoch 8; one
			// tagged field: tag 0 (fenced, int8, default 0), 1 byte: ff = -1, so written.
			"BrokerRegistrationChangeRecord v0",
			"011100000000010000000000000008010001ff",
			`{"type":"BROKER_REGISTRATION_CHANGE_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":8,"fenced":-1}}`,
		},
		{
			// 01 05 01: PartitionChangeRecord v1. partitionId 0, topicId; one tagged field: tag
			// 1 (leader, default -2), 4 bytes: -1. The other tagged fields are absent: their
			// defaults (null ISR, replicas ...) are not written.
			"PartitionChangeRecord v1",
			"01050100000000fe0e287fe4f746afa3af4f640f1b6314010104ffffffff",
			`{"type":"PARTITION_CHANGE_RECORD","version":1,"data":{"partitionId":0,"topicId":"_g4of-T3Rq-jr09kDxtjFA","leader":-1}}`,
		},
	} {
		value, err := hex.DecodeString(c.hex)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MetadataRecord(value)
		if g := mustJSON(t, got, err); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}
