// Package kafkamsg reads Kafka's own messages the way Kafka's generated classes do, and prints
// them as Kafka's generated JSON converters print them (Jackson's ObjectNode.toString), so that
// kidx dump's decoders (--cluster-metadata-decoder, --offsets-decoder,
// --transaction-log-decoder) print what kafka-dump-log prints (docs/dump-decoders.md).
//
//   - api.go: the entry points (MetadataRecord, CoordinatorKey, CoordinatorValue, Data) and
//     their errors.
//   - json.go: Value, an ordered JSON tree, and its text as Jackson writes it (key order kept,
//     Jackson's escapes, Java's Double.toString, base64 binary).
package kafkamsg
