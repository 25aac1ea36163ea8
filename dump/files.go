package dump

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"kidx/internal/printsafe"
	"kidx/segment"
)

// The dump of the files of a log directory other than segments (docs/logdir-files.md).
// kafka-dump-log decodes .snapshot, .txnindex and KRaft .checkpoint files: those are printed in
// its words (DumpLogSegments.dumpProducerIdSnapshot, dumpTxnIndex, dumpLog). The other files of
// a healthy log directory are decoded in kidx's own words, after a line that starts "kidx:" and
// says that kafka-dump-log does not decode them.

// ProducerEntry is one producer of a .snapshot dump, as dumpProducerIdSnapshot prints it
// (JSON keys are stable).
type ProducerEntry struct {
	ProducerID            int64          `json:"producerId"`
	ProducerEpoch         int16          `json:"producerEpoch"`
	CoordinatorEpoch      int32          `json:"coordinatorEpoch"`
	CurrentTxnFirstOffset *int64         `json:"currentTxnFirstOffset"` // null: OptionalLong.empty
	LastTimestamp         int64          `json:"lastTimestamp"`
	Batch                 *ProducerBatch `json:"batch"` // null: no batch metadata (last_offset < 0)
}

// ProducerBatch is the batch metadata of a producer entry (BatchMetadata).
type ProducerBatch struct {
	FirstSequence int32 `json:"firstSequence"`
	LastSequence  int32 `json:"lastSequence"`
	LastOffset    int64 `json:"lastOffset"`
	OffsetDelta   int32 `json:"offsetDelta"`
	Timestamp     int64 `json:"timestamp"`
}

// dumpProducerSnapshot is DumpLogSegments.dumpProducerIdSnapshot: one line per producer,
//
//	producerId: P producerEpoch: E coordinatorEpoch: C currentTxnFirstOffset: OptionalLong.empty lastTimestamp: T firstSequence: F lastSequence: L lastOffset: O offsetDelta: D timestamp: T
//
// the batch part only when there is batch metadata. Kafka 4.0 to 4.2 (Scala) print
// "lastTimestamp: T " with a space before the batch part or the end of the line; the Java tool
// of 4.3+ puts the space before "firstSequence" instead, so its lines without batch metadata
// have no trailing space. kidx prints the Scala form. A corrupt snapshot: Kafka prints the
// CorruptSnapshotException message on stderr (and goes on); kidx prints the same message on
// opts.Stderr and returns the error.
func dumpProducerSnapshot(w io.Writer, path string, opts Options, res *Result) error {
	data, err := segment.ReadLogDirFile(path, segment.MaxLogDirFile)
	if err != nil {
		return err
	}
	entries, err := segment.ParseProducerSnapshot(data, path)
	if err != nil {
		var fe *segment.FormatError
		if errors.As(err, &fe) && opts.Stderr != nil && !opts.JSON {
			fmt.Fprintln(opts.Stderr, printsafe.Line(fe.Msg))
		}
		return err
	}
	res.Empty = len(entries) == 0
	res.ProducerEntries = make([]ProducerEntry, 0, len(entries))
	for _, e := range entries {
		d := ProducerEntry{ProducerID: e.ProducerID, ProducerEpoch: e.ProducerEpoch, CoordinatorEpoch: e.CoordinatorEpoch, LastTimestamp: e.Timestamp}
		txn := "OptionalLong.empty"
		if e.HasOngoingTxn() {
			v := e.CurrentTxnFirstOffset
			d.CurrentTxnFirstOffset = &v
			txn = fmt.Sprintf("OptionalLong[%d]", v)
		}
		fmt.Fprintf(w, "producerId: %d producerEpoch: %d coordinatorEpoch: %d currentTxnFirstOffset: %s lastTimestamp: %d ",
			e.ProducerID, e.ProducerEpoch, e.CoordinatorEpoch, txn, e.Timestamp)
		if e.HasBatch() {
			d.Batch = &ProducerBatch{FirstSequence: e.FirstSequence(), LastSequence: e.LastSequence, LastOffset: e.LastOffset, OffsetDelta: e.OffsetDelta, Timestamp: e.Timestamp}
			fmt.Fprintf(w, "firstSequence: %d lastSequence: %d lastOffset: %d offsetDelta: %d timestamp: %d",
				d.Batch.FirstSequence, d.Batch.LastSequence, d.Batch.LastOffset, d.Batch.OffsetDelta, d.Batch.Timestamp)
		}
		fmt.Fprintln(w)
		res.ProducerEntries = append(res.ProducerEntries, d)
	}
	return nil
}

