package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// leaderDir writes a leader's partition, one 5070-byte one-record batch per append with
// growing timestamps, under segment.index.bytes sib (index.interval.bytes 4096, segment.bytes
// 1 GiB), and leaves it as a running broker does: the newest segment live, its indexes
// preallocated to segment.index.bytes.
func leaderDir(t *testing.T, sib int64, batches int) string {
	t.Helper()
	mem := vfs.NewMemFS()
	l, err := segment.CreateLogFS(mem, "/d/orders-0", segment.Config{IndexIntervalBytes: 4096, SegmentBytes: 1 << 30, SegmentIndexBytes: sib}, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range batches {
		if _, err := l.AppendSpecs([]segment.BatchSpec{{Records: 1, Bytes: 5070, MaxTimestamp: 1_700_000_000_000 + int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "orders-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names, err := mem.ReadDir("/d/orders-0")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := vfs.ReadFile(mem, "/d/orders-0/"+n.Name())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Issue 23, analyze: a partition written with issue 23's reproduction configuration
// (segment.index.bytes 4096, 5070-byte batches, index.interval.bytes 4096). By hand: the
// leader's first segment rolls after 341 batches (time index full at 4096/12 - 1 = 340), so
// 400 batches leave segments 0 and 341, the newest live with 4096-byte preallocated indexes:
// segment.index.bytes 4096 is read off them (512 offset slots × 8 = 4096, 341 time slots × 12
// = 4092). The entries are 5070 bytes apart, so they allow any interval up to 5069 and the
// default 4096 is assumed; segment.bytes is not shown by the files, the default 1 GiB assumed.
// The time index can be full at 340 × 5070 + 5070 = 1728870 bytes: exposed; the remedies as in
// TestWhatIfExposureIssue23Configurations. Kafka's defaults (a 10 MiB index) on the same
// batches are not exposed, and analyze says nothing of it.
func TestAnalyzeExposureWrittenDirectory(t *testing.T) {
	a, err := AnalyzeDir(leaderDir(t, 4096, 400), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Partitions) != 1 || a.Partitions[0].Segments != 2 {
		t.Fatalf("partitions %d, want 1 of 2 segments", len(a.Partitions))
	}
	pr := a.Partitions[0]
	e := pr.Exposure
	if e == nil || !e.Exposed || !e.PerBatch || e.Index != "time" || e.Entries != 340 || e.FullAtBytes != 1728870 ||
		e.Config.SegmentIndexBytes != 4096 || e.Config.IndexIntervalBytes != 4096 || e.Config.SegmentBytes != 1<<30 {
		t.Fatalf("exposure %+v", e)
	}
	s := strings.Join(pr.Recommendations, " ")
	for _, want := range []string{
		"Exposed to the follower index overflow of Kafka 3.9.1, 4.0.1 and 4.1+",
		"the time index can be full (340 entries) at 1728870 bytes",
		"raise segment.index.bytes to at least 3144984, or index.interval.bytes to at least 3158063, or lower segment.bytes to at most 1393047",
		"segment.index.bytes=4096, from the live segment 341's preallocated indexes",
		"index.interval.bytes=4096, Kafka's default (the entries allow up to 5069)",
		"segment.bytes=1073741824, Kafka's default",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("recommendations lack %q:\n%s", want, s)
		}
	}
	if a.ExposedPartitions != 1 || !strings.Contains(strings.Join(pr.Attention, ","), "exposed to the follower index overflow") ||
		!strings.Contains(strings.Join(a.Verdict.Reasons, " "), "1 partition exposed to the follower index overflow") {
		t.Errorf("exposed %d, attention %v, verdict %v", a.ExposedPartitions, pr.Attention, a.Verdict.Reasons)
	}
	var buf bytes.Buffer
	if err := a.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Exposed    int `json:"exposedPartitions"`
		Partitions []struct {
			F struct {
				Exposed bool             `json:"exposed"`
				Rule    string           `json:"rule"`
				Config  map[string]int64 `json:"config"`
				Remedy  struct {
					SegmentIndexBytes int64 `json:"segmentIndexBytes"`
				} `json:"remedy"`
			} `json:"followerOverflow"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Exposed != 1 || len(doc.Partitions) != 1 || !doc.Partitions[0].F.Exposed || doc.Partitions[0].F.Rule != "per-batch" ||
		doc.Partitions[0].F.Config["segment.index.bytes"] != 4096 || doc.Partitions[0].F.Remedy.SegmentIndexBytes != 3144984 {
		t.Errorf("JSON: %+v", doc)
	}

	// Kafka's defaults: 873812 time entries 5070 bytes apart cannot fill before 1 GiB.
	a, err = AnalyzeDir(leaderDir(t, 10485760, 400), AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pr = a.Partitions[0]
	if pr.Exposure == nil || pr.Exposure.Exposed || pr.Exposure.Config.SegmentIndexBytes != 10485760 || a.ExposedPartitions != 0 ||
		len(pr.Attention) != 0 || strings.Contains(strings.Join(pr.Recommendations, " "), "xposed") || strings.Contains(strings.Join(a.Verdict.Reasons, " "), "xposed") {
		t.Errorf("defaults: exposure %+v, attention %v, notes %v, verdict %v", pr.Exposure, pr.Attention, pr.Recommendations, a.Verdict.Reasons)
	}
}
