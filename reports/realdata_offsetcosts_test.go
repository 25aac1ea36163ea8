package reports_test

// This file needs reports.OffsetCosts, which does not exist yet (the lead adds it): until then
// the package's tests do not compile. It is kept apart so that is plain to see.

import (
	"os"
	"strings"
	"testing"

	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/reports"
	"kidx/segment"
)

// segmentFilesOf builds the segment set of a .log from the listing: its sibling .index and
// .timeindex when they exist.
func segmentFilesOf(t *testing.T, logPath string) segment.SegmentFiles {
	t.Helper()
	base, err := rawlog.BaseOffsetFromName(logPath)
	if err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(logPath, ".log")
	sf := segment.SegmentFiles{BaseOffset: base, Log: logPath}
	if _, err := os.Stat(stem + ".index"); err == nil {
		sf.Index = stem + ".index"
	}
	if _, err := os.Stat(stem + ".timeindex"); err == nil {
		sf.TimeIndex = stem + ".timeindex"
	}
	return sf
}

// TestRealDataOffsetCostsEveryOffset: reports.OffsetCosts hands out the cost analyze computes
// for every offset as runs [first, last] of one scanBytes and hops. Expanded, the runs cover
// exactly the offsets the segment holds, in increasing order, each once, and each offset's
// scanBytes and hops equal the brute force's.
func TestRealDataOffsetCostsEveryOffset(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	for _, dir := range dirs {
		t.Run(realdata.Name(root, dir), func(t *testing.T) {
			for _, logPath := range realdata.LogFiles(dir) {
				checkOffsetCosts(t, realdata.Name(root, logPath), logPath)
			}
		})
	}
}

func checkOffsetCosts(t *testing.T, name, logPath string) {
	t.Helper()
	raw, err := rawlog.OpenSegment(logPath)
	if err != nil {
		t.Fatalf("%s: brute force: %v", name, err)
	}
	costs, err := raw.Costs()
	if err != nil {
		t.Fatalf("%s: brute force: %v", name, err)
	}
	var want []rawlog.Cost // analyze counts the offsets whose lookup finds a batch
	for _, c := range costs {
		if c.Found {
			want = append(want, c)
		}
	}
	const maxReported = 10
	bad := 0
	report := func(format string, args ...any) bool {
		if bad++; bad <= maxReported {
			t.Errorf(name+": "+format, args...)
		}
		return bad <= maxReported
	}
	i := 0 // next expected offset: want[i]
	prevLast := int64(-1 << 63)
	err = reports.OffsetCosts(segmentFilesOf(t, logPath), func(first, last, scanBytes, hops int64) {
		if bad > maxReported {
			return
		}
		if last < first || first <= prevLast {
			report("run [%d, %d] after a run ending at %d: runs must be non-empty and increasing", first, last, prevLast)
			return
		}
		prevLast = last
		for o := first; o <= last; o++ {
			for i < len(want) && want[i].Target < o {
				if !report("offset %d has no run (the run [%d, %d] comes next)", want[i].Target, first, last) {
					return
				}
				i++
			}
			if i == len(want) || want[i].Target != o {
				if !report("run [%d, %d] holds offset %d, which the segment does not hold", first, last, o) {
					return
				}
				continue
			}
			if w := want[i]; scanBytes != w.ScanBytes || hops != int64(w.Hops) {
				if !report("offset %d (run [%d, %d]): scanBytes %d, hops %d; want %d, %d", o, first, last, scanBytes, hops, w.ScanBytes, w.Hops) {
					return
				}
			}
			i++
		}
	})
	if err != nil {
		t.Errorf("%s: OffsetCosts: %v", name, err)
	}
	if bad > maxReported {
		t.Errorf("%s: more than %d disagreements; the rest is not listed", name, maxReported)
		return
	}
	if i < len(want) {
		t.Errorf("%s: offsets %d..%d (%d of %d) have no run", name, want[i].Target, want[len(want)-1].Target, len(want)-i, len(want))
	}
}
