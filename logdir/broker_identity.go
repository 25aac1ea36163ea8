package logdir

import (
	"fmt"
	"path/filepath"
	"strings"

	"kidx/segment"
)

// identityFindings checks meta.properties across the log directories named together on the
// command line, which kidx takes as one broker's log.dirs, as MetaPropertiesEnsemble.verify
// and KafkaRaftServer.initializeLogDirs do before anything else: every directory formatted
// (KRaft), one cluster.id, one node.id, no directory.id twice, the metadata log in one
// directory. Log directories found inside a named one are copies of other brokers, side by
// side, and are not held to each other (docs/logdirs.md).
func (j *BrokerJudge) identityFindings() []Finding {
	var named []*logDirAcc
	kraft := false
	for _, a := range j.dirs {
		if a.named {
			named = append(named, a)
			kraft = kraft || a.state.Mode == "kraft"
		}
	}
	var out []Finding
	var cluster, node *logDirAcc
	ids := map[string]string{}
	var metaLogs []string
	for _, a := range named {
		path := filepath.Join(a.state.Path, segment.MetaPropertiesName)
		refuse := func(msg string) {
			out = append(out, Finding{File: path, Pos: -1, Severity: SeverityError, Check: CheckMetaProperties, Kafka: KafkaRefuses, Message: msg})
		}
		if a.metaLog {
			metaLogs = append(metaLogs, a.state.Path)
		}
		if a.meta == nil {
			if !a.state.MetaFile && a.state.Partitions > 0 {
				f := Finding{File: a.state.Path, Pos: -1, Severity: SeverityInfo, Check: CheckMetaProperties,
					Message: fmt.Sprintf("no meta.properties: a ZooKeeper-mode broker writes one at start; a KRaft broker refuses the directory (KafkaRaftServer: \"No `meta.properties` found in %s (have you run `kafka-storage.sh` to format the directory?)\")", a.state.Path)}
				if kraft {
					f.Severity, f.Kafka = SeverityError, KafkaRefuses
					f.Message = fmt.Sprintf("no meta.properties beside a KRaft log directory of the same broker: KafkaRaftServer refuses to start: \"No `meta.properties` found in %s (have you run `kafka-storage.sh` to format the directory?)\"", a.state.Path)
				}
				out = append(out, f)
			}
			continue
		}
		m := a.meta
		if m.ClusterID != nil {
			if cluster == nil {
				cluster = a
			} else if cluster.state.ClusterID != *m.ClusterID {
				refuse(fmt.Sprintf("Invalid cluster.id in: %s. Expected %s, but read %s (MetaPropertiesEnsemble.verify: the broker refuses to start)", path, fileValue(cluster.state.ClusterID), fileValue(*m.ClusterID)))
			}
		}
		if m.NodeID != nil {
			if node == nil {
				node = a
			} else if *node.state.NodeID != *m.NodeID {
				refuse(fmt.Sprintf("Stored node id %d doesn't match previous node id %d in %s. If you moved your data, make sure your configured node id matches. If you intend to create a new node, you should remove all data in your data directories. (MetaPropertiesEnsemble.verify: the broker refuses to start)", *m.NodeID, *node.state.NodeID, path))
			}
		}
		if m.DirectoryID != nil {
			id := m.DirectoryID.String()
			if prev, ok := ids[id]; ok {
				refuse(fmt.Sprintf("Duplicate directory ID Optional[%s] found. It was the ID of %s, but also of %s (MetaPropertiesEnsemble.verify: the broker refuses to start; a copied directory keeps its directory.id)", id, prev, a.state.Path))
			} else {
				ids[id] = a.state.Path
			}
		}
	}
	if len(metaLogs) > 1 && kraft {
		out = append(out, Finding{File: filepath.Join(metaLogs[1], "__cluster_metadata-0"), Pos: -1, Severity: SeverityError, Check: CheckMetaProperties, Kafka: KafkaRefuses,
			Message: fmt.Sprintf("the KRaft metadata log is in %d log directories of one broker (%s): KafkaRaftServer refuses to start with one outside metadata.log.dir (\"Found unexpected metadata location in data directory ...\")", len(metaLogs), strings.Join(metaLogs, ", "))})
	}
	return out
}

// topFindings are one log directory's findings above its partitions: what the next start
// does (the marker), who holds the lock, and the checkpoints against the directories.
func (a *logDirAcc) topFindings(cps *Checkpoints) []Finding {
	st := a.state
	dir := st.Path
	var out []Finding
	if st.LockedBy > 0 {
		out = append(out, Finding{File: filepath.Join(dir, segment.LockFileName), Pos: -1, Severity: SeverityInfo, Check: CheckLock,
			Message: fmt.Sprintf("held by process %d: a broker runs on this directory, and its active segments change while kidx reads them; a second broker here refuses to start (LogManager.lockLogDirs: \"Failed to acquire lock on file .lock in %s. A Kafka instance in another process or thread is using this directory.\")", st.LockedBy, dir)})
	}
	loaded := a.loaded() + a.deleteDirs // LogManager's count of logs includes the -delete directories
	if loaded > 0 || st.Clean != nil {
		f := Finding{File: dir, Pos: -1, Severity: SeverityInfo, Check: CheckCleanShutdown}
		switch {
		case st.Clean != nil:
			f.File = filepath.Join(dir, segment.CleanShutdownName)
			epoch := ""
			if st.Clean.BrokerEpoch != nil {
				epoch = fmt.Sprintf(" (broker epoch %d)", *st.Clean.BrokerEpoch)
			}
			f.Message = fmt.Sprintf("the last shutdown was clean%s: %s (LogManager: \"Skipping recovery of %d logs from %s since clean shutdown file was found\")", epoch, st.NextStart.Summary, loaded, dir)
			if st.Clean.Unreadable != "" {
				f.Message += "; its content does not read (" + st.Clean.Unreadable + "): Kafka reads no broker epoch from it, and the shutdown still counts as clean"
			}
		case st.LockedBy > 0:
			f.Message = fmt.Sprintf("no .kafka_cleanshutdown while the broker runs (LogManager deletes it at start): if it stopped now without a clean shutdown, %s", st.NextStart.Summary)
		default:
			f.Kafka = KafkaRepairs
			f.Message = fmt.Sprintf("no .kafka_cleanshutdown: the last shutdown was not clean, and %s (LogManager: \"Recovering %d logs from %s since no clean shutdown file was found\")", st.NextStart.Summary, loaded, dir)
		}
		out = append(out, f)
	}
	dc := cps.Dir(dir)
	switch {
	case loaded > 0 && dc.RecoveryPoints == nil && dc.Errs[segment.RecoveryPointCheckpointName] == nil:
		out = append(out, Finding{File: dir, Pos: -1, Severity: SeverityInfo, Check: CheckCheckpoint,
			Message: "no recovery-point-offset-checkpoint: every partition's recovery point is 0 (LogManager.loadLog), so a start after an unclean shutdown recovers every segment"})
	case len(a.noRP) > 0:
		SortPartitionNames(a.noRP)
		out = append(out, Finding{File: filepath.Join(dir, segment.RecoveryPointCheckpointName), Pos: -1, Severity: SeverityInfo, Check: CheckCheckpoint,
			Message: fmt.Sprintf("names no recovery point for %s (%s): theirs is 0 (LogManager.loadLog), so a start after an unclean shutdown recovers them whole (a partition created since the last checkpoint write, every log.flush.offset.checkpoint.interval.ms)", plural(len(a.noRP), "partition"), listSome(a.noRP, 5))})
	}
	return append(out, unansweredEntries(dc, a.seen)...)
}
