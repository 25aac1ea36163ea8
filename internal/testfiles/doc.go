// Package testfiles holds the file helpers and hand-written Kafka file contents that the tests
// of several kidx packages share: reading and writing a test's files, hex written with spaces,
// the golden cases Kafka's own classes wrote (testdata/kafka-golden, read through
// internal/kafkagolden), and transaction-index and producer-snapshot bytes written by hand from
// Kafka's tests. It imports no kidx package but internal/kafkagolden, so that every package's
// in-package tests, segment's included, can use it.
//
// It is test support: nothing outside _test.go files imports it.
//
//   - files.go: MustRead, MustWrite, ListFiles, Hex, FirstDiff.
//   - golden.go: GoldenDir, GoldenCases, ReadGoldenOutput.
//   - kafkafiles.go: TxnBytes, KafkaTestTxns (TransactionIndexTest), EmptySnapshotHex.
package testfiles
