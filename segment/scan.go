package segment

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Severity of a finding.
type Severity string

// Severities: errors and warnings are problems (SPEC §8 exit 1), info is not.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Finding is one verify or scan result: where (file and byte position, -1
// when not about a byte), what was expected, and how bad it is.
type Finding struct {
	File     string   `json:"file"`
	Pos      int64    `json:"pos"`
	Severity Severity `json:"severity"`
	Check    string   `json:"check"`
	Message  string   `json:"message"`
	Expected string   `json:"expected,omitempty"`
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s:%d: %s: %s: %s", f.File, f.Pos, f.Severity, f.Check, f.Message)
	if f.Expected != "" {
		s += " (expected " + f.Expected + ")"
	}
	return s
}

// SegmentFiles is one segment set found in a partition directory; missing
// files are "".
type SegmentFiles struct {
	BaseOffset int64
	Log        string
	Index      string
	TimeIndex  string
	TxnIndex   string
	Snapshot   string
}

// PartitionDir is a "topic-partition" directory (or any directory holding
// segment files).
type PartitionDir struct {
	Path         string
	Topic        string // "" when the name is not topic-partition
	Partition    int
	Segments     []SegmentFiles // by base offset
	Transitional []string       // .deleted / .cleaned / .swap files: recognized, left alone
	Stray        []string       // files that are not Kafka segment files
}

// DirScan is the result of ScanDir.
type DirScan struct {
	Root       string
	Partitions []PartitionDir
	Findings   []Finding // unreadable entries, stray files: reported, never fatal
}

// splitTopicPartition parses Kafka's "<topic>-<partition>" directory name
// (UnifiedLog.parseTopicPartitionName: the text after the last '-'). Delete
// and future directories ("topic-0.<uuid>-delete", "-future") are not
// partitions to read.
func splitTopicPartition(name string) (string, int, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return "", 0, false
	}
	p, err := strconv.Atoi(name[i+1:])
	if err != nil || p < 0 {
		return "", 0, false
	}
	return name[:i], p, true
}

// knownLogDirFiles are files Kafka keeps at the top of a log directory.
var knownLogDirFiles = map[string]bool{
	"meta.properties": true, "recovery-point-offset-checkpoint": true, "log-start-offset-checkpoint": true,
	"replication-offset-checkpoint": true, "cleaner-offset-checkpoint": true, ".lock": true,
	".kafka_cleanshutdown": true, "kafka_cleanshutdown": true,
}

// ScanDir reads a log directory (holding topic-partition directories) or a
// single partition directory. It only lists and stats: nothing is opened
// for writing, created or locked. Unreadable entries and stray files become
// findings.
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
	hasSegments := false
	for _, e := range ents {
		if _, ok := ParseSegmentFileName(e.Name()); ok {
			hasSegments = true
			break
		}
	}
	if hasSegments {
		ds.Partitions = append(ds.Partitions, scanPartition(path, ents, ds))
		return ds, nil
	}
	for _, e := range ents {
		full := filepath.Join(path, e.Name())
		if !e.IsDir() {
			if !knownLogDirFiles[e.Name()] {
				ds.Findings = append(ds.Findings, Finding{File: full, Pos: -1, Severity: SeverityInfo, Check: "stray-file", Message: "not a Kafka log-directory file; left alone"})
			}
			continue
		}
		if _, _, ok := splitTopicPartition(e.Name()); !ok {
			ds.Findings = append(ds.Findings, Finding{File: full, Pos: -1, Severity: SeverityInfo, Check: "stray-file", Message: "directory name is not topic-partition; left alone"})
			continue
		}
		sub, err := os.ReadDir(full)
		if err != nil {
			ds.Findings = append(ds.Findings, Finding{File: full, Pos: -1, Severity: SeverityWarning, Check: "unreadable", Message: err.Error()})
			continue
		}
		ds.Partitions = append(ds.Partitions, scanPartition(full, sub, ds))
	}
	return ds, nil
}

func scanPartition(path string, ents []os.DirEntry, ds *DirScan) PartitionDir {
	p := PartitionDir{Path: path, Partition: -1}
	if t, n, ok := splitTopicPartition(filepath.Base(path)); ok {
		p.Topic, p.Partition = t, n
	}
	sets := map[int64]*SegmentFiles{}
	for _, e := range ents {
		full := filepath.Join(path, e.Name())
		name, ok := ParseSegmentFileName(e.Name())
		switch {
		case e.IsDir() || (!ok && !knownPartitionFile(e.Name())):
			p.Stray = append(p.Stray, full)
			ds.Findings = append(ds.Findings, Finding{File: full, Pos: -1, Severity: SeverityInfo, Check: "stray-file", Message: "not a Kafka segment file; left alone"})
			continue
		case !ok:
			continue
		case name.Transitional != "":
			p.Transitional = append(p.Transitional, full)
			continue
		}
		// Probe readability without reading: an O_RDONLY open. (As root,
		// mode 000 does not stop it, which is the honest answer.)
		if f, err := os.OpenFile(full, os.O_RDONLY, 0); err != nil {
			ds.Findings = append(ds.Findings, Finding{File: full, Pos: -1, Severity: SeverityWarning, Check: "unreadable", Message: err.Error()})
			continue
		} else {
			f.Close()
		}
		s := sets[name.BaseOffset]
		if s == nil {
			s = &SegmentFiles{BaseOffset: name.BaseOffset}
			sets[name.BaseOffset] = s
		}
		switch name.Kind {
		case KindLog:
			s.Log = full
		case KindIndex:
			s.Index = full
		case KindTimeIndex:
			s.TimeIndex = full
		case KindTxnIndex:
			s.TxnIndex = full
		case KindSnapshot:
			s.Snapshot = full
		}
	}
	for _, s := range sets {
		p.Segments = append(p.Segments, *s)
	}
	sort.Slice(p.Segments, func(i, j int) bool { return p.Segments[i].BaseOffset < p.Segments[j].BaseOffset })
	return p
}

// knownPartitionFile: partition-level files Kafka writes next to segments.
func knownPartitionFile(name string) bool {
	return name == "leader-epoch-checkpoint" || name == "partition.metadata" || strings.HasSuffix(name, ".checkpoint")
}
