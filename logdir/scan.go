package logdir

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"kidx/segment"
)

// Role says what a file or directory of a log directory is (docs/kafka.md §13.4; docs/segment.md,
// "Files of a log directory").
type Role string

// Roles of the files and directories kidx recognizes.
const (
	RoleProducerSnapshot      Role = "producer-snapshot"       // <offset>.snapshot (KIP-98, 0.11+)
	RoleLeaderEpochCheckpoint Role = "leader-epoch-checkpoint" // 0.11+
	RolePartitionMetadata     Role = "partition-metadata"      // partition.metadata (KIP-516, 2.8+)
	RoleKRaftSnapshot         Role = "kraft-snapshot"          // <end offset>-<epoch>.checkpoint
	RoleQuorumState           Role = "quorum-state"            // KRaft election state
	RoleTempFile              Role = "temp-file"               // <checkpoint>.tmp, .checkpoint.part: a write in progress
	RoleDeleted               Role = "deleted"                 // *.deleted: asynchronous deletion, removed at load
	RoleCleaned               Role = "cleaned"                 // *.cleaned: cleaner output in progress, removed at load
	RoleSwap                  Role = "swap"                    // *.swap: finished output, renamed into place at load
	RoleRootCheckpoint        Role = "checkpoint"              // recovery-point-offset-checkpoint and friends
	RoleMetaProperties        Role = "meta.properties"
	RoleCleanShutdown         Role = "clean-shutdown-marker" // .kafka_cleanshutdown
	RoleLock                  Role = "lock"
	RoleBootstrapSnapshot     Role = "bootstrap-snapshot" // bootstrap.checkpoint (KRaft)
	RoleDeleteDir             Role = "delete-dir"         // topic-p.<uuid>-delete
	RoleRemoteIndexCache      Role = "remote-index-cache" // tiered storage (3.6+)
	RoleUnknown               Role = "unknown"
)

// LogDirFile is a file or directory of a log directory that is not part of a segment set.
type LogDirFile struct {
	Path   string `json:"path"`
	Role   Role   `json:"role"`
	Offset int64  `json:"offset"` // producer snapshot: its offset; KRaft snapshot: its end offset; else 0
}

// PartitionDir is a "topic-partition" directory (or any directory holding segment files).
type PartitionDir struct {
	Path      string
	Topic     string // "" when the name is not topic-partition
	Partition int
	// State is "" for a partition Kafka serves, "future" for a replica being moved between log
	// directories (topic-p.<uuid>-future, 1.1+) and "stray" for one a broker set aside
	// (-stray, 3.6.1+).
	State    string
	Segments []segment.SegmentFiles // every set of segment files, by base offset
	Files    []LogDirFile           // everything else, by name
	// SetAside holds the entries named like segment files that are not used: not regular
	// files (a directory, a FIFO, a link) or refused by open. Each already has its finding,
	// naming it; the checks of its segment do not report it again (issue 11, defect 4).
	SetAside map[string]SetAsideWhy
}

// SetAsideWhy says why an entry named like a segment file is not read.
type SetAsideWhy int

// Reasons for setting an entry aside.
const (
	// SetAsideAbsent: a symbolic link whose target does not exist. Kafka's File.exists is
	// false through it, so Kafka sees no file there at all (LogLoader).
	SetAsideAbsent SetAsideWhy = iota + 1
	// SetAsidePresent: something is there that is not read (a directory, FIFO, socket, device,
	// a link to one of those, or a file open refuses): Kafka's File.exists is true.
	SetAsidePresent
)