// dumpTxnIndex is DumpLogSegments.dumpTxnIndex: one line per aborted transaction,
// "version: V producerId: P firstOffset: F lastOffset: L lastStableOffset: S". Kafka reads all
// entries before printing any, so an entry of an unknown version prints none (and fails). A
// partial entry at the end is ignored, as Kafka's TransactionIndex does; kidx says so on
// opts.Stderr and in invalidBytes.
func dumpTxnIndex(w io.Writer, path string, opts Options, res *Result) error {
	data, err := segment.ReadLogDirFile(path, segment.MaxLogDirFile)
	if err != nil {
		return err
	}
	txns, trailing, err := segment.ParseTxnIndexTolerant(data, path)
	if err != nil {
		return err
	}
	res.Empty = len(txns) == 0
	res.AbortedTxns = txns
	for _, t := range txns {
		fmt.Fprintf(w, "version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n",
			t.Version, t.ProducerID, t.FirstOffset, t.LastOffset, t.LastStableOffset)
	}
	if trailing > 0 {
		res.InvalidBytes = int64(trailing)
		if opts.Stderr != nil && !opts.JSON {
			fmt.Fprintf(opts.Stderr, "kidx: %s: %d trailing bytes after the last whole %d-byte entry (Kafka's TransactionIndex ignores them)\n",
				path, trailing, segment.AbortedTxnSize)
		}
	}
	return nil
}

// dumpKRaftCheckpoint is DumpLogSegments.dumpLog for a ".checkpoint" file: the header "KRaft
// bootstrap snapshot" for bootstrap.checkpoint, else "Snapshot end offset: X, epoch: Y" from the
// name (Snapshots.parse), then the file's batches as for a .log.
func dumpKRaftCheckpoint(w io.Writer, path, name string, opts Options, res *Result) error {
	if name == segment.BootstrapCheckpointName {
		res.Kind = "bootstrap-snapshot"
		fmt.Fprintln(w, "KRaft bootstrap snapshot")
		return dumpLog(w, path, 0, opts, res)
	}
	res.Kind = "kraft-snapshot"
	off, epoch, ok := segment.ParseKRaftSnapshotName(name)
	if !ok {
		return fmt.Errorf("%s: not a KRaft snapshot name (<20-digit end offset>-<10-digit epoch>%s); kafka-dump-log fails on it too (Snapshots.parse)",
			path, segment.KRaftSnapshotSuffix)
	}
	res.SnapshotEndOffset, res.SnapshotEpoch = &off, &epoch
	fmt.Fprintf(w, "Snapshot end offset: %d, epoch: %d\n", off, epoch)
	return dumpLog(w, path, 0, opts, res)
}

// logDirFile describes a file of a healthy log directory that kafka-dump-log does not decode.
type logDirFile struct {
	kind           string // Result.Kind
	checkpointKind string // for the offset checkpoints
	what           string // kidx's one-line description
}

var logDirFiles = map[string]logDirFile{
	segment.LeaderEpochCheckpointName: {"leader-epoch-checkpoint", "",
		"Kafka's LeaderEpochCheckpointFile: the first offset of each leader epoch of the partition"},
	segment.RecoveryPointCheckpointName: {"offset-checkpoint", "recovery-point",
		"Kafka's OffsetCheckpointFile: each partition's recovery point (the log is flushed below it; recovery starts there)"},
	segment.ReplicationCheckpointName: {"offset-checkpoint", "replication",
		"Kafka's OffsetCheckpointFile: each partition's high watermark"},
	segment.LogStartOffsetCheckpointName: {"offset-checkpoint", "log-start",
		"Kafka's OffsetCheckpointFile: the log start offset of each partition where it is past the first segment's base offset"},
	segment.CleanerOffsetCheckpointName: {"offset-checkpoint", "cleaner",
		"Kafka's OffsetCheckpointFile: the log cleaner's first dirty offset of each compacted partition"},
	segment.PartitionMetadataName: {"partition-metadata", "",
		"Kafka's PartitionMetadataFile: the partition's topic id (KIP-516)"},
	segment.QuorumStateName: {"quorum-state", "",
		"Kafka's FileQuorumStateStore: the KRaft election state of the metadata log"},
	segment.MetaPropertiesName: {"meta-properties", "",
		"Kafka's MetaProperties: the cluster, node and directory ids of the log directory"},
	segment.CleanShutdownName: {"clean-shutdown", "",
		"Kafka's clean-shutdown marker: the broker stopped cleanly, so no log recovery runs at the next start"},
	segment.LockFileName: {"lock", "",
		"the log directory's lock file: a running broker holds a FileLock on it; its content is not used"},
}

