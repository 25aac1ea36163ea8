package logdir

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"kidx/segment"
)

// checkpointFindings checks one partition's checkpoint entries against its segments as the
// broker's next start uses them (docs/logdirs.md, "The checkpoints against the partitions").
// A partition with no segment has no log end to compare with: Kafka creates an empty segment
// at the log start offset.
func checkpointFindings(pd *PartitionDir, pv *PartitionVerdict, dc *DirCheckpoints) []Finding {
	segs := pv.Segments
	if len(segs) == 0 {
		return nil
	}
	first, leo := segs[0].BaseOffset, segs[len(segs)-1].NextOffset
	key := partitionKey(pd)
	entry := func(file string, sev Severity, kafka KafkaAction, msg string) Finding {
		pos, ok := dc.Pos[file][key]
		if !ok {
			pos = -1
		}
		return Finding{File: filepath.Join(dc.Dir, file), Pos: pos, Severity: sev, Check: CheckCheckpoint, Kafka: kafka, Message: key + ": " + msg}
	}
	var out []Finding
	if rp, ok := lookup(dc.RecoveryPoints, pd); ok && rp > leo {
		// The recovery point only moves when the log is flushed, and LogManager.truncateTo
		// writes the checkpoint again after a truncation: past the log end, the files lost
		// flushed data (removed or cut outside Kafka, or copied while the broker ran).
		f := entry(segment.RecoveryPointCheckpointName, SeverityWarning, KafkaRepairs, fmt.Sprintf(
			"recovery point %d is past the log end offset %d: offsets %d to %d were flushed and are not in these files; Kafka takes the log end as the recovery point (LogLoader.recoverLog: min(recovery point, log end offset))",
			rp, leo, leo, rp-1))
		f.Expected = fmt.Sprintf("a recovery point at most %d", leo)
		out = append(out, f)
	}
	lso, haveLSO := lookup(dc.LogStartOffsets, pd)
	switch {
	case haveLSO && lso > leo:
		f := entry(segment.LogStartOffsetCheckpointName, SeverityError, KafkaRepairs, fmt.Sprintf(
			"log start offset %d is past the log end offset %d: the next start deletes every segment of the partition (LogLoader: \"Deleting all segments because logEndOffset (%d) is smaller than logStartOffset %d. This could happen if segment files were deleted from the file system.\")",
			lso, leo, leo, lso))
		f.Expected = fmt.Sprintf("a log start offset at most %d", leo)
		return append(out, f)
	case haveLSO && lso < first:
		// Kafka writes an entry only while the log start is above the first segment's base
		// (LogManager.checkpointLogStartOffsetsInDir): below it, segments were added under it.
		out = append(out, entry(segment.LogStartOffsetCheckpointName, SeverityInfo, KafkaRepairs, fmt.Sprintf(
			"log start offset %d is below the first segment's base offset %d: Kafka starts the log at %d (LogLoader: max(log start offset, first segment's base))",
			lso, first, first)))
	}
	start := first
	if haveLSO {
		start = max(lso, first)
	}
	if co, ok := lookup(dc.CleanerOffsets, pd); ok {
		switch {
		case co < start:
			out = append(out, entry(segment.CleanerOffsetCheckpointName, SeverityInfo, KafkaRepairs, fmt.Sprintf(
				"cleaner offset %d is below the log start offset %d: the cleaner cleans the whole log again (LogCleanerManager.cleanableOffsets: \"Resetting first dirty offset of %s to log start offset %d since the checkpointed offset %d is invalid.\")",
				co, start, key, start, co)))
		case co > leo:
			out = append(out, entry(segment.CleanerOffsetCheckpointName, SeverityInfo, KafkaRepairs, fmt.Sprintf(
				"cleaner offset %d is past the log end offset %d: the cleaner cleans the whole log again (LogCleanerManager.cleanableOffsets: \"The last checkpoint dirty offset for partition %s is %d, which is larger than the log end offset %d. Resetting to the log start offset %d.\")",
				co, leo, key, co, leo, start)))
		}
	}
	return out
}

// unansweredEntries reports, per checkpoint file, the partitions it names that have no
// directory here: LogManager loads the directories it lists and looks each up in the
// checkpoints, so an entry no directory answers is never read, and the broker's next write of
// the checkpoint leaves it out. An entry with an offset above 0 says the partition held data
// here once (deleted, moved to another log directory, or not copied).
func unansweredEntries(dc *DirCheckpoints, seen map[string]bool) []Finding {
	var out []Finding
	for _, f := range []struct {
		name string
		m    map[string]int64
	}{
		{segment.RecoveryPointCheckpointName, dc.RecoveryPoints},
		{segment.ReplicationCheckpointName, dc.HighWatermarks},
		{segment.LogStartOffsetCheckpointName, dc.LogStartOffsets},
		{segment.CleanerOffsetCheckpointName, dc.CleanerOffsets},
	} {
		var keys []string
		withData := 0
		for k, v := range f.m {
			if !seen[k] {
				keys = append(keys, k)
				if v > 0 {
					withData++
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		SortPartitionNames(keys)
		firstPos := int64(-1)
		for _, k := range keys {
			if p, ok := dc.Pos[f.name][k]; ok && (firstPos < 0 || p < firstPos) {
				firstPos = p
			}
		}
		msg := fmt.Sprintf("names %s with no directory here (%s)", plural(len(keys), "partition"), listSome(keys, 5))
		if withData > 0 {
			msg += fmt.Sprintf("; %d of them at an offset above 0: they held data here once (deleted, moved to another log directory, or not copied)", withData)
		}
		msg += ": the broker never reads these entries and drops them at its next write of the checkpoint"
		out = append(out, Finding{File: filepath.Join(dc.Dir, f.name), Pos: firstPos, Severity: SeverityInfo, Check: CheckCheckpointNoDir, Kafka: KafkaIgnores, Message: msg})
	}
	return out
}

// listSome is the first n names, then how many more.
func listSome(names []string, n int) string {
	some := make([]string, 0, min(n, len(names)))
	for _, name := range names[:min(n, len(names))] {
		some = append(some, fileValue(name)) // names read from a checkpoint's lines
	}
	if len(names) <= n {
		return strings.Join(some, ", ")
	}
	return strings.Join(some, ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// SortPartitionNames sorts "topic-partition" names naturally: by topic, then by partition
// number (-2 before -10), as an operator reads them.
func SortPartitionNames(names []string) {
	sort.Slice(names, func(i, j int) bool { return PartitionNameLess(names[i], names[j]) })
}

// PartitionNameLess orders "topic-partition" names (or paths ending in one) by topic, then
// partition number; a name with no number sorts as text.
func PartitionNameLess(a, b string) bool {
	ta, pa, oka := segment.ParsePartitionDirName(filepath.Base(a))
	tb, pb, okb := segment.ParsePartitionDirName(filepath.Base(b))
	if oka && okb {
		da, db := filepath.Dir(a), filepath.Dir(b)
		if da != db {
			return da < db
		}
		if ta != tb {
			return ta < tb
		}
		if pa != pb {
			return pa < pb
		}
		return a < b
	}
	return a < b
}
