package logdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

// copySegment copies the segment files of base from src into dst.
func copySegment(t *testing.T, src, dst string, base int64) {
	t.Helper()
	for _, suf := range []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix} {
		name := segment.FilenamePrefixFromOffset(base) + suf
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeSeed writes batches of the seed post's shape (docs/background.md; 79 records, 16350 bytes) from offset
// start into a new directory, under segment.bytes.
func writeSeed(t *testing.T, batches int, segmentBytes, start int64) string {
	t.Helper()
	w := segmenttest.SeedWorkload(batches)
	w.Config.SegmentBytes, w.StartOffset = segmentBytes, start
	dir := filepath.Join(t.TempDir(), "t-0")
	if _, err := segment.WriteWorkload(dir, w); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 11, defect 3: verify said 0 problems of a directory whose segment 0 holds offsets up
// to 473 while segment 316 starts at 316 (what `write --force` of a smaller workload used to
// leave). The directory is built by hand: one segment of 6 batches (offsets 0-473) from one
// log, segment 316 from another. Verify names both files, the first batch at or past 316
// (the fifth, at byte 4*16350 = 65400, offsets 316-394) and exits with a problem.
func TestVerifyReportsOverlappingSegments(t *testing.T) {
	one := writeSeed(t, 6, 1<<30, 0) // segment 0: offsets 0-473
	two := writeSeed(t, 6, 65536, 0) // segments 0 (0-315) and 316 (316-473)
	copySegment(t, two, one, 316)
	r, err := Verify([]string{one}, VerifyOptions{Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []Finding
	for _, f := range r.Findings {
		if f.Check == CheckSegmentOverlap {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("segment-overlap findings: %+v (all: %+v)", got, r.Findings)
	}
	f := got[0]
	if filepath.Base(f.File) != "00000000000000000000.log" || f.Pos != 65400 || f.Severity != SeverityError ||
		!strings.Contains(f.Message, "offsets 316 to 394") || !strings.Contains(f.Message, "00000000000000000316.log starts at offset 316") {
		t.Fatalf("finding: %+v", f)
	}
	if r.Problems() == 0 {
		t.Fatal("no problem counted")
	}
}

// Gaps between segments are not overlaps: a next segment whose base offset lies above this
// segment's last offset + 1 (compaction, retention, an empty segment rolled at a later
// offset) is what Kafka's files look like, and verify says nothing about it.
func TestVerifyAcceptsGapsBetweenSegments(t *testing.T) {
	one := writeSeed(t, 4, 1<<30, 0)   // segment 0: offsets 0-315
	two := writeSeed(t, 2, 1<<30, 400) // segment 400: offsets 400-557
	copySegment(t, two, one, 400)
	// An empty segment between them, rolled at 350 (a time roll with nothing appended yet).
	for _, suf := range []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix} {
		if err := os.WriteFile(filepath.Join(one, segment.FilenamePrefixFromOffset(350)+suf), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Verify([]string{one}, VerifyOptions{Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		if f.Check == CheckSegmentOverlap {
			t.Fatalf("a gap reported as an overlap: %+v", f)
		}
	}
}