// dumpLogDirFile decodes a file kafka-dump-log ignores, in kidx's words. ok is false when the
// name is none of them.
func dumpLogDirFile(w io.Writer, path, name string, res *Result) (ok bool, err error) {
	d, ok := logDirFiles[name]
	if !ok {
		return false, nil
	}
	res.Kind, res.CheckpointKind, res.DecodedBy = d.kind, d.checkpointKind, "kidx"
	fmt.Fprintf(w, "kidx: %s: %s; kafka-dump-log does not decode this file\n", printsafe.Name(name), d.what)
	data, err := segment.ReadLogDirFile(path, segment.MaxLogDirFile)
	if err != nil {
		return true, err
	}
	switch d.kind {
	case "leader-epoch-checkpoint", "offset-checkpoint":
		return true, dumpTextCheckpoint(w, data, path, d.kind, res)
	case "partition-metadata":
		m, err := segment.ParsePartitionMetadata(data, path)
		if err != nil {
			return true, err
		}
		res.PartitionMetadata = &m
		fmt.Fprintf(w, "version: %d topicId: %s topicUuid: %s\n", m.Version, m.TopicID, m.TopicID.Hex())
	case "quorum-state":
		q, err := segment.ParseQuorumState(data, path)
		if err != nil {
			return true, err
		}
		res.QuorumState = &q
		var b strings.Builder
		fmt.Fprintf(&b, "dataVersion: %d", q.DataVersion)
		if q.ClusterID != nil {
			fmt.Fprintf(&b, " clusterId: %q", *q.ClusterID)
		}
		fmt.Fprintf(&b, " leaderId: %d leaderEpoch: %d votedId: %d", q.LeaderID, q.LeaderEpoch, q.VotedID)
		if q.VotedDirectoryID != nil {
			fmt.Fprintf(&b, " votedDirectoryId: %s", *q.VotedDirectoryID)
		}
		if q.AppliedOffset != nil {
			fmt.Fprintf(&b, " appliedOffset: %d", *q.AppliedOffset)
		}
		if q.DataVersion == 0 {
			if q.CurrentVoters == nil {
				b.WriteString(" currentVoters: null")
			} else {
				fmt.Fprintf(&b, " currentVoters: %v", q.CurrentVoters)
			}
		}
		if len(q.OtherKeys) > 0 {
			fmt.Fprintf(&b, " otherKeys: %v", q.OtherKeys)
		}
		fmt.Fprintln(w, b.String())
	case "meta-properties":
		m, err := segment.ParseMetaProperties(data, path)
		if err != nil {
			return true, err
		}
		res.MetaProperties = &m
		var b strings.Builder
		fmt.Fprintf(&b, "version: %d", m.Version)
		if m.NodeID != nil {
			fmt.Fprintf(&b, " nodeId: %d", *m.NodeID)
		}
		if m.ClusterID != nil {
			fmt.Fprintf(&b, " clusterId: %s", *m.ClusterID)
		}
		if m.DirectoryID != nil {
			fmt.Fprintf(&b, " directoryId: %s", *m.DirectoryID)
		}
		fmt.Fprintln(w, b.String())
		for _, p := range m.Properties {
			fmt.Fprintf(w, "property: %s=%s\n", printsafe.Excerpt(p.Key), printsafe.Excerpt(p.Value))
		}
	case "clean-shutdown":
		size := int64(len(data))
		res.FileSize = &size
		c := segment.ParseCleanShutdown(data)
		res.CleanShutdown = &c
		switch {
		case c.Empty:
			fmt.Fprintln(w, "empty (releases before 3.7 write an empty marker)")
		case c.Unreadable != "":
			fmt.Fprintf(w, "content Kafka cannot read (%s): Kafka reads no broker epoch; the shutdown still counts as clean\n", printsafe.Line(c.Unreadable))
		default:
			v := "none"
			if c.Version != nil {
				v = fmt.Sprint(*c.Version)
			}
			fmt.Fprintf(w, "version: %s brokerEpoch: %d\n", v, *c.BrokerEpoch)
		}
	case "lock":
		size := int64(len(data))
		res.FileSize = &size
		fmt.Fprintf(w, "size: %d\n", size)
	}
	return true, nil
}

// dumpTextCheckpoint prints a leader-epoch-checkpoint or an offset checkpoint.
func dumpTextCheckpoint(w io.Writer, data []byte, path, kind string, res *Result) error {
	if len(data) == 0 {
		res.Empty = true
		fmt.Fprintln(w, "empty file (Kafka reads it as no entries)")
		return nil
	}
	var n int
	if kind == "leader-epoch-checkpoint" {
		es, err := segment.ParseLeaderEpochCheckpoint(data, path)
		if err != nil {
			return err
		}
		res.LeaderEpochs, n = es, len(es)
	} else {
		es, err := segment.ParseOffsetCheckpoint(data, path)
		if err != nil {
			return err
		}
		res.Offsets, n = es, len(es)
	}
	v := segment.CheckpointFileVersion
	res.CheckpointVersion = &v
	res.Empty = n == 0
	fmt.Fprintf(w, "version: %d entries: %d\n", v, n)
	for _, e := range res.LeaderEpochs {
		fmt.Fprintf(w, "epoch: %d startOffset: %d\n", e.Epoch, e.StartOffset)
	}
	for _, e := range res.Offsets {
		fmt.Fprintf(w, "topic: %s partition: %d offset: %d\n", printsafe.Name(e.Topic), e.Partition, e.Offset)
	}
	return nil
}
