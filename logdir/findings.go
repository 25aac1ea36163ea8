package logdir

import (
	"fmt"

	"kidx/internal/printsafe"
)

// Severity of a finding.
type Severity string

// Severities: errors and warnings are problems (docs/contract.md §8 exit 1), info is not.
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
	// Explanation says why a check that DumpLogSegments words as a problem is not one here:
	// the release that wrote the file does it this way (docs/segment.md, "Kafka's eras").
	Explanation string `json:"explanation,omitempty"`
	// Count, when above 1, is how many findings of this kind in this file this one stands for
	// (an explained mismatch is reported once per kind, with the first one's file and byte).
	Count int `json:"count,omitempty"`
	// More, when above 0, makes this a summary line: More further findings of this check and
	// severity in this file, past the first VerifyOptions.MaxFindings listed, counted and not
	// listed (none of them built). It counts as More findings, not one.
	More int `json:"more,omitempty"`
	// Kafka says what a broker's next start does about it (the log-directory checks).
	Kafka KafkaAction `json:"kafka,omitempty"`
}

// KafkaAction is what a broker does at start-up with what a finding reports.
type KafkaAction string

// The broker's answers: it stops (the log directory or the broker does not start), it mends
// the state and goes on, or it goes on without looking.
const (
	KafkaRefuses KafkaAction = "refuses"
	KafkaRepairs KafkaAction = "repairs"
	KafkaIgnores KafkaAction = "ignores"
)

// Weight is how many findings f stands for: More for a summary line, else 1.
func (f Finding) Weight() int {
	if f.More > 0 {
		return f.More
	}
	return 1
}

func (f Finding) String() string {
	// file:byte: like a compiler's file:line; a finding about a whole file has no byte. A name
	// with a control character is quoted, so that it cannot fake a line of its own.
	where := printsafe.Name(f.File)
	if f.Pos >= 0 {
		where = fmt.Sprintf("%s:%d", where, f.Pos)
	}
	s := fmt.Sprintf("%s: %s: %s: %s", where, f.Severity, f.Check, printsafe.Line(f.Message))
	if f.Expected != "" {
		s += " (expected " + printsafe.Line(f.Expected) + ")"
	}
	if f.Explanation != "" {
		s += ": " + printsafe.Line(f.Explanation)
	}
	if f.Kafka != "" {
		s += " [Kafka " + string(f.Kafka) + "]"
	}
	if f.Count > 1 {
		s += fmt.Sprintf(" [the first of %d like it]", f.Count)
	}
	return s
}

// Check names of findings.
const (
	CheckLogCorrupt            = "log-corrupt"             // FileLogInputStream / ensureValid failures
	CheckCRC                   = "crc"                     // stored vs computed CRC (deep)
	CheckTrailingBytes         = "trailing-bytes"          // DumpLogSegments "Found N invalid bytes at the end"
	CheckMagic                 = "magic"                   // unknown magic
	CheckLegacy                = "legacy"                  // v0/v1 messages (info)
	CheckOffsetOrder           = "offset-order"            // batch offsets decrease / overlap / below the base
	CheckSegmentOverlap        = "segment-overlap"         // a batch at or past the next segment's base offset
	CheckIndexSanity           = "index-sanity"            // OffsetIndex/TimeIndex.sanityCheck on a trimmed file
	CheckIndexMismatch         = "index-mismatch"          // DumpLogSegments.dumpIndex
	CheckIndexPastLog          = "index-past-log"          // entry position beyond the .log
	CheckIndexCapacity         = "index-capacity"          // more entries than the .log has room for batches
	CheckIndexOrder            = "index-order"             // StrictlyIncreasing
	CheckIndexBoundary         = "index-boundary"          // EntriesAtBatchBoundaries
	CheckFirstBatchIndexed     = "first-batch-indexed"     // FirstBatchNeverIndexed
	CheckZeroTailGarbage       = "zero-tail-garbage"       // non-zero bytes after a live index's entries
	CheckZeroedEntry           = "zeroed-entry"            // a zero slot among a trimmed index's entries
	CheckLive                  = "live-segment"            // untrimmed, preallocated indexes (info)
	CheckUncleanStart          = "unclean-start"           // what Kafka does with it after an unclean shutdown (info)
	CheckPreallocatedLog       = "preallocated-log"        // a .log zero-filled past its batches (log.preallocate)
	CheckIntervalRule          = "interval-rule"           // an entry closer than index.interval.bytes allows
	CheckRestart               = "restart"                 // a byte-counter restart inside a segment (info)
	CheckFollowerIndexOverflow = "follower-index-overflow" // a full index the append went on past: issue 23's throw
	CheckEras                  = "eras"                    // which releases' rules explain the files (info)
	CheckTimeIndexMismatch     = "timeindex-mismatch"      // "Index timestamp: %d, log timestamp: %d"
	CheckTimeIndexOutOfOrder   = "timeindex-out-of-order"  // "Index timestamp: %d, Previously indexed timestamp: %d"
	CheckTimeIndexNotFound     = "timeindex-not-found"     // "Indexed offset: %d, found log offset: %d"
	CheckMissingLog            = "missing-log"             // an index without its .log
	CheckMissingIndex          = "missing-index"           // a .log without its .index
	CheckUnreadable            = "unreadable"
	CheckMetaProperties        = "meta-properties"   // meta.properties against the other log directories
	CheckCleanShutdown         = "clean-shutdown"    // .kafka_cleanshutdown and what the next start does
	CheckLock                  = "lock"              // .lock held by a running process
	CheckCheckpoint            = "checkpoint"        // a checkpoint entry against the partition's files
	CheckCheckpointNoDir       = "checkpoint-no-dir" // checkpoint entries naming no partition directory
)
