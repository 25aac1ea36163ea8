package kafkamsg

import (
	"encoding/binary"
	"encoding/json"
	"testing"
)

// metadataSeeds are the hand vectors of decode_test.go's metadata records.
func metadataSeeds() [][]byte {
	return [][]byte{
		bb{}.raw(1, 2, 0).cstr("foo").uuid(7).uv(0),
		bb{}.raw(1, 3, 2).i32(0).uuid(0x11).uv(3).i32(1).i32(2).uv(2).i32(1).uv(1).uv(1).
			i32(1).i32(5).i32(7).uv(2).uuid(0x22).uv(2).uv(0).uv(1).i8(1).uv(1).uv(5).uv(2).i32(2),
		bb{}.raw(1, 0, 3).i32(1).i8(0).uuid(0).i64(16).uv(2).cstr("PLAINTEXT").cstr("h").raw(0x23, 0x84).i16(0).uv(0).
			uv(2).cstr("metadata.version").i16(1).i16(20).uv(0).uv(0).i8(1).i8(0).uv(0),
		bb{}.raw(1, 12, 0).cstr("metadata.version").i16(20).uv(0),
		bb{}.raw(1, 14, 0).uv(2).cstr("user").uv(0).uv(0).cstr("producer_byte_rate").raw(0x40, 0x90, 0x02, 0, 0, 0, 0, 0).i8(0).uv(0),
		bb{}.raw(1, 20, 0).uv(0),
	}
}

// FuzzMetadataRecord: any value either decodes to valid JSON or is refused with an error of
// this package (one that knows Kafka's text); it never panics.
func FuzzMetadataRecord(f *testing.F) {
	for _, s := range metadataSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		obj, err := MetadataRecord(value)
		checkDecoded(t, obj, err)
	})
}

// checkDecoded: a decode gave valid JSON, or an error of this package that knows Kafka's text.
func checkDecoded(t *testing.T, obj *Object, err error) {
	t.Helper()
	if err != nil {
		if _, ok := KafkaMessage(err); !ok {
			t.Fatalf("error without Kafka's text: %v", err)
		}
		return
	}
	if text := JSON(obj); !json.Valid([]byte(text)) {
		t.Fatalf("invalid JSON: %s", text)
	}
}

// FuzzCoordinatorRecord: a key and a value (each with its leading int16) of any family's
// coordinator records decode to valid JSON or an error of this package; never a panic. The
// value's bytes are also read as the consumer protocol's two messages (Data).
func FuzzCoordinatorRecord(f *testing.F) {
	prefix := func(n int16, b []byte) []byte { return append(binary.BigEndian.AppendUint16(nil, uint16(n)), b...) }
	f.Add(uint8(GroupCoordinator), prefix(1, bb{}.str("g").str("t").i32(0)), prefix(3, bb{}.i64(100).i32(5).str("").i64(1)))
	f.Add(uint8(GroupCoordinator), prefix(1, bb{}.str("g").str("t").i32(0)), prefix(4, bb{}.i64(100).i32(5).cstr("").i64(1).uv(1).uv(0).uv(16).uuid(0x33)))
	f.Add(uint8(GroupCoordinator), prefix(2, bb{}.str("g")), prefix(3, bb{}.str("consumer").i32(1).str("range").str("m1").i64(-1).
		i32(1).str("m1").i16(-1).str("c").str("/h").i32(300000).i32(45000).i32(2).raw(0, 1).i32(0)))
	f.Add(uint8(GroupCoordinator), prefix(3, bb{}.str("group")), prefix(0, bb{}.i32(10).uv(0)))
	f.Add(uint8(TransactionCoordinator), prefix(0, bb{}.str("txnId")), prefix(1, bb{}.i64(7).i16(2).i32(60000).i8(4).
		uv(2).cstr("t").uv(2).i32(0).uv(0).i64(10).i64(9).uv(1).uv(2).uv(2).i16(2)))
	f.Add(uint8(ShareCoordinator), prefix(0, bb{}.str("gs1").uuid(1).i32(0)), prefix(0, bb{}.i32(0)))
	f.Fuzz(func(t *testing.T, family uint8, key, value []byte) {
		fam := GroupCoordinator + Family(family%3)
		if len(key) < 2 {
			return // CoordinatorRecordSerde.readVersion: the caller's to refuse
		}
		typ := int16(binary.BigEndian.Uint16(key))
		check := func(obj *Object, err error) { t.Helper(); checkDecoded(t, obj, err) }
		check(CoordinatorKey(fam, typ, key[2:]))
		if len(value) >= 2 {
			version := int16(binary.BigEndian.Uint16(value))
			check(CoordinatorValue(fam, typ, version, value[2:]))
			// The consumer protocol's bytes, as DumpLogSegments reads a member's.
			for _, name := range []string{"ConsumerProtocolSubscription", "ConsumerProtocolAssignment"} {
				check(Data(ConsumerProtocol, name, version, value[2:]))
			}
		}
	})
}
