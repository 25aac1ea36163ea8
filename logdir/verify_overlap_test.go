package logdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
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

// Issue 22, item 7: lestfeed's __consumer_offsets-25 holds the log cleaner's output (segment
// 0) beside the segment it was cleaned from (63), which the swap would have deleted; verify
// must say what the files show, not "files of two logs mixed". Built by hand: segment 63 of
// five one-record batches of 100 bytes (offsets 63-67), and a segment 0 holding byte-for-byte
// copies of two of them (64 and 66: the cleaner keeps a batch whole when it retains all its
// records, and skips offsets), with cleaner-offset-checkpoint at 68 in the log directory.
func TestVerifyOverlapOfCleanedSegmentAndItsSource(t *testing.T) {
	logDir := t.TempDir()
	part := filepath.Join(logDir, "t-0")
	cfg := segment.DefaultConfig()
	l, err := segment.CreateLog(part, cfg, segment.PerBatch, 63)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 5; i++ {
		segmenttest.AppendSized(t, l, 63+i, 1, 100, 1700000000000+i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(part, segment.FilenamePrefixFromOffset(63)+segment.LogSuffix))
	if err != nil || len(src) != 500 {
		t.Fatalf("source segment: %d bytes, %v", len(src), err)
	}
	cleaned := append(append([]byte(nil), src[100:200]...), src[300:400]...) // offsets 64 and 66
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
	testfiles.MustWrite(t, stem+segment.LogSuffix, cleaned)
	testfiles.MustWrite(t, stem+segment.IndexSuffix, nil)
	testfiles.MustWrite(t, stem+segment.TimeIndexSuffix, nil)
	overlapOf := func(t *testing.T) Finding {
		t.Helper()
		r, err := Verify([]string{logDir}, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Findings {
			if f.Check == CheckSegmentOverlap {
				return f
			}
		}
		t.Fatalf("no segment-overlap finding: %+v", r.Findings)
		return Finding{}
	}

	t.Run("with-cleaner-checkpoint", func(t *testing.T) {
		testfiles.MustWrite(t, filepath.Join(logDir, segment.CleanerOffsetCheckpointName), []byte("0\n1\nt 0 68\n"))
		f := overlapOf(t)
		for _, want := range []string{
			"the batch at byte 0 holds offsets 64 to 64, and the next segment 00000000000000000063.log starts at offset 63",
			"The files show a log cleaner's output next to the segment it was cleaned from",
			"each of this segment's 2 batches from offset 64 up to 67 (the last offset 00000000000000000063.log holds) has the offsets of a batch of 00000000000000000063.log and its CRC: copies",
			"this segment skips offsets twice",
			"cleaner-offset-checkpoint says the cleaner has cleaned this partition below offset 68",
			"lookups of offsets 63 to 67 read 00000000000000000063.log, the uncleaned source",
			"the swap would have deleted 00000000000000000063.log",
		} {
			if !strings.Contains(f.Message, want) {
				t.Errorf("finding %q\nlacks %q", f.Message, want)
			}
		}
		if strings.Contains(f.Message, "two logs mixed") || f.Severity != SeverityError {
			t.Errorf("finding: %+v", f)
		}
	})
	// The same copies, but nothing of the cleaner's: offsets skipped still are compaction's
	// mark, so the diagnosis holds without the checkpoint.
	t.Run("gaps-alone", func(t *testing.T) {
		if err := os.Remove(filepath.Join(logDir, segment.CleanerOffsetCheckpointName)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if f := overlapOf(t); !strings.Contains(f.Message, "a log cleaner's output") || strings.Contains(f.Message, "cleaner-offset-checkpoint") {
			t.Errorf("finding %q", f.Message)
		}
	})
	// A batch whose offsets the source does not hold at all: no copy, so files of two logs.
	t.Run("not-a-copy", func(t *testing.T) {
		other, err := segment.BuildSizedBatch(64, 2, 100, 1700000000000) // offsets 64-65: no batch of 63's
		if err != nil {
			t.Fatal(err)
		}
		testfiles.MustWrite(t, stem+segment.LogSuffix, other)
		if f := overlapOf(t); !strings.Contains(f.Message, "files of two logs mixed") || strings.Contains(f.Message, "cleaner") {
			t.Errorf("finding %q", f.Message)
		}
	})
}
