package logdir

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"kidx/internal/english"
	"kidx/segment"
)

// A broker reads the top of each log directory before any partition (LogManager.loadLogs):
// meta.properties (who it is), .lock (no other process may use the directory),
// .kafka_cleanshutdown (whether to recover) and the four checkpoints (where each partition's
// recovery, log start and dirty section begin). BrokerJudge reads them as the broker does and
// says, finding by finding, whether its next start refuses, repairs or ignores what it sees,
// and what that start recovers (docs/logdirs.md, "The log directory as a broker starts it").

// LogDirState is what a broker's next start finds at the top of one log directory.
type LogDirState struct {
	Path string `json:"path"`
	// Mode is "kraft" (meta.properties version 1 or 2), "zookeeper" (version 0) or "" (no
	// readable meta.properties).
	Mode        string `json:"mode,omitempty"`
	NodeID      *int32 `json:"nodeId,omitempty"` // node.id, or broker.id in ZooKeeper mode
	ClusterID   string `json:"clusterId,omitempty"`
	DirectoryID string `json:"directoryId,omitempty"`
	MetaFile    bool   `json:"metaFile"` // meta.properties is there (read or not)
	// Clean is the .kafka_cleanshutdown marker when it is there (the last shutdown was clean).
	Clean *segment.CleanShutdown `json:"cleanShutdown,omitempty"`
	// LockedBy is the process holding .lock (a running broker), 0 when none does or it cannot
	// be known (LockKnown false: not Linux, or /proc/locks unreadable).
	LockedBy   int       `json:"lockedBy,omitempty"`
	LockKnown  bool      `json:"lockKnown"`
	Partitions int       `json:"partitions"`
	NextStart  NextStart `json:"nextStart"`
}

// NextStart is what the broker's next start does with a log directory's segments.
type NextStart struct {
	// Recovers: no clean-shutdown marker, so LogLoader.recoverLog runs on every partition
	// from its recovery point.
	Recovers   bool  `json:"recovers"`
	Partitions int   `json:"partitions"` // partitions with segments it recovers
	Segments   int   `json:"segments"`   // segments it recovers (reads and rebuilds the indexes of)
	Bytes      int64 `json:"bytes"`      // their log bytes
	// ByEra splits Segments and Bytes by the releases whose rules explain the segments' files.
	ByEra []EraWork `json:"byEra,omitempty"`
	// Rebuilds are segments with no .index outside what is recovered: every start rebuilds
	// their indexes (LogLoader.loadSegmentFiles), clean or not.
	Rebuilds     int   `json:"rebuilds"`
	RebuildBytes int64 `json:"rebuildBytes"`
	// Metadata is the KRaft metadata log, which every start recovers whole.
	Metadata *EraWork `json:"metadata,omitempty"`
	Summary  string   `json:"summary"`
}

// EraWork is recovery work: segments and their log bytes (Eras names their releases).
type EraWork struct {
	Eras     string `json:"eras,omitempty"`
	Segments int    `json:"segments"`
	Bytes    int64  `json:"bytes"`
}

// BrokerJudge follows a command's walk over log directories: AddScan for each directory
// named, Partition for each partition verified, Finish for what is above the partitions.
type BrokerJudge struct {
	cps    *Checkpoints
	dirs   []*logDirAcc
	byPath map[string]*logDirAcc
}

// logDirAcc accumulates one log directory's state as its partitions are verified.
type logDirAcc struct {
	state LogDirState
	meta  *segment.MetaProperties
	// named: the directory was given on the command line (the directories named together
	// are one broker's log.dirs); false for a log directory found inside one.
	named   bool
	seen    map[string]bool // "topic-partition" of every partition directory (any state)
	noRP    []string        // partitions the recovery-point checkpoint does not name
	metaLog bool            // holds __cluster_metadata-0
	// deleteDirs counts the -delete directories, which LogManager loads (to delete them)
	deleteDirs int
}

// NewBrokerJudge reads checkpoints through cps (shared with the partitions' checks).
func NewBrokerJudge(cps *Checkpoints) *BrokerJudge {
	return &BrokerJudge{cps: cps, byPath: map[string]*logDirAcc{}}
}

