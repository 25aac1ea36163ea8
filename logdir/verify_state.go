package logdir

import (
	"path/filepath"

	"kidx/segment"
)

// CheckStateFile names the findings about a log directory's other files: producer snapshots,
// transaction indexes, checkpoints, partition.metadata, quorum-state, meta.properties.
const CheckStateFile = "state-file"

// verifyStateFiles parses every state file of a partition or log directory with the parsers
// kidx dump uses (docs/logdir-files.md) and reports the ones that fail, as bad as Kafka finds
// them: a producer snapshot or a transaction index that does not read is rebuilt from the log
// at the next start (ProducerStateManager deletes a corrupt snapshot; LogLoader recovers a
// segment whose .txnindex fails its sanity check, the one index check 2.3+ still runs at
// load): a warning. A checkpoint, partition.metadata, quorum-state or meta.properties that
// does not read stops the broker from loading the partition or the log directory: an error.
// It returns the producer snapshots that read, the only ones kidx takes as witnesses of a
// clean shutdown.
func verifyStateFiles(r *VerifyReport, files []LogDirFile) map[string]bool {
	good := map[string]bool{}
	for _, f := range files {
		var err error
		sev := SeverityError
		switch f.Role {
		case RoleProducerSnapshot:
			_, err = segment.ReadProducerSnapshot(f.Path)
			sev = SeverityWarning
			if err == nil {
				good[f.Path] = true
			}
		case RoleLeaderEpochCheckpoint:
			_, err = segment.ReadLeaderEpochCheckpoint(f.Path)
		case RolePartitionMetadata:
			_, err = segment.ReadPartitionMetadata(f.Path)
		case RoleQuorumState:
			_, err = segment.ReadQuorumState(f.Path)
		case RoleRootCheckpoint:
			_, err = segment.ReadOffsetCheckpoint(f.Path)
		case RoleMetaProperties:
			_, err = segment.ReadMetaProperties(f.Path)
		}
		if err != nil {
			r.add(findingFromErr(f.Path, sev, CheckStateFile, err))
		}
	}
	return good
}

// verifyTxnIndex reads a segment's .txnindex and runs TransactionIndex.sanityCheck on it.
func verifyTxnIndex(r *VerifyReport, s segment.SegmentFiles) {
	if s.TxnIndex == "" {
		return
	}
	txns, err := segment.ReadTxnIndex(s.TxnIndex)
	if err == nil {
		err = segment.SanityCheckTxnIndex(txns, s.BaseOffset, filepath.Base(s.TxnIndex))
	}
	if err != nil {
		f := findingFromErr(s.TxnIndex, SeverityWarning, CheckStateFile, err)
		f.Explanation = "at its next start Kafka recovers this segment and rebuilds the transaction index (LogLoader: the sanity check 2.3+ still runs at load)"
		r.add(f)
	}
}

// VerifyLogDirFiles checks a scanned log directory's own files (meta.properties and the
// checkpoints) as Verify does, for callers that verify its partitions one by one
// (VerifyPartition): kidx analyze, whose problem count must be verify's.
func VerifyLogDirFiles(ds *DirScan) []Finding {
	r := &VerifyReport{Findings: []Finding{}}
	verifyStateFiles(r, ds.RootFiles)
	return r.Findings
}
