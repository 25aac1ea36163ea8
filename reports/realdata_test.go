package reports_test

import (
	"testing"

	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/reports"
)

// bruteTotals is the brute force of internal/rawlog over every offset of every segment with a
// .log in dir: the sums and maxima analyze reports.
func bruteTotals(t *testing.T, root, dir string) rawlog.Totals {
	t.Helper()
	var tot rawlog.Totals
	for _, l := range realdata.LogFiles(dir) {
		s, err := rawlog.OpenSegment(l)
		if err != nil {
			t.Fatalf("%s: brute force: %v", realdata.Name(root, l), err)
		}
		costs, err := s.Costs()
		if err != nil {
			t.Fatalf("%s: brute force: %v", realdata.Name(root, l), err)
		}
		for _, c := range costs {
			tot.Add(c)
		}
	}
	return tot
}

// TestRealDataAnalyzeScanStats: AnalyzeDir of each real partition directory reports the exact
// lookup statistics of every offset the partition holds (legacy wrappers' inner offsets
// included, a live index's zero tail not searched): Lookups, TotalScanBytes, MaxScanBytes,
// TotalHops and MaxHops equal the brute force's.
func TestRealDataAnalyzeScanStats(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		t.Run(name, func(t *testing.T) {
			want := bruteTotals(t, root, dir)
			a, err := reports.AnalyzeDir(dir, reports.AnalyzeOptions{})
			if err != nil {
				t.Fatalf("AnalyzeDir: %v", err)
			}
			if len(a.Partitions) != 1 {
				t.Fatalf("AnalyzeDir: %d partitions, want 1", len(a.Partitions))
			}
			s := a.Partitions[0].Scan
			got := rawlog.Totals{Lookups: s.Lookups, TotalScanBytes: s.TotalScanBytes, MaxScanBytes: s.MaxScanBytes, TotalHops: s.TotalHops, MaxHops: s.MaxHops}
			if got != want {
				t.Errorf("scan statistics\n got  %+v\n want %+v (brute force over every offset)", got, want)
			}
		})
	}
}
