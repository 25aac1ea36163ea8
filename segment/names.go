package segment

import (
	"fmt"
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
