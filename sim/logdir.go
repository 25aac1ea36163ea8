package sim

import "errors"

// NewLogDirSource replays a real partition's batches (sizes, record counts, max timestamps)
// read, read-only, from the .log files of dir: a partition directory, or a log.dirs entry
// with topic and partition naming the partition to replay.
func NewLogDirSource(dir, topic string, partition int) (Source, error) {
	return nil, errors.New("log-directory replay is not implemented yet")
}
