package segment

import (
	"fmt"
	"strconv"
	"strings"
)

// KRaft snapshot file names (raft/.../snapshot/Snapshots.java). A snapshot of the metadata log
// is named after its end offset (20 digits, zero-padded, like a segment) and the leader epoch of
// that offset (10 digits): "00000000000000852953-0000000001.checkpoint". While it is being
// written it is a temporary file "<id>-<random>.checkpoint.part" (Snapshots.createTempFile,
// Files.createTempFile with the prefix "<id>-"); a snapshot marked for deletion is renamed to
// "<id>.checkpoint.deleted" (Snapshots.markForDelete). KafkaMetadataLog removes both kinds at
// startup.
const (
	KRaftSnapshotSuffix = ".checkpoint"         // Snapshots.SUFFIX
	KRaftPartialSuffix  = ".checkpoint.part"    // Snapshots.PARTIAL_SUFFIX
	KRaftDeletedSuffix  = ".checkpoint.deleted" // Snapshots.DELETE_SUFFIX

	// BootstrapCheckpointName is the controller's bootstrap metadata file, in the KRaft snapshot
	// format (BootstrapDirectory.BINARY_BOOTSTRAP_FILENAME), at the root of the metadata log dir.
	// kafka-dump-log prints "KRaft bootstrap snapshot" instead of an end offset for it.
	BootstrapCheckpointName = "bootstrap.checkpoint"
)

const (
	kraftOffsetWidth = 20 // Snapshots.OFFSET_WIDTH
	kraftEpochWidth  = 10 // Snapshots.EPOCH_WIDTH
	kraftIDWidth     = kraftOffsetWidth + 1 + kraftEpochWidth
)

// KRaftSnapshotFile is a parsed KRaft snapshot file name (Snapshots.parse's SnapshotPath).
type KRaftSnapshotFile struct {
	EndOffset int64 // the snapshot holds the metadata log up to, not including, this offset
	Epoch     int32 // the leader epoch of EndOffset
	Partial   bool  // ".checkpoint.part": a snapshot still being written
	Deleted   bool  // ".checkpoint.deleted": a snapshot marked for deletion
}

// KRaftSnapshotFileName renders a snapshot id as Kafka names the file
// (Snapshots.filenameFromSnapshotId + SUFFIX).
func KRaftSnapshotFileName(endOffset int64, epoch int32) string {
	return fmt.Sprintf("%020d-%010d%s", endOffset, epoch, KRaftSnapshotSuffix)
}

// ParseKRaftSnapshotName recognizes a finished KRaft snapshot, "<20 digits>-<10
// digits>.checkpoint", the only form kafka-dump-log dumps with "Snapshot end offset: X, epoch:
// Y". The ".checkpoint.part" and ".checkpoint.deleted" forms are not finished snapshots and give
// ok == false here; ParseKRaftSnapshotFile recognizes all three. The bootstrap file
// (bootstrap.checkpoint) is no snapshot name either: see BootstrapCheckpointName.
func ParseKRaftSnapshotName(name string) (endOffset int64, epoch int32, ok bool) {
	f, ok := ParseKRaftSnapshotFile(name)
	if !ok || f.Partial || f.Deleted {
		return 0, 0, false
	}
	return f.EndOffset, f.Epoch, true
}

// ParseKRaftSnapshotFile recognizes the three names a KRaft snapshot file has over its life:
// "<id>.checkpoint", "<id>.checkpoint.deleted", and the temporary "<id>-<any>.checkpoint.part"
// (or "<id>.checkpoint.part"), where <id> is "<20 digits>-<10 digits>". Snapshots.parse reads the
// two numbers at fixed positions with Long.parseLong/Integer.parseInt and looks only at the
// suffix; this is stricter: ASCII digits only, the '-' in place, and nothing else in the name, as
// Kafka writes them. The numbers must fit an int64 and an int32.
func ParseKRaftSnapshotFile(name string) (KRaftSnapshotFile, bool) {
	var out KRaftSnapshotFile
	if len(name) < kraftIDWidth || name[kraftOffsetWidth] != '-' {
		return out, false
	}
	if !allDigits(name[:kraftOffsetWidth]) || !allDigits(name[kraftOffsetWidth+1:kraftIDWidth]) {
		return out, false
	}
	off, err := strconv.ParseInt(name[:kraftOffsetWidth], 10, 64)
	if err != nil {
		return out, false
	}
	ep, err := strconv.ParseInt(name[kraftOffsetWidth+1:kraftIDWidth], 10, 32)
	if err != nil {
		return out, false
	}
	out.EndOffset, out.Epoch = off, int32(ep)
	switch rest := name[kraftIDWidth:]; {
	case rest == KRaftSnapshotSuffix:
	case rest == KRaftDeletedSuffix:
		out.Deleted = true
	case rest == KRaftPartialSuffix:
		out.Partial = true
	case strings.HasPrefix(rest, "-") && strings.HasSuffix(rest, KRaftPartialSuffix) && len(rest) > 1+len(KRaftPartialSuffix):
		// Files.createTempFile(dir, "<id>-", ".checkpoint.part"): a random part in between.
		if strings.ContainsRune(rest[1:len(rest)-len(KRaftPartialSuffix)], '/') {
			return KRaftSnapshotFile{}, false
		}
		out.Partial = true
	default:
		return KRaftSnapshotFile{}, false
	}
	return out, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
