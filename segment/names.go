package segment

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// File suffixes (LogFileUtils, UnifiedLog). The transitional suffixes are
// appended after a regular one, e.g. "00000000000000000000.log.deleted".
const (
	LogSuffix       = ".log"
	IndexSuffix     = ".index"
	TimeIndexSuffix = ".timeindex"
	TxnIndexSuffix  = ".txnindex"
	SnapshotSuffix  = ".snapshot"
	DeletedSuffix   = ".deleted"
	CleanedSuffix   = ".cleaned"
	SwapSuffix      = ".swap"
)

// FilenamePrefixFromOffset renders a base offset as Kafka names segment
// files (LogFileUtils.filenamePrefixFromOffset): decimal, zero-padded to 20
// digits.
func FilenamePrefixFromOffset(offset int64) string {
	return fmt.Sprintf("%020d", offset)
}

// OffsetFromFileName parses the text before the first '.' as a base offset,
// as LogFileUtils.offsetFromFileName does (Long.parseLong: any digit count).
func OffsetFromFileName(name string) (int64, error) {
	prefix, _, ok := strings.Cut(name, ".")
	if !ok {
		return 0, fmt.Errorf("%s: no '.' in segment file name", name)
	}
	v, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: base offset %q is not a decimal number", name, prefix)
	}
	return v, nil
}

// FileKind says what a file in a log directory is.
type FileKind int

// File kinds recognized in a partition directory.
const (
	KindUnknown FileKind = iota
	KindLog
	KindIndex
	KindTimeIndex
	KindTxnIndex
	KindSnapshot
)

func (k FileKind) String() string {
	switch k {
	case KindLog:
		return "log"
	case KindIndex:
		return "index"
	case KindTimeIndex:
		return "timeindex"
	case KindTxnIndex:
		return "txnindex"
	case KindSnapshot:
		return "snapshot"
	}
	return "unknown"
}

// SegmentFileName is a parsed segment file name.
type SegmentFileName struct {
	BaseOffset   int64
	Kind         FileKind
	Transitional string // "", ".deleted", ".cleaned" or ".swap"
}

// ParseSegmentFileName recognizes "<20 digits><suffix>[<transitional>]".
// Names Kafka itself would not produce (other digit counts) are not
// recognized, so that scans can report them as stray.
func ParseSegmentFileName(name string) (SegmentFileName, bool) {
	var out SegmentFileName
	for _, t := range []string{DeletedSuffix, CleanedSuffix, SwapSuffix} {
		if strings.HasSuffix(name, t) {
			out.Transitional = t
			name = strings.TrimSuffix(name, t)
			break
		}
	}
	if len(name) < 21 || name[20] != '.' {
		return out, false
	}
	for i := 0; i < 20; i++ {
		if name[i] < '0' || name[i] > '9' {
			return out, false
		}
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil {
		return out, false
	}
	out.BaseOffset = v
	switch name[20:] {
	case LogSuffix:
		out.Kind = KindLog
	case IndexSuffix:
		out.Kind = KindIndex
	case TimeIndexSuffix:
		out.Kind = KindTimeIndex
	case TxnIndexSuffix:
		out.Kind = KindTxnIndex
	case SnapshotSuffix:
		out.Kind = KindSnapshot
	default:
		return out, false
	}
	return out, true
}

// SegmentFileOf says whether name is a file of a segment set (LogFileUtils: a 20-digit base
// offset and the suffix of a .log, .index, .timeindex or .txnindex, no transitional suffix) and
// which, as a scan of a partition directory groups them.
func SegmentFileOf(name string) (base int64, kind FileKind, ok bool) {
	sn, ok := ParseSegmentFileName(name)
	if !ok || sn.Transitional != "" || sn.Kind == KindSnapshot {
		return 0, 0, false
	}
	return sn.BaseOffset, sn.Kind, true
}

// SegmentFiles is one segment set found in a partition directory: the files named by one
// base offset (LogFileUtils); missing files are "". A set without a .log is not a segment
// Kafka would load (verify reports its files as strays).
type SegmentFiles struct {
	BaseOffset int64
	Log        string
	Index      string
	TimeIndex  string
	TxnIndex   string
}

// SetFile records path as the SetFile's file of the given kind.
func (s *SegmentFiles) SetFile(kind FileKind, path string) {
	switch kind {
	case KindLog:
		s.Log = path
	case KindIndex:
		s.Index = path
	case KindTimeIndex:
		s.TimeIndex = path
	case KindTxnIndex:
		s.TxnIndex = path
	}
}

// Stem is the path of the set's files without their suffix ("<dir>/<base>").
func (s SegmentFiles) Stem() string {
	for _, c := range []struct{ path, suf string }{{s.Log, LogSuffix}, {s.Index, IndexSuffix}, {s.TimeIndex, TimeIndexSuffix}, {s.TxnIndex, TxnIndexSuffix}} {
		if c.path != "" {
			return strings.TrimSuffix(c.path, c.suf)
		}
	}
	return ""
}

// ParsePartitionDirName parses Kafka's "<topic>-<partition>" directory name
// (UnifiedLog.parseTopicPartitionName: the text after the last '-').
func ParsePartitionDirName(name string) (string, int, bool) {
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

// KafkaPath is p as Kafka's messages name a file (File.getAbsolutePath): absolute, or p itself
// when that cannot be had.
func KafkaPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