// SnapshotOffsets are the offsets of the producer snapshots, ascending. Kafka writes one at
// every roll, clean shutdown and recovery (ProducerStateManager.takeSnapshot); from 2.8 on
// (KAFKA-9393) it keeps those at segment bases plus the latest.
func (p *PartitionDir) SnapshotOffsets() []int64 {
	var out []int64
	for _, f := range p.Files {
		if f.Role == RoleProducerSnapshot {
			out = append(out, f.Offset)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// LogSegments are the sets that have a .log: the segments Kafka loads.
func (p *PartitionDir) LogSegments() []segment.SegmentFiles {
	var out []segment.SegmentFiles
	for _, s := range p.Segments {
		if s.Log != "" {
			out = append(out, s)
		}
	}
	return out
}

// DirScan is the result of ScanDir.
type DirScan struct {
	Root       string
	Partitions []PartitionDir
	RootFiles  []LogDirFile // the log directory's own files and skipped directories
	Findings   []Finding    // unreadable entries, stray and transitional files: reported, never fatal
}

// HoldsKafka reports whether the scan found a partition directory or a file or directory of a
// Kafka log directory (meta.properties, a checkpoint, a -delete directory...): a directory
// holding none of them is no log directory, and judging it would say nothing.
func (ds *DirScan) HoldsKafka() bool {
	if len(ds.Partitions) > 0 {
		return true
	}
	for _, f := range ds.RootFiles {
		if f.Role != RoleUnknown {
			return true
		}
	}
	return false
}

// NotLogDirError is a directory that holds no Kafka log directory or partition.
type NotLogDirError struct{ Path string }

func (e *NotLogDirError) Error() string {
	return e.Path + ": no Kafka log directory or partition here: a log.dirs entry holds meta.properties, the checkpoint files and <topic>-<partition> directories; a partition directory holds segment files (<20-digit base offset>.log)"
}

// ScanLogDir is ScanDir for a path that must be Kafka's: a *NotLogDirError when it holds
// neither a partition nor a log directory's files.
func ScanLogDir(path string) (*DirScan, error) {
	ds, err := ScanDir(path)
	if err == nil && !ds.HoldsKafka() {
		return nil, &NotLogDirError{Path: path}
	}
	return ds, err
}

// specialPartitionDir parses "topic-p.<uuid>-<suffix>" (UnifiedLog.logDeleteDirName,
// logFutureDirName, logStrayDirName): the partition the directory belongs to and the suffix.
func specialPartitionDir(name string) (topic string, partition int, suffix string, ok bool) {
	for _, s := range []string{"delete", "future", "stray"} {
		stem, found := strings.CutSuffix(name, "-"+s)
		if !found {
			continue
		}
		dot := strings.LastIndexByte(stem, '.')
		if dot <= 0 {
			return "", 0, "", false
		}
		t, p, ok := segment.ParsePartitionDirName(stem[:dot])
		return t, p, s, ok
	}
	return "", 0, "", false
}

// rootFileRoles are the files Kafka keeps at the top of a log directory.
var rootFileRoles = map[string]Role{
	segment.MetaPropertiesName: RoleMetaProperties, segment.RecoveryPointCheckpointName: RoleRootCheckpoint,
	segment.LogStartOffsetCheckpointName: RoleRootCheckpoint, segment.ReplicationCheckpointName: RoleRootCheckpoint,
	segment.CleanerOffsetCheckpointName: RoleRootCheckpoint, segment.LockFileName: RoleLock, segment.CleanShutdownName: RoleCleanShutdown,
	segment.BootstrapCheckpointName: RoleBootstrapSnapshot,
}

// partitionFileRoles are the partition-level files Kafka writes next to segments.
var partitionFileRoles = map[string]Role{
	segment.LeaderEpochCheckpointName: RoleLeaderEpochCheckpoint, segment.PartitionMetadataName: RolePartitionMetadata,
	segment.QuorumStateName: RoleQuorumState,
}

// ScanDir reads a log directory (holding topic-partition directories) or a single partition
// directory. It only lists and stats: nothing is opened for writing, created or locked.
// Every entry is classified (docs/kafka.md §13.4); unreadable entries and files kidx does not
// know become findings.
func ScanDir(path string) (*DirScan, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", path)
	}
	ds := &DirScan{Root: path}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	if isPartitionDir(filepath.Base(path), ents) {
		ds.Partitions = append(ds.Partitions, scanPartition(path, "", ents, ds))
		return ds, nil
	}
	for _, e := range ents {
		full := filepath.Join(path, e.Name())
		if !e.IsDir() {
			role, ok := rootFileRoles[e.Name()]
			if stem, tmp := strings.CutSuffix(e.Name(), ".tmp"); !ok && tmp && rootFileRoles[stem] != "" {
				role, ok = RoleTempFile, true // a checkpoint being written (CheckpointFile writes <name>.tmp, then renames)
			}
			if !ok {
				role = RoleUnknown
				ds.note(full, SeverityInfo, "stray-file", "not a Kafka log-directory file; left alone")
			}
			ds.RootFiles = append(ds.RootFiles, LogDirFile{Path: full, Role: role})
			continue
		}
		if strings.HasPrefix(e.Name(), segment.WriteTempDirPrefix) {
			// Not Kafka's: what an interrupted `kidx write` left beside its target
			// (ReplaceDir removes it on every error it sees, not on a kill).
			ds.RootFiles = append(ds.RootFiles, LogDirFile{Path: full, Role: RoleUnknown})
			ds.note(full, SeverityWarning, "kidx-write-leftover", "the temporary directory of an interrupted kidx write, not a partition: not read; remove it")
			continue
		}
		state := ""
		if _, _, suffix, ok := specialPartitionDir(e.Name()); ok {
			if suffix == "delete" {
				ds.RootFiles = append(ds.RootFiles, LogDirFile{Path: full, Role: RoleDeleteDir})
				ds.note(full, SeverityInfo, "delete-dir", "a partition queued for deletion (Kafka deletes -delete directories asynchronously); not read")
				continue
			}
			state = suffix
		} else if e.Name() == "remote-log-index-cache" {
			ds.RootFiles = append(ds.RootFiles, LogDirFile{Path: full, Role: RoleRemoteIndexCache})
			continue
		} else if _, _, ok := segment.ParsePartitionDirName(e.Name()); !ok {
			if holdsLogDir(full) {
				// A log directory inside the one given (copies of several brokers' log.dirs side
				// by side): read it too.
				if nested, err := ScanDir(full); err == nil {
					ds.Partitions = append(ds.Partitions, nested.Partitions...)
					ds.RootFiles = append(ds.RootFiles, nested.RootFiles...)
					ds.Findings = append(ds.Findings, nested.Findings...)
					continue
				}
			}
			ds.RootFiles = append(ds.RootFiles, LogDirFile{Path: full, Role: RoleUnknown})
			ds.note(full, SeverityInfo, "stray-file", "directory name is not topic-partition; left alone")
			continue
		}
		sub, err := os.ReadDir(full)
		if err != nil {
			ds.note(full, SeverityWarning, CheckUnreadable, err.Error())
			continue
		}
		if state == "" && !isPartitionDir(e.Name(), sub) {
			// Named like a partition but holding partitions (a copy of several log directories
			// side by side, e.g. "broker-1"): read it as a log directory of its own.
			nested, err := ScanDir(full)
			if err != nil {
				ds.note(full, SeverityWarning, CheckUnreadable, err.Error())
				continue
			}
			ds.Partitions = append(ds.Partitions, nested.Partitions...)
			ds.RootFiles = append(ds.RootFiles, nested.RootFiles...)
			ds.Findings = append(ds.Findings, nested.Findings...)
			continue
		}
		ds.Partitions = append(ds.Partitions, scanPartition(full, state, sub, ds))
	}
	return ds, nil
}

// holdsLogDir reports a directory holding partition directories or a log directory's own
// files: a log directory kept inside another.
func holdsLogDir(path string) bool {
	ents, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if _, root := rootFileRoles[e.Name()]; root && !e.IsDir() {
			return true
		}
		if !e.IsDir() {
			continue
		}
		if _, _, ok := segment.ParsePartitionDirName(e.Name()); ok {
			return true
		}
		if _, _, _, ok := specialPartitionDir(e.Name()); ok {
			return true
		}
	}
	return false
}

// InPartition reports whether path is one of the scanned partitions' directories or a file
// in one (what explain and the replay ask of an unreadable finding: a partition they read, or
// one they could not).
func (ds *DirScan) InPartition(path string) bool {
	for i := range ds.Partitions {
		if p := ds.Partitions[i].Path; path == p || filepath.Dir(path) == p {
			return true
		}
	}
	return false
}

func (ds *DirScan) note(path string, sev Severity, check, msg string) {
	ds.Findings = append(ds.Findings, Finding{File: path, Pos: -1, Severity: sev, Check: check, Message: msg})
}

// isPartitionDir tells a partition directory from a log directory: it holds Kafka's
// partition-level files, or it is named topic-partition and holds neither a partition
// directory nor a log directory's own files (meta.properties and the checkpoints).
func isPartitionDir(name string, ents []os.DirEntry) bool {
	subPartitions := false
	for _, e := range ents {
		if _, root := rootFileRoles[e.Name()]; root && !e.IsDir() {
			return false
		}
		if e.IsDir() {
			if _, _, ok := segment.ParsePartitionDirName(e.Name()); ok {
				subPartitions = true
			}
			continue
		}
		if _, ok := segment.ParseSegmentFileName(e.Name()); ok {
			return true
		}
		if _, ok := partitionFileRoles[e.Name()]; ok {
			return true
		}
	}
	_, _, named := segment.ParsePartitionDirName(name)
	return named && !subPartitions
}

func scanPartition(path, state string, ents []os.DirEntry, ds *DirScan) PartitionDir {
	p := PartitionDir{Path: path, Partition: -1, State: state}
	name := filepath.Base(path)
	if t, n, _, ok := specialPartitionDir(name); ok {
		p.Topic, p.Partition = t, n
	} else if t, n, ok := segment.ParsePartitionDirName(name); ok {
		p.Topic, p.Partition = t, n
	}
	switch state {
	case "future":
		ds.note(path, SeverityInfo, "future-dir", "a replica being moved to this log directory (-future, ALTER_REPLICA_LOG_DIRS); read as a partition")
	case "stray":
		ds.note(path, SeverityInfo, "stray-dir", "a partition the broker set aside as stray (-stray); read as a partition")
	}
	sets := map[int64]*segment.SegmentFiles{}
	for _, e := range ents {
		full := filepath.Join(path, e.Name())
		role, offset, isSegment, base, kind := classifyPartitionFile(e.Name())
		if e.IsDir() {
			p.Files = append(p.Files, LogDirFile{Path: full, Role: RoleUnknown})
			if isSegment {
				// Kafka loads only regular files as segments (LogLoader: listFiles ... isFile).
				p.setAside(full, SetAsidePresent)
				ds.note(full, SeverityWarning, "stray-file", "a directory named like a segment file: Kafka does not load it as one; left alone")
				continue
			}
			ds.note(full, SeverityInfo, "stray-file", "a directory inside a partition directory; left alone")
			continue
		}
		if !e.Type().IsRegular() {
			// A FIFO, socket or device (or a link) with any name: never opened.
			p.Files = append(p.Files, LogDirFile{Path: full, Role: RoleUnknown})
			what, why := nonRegularEntry(full, e.Type())
			if isSegment {
				p.setAside(full, why)
			}
			ds.note(full, SeverityWarning, "stray-file", what+"; left alone")
			continue
		}
		if !isSegment {
			p.Files = append(p.Files, LogDirFile{Path: full, Role: role, Offset: offset})
			switch role {
			case RoleUnknown:
				ds.note(full, SeverityInfo, "stray-file", "not a Kafka partition file; left alone")
			case RoleDeleted:
				ds.note(full, SeverityInfo, "transitional", "renamed for asynchronous deletion (.deleted); Kafka removes it at the next start")
			case RoleCleaned:
				ds.note(full, SeverityInfo, "transitional", "log cleaner output in progress (.cleaned); Kafka removes it at the next start")
			case RoleSwap:
				ds.note(full, SeverityWarning, "transitional", "finished cleaner or split output (.swap): at the next start Kafka renames it into place, replacing the segments it overlaps; until then the old segments are served")
			}
			continue
		}
		// Probe readability without reading: an O_RDONLY open. (As root, mode 000 does not
		// stop it, which is the honest answer.)
		if f, err := os.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
			p.setAside(full, SetAsidePresent)
			ds.note(full, SeverityWarning, CheckUnreadable, segment.PathlessError(err))
			continue
		} else {
			f.Close()
		}
		s := sets[base]
		if s == nil {
			s = &segment.SegmentFiles{BaseOffset: base}
			sets[base] = s
		}
		s.SetFile(kind, full)
	}
	for _, s := range sets {
		p.Segments = append(p.Segments, *s)
	}
	sort.Slice(p.Segments, func(i, j int) bool { return p.Segments[i].BaseOffset < p.Segments[j].BaseOffset })
	return p
}

