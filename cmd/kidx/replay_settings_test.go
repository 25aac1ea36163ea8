package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// replayPoint is what these tests read of a whatif --format json point.
type replayPoint struct {
	Config   map[string]int64 `json:"config"`
	Segments int              `json:"segments"`
}

func whatIfReplayPoints(t *testing.T, args ...string) ([]replayPoint, string) {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"whatif", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("whatif %v: exit %d: %s", args, code, errOut)
	}
	var doc struct {
		Points []replayPoint `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Points) == 0 {
		t.Fatalf("whatif %v: %v\n%s", args, err, out)
	}
	return doc.Points, errOut
}

// TestWhatIfFromLogDirTakesSegmentSettingsFromTheFiles pins issue 11, defect 6: whatif
// --from-logdir ran the default segment.bytes, so a 16-segment partition of 64 KiB segments
// became one segment as soon as the files' boundaries were not replayed (--config segment.ms).
// segment.bytes now comes from the rolls (the seed workload's segments hold 65400 bytes and
// the next 16350-byte batch did not fit: [65400, 81749], of which 65536 is the round value);
// what the files cannot show is said on stderr; a given --config wins.
func TestWhatIfFromLogDirTakesSegmentSettingsFromTheFiles(t *testing.T) {
	tmp := t.TempDir()
	w := writeFile(t, tmp, "w.json", `{"config": {"segment.bytes": 65536}, "batches": [`+
		strings.Repeat(`{"records": 79, "bytes": 16350},`, 63)+`{"records": 23, "bytes": 4760}]}`)
	dir := filepath.Join(tmp, "t-0")
	if _, errOut, code := runKidx(t, "write", "--workload", w, "--dir", dir); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	points, errOut := whatIfReplayPoints(t, "--from-logdir", dir)
	if p := points[0]; p.Config["segment.bytes"] != 65536 || p.Segments != 16 {
		t.Errorf("replay: segment.bytes=%d, %d segments; want 65536 and 16", p.Config["segment.bytes"], p.Segments)
	}
	for _, want := range []string{
		"kidx: warning: segment.index.bytes not known from the files: assumed the default 10485760; give --config segment.index.bytes=...\n",
		"kidx: warning: segment.ms not known from the files: assumed the default 604800000; give --config segment.ms=...\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "segment.bytes not known") || strings.Contains(errOut, "index.interval.bytes not known") {
		t.Errorf("a setting the files show is called unknown:\n%s", errOut)
	}

	// Without the files' boundaries (segment.ms given), the segments come from segment.bytes.
	points, _ = whatIfReplayPoints(t, "--from-logdir", dir, "--config", "segment.ms=100000000")
	if p := points[0]; p.Segments != 16 || p.Config["segment.ms"] != 100000000 {
		t.Errorf("with segment.ms given: %d segments, segment.ms=%d; want 16 and 100000000", p.Segments, p.Config["segment.ms"])
	}

	// A given segment.bytes wins: 8 batches of 16350 bytes fit 131072.
	points, errOut = whatIfReplayPoints(t, "--from-logdir", dir, "--config", "segment.bytes=131072")
	if p := points[0]; p.Config["segment.bytes"] != 131072 || p.Segments != 8 {
		t.Errorf("with segment.bytes=131072 given: segment.bytes=%d, %d segments; want 131072 and 8", p.Config["segment.bytes"], p.Segments)
	}
	if strings.Contains(errOut, "segment.bytes not known") {
		t.Errorf("a given segment.bytes is called unknown:\n%s", errOut)
	}

	// One segment shows no roll: segment.bytes is assumed, and said so.
	w1 := writeFile(t, tmp, "w1.json", `{"batches": [{"records": 79, "bytes": 16350}, {"records": 79, "bytes": 16350}]}`)
	dir1 := filepath.Join(tmp, "t-1")
	if _, errOut, code := runKidx(t, "write", "--workload", w1, "--dir", dir1); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	points, errOut = whatIfReplayPoints(t, "--from-logdir", dir1)
	want := "kidx: warning: segment.bytes not known from the files: assumed the default 1073741824; give --config segment.bytes=...\n"
	if !strings.Contains(errOut, want) || points[0].Config["segment.bytes"] != 1073741824 {
		t.Errorf("one segment: segment.bytes=%d, stderr %q; want the default and %q", points[0].Config["segment.bytes"], errOut, want)
	}
}
