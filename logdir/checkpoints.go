package logdir

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"kidx/segment"
)

// The offset checkpoints a log directory keeps at its root (LogManager, ReplicaManager,
// LogCleanerManager), each a CheckpointFile of "topic partition offset" lines. Kafka reads
// them at start-up: the recovery point says where recovery after an unclean shutdown begins,
// the log start offset where the log begins, the cleaner offset where the dirty section of a
// compacted log begins; replication-offset-checkpoint holds the high watermarks.

// DirCheckpoints are one log directory's checkpoints by "topic-partition" (a nil map: the
// file is missing; Errs says which could not be read).
type DirCheckpoints struct {
	Dir             string
	RecoveryPoints  map[string]int64 // recovery-point-offset-checkpoint
	HighWatermarks  map[string]int64 // replication-offset-checkpoint
	LogStartOffsets map[string]int64 // log-start-offset-checkpoint
	CleanerOffsets  map[string]int64 // cleaner-offset-checkpoint
	Errs            map[string]error // file name -> why it could not be read
	// Pos is each entry's byte position: file name -> "topic-partition" -> position of its
	// line (the last line, when a partition is named twice: Kafka's map keeps the last).
	Pos map[string]map[string]int64
}

// Checkpoints reads the checkpoints of the log directories partitions live in, each once.
type Checkpoints struct {
	mu    sync.Mutex
	byDir map[string]*DirCheckpoints
}

// NewCheckpoints is an empty cache.
func NewCheckpoints() *Checkpoints { return &Checkpoints{byDir: map[string]*DirCheckpoints{}} }

// Of is the checkpoints of the log directory holding pd (its parent directory: for a single
// partition directory too, as Kafka keeps them). nil when c is nil.
func (c *Checkpoints) Of(pd *PartitionDir) *DirCheckpoints {
	if c == nil {
		return nil
	}
	return c.Dir(filepath.Dir(pd.Path))
}

// Dir is the checkpoints of the log directory dir.
func (c *Checkpoints) Dir(dir string) *DirCheckpoints {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.byDir[dir]; ok {
		return d
	}
	d := &DirCheckpoints{Dir: dir, Errs: map[string]error{}, Pos: map[string]map[string]int64{}}
	for _, f := range []struct {
		name string
		into *map[string]int64
	}{
		{segment.RecoveryPointCheckpointName, &d.RecoveryPoints},
		{segment.ReplicationCheckpointName, &d.HighWatermarks},
		{segment.LogStartOffsetCheckpointName, &d.LogStartOffsets},
		{segment.CleanerOffsetCheckpointName, &d.CleanerOffsets},
	} {
		m, pos, err := readOffsetCheckpoint(filepath.Join(dir, f.name))
		switch {
		case err == nil:
			*f.into = m
			d.Pos[f.name] = pos
		case !isNotExist(err):
			d.Errs[f.name] = err
		}
	}
	c.byDir[dir] = d
	return d
}

// partitionKey is "topic-partition", the checkpoints' key.
func partitionKey(pd *PartitionDir) string { return fmt.Sprintf("%s-%d", pd.Topic, pd.Partition) }

// lookup is the partition's value in m, if any.
func lookup(m map[string]int64, pd *PartitionDir) (int64, bool) {
	if m == nil || pd.Topic == "" {
		return 0, false
	}
	v, ok := m[partitionKey(pd)]
	return v, ok
}

func readOffsetCheckpoint(path string) (map[string]int64, map[string]int64, error) {
	entries, at, err := segment.ReadOffsetCheckpointPlaced(path)
	if err != nil {
		return nil, nil, err
	}
	m := make(map[string]int64, len(entries))
	pos := make(map[string]int64, len(entries))
	for i, e := range entries {
		key := fmt.Sprintf("%s-%d", e.Topic, e.Partition)
		m[key] = e.Offset
		pos[key] = at[i]
	}
	return m, pos, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
