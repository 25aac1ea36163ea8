package sim

import (
	"fmt"
	"path/filepath"

	"kidx/logdir"
	"kidx/segment"
)

// unreadableInScan refuses a replay (issue 27 item 4) when the scan could not read something
// the replay needs: a file of the picked partition (a segment file open refused), or a
// partition directory it could not list that may be the one asked for (any, when no topic is
// given: the log directory may then hold several partitions). verify reports each of them as
// an "unreadable" finding; the replay names the first in the same words. Replaying what is
// left would start the what-if from a different partition, or from part of one, with a wrong
// reason ("no index files", "the offset index was deleted") for what is missing.
func unreadableInScan(scan *logdir.DirScan, pick *logdir.PartitionDir, topic string, partition int) error {
	for _, f := range scan.Findings {
		if f.Check != logdir.CheckUnreadable {
			continue
		}
		if pick != nil && (f.File == pick.Path || filepath.Dir(f.File) == pick.Path) {
			return fmt.Errorf("%s: %s: %s: the partition cannot be replayed (kidx verify reports it too)", f.File, f.Check, f.Message)
		}
		if scan.InPartition(f.File) {
			continue // a file of another partition, not replayed
		}
		t, n, named := segment.ParsePartitionDirName(filepath.Base(f.File))
		if topic == "" || !named || (t == topic && (partition < 0 || n == partition)) {
			return fmt.Errorf("%s: %s: %s: it may be the partition to replay (kidx verify reports it too)", f.File, f.Check, f.Message)
		}
	}
	return nil
}
