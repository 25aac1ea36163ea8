// Package kafkamsg reads Kafka's own messages the way Kafka's generated classes do, and prints
// them as Kafka's generated JSON converters print them (Jackson's ObjectNode.toString), so that
// kidx dump's decoders (--cluster-metadata-decoder, --offsets-decoder,
// --transaction-log-decoder) print what kafka-dump-log prints. The messages are tables
// generated from Kafka's JSON message definitions at a pinned commit, read by one interpreter
// (docs/kafkamsg.md).
//
//   - api.go: the entry points (MetadataRecord, CoordinatorKey, CoordinatorValue, Data,
//     ValidVersions, RecordTypeName), their errors and KafkaMessage (Kafka's exception texts).
//   - tables.go: the types of the generated tables (messageDef, structDef, fieldDef).
//   - *_gen.go: the tables, written by kafkamsg/internal/gen (`make generate-kafkamsg`) from
//     the metadata, group, transaction and share coordinator and consumer-protocol
//     definitions; commit_gen.go names the apache/kafka commit.
//   - decode.go: the interpreter: the generated read (VersionConditional's compiled version
//     tests, compact and classic encodings, nulls, tagged fields) and the JSON converter's write.
//   - reader.go: the byte reader (ByteBufferAccessor, ByteUtils varints) with a sticky error.
//   - json.go: Value, an ordered JSON tree, and its text as Jackson writes it (key order kept,
//     Jackson's escapes, Java's Double.toString, base64 binary).
package kafkamsg
