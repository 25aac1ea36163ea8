package sim

import (
	"fmt"

	"kidx/internal/english"
	"kidx/model"
	"kidx/segment"
)

// NewLogDirSource replays a real partition's batches (sizes, record counts, max timestamps)
// read, read-only, from the .log files of dir: a partition directory, or a log.dirs entry
// with topic and partition naming the partition to replay.
//
// Every batch becomes one single-batch append, as a leader wrote it, with no restart and no
// segment boundary: the batch sizes alone, the `logdir:` generator of kidx help workloads.
// ReplayLogDir replays what reproduces the files instead (the era, appends, restarts and
// boundaries kidx explain infers). A legacy (magic 0/1) message or compressed wrapper replays
// as one batch of its size holding its offsets (inner ones included). A segment's batches are
// read with segment.LogFile.Walk (FileLogInputStream.nextBatch's stop rules); a corrupt batch
// ends that segment's replay with an error naming the file and byte.
func NewLogDirSource(dir, topic string, partition int) (Source, error) {
	pick, err := pickPartition(dir, topic, partition)
	if err != nil {
		return nil, err
	}
	var logs []string
	for _, s := range pick.LogSegments() {
		logs = append(logs, s.Log)
	}
	return &logDirSource{path: pick.Path, logs: logs}, nil
}

type logDirSource struct {
	path string
	logs []string
}

func (s *logDirSource) Describe() string {
	return fmt.Sprintf("log directory %s (%s)", s.path, english.Plural(int64(len(s.logs)), "segment"))
}

// Open reads the batch headers of every segment now (24 bytes a batch in memory) and
// replays them; the files are closed before Open returns.
func (s *logDirSource) Open() (Stream, error) {
	var steps []model.Step
	for _, path := range s.logs {
		lf, err := segment.OpenLog(path)
		if err != nil {
			return nil, err
		}
		var berr error
		res := lf.Walk(0, 0, func(b segment.BatchInfo) bool {
			ts := b.MaxTimestamp()
			if ts < model.NoTimestamp {
				ts = model.NoTimestamp
			}
			first, err := lf.FirstOffset(b)
			if err != nil {
				berr = err
				return false
			}
			batch := model.Batch{Records: b.LastOffset() - first + 1, Bytes: b.Size, MaxTimestamp: ts}
			switch b.Magic {
			case 0:
				batch.Legacy = model.Magic0
			case 1:
				batch.Legacy = model.Magic1
			}
			if err := batch.Validate(); err != nil {
				berr = fmt.Errorf("%s at byte %d: %w", path, b.Position, err)
				return false
			}
			steps = append(steps, model.AppendStep(batch))
			return true
		})
		lf.Close()
		if berr != nil {
			return nil, berr
		}
		if res.Err != nil {
			return nil, res.Err
		}
	}
	return &singleBatchSteps{steps: steps}, nil
}
