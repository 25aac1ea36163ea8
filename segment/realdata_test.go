package segment_test

import (
	"fmt"
	"testing"

	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/segment"
)

// maxDisagreements bounds the offsets reported per segment: a lookup that goes wrong on a
// zero tail walks from byte 0, and string-key-0 has 28,162 offsets.
const maxDisagreements = 10

// TestRealDataLookupEveryOffset: on every segment of the 289 real partition directories,
// Segment.Lookup of every offset the segment holds (legacy compressed wrappers' inner offsets
// included) equals the brute force of internal/rawlog: phase 1 over the valid entries (a
// preallocated index's zero tail is not entries), phase 2 over the raw headers.
func TestRealDataLookupEveryOffset(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	total := 0
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		t.Run(name, func(t *testing.T) {
			for _, logPath := range realdata.LogFiles(dir) {
				total += checkSegmentLookups(t, realdata.Name(root, logPath), logPath)
			}
		})
	}
	t.Logf("%d offsets compared", total)
}

func checkSegmentLookups(t *testing.T, name, logPath string) int {
	t.Helper()
	raw, err := rawlog.OpenSegment(logPath)
	if err != nil {
		t.Fatalf("%s: brute force: %v", name, err)
	}
	seg, err := segment.OpenSegment(logPath)
	if err != nil {
		t.Errorf("%s: OpenSegment: %v", name, err)
		return 0
	}
	defer seg.Close()
	offsets := raw.Log.Offsets()
	bad := 0
	for i, o := range offsets {
		want, err := raw.Lookup(o)
		if err != nil {
			t.Fatalf("%s: brute force lookup of %d: %v", name, o, err)
		}
		got, err := seg.Lookup(o)
		if err != nil {
			t.Errorf("%s: Lookup(%d): %v", name, o, err)
		} else if got.IndexPosition != want.Start || got.HitPosition != want.HitPosition || got.Hops != want.Hops || got.Found != want.Found {
			t.Errorf("%s: Lookup(%d) = start %d, hit %d, hops %d, found %v; want start %d (%s), hit %d, hops %d, found %v",
				name, o, got.IndexPosition, got.HitPosition, got.Hops, got.Found, want.Start, entryText(want), want.HitPosition, want.Hops, want.Found)
		} else {
			continue
		}
		if bad++; bad == maxDisagreements {
			t.Errorf("%s: stopped after %d disagreements; offsets %d.. of %d not compared", name, bad, o, len(offsets))
			return i + 1
		}
	}
	return len(offsets)
}

func entryText(c rawlog.Cost) string {
	if !c.HasEntry {
		return "no valid entry at or below it"
	}
	return fmt.Sprintf("entry offset %d", c.EntryOffset)
}
