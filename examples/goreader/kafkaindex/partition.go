package kafkaindex

import (
	"os"
	"strconv"
	"strings"
)

// FloorSegment is LogSegments.floorSegment over a partition directory: the greatest base offset
// at or below offset among its segments, -1 when there is none. A segment is a regular file
// whose name ends in ".log" (LogLoader loads segments from them; ".deleted", ".cleaned" and
// ".swap" files are none), its base offset the name up to its first dot
// (LogFileUtils.offsetFromFileName). Kafka's Long.parseLong would fail the whole load on a name
// that is no number; this reader counts only names of decimal digits and skips the others.
func FloorSegment(dir string, offset int64) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, &ReadError{File: ".", Byte: -1, Message: withoutPath(err)}
	}
	floor := int64(-1)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") || !e.Type().IsRegular() {
			continue
		}
		stem, _, _ := strings.Cut(e.Name(), ".")
		if stem == "" || strings.Trim(stem, "0123456789") != "" {
			continue
		}
		base, err := strconv.ParseInt(stem, 10, 64)
		if err != nil {
			continue
		}
		if base <= offset && base > floor {
			floor = base
		}
	}
	return floor, nil
}