func (p *PartitionDir) setAside(path string, why SetAsideWhy) {
	if p.SetAside == nil {
		p.SetAside = map[string]SetAsideWhy{}
	}
	p.SetAside[path] = why
}

// nonRegularEntry says what a partition entry that is neither a directory nor a regular file
// is, in words, and whether Kafka sees a file there (a dangling link: none).
func nonRegularEntry(path string, mode os.FileMode) (string, SetAsideWhy) {
	if mode&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Sprintf("a symbolic link to %s, which does not exist (dangling): Kafka sees no file here", target), SetAsideAbsent
		case st.Mode().IsRegular():
			return fmt.Sprintf("a symbolic link to %s: kidx reads only the files themselves", target), SetAsidePresent
		}
		return fmt.Sprintf("a symbolic link to %s, which is not a regular file", target), SetAsidePresent
	}
	if kind := SpecialFileKind(mode); kind != "a special file" {
		return kind + ", not a regular file: never opened", SetAsidePresent
	}
	return "not a regular file: never opened", SetAsidePresent
}

// SpecialFileKind names a file mode that is neither a directory nor a regular file: "a FIFO",
// "a socket", "a device", else "a special file".
func SpecialFileKind(mode os.FileMode) string {
	switch {
	case mode&os.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&os.ModeSocket != 0:
		return "a socket"
	case mode&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// classifyPartitionFile says what a file of a partition directory is: a segment file (with
// its base offset and kind), or another role (with its offset where the name carries one).
func classifyPartitionFile(name string) (role Role, offset int64, isSegment bool, base int64, kind segment.FileKind) {
	if r, ok := partitionFileRoles[name]; ok {
		return r, 0, false, 0, 0
	}
	if sn, ok := segment.ParseSegmentFileName(name); ok {
		switch {
		case sn.Transitional == segment.DeletedSuffix:
			return RoleDeleted, sn.BaseOffset, false, 0, 0
		case sn.Transitional == segment.CleanedSuffix:
			return RoleCleaned, sn.BaseOffset, false, 0, 0
		case sn.Transitional == segment.SwapSuffix:
			return RoleSwap, sn.BaseOffset, false, 0, 0
		case sn.Kind == segment.KindSnapshot:
			return RoleProducerSnapshot, sn.BaseOffset, false, 0, 0
		}
		return "", 0, true, sn.BaseOffset, sn.Kind
	}
	if k, ok := segment.ParseKRaftSnapshotFile(name); ok {
		switch {
		case k.Partial:
			return RoleTempFile, k.EndOffset, false, 0, 0
		case k.Deleted:
			return RoleDeleted, k.EndOffset, false, 0, 0
		}
		return RoleKRaftSnapshot, k.EndOffset, false, 0, 0
	}
	if strings.HasSuffix(name, ".tmp") {
		return RoleTempFile, 0, false, 0, 0
	}
	return RoleUnknown, 0, false, 0, 0
}
