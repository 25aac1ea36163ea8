package segment

import (
	"fmt"
	"math"
	"os"
)

// MaxSegmentBytes is the largest .log Kafka opens: positions in a segment (the offset index's,
// FileRecords' size) are int32, and segment.bytes is at most Int32.MaxValue (LogConfig).
const MaxSegmentBytes = math.MaxInt32

// OversizeLogError is a .log larger than Kafka opens, in FileRecords' words.
type OversizeLogError struct {
	Path string
	Size int64
}

// Error is the exception FileRecords' constructor throws (and so LogSegment.open, and the
// broker's load of the partition).
func (e *OversizeLogError) Error() string {
	return fmt.Sprintf("The size of segment %s (%d) is larger than the maximum allowed segment size of %d", e.Path, e.Size, MaxSegmentBytes)
}

// CheckLogSize refuses a .log past MaxSegmentBytes from its size alone (one stat, nothing
// read), before a walk of it would cost a read per batch: an *OversizeLogError, or the
// stat's error.
func CheckLogSize(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() > MaxSegmentBytes {
		return &OversizeLogError{Path: path, Size: fi.Size()}
	}
	return nil
}
