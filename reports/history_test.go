package reports

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"kidx/explain"
	"kidx/internal/kafkagolden"
	"kidx/internal/realdata"
	"kidx/internal/testfiles"
	"kidx/logdir"
	"kidx/sim"
)

// historyEntry is one restart of a partition as a command reports it: its segment, the first
// offset after it (at its latest place), and what shows it.
type historyEntry struct {
	segment, offset int64
	evidence        string // "producer-snapshot", "time-index" or "required"
}

func (h historyEntry) String() string {
	return fmt.Sprintf("%d@%d(%s)", h.offset, h.segment, h.evidence)
}

func sortHistory(hs []historyEntry) []historyEntry {
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].segment != hs[j].segment {
			return hs[i].segment < hs[j].segment
		}
		return hs[i].offset < hs[j].offset
	})
	return hs
}

// verifyEvidence is a logdir.Restart's evidence in explain's words (a snapshot first: a clean
// shutdown writes both it and the time-index entry).
func verifyEvidence(r logdir.Restart) string {
	switch {
	case r.Snapshot != "":
		return "producer-snapshot"
	case r.TimeIndexMark >= 0:
		return "time-index"
	}
	return "required"
}

// Issue 22, item 5: "One notion of a partition's history (restarts, their evidence,
// recoveries) shared by verify, analyze, explain and replay." On every one of Kafka's golden
// cases and of the real brokers' partitions (but the known gaps of explain, realdata.Gaps),
// verify's restarts, analyze's, explain's and the replay's are the same: the same segments,
// the same offsets, the same evidence, the same count of restart steps replayed (but where
// the replay has a known gap: a cleaned segment beside its source, a recovered segment).
func TestOneHistoryPerPartition(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(testfiles.GoldenDir, "*", "files"))
	if err != nil || len(dirs) != kafkagolden.CaseCount {
		t.Fatalf("golden cases: %v %v", dirs, err)
	}
	names := map[string]string{}
	for _, d := range dirs {
		names[d] = "golden/" + filepath.Base(filepath.Dir(d))
	}
	root := realdata.Restore(t)
	for _, d := range realdata.PartitionDirs(root) {
		name := realdata.Name(root, d)
		if _, gap := realdata.KnownGap(name, realdata.GapExplain); gap {
			continue
		}
		dirs = append(dirs, d)
		names[d] = name
	}
	withRestarts, cleanedSegments := 0, 0
	for _, dir := range dirs {
		name := names[dir]
		var fromVerify, fromAnalyze, fromExplain []historyEntry
		rep, err := logdir.Verify([]string{dir}, logdir.VerifyOptions{})
		if err != nil {
			t.Fatalf("%s: verify: %v", name, err)
		}
		for _, p := range rep.Partitions {
			for _, s := range p.Segments {
				for _, r := range s.Restarts {
					fromVerify = append(fromVerify, historyEntry{s.BaseOffset, r.Offset, verifyEvidence(r)})
				}
			}
		}
		a, err := AnalyzeDir(dir, AnalyzeOptions{})
		if err != nil {
			t.Fatalf("%s: analyze: %v", name, err)
		}
		for _, p := range a.Partitions {
			for _, r := range p.Restarts {
				fromAnalyze = append(fromAnalyze, historyEntry{r.BaseOffset, r.Offset, verifyEvidence(r.Restart)})
			}
		}
		parts, err := explain.Dirs([]string{dir}, explain.Options{Interval: -1})
		if err != nil {
			t.Fatalf("%s: explain: %v", name, err)
		}
		for _, p := range parts {
			for _, s := range p.Segments {
				for _, r := range s.Restarts {
					fromExplain = append(fromExplain, historyEntry{s.BaseOffset, r.Offset, r.Evidence})
				}
			}
		}
		// Issue 25: analyze labels as cleaned exactly the segments explain finds written by
		// the cleaner (one evidence, logdir.CleanerEvidence, and explain's replay).
		var labelled, replayedCleaned []int64
		for _, p := range a.Partitions {
			for _, c := range p.Cleaned {
				if c.Cleaned {
					labelled = append(labelled, c.BaseOffset)
				}
			}
		}
		for _, p := range parts {
			for _, s := range p.Segments {
				if s.History == explain.HistoryCleaned {
					replayedCleaned = append(replayedCleaned, s.BaseOffset)
				}
			}
		}
		if !slices.Equal(labelled, replayedCleaned) {
			t.Errorf("%s: analyze labels segments %v cleaned, explain's cleaned history is %v", name, labelled, replayedCleaned)
		}
		if _, readme := realdata.CleanedBesideSource[name]; readme && !slices.Equal(labelled, []int64{0}) {
			t.Errorf("%s: cleaned segments %v; the README: segment 0 is the log cleaner's output", name, labelled)
		}
		cleanedSegments += len(labelled)
		v, an, ex := sortHistory(fromVerify), sortHistory(fromAnalyze), sortHistory(fromExplain)
		if !slices.Equal(v, ex) || !slices.Equal(an, ex) {
			t.Errorf("%s: restarts differ:\n  verify  %v\n  analyze %v\n  explain %v", name, v, an, ex)
		}
		if _, gap := realdata.KnownGap(name, realdata.GapReplay); gap {
			// The replay's own known gap (the cleaner and recovery are not replayed yet,
			// issue 25): verify, analyze and explain are compared above.
			if len(ex) > 0 {
				withRestarts++
			}
			continue
		}
		r, err := sim.ReplayLogDir(dir, "", -1, sim.ReplayOptions{Interval: -1})
		if err != nil {
			t.Fatalf("%s: replay: %v", name, err)
		}
		// The replay streams its steps (issue 27): its check pass counts the restart steps.
		// Issue 25: a cleaned segment's stale source is left out of the replay, with its
		// restarts (another segment's lifetime).
		replayed, want := r.Restarts, 0
		for _, e := range ex {
			if !slices.Contains(r.LeftOut, e.segment) {
				want++
			}
		}
		if replayed != want {
			t.Errorf("%s: the replay has %d restart steps, explain %d restarts %v outside the segments it leaves out %v", name, replayed, want, ex, r.LeftOut)
		}
		if len(ex) > 0 {
			withRestarts++
		}
	}
	// The data holds restarts of every kind of evidence (README of the data: iechenyb/test-0921-0's
	// snapshot, donaldy's and lestfeed's time-index marks).
	if cleanedSegments < len(realdata.CleanedBesideSource) {
		t.Errorf("%d cleaned segments, fewer than the README's %d", cleanedSegments, len(realdata.CleanedBesideSource))
	}
	if withRestarts < 10 {
		t.Errorf("only %d partitions with restarts: the comparison compared little", withRestarts)
	}
}
