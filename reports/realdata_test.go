package reports_test

import (
	"testing"

	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/model"
	"kidx/reports"
)

// readTotals are Kafka 4.1+'s phase-2 header reads over a set of lookups.
type readTotals struct{ total, max int64 }

// bruteTotals is the brute force of internal/rawlog over every offset of every segment with a
// .log in dir: the sums and maxima analyze reports, and Kafka 4.1+'s header reads, counted by
// running searchForOffsetFromPosition's loop from each found offset's start.
func bruteTotals(t *testing.T, root, dir string) (rawlog.Totals, readTotals) {
	t.Helper()
	var tot rawlog.Totals
	var reads readTotals
	for _, l := range realdata.LogFiles(dir) {
		s, err := rawlog.OpenSegment(l)
		if err != nil {
			t.Fatalf("%s: brute force: %v", realdata.Name(root, l), err)
		}
		if realdata.IndexNotFetched(realdata.Name(root, dir)) {
			// Issue 22, item 1: analyze's figures are those of the index Kafka's next start
			// rebuilds (LogSegment.recover), with index.interval.bytes=4096, Kafka's default,
			// naming each batch's last offset (these v2 files allow Kafka 2.0 and later).
			s.RebuildIndex(4096, true)
		}
		costs, err := s.Costs()
		if err != nil {
			t.Fatalf("%s: brute force: %v", realdata.Name(root, l), err)
		}
		for _, c := range costs {
			tot.Add(c)
			if !c.Found {
				continue
			}
			hit, n, found, err := s.SearchFromPosition(c.Target, c.Start)
			if err != nil || !found || hit.Position != c.HitPosition {
				t.Fatalf("%s: offset %d: 4.1's loop from %d finds %v at %d (%v), the lastOffset loop %d",
					realdata.Name(root, l), c.Target, c.Start, found, hit.Position, err, c.HitPosition)
			}
			reads.total += int64(n)
			reads.max = max(reads.max, int64(n))
		}
	}
	return tot, reads
}

// TestRealDataAnalyzeScanStats: AnalyzeDir of each real partition directory reports the exact
// lookup statistics of every offset the partition holds (legacy wrappers' inner offsets
// included, a live index's zero tail not searched, a missing index the one recovery rebuilds):
// Lookups, TotalScanBytes, MaxScanBytes, TotalHops and MaxHops equal the brute force's.
func TestRealDataAnalyzeScanStats(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		t.Run(name, func(t *testing.T) {
			want, wantReads := bruteTotals(t, root, dir)
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
			// No release given: the header reads are 4.1+'s (and the hops those before 4.1).
			if r := (readTotals{s.TotalHeaderReads, s.MaxHeaderReads}); r != wantReads {
				t.Errorf("4.1+ header reads: total %d, max %d; want %d, %d (searchForOffsetFromPosition's loop)", r.total, r.max, wantReads.total, wantReads.max)
			}
			for _, c := range []struct {
				era  model.Era
				want readTotals
			}{
				{model.EraForRule(model.PerBatch), wantReads},
				{model.EraForRule(model.PerAppend), readTotals{want.TotalHops, want.MaxHops}},
			} {
				a, err := reports.AnalyzeDir(dir, reports.AnalyzeOptions{HeaderReads: &c.era})
				if err != nil {
					t.Fatalf("AnalyzeDir: %v", err)
				}
				s := a.Partitions[0].Scan
				if r := (readTotals{s.TotalHeaderReads, s.MaxHeaderReads}); r != c.want {
					t.Errorf("%s: header reads: total %d, max %d; want %d, %d", c.era.ID, r.total, r.max, c.want.total, c.want.max)
				}
			}
		})
	}
}
