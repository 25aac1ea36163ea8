package segment

import (
	"errors"
	"fmt"
	"path/filepath"

	"kidx/segment/vfs"
)

// recoveryCheckpoint is the log dir's recovery-point-offset-checkpoint as this log keeps it.
type recoveryCheckpoint struct {
	path      string
	topic     string
	partition int
}

// RecoveryPoint is the offset below which everything is flushed (UnifiedLog.recoveryPoint).
func (l *Log) RecoveryPoint() int64 { return l.recoveryPoint }

// KeepRecoveryCheckpoint makes the log keep its recovery point in
// <parent of dir>/recovery-point-offset-checkpoint, as Kafka's LogManager does for every log
// of a log dir, so that a crash can be reloaded from what was durable (docs/vfs.md). dir must
// be named as a partition ("<topic>-<partition>"). Kafka writes the file on a timer
// (log.flush.offset.checkpoint.interval.ms) and at shutdown; the writer writes it at every
// advance, the freshest checkpoint a broker can have: an older one only makes the reload
// recover more segments. Like Kafka's CheckpointFile.write: a .tmp file written and synced,
// renamed over the checkpoint, the directory synced.
func (l *Log) KeepRecoveryCheckpoint() error {
	topic, p, ok := ParsePartitionDirName(filepath.Base(l.dir))
	if !ok {
		return fmt.Errorf("%s: not named as a partition directory (<topic>-<partition>), so it has no recovery point entry", l.dir)
	}
	l.checkpoint = &recoveryCheckpoint{path: filepath.Join(filepath.Dir(l.dir), RecoveryPointCheckpointName), topic: topic, partition: p}
	return l.writeCheckpoint()
}

// markFlushed is LocalLog.markFlushed: the recovery point moves up to offset.
func (l *Log) markFlushed(offset int64) error {
	if offset <= l.recoveryPoint {
		return nil
	}
	l.recoveryPoint = offset
	return l.writeCheckpoint()
}

// lowerRecoveryPoint keeps the recovery point at or below the log end
// (LocalLog.updateLogEndOffset).
func (l *Log) lowerRecoveryPoint(logEnd int64) error {
	if l.recoveryPoint <= logEnd {
		return nil
	}
	l.recoveryPoint = logEnd
	return l.writeCheckpoint()
}

func (l *Log) writeCheckpoint() error {
	c := l.checkpoint
	if c == nil {
		return nil
	}
	data := fmt.Sprintf("%d\n1\n%s %d %d\n", CheckpointFileVersion, c.topic, c.partition, l.recoveryPoint)
	tmp := c.path + ".tmp"
	f, err := l.fs.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(data))
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	if err := l.fs.Rename(tmp, c.path); err != nil {
		return err
	}
	return l.fs.SyncDir(filepath.Dir(c.path))
}

// ReadRecoveryPoint is the recovery point a broker finds for the partition directory dir on
// fsys: its entry in the parent's recovery-point-offset-checkpoint; 0 when the file or the
// entry is missing (LogManager: recoveryPoints.getOrElse(topicPartition, 0L)) or the file
// cannot be parsed (LogManager logs the error and recovers the log dir from 0).
func ReadRecoveryPoint(fsys vfs.FS, dir string) int64 {
	topic, p, ok := ParsePartitionDirName(filepath.Base(dir))
	if !ok {
		return 0
	}
	path := filepath.Join(filepath.Dir(dir), RecoveryPointCheckpointName)
	data, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return 0
	}
	entries, err := ParseOffsetCheckpoint(data, path)
	if err != nil {
		return 0
	}
	rp := int64(0)
	for _, e := range entries {
		if e.Topic == topic && e.Partition == p {
			rp = e.Offset // a repeated partition keeps its last line, as Kafka's map does
		}
	}
	return rp
}
