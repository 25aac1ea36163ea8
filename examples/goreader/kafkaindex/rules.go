package kafkaindex

import "fmt"

// Release is a line of Kafka releases whose lookups answer alike on any bytes (the names are
// kidx's, docs/against.md). The zero value is the protocol's default line, 2.1-3.9.
type Release int

const (
	Release21   Release = iota // 2.1.0 .. 3.9.x: warm search (KAFKA-6432), the walk of 0.11
	Release08                  // 0.8.0 .. 0.10.0.x: FileMessageSet.searchFor
	Release0101                // 0.10.1.x: FileMessageSet.searchForOffsetWithSize
	Release0102                // 0.10.2.x: FileRecords over FileLogInputStream.nextEntry
	Release011                 // 0.11.0 .. 2.0.x: FileLogInputStream.nextBatch, lastOffset()
	Release40                  // 4.0.x: as 2.1, then the hit's baseOffset() (KAFKA-17803)
	Release41                  // 4.1.0 .. trunk: searchForOffsetFromPosition (KAFKA-18989)
)

var releaseNames = map[Release]string{
	Release08: "0.8-0.10.0", Release0101: "0.10.1", Release0102: "0.10.2", Release011: "0.11-2.0",
	Release21: "2.1-3.9", Release40: "4.0", Release41: "4.1+",
}

// Releases lists every line, oldest first.
var Releases = []Release{Release08, Release0101, Release0102, Release011, Release21, Release40, Release41}

func (r Release) String() string {
	if n, ok := releaseNames[r]; ok {
		return n
	}
	return fmt.Sprintf("Release(%d)", int(r))
}

// ParseRelease reads a line name; "" is the default line, 2.1-3.9 (what protocol-1 readers
// answered before the release was part of the request).
func ParseRelease(s string) (Release, error) {
	if s == "" {
		return Release21, nil
	}
	for r, n := range releaseNames {
		if n == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown release line %q (known: 0.8-0.10.0, 0.10.1, 0.10.2, 0.11-2.0, 2.1-3.9, 4.0, 4.1+)", s)
}

// View is which slots of an index phase 1 searches.
type View int

const (
	// ViewRunning searches the valid entries, what a running broker holds (the slots before a
	// preallocated zero tail).
	ViewRunning View = iota
	// ViewReopened searches every whole slot, as a broker that reopens the files does
	// (LogSegment.open, AbstractIndex: entries = length / entry size); a zero slot reads as
	// (base offset, 0).
	ViewReopened
)

func (v View) String() string {
	if v == ViewReopened {
		return "reopened"
	}
	return "running"
}

// ParseView reads "running" or "reopened"; "" is running.
func ParseView(s string) (View, error) {
	switch s {
	case "", "running":
		return ViewRunning, nil
	case "reopened":
		return ViewReopened, nil
	}
	return 0, fmt.Errorf("unknown index view %q (known: running, reopened)", s)
}

// Rules are the release line and the index view a lookup answers for. The zero value is the
// protocol's default: 2.1-3.9, running.
type Rules struct {
	Release Release
	View    View
}

// since says r is line o or a later one.
func (r Release) since(o Release) bool { return r.rank() >= o.rank() }

func (r Release) rank() int {
	for i, x := range Releases {
		if x == r {
			return i
		}
	}
	return -1
}