// AddScan registers the log directories of a scanned path: the path itself when it is a log
// directory, and the log directories found inside it. A partition directory given alone has
// none (its partition's checkpoint checks still run).
func (j *BrokerJudge) AddScan(ds *DirScan) {
	root := filepath.Clean(ds.Root) // "data/" names the directory the entries' paths call "data"
	add := func(dir string) {
		if _, ok := j.byPath[dir]; ok {
			return
		}
		acc := &logDirAcc{named: dir == root, seen: map[string]bool{}}
		acc.state.Path = dir
		acc.readTop()
		j.byPath[dir] = acc
		j.dirs = append(j.dirs, acc)
	}
	for _, f := range ds.RootFiles {
		switch f.Role {
		case RoleUnknown, RoleDeleteDir, RoleRemoteIndexCache:
			// In a log directory, but they do not make one: a stray file or a -delete directory
			// sits in one whose other files say so.
		default:
			add(filepath.Dir(f.Path))
		}
	}
	for i := range ds.Partitions {
		if pd := &ds.Partitions[i]; filepath.Clean(pd.Path) != root {
			add(filepath.Dir(pd.Path))
		}
	}
	for _, f := range ds.RootFiles {
		if a := j.byPath[filepath.Dir(f.Path)]; a != nil && f.Role == RoleDeleteDir {
			a.deleteDirs++ // LogManager loads it too, to delete it, and counts it among the logs
		}
	}
}

// readTop reads meta.properties, .kafka_cleanshutdown and the holder of .lock. What does not
// read has its finding from verifyStateFiles; here it only leaves the fields empty.
func (a *logDirAcc) readTop() {
	dir := a.state.Path
	if _, err := os.Lstat(filepath.Join(dir, segment.MetaPropertiesName)); err == nil {
		a.state.MetaFile = true
		if m, err := segment.ReadMetaProperties(filepath.Join(dir, segment.MetaPropertiesName)); err == nil {
			a.meta = &m
			a.state.Mode = "zookeeper"
			if m.Version > 0 {
				a.state.Mode = "kraft"
			}
			a.state.NodeID = m.NodeID
			if m.ClusterID != nil {
				a.state.ClusterID = *m.ClusterID
			}
			if m.DirectoryID != nil {
				a.state.DirectoryID = m.DirectoryID.String()
			}
		}
	}
	marker := filepath.Join(dir, segment.CleanShutdownName)
	if st, err := os.Lstat(marker); err == nil && st.Mode().IsRegular() {
		// Its presence is what counts (CleanShutdownFileHandler.exists); the content is the
		// broker epoch, when it reads.
		data, err := segment.ReadLogDirFile(marker, segment.MaxLogDirFile)
		m := segment.CleanShutdown{Unreadable: fmt.Sprint(err)}
		if err == nil {
			m = segment.ParseCleanShutdown(data)
		}
		a.state.Clean = &m
	}
	if _, err := os.Lstat(filepath.Join(dir, segment.LockFileName)); err == nil {
		pid, held, known := lockHolder(filepath.Join(dir, segment.LockFileName))
		a.state.LockKnown = known
		if held {
			a.state.LockedBy = pid
		}
	} else {
		a.state.LockKnown = true // no .lock: nothing holds it
	}
}

// metadataPartition is KRaft's metadata log, which LogManager does not load: KafkaMetadataLog
// opens it with recovery point 0 and lastShutdownClean false (2.8+), so every start recovers
// it whole, marker or not, and no checkpoint of LogManager's names it.
func metadataPartition(pd *PartitionDir) bool {
	return pd.Topic == "__cluster_metadata" && pd.Partition == 0
}

// Partition takes one verified partition (pv is verify's verdict on pd): its checkpoint
// entries against its files, and the work the next start does on it. The findings are the
// partition's.
func (j *BrokerJudge) Partition(pd *PartitionDir, pv *PartitionVerdict) []Finding {
	dc := j.cps.Of(pd)
	var out []Finding
	if pd.State == "" && !metadataPartition(pd) && pd.Topic != "" && dc != nil {
		out = checkpointFindings(pd, pv, dc)
	}
	acc := j.byPath[filepath.Dir(pd.Path)]
	if acc == nil {
		return out
	}
	acc.state.Partitions++
	if pd.Topic != "" {
		acc.seen[partitionKey(pd)] = true
	}
	if metadataPartition(pd) {
		acc.metaLog = true
		w := acc.state.NextStart.Metadata
		if w == nil {
			w = &EraWork{}
			acc.state.NextStart.Metadata = w
		}
		mine := &EraWork{}
		for _, s := range pv.Segments {
			w.Segments++
			w.Bytes += s.LogBytes
			mine.Segments++
			mine.Bytes += s.LogBytes
		}
		pv.NextStart = mine
		return out
	}
	var rp int64 // LogManager.loadLog: recoveryPoints.getOrDefault(topicPartition, 0L)
	if dc != nil {
		if v, ok := lookup(dc.RecoveryPoints, pd); ok {
			rp = v
		} else if dc.RecoveryPoints != nil && pd.State == "" && pd.Topic != "" {
			acc.noRP = append(acc.noRP, partitionKey(pd))
		}
	}
	pv.NextStart = acc.plan(pv, rp)
	return out
}

