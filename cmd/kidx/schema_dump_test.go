package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// The kidx.dump/1 cases (docs/schema/kidx.dump.1.json): every kind of file dump prints, built
// here or taken from the Kafka-written golden directory, so that the cases always run.
func init() {
	golden := func(name string) func(t *testing.T) []string {
		return func(t *testing.T) []string {
			return []string{"dump", "--format", "json", filepath.Join(blogFiles, name)}
		}
	}
	decoded := func(flag string, records []segmenttest.Rec) func(t *testing.T) []string {
		return func(t *testing.T) []string {
			return []string{"dump", "--format", "json", flag, writeDumpLog(t, records)}
		}
	}
	schemaCases = append(schemaCases,
		schemaCase{name: "dump-log", want: "kidx.dump/1", lines: true, args: golden("00000000000000000316.log")},
		schemaCase{name: "dump-log-deep", want: "kidx.dump/1", lines: true, args: func(t *testing.T) []string {
			return []string{"dump", "--format", "json", "--print-data-log", writeDumpLog(t, segmenttest.SampleRecs)}
		}},
		schemaCase{name: "dump-offsets-decoder", want: "kidx.dump/1", lines: true, args: decoded("--offsets-decoder", []segmenttest.Rec{
			{Key: (&kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t", Partition: 0}).AppendTo(nil),
				Value: (&kmsg.OffsetCommitValue{Version: 3, Offset: 5, LeaderEpoch: -1, CommitTimestamp: 9}).AppendTo(nil)},
			{OffDelta: 1, Key: (&kmsg.GroupMetadataKey{Version: 2, Group: "g"}).AppendTo(nil)},
			{OffDelta: 2, Key: []byte{0x7f, 0xff}, Value: []byte{0, 0}}, // an unknown record type
		})},
		schemaCase{name: "dump-transaction-log-decoder", want: "kidx.dump/1", lines: true, args: decoded("--transaction-log-decoder", []segmenttest.Rec{
			{Key: (&kmsg.TxnMetadataKey{TransactionalID: "tx"}).AppendTo(nil),
				Value: (&kmsg.TxnMetadataValue{Version: 0, ProducerID: 1, Topics: []kmsg.TxnMetadataValueTopic{{Topic: "t", Partitions: []int32{0}}}}).AppendTo(nil)},
		})},
		schemaCase{name: "dump-transaction-log-decoder-3.x", want: "kidx.dump/1", lines: true, args: func(t *testing.T) []string {
			return []string{"dump", "--format", "json", "--transaction-log-decoder", "--kafka-version", "3.7.0", writeDumpLog(t, []segmenttest.Rec{
				{Key: (&kmsg.TxnMetadataKey{TransactionalID: "tx"}).AppendTo(nil)}})}
		}},
		// A FEATURE_LEVEL_RECORD (frame 1, apiKey 12, version 0, "metadata.version", level 20)
		// and bytes that are no metadata record.
		schemaCase{name: "dump-cluster-metadata-decoder", want: "kidx.dump/1", lines: true, args: decoded("--cluster-metadata-decoder", []segmenttest.Rec{
			{Value: featureLevelRecord},
			{OffDelta: 1, Value: []byte{0x90, 0x4e, 0x90, 0x4e}},
		})},
		// A ShareUpdate record (type 1; DumpLogSegmentsTest's "gs1" key) with a value that is
		// too short, and an unknown record type.
		schemaCase{name: "dump-share-group-state-decoder", want: "kidx.dump/1", lines: true, args: decoded("--share-group-state-decoder", []segmenttest.Rec{
			{Key: []byte{0, 1, 0, 3, 'g', 's', '1', 0x52, 0x3e, 0x70, 0x9f, 0xf1, 0x6a, 0x4d, 0x78, 0xab, 0x10, 0x04, 0xaf, 0x55, 0x94, 0x58, 0xd7, 0, 0, 0, 0}, Value: []byte{0, 0, 0}},
			{OffDelta: 1, Key: []byte{0x7f, 0xff}, Value: []byte{0, 0}},
		})},
		schemaCase{name: "dump-index", want: "kidx.dump/1", lines: true, args: golden("00000000000000000316.index")},
		schemaCase{name: "dump-timeindex", want: "kidx.dump/1", lines: true, args: golden("00000000000000000316.timeindex")},
		schemaCase{name: "dump-producer-snapshot", want: "kidx.dump/1", lines: true, args: func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "00000000000000000010.snapshot")
			testfiles.MustWrite(t, p, segmenttest.SnapshotBytes(1, []segment.ProducerSnapshotEntry{
				{ProducerID: 4, ProducerEpoch: 0, LastSequence: 9, LastOffset: 9, OffsetDelta: 9, Timestamp: 100, CoordinatorEpoch: -1, CurrentTxnFirstOffset: -1},
				{ProducerID: 5, ProducerEpoch: 1, LastSequence: -1, LastOffset: -1, CoordinatorEpoch: 3, CurrentTxnFirstOffset: 7},
			}, nil))
			return []string{"dump", "--format", "json", p}
		}},
		schemaCase{name: "dump-checkpoints", want: "kidx.dump/1", lines: true, args: func(t *testing.T) []string {
			dir := t.TempDir()
			testfiles.MustWrite(t, filepath.Join(dir, "leader-epoch-checkpoint"), []byte("0\n2\n0 0\n3 17\n"))
			testfiles.MustWrite(t, filepath.Join(dir, "recovery-point-offset-checkpoint"), []byte("0\n1\norders 3 42\n"))
			testfiles.MustWrite(t, filepath.Join(dir, "partition.metadata"), []byte("version: 0\ntopic_id: caWaUYloT4uTfkgwxx7Hmg\n"))
			return []string{"dump", "--format", "json", dir}
		}},
		schemaCase{name: "dump-kraft-checkpoint", want: "kidx.dump/1", lines: true, args: func(t *testing.T) []string {
			p := filepath.Join(t.TempDir(), "00000000000000000002-0000000001.checkpoint")
			testfiles.MustWrite(t, p, bytes.Join([][]byte{
				segmenttest.V2Batch(segmenttest.V2Hdr{Base: 0, BaseSeq: -1, Count: 1, PartitionLeaderEpoch: 1},
					segmenttest.V2Records([]segmenttest.Rec{{Value: featureLevelRecord}})),
			}, nil))
			return []string{"dump", "--format", "json", "--cluster-metadata-decoder", p}
		}},
	)
}

// featureLevelRecord is a __cluster_metadata record value: frame version 1, apiKey 12
// (FEATURE_LEVEL_RECORD), version 0, name "metadata.version" (compact: length 16+1), level
// 20, no tagged fields.
var featureLevelRecord = append(append([]byte{1, 12, 0, 17}, "metadata.version"...), 0, 20, 0)

// writeDumpLog writes one batch holding records as a .log in a temporary directory.
func writeDumpLog(t *testing.T, records []segmenttest.Rec) string {
	t.Helper()
	last := int32(len(records) - 1)
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	testfiles.MustWrite(t, p, segmenttest.V2Batch(segmenttest.V2Hdr{Base: 0, LastDelta: last, BaseSeq: -1, Count: int32(len(records))}, segmenttest.V2Records(records)))
	return p
}