// plan adds a partition's next-start work: without a marker, recoverLog recovers
// segments.values(recoveryPoint, Long.MaxValue), the segment holding the recovery point (the
// floor of it: LogSegments.values) and every later one, which includes the active segment
// even when the recovery point is the log end; with one, nothing. Either way a segment with
// no .index is rebuilt at load.
func (a *logDirAcc) plan(pv *PartitionVerdict, rp int64) *EraWork {
	ns := &a.state.NextStart
	mine := &EraWork{}
	segs := pv.Segments
	from := 0
	for i, s := range segs {
		if s.BaseOffset <= rp {
			from = i
		}
	}
	recovers := a.state.Clean == nil
	counted := false
	for i, s := range segs {
		if recovers && i >= from {
			if !counted {
				ns.Partitions++
				counted = true
			}
			ns.Segments++
			ns.Bytes += s.LogBytes
			mine.Segments++
			mine.Bytes += s.LogBytes
			eras := s.Eras
			if s.Batches == 0 {
				eras = emptyEras
			}
			k := slices.IndexFunc(ns.ByEra, func(e EraWork) bool { return e.Eras == eras })
			if k < 0 {
				k = len(ns.ByEra)
				ns.ByEra = append(ns.ByEra, EraWork{Eras: eras})
			}
			ns.ByEra[k].Segments++
			ns.ByEra[k].Bytes += s.LogBytes
			continue
		}
		if s.NoIndex {
			ns.Rebuilds++
			ns.RebuildBytes += s.LogBytes
			mine.Segments++
			mine.Bytes += s.LogBytes
		}
	}
	return mine
}

// Finish judges what is above the partitions, once every partition was taken: identities
// across the directories, the markers and locks, the checkpoint entries no directory
// answers, and the next start's summary per log directory.
func (j *BrokerJudge) Finish() ([]LogDirState, []Finding) {
	var out []Finding
	states := make([]LogDirState, 0, len(j.dirs))
	out = append(out, j.identityFindings()...)
	for _, a := range j.dirs {
		ns := &a.state.NextStart
		ns.Recovers = a.state.Clean == nil
		sort.Slice(ns.ByEra, func(x, y int) bool { return ns.ByEra[x].Bytes > ns.ByEra[y].Bytes })
		ns.Summary = a.nextStartSummary()
		out = append(out, a.topFindings(j.cps)...)
		states = append(states, a.state)
	}
	return states, out
}

// nextStartSummary says in one sentence what the next start does with the directory.
func (a *logDirAcc) nextStartSummary() string {
	ns := a.state.NextStart
	var parts []string
	of := a.loaded()
	switch {
	case of == 0:
		// Only the metadata log, or nothing: LogManager has no log to load.
	case ns.Recovers:
		which := fmt.Sprintf("%d of %s", ns.Partitions, plural(of, "partition"))
		switch {
		case ns.Partitions == 1 && of == 1:
			which = "its one partition"
		case ns.Partitions == of:
			which = "all " + plural(of, "partition")
		}
		s := fmt.Sprintf("recovers %s: %s, %s", which, plural(ns.Segments, "segment"), english.Bytes(ns.Bytes))
		var by []string
		for _, e := range ns.ByEra {
			if e.Eras == emptyEras {
				by = append(by, plural(e.Segments, "empty segment"))
				continue
			}
			by = append(by, fmt.Sprintf("%s: %s, %s", e.Eras, plural(e.Segments, "segment"), english.Bytes(e.Bytes)))
		}
		if len(by) > 1 || len(by) == 1 && len(ns.ByEra) == 1 && ns.ByEra[0].Eras == emptyEras {
			s += " (" + strings.Join(by, "; ") + ")"
		} else if len(by) == 1 {
			s += " (" + ns.ByEra[0].Eras + ")"
		}
		parts = append(parts, s)
	default:
		parts = append(parts, "skips recovery")
	}
	if ns.Rebuilds > 0 {
		parts = append(parts, fmt.Sprintf("rebuilds the indexes of %s without a .index (%s)", plural(ns.Rebuilds, "segment"), english.Bytes(ns.RebuildBytes)))
	}
	if m := ns.Metadata; m != nil {
		parts = append(parts, fmt.Sprintf("recovers the KRaft metadata log whole, as every start does (%s, %s)", plural(m.Segments, "segment"), english.Bytes(m.Bytes)))
	}
	if len(parts) == 0 {
		return "the next start has nothing to load"
	}
	return "the next start " + strings.Join(parts, "; ")
}

// emptyEras labels the segments with no batch, which no era's rules judge.
const emptyEras = "empty"

// loaded counts the partitions LogManager loads: all but the metadata log, which
// KafkaMetadataLog opens.
func (a *logDirAcc) loaded() int {
	if a.metaLog {
		return a.state.Partitions - 1
	}
	return a.state.Partitions
}
