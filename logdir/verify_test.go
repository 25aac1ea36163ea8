package logdir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"kidx/internal/kafkagolden"
	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// expectedMismatches derives DumpLogSegments.dumpIndex's mismatches from
// Kafka's own read-back (kafka-output.json): entry (o, p) mismatches when
// the batch Kafka found at position p does not end at o.
func expectedMismatches(gs kafkagolden.Segment) []string {
	var out []string
	for _, e := range gs.OffsetIndex {
		for _, b := range gs.Batches {
			if b[2] == e[1] && b[1] != e[0] {
				out = append(out, fmt.Sprintf("Index offset: %d, log offset: %d", e[0], b[1]))
			}
		}
	}
	return out
}

// TestVerifyGolden: verify (deep) reports nothing on Kafka's per-batch
// files, and on per-append files exactly DumpLogSegments' index mismatches
// (docs/kafka.md §10: "Under the OLD rule, any multi-batch append that received
// an entry produces a mismatch"), worded as DumpLogSegments words them, as
// info explained by the per-append releases (2.0 to 3.9.0/4.0.0, KAFKA-6530):
// no problem (one finding per file and kind, with the count). Judged as a
// per-batch release wrote them, they are errors, each listed.
func TestVerifyGolden(t *testing.T) {
	total := 0
	for _, name := range testfiles.GoldenCases(t) {
		o := testfiles.ReadGoldenOutput(t, name)
		opts := VerifyOptions{Deep: true}
		r, err := Verify([]string{filepath.Join(testfiles.GoldenDir, name, "files")}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, gs := range o.Segments {
			want = append(want, expectedMismatches(gs)...)
		}
		explained := 0
		for _, f := range r.Findings {
			if f.Check != CheckIndexMismatch {
				t.Errorf("%s: unexpected finding %v", name, f)
				continue
			}
			if f.Severity != SeverityInfo || !strings.Contains(f.Explanation, "Kafka 2.0-4.0.0") {
				t.Errorf("%s: a per-append mismatch not explained by the per-append releases: %v", name, f)
			}
			explained += max(f.Count, 1)
		}
		if r.Problems() != 0 || explained != len(want) {
			t.Errorf("%s: %d problems, %d explained mismatches, want 0 and %d", name, r.Problems(), explained, len(want))
		}
		perBatch := EraForRule(segment.PerBatch)
		rb, err := Verify([]string{filepath.Join(testfiles.GoldenDir, name, "files")}, VerifyOptions{Era: &perBatch})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rb.Findings {
			if f.Check == CheckIndexMismatch && f.Severity == SeverityError {
				got = append(got, f.Message)
			}
		}
		if rb.Problems() != len(want) {
			t.Errorf("%s judged as per-batch files: %d problems, want the %d mismatches", name, rb.Problems(), len(want))
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: mismatches\n got %q\nwant %q", name, got, want)
		}
		if o.Rule == "per-batch" && len(r.Findings) != 0 {
			t.Errorf("%s: per-batch files must verify clean", name)
		}
		total += len(want)
		if r.Segments != len(o.Segments) {
			t.Errorf("%s: %d segments verified, Kafka wrote %d", name, r.Segments, len(o.Segments))
		}
	}
	if total == 0 {
		t.Fatal("no per-append mismatch in the golden set: the test checks nothing")
	}
}

// TestVerifyScanBoundGolden: with the interval given, the per-batch golden
// files satisfy ScanBound (docs/kafka.md §2.2 derivation).
func TestVerifyScanBoundGolden(t *testing.T) {
	for _, name := range testfiles.GoldenCases(t) {
		o := testfiles.ReadGoldenOutput(t, name)
		if o.Rule != "per-batch" {
			continue
		}
		data := testfiles.MustRead(t, filepath.Join(testfiles.GoldenDir, name, "workload.json"))
		w, err := segment.ParseWorkload(data)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Verify([]string{filepath.Join(testfiles.GoldenDir, name, "files")}, VerifyOptions{HaveInterval: true, IndexIntervalBytes: w.Config.IndexIntervalBytes})
		if err != nil {
			t.Fatal(err)
		}
		if r.Problems() != 0 {
			t.Errorf("%s: %v", name, r.Findings)
		}
	}
}

// TestVerifyKafkaSummaryWording: the stderr summary reads as
// DumpLogSegments prints it ("Mismatches in :<absolute path>", then
// "  Index offset: o, log offset: l" in descending index-offset order).
func TestVerifyKafkaSummaryWording(t *testing.T) {
	// Judged by the per-batch era's rules, these per-append files are wrong, and the summary
	// lists DumpLogSegments' mismatches.
	perBatch := EraForRule(segment.PerBatch)
	r, err := Verify([]string{filepath.Join(testfiles.GoldenDir, "random-i512-per-append", "files", "00000000000000000000.index")}, VerifyOptions{Era: &perBatch})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r.WriteKafkaSummary(&buf)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Mismatches in :/") || !strings.HasSuffix(lines[0], "00000000000000000000.index") {
		t.Fatalf("summary %q", buf.String())
	}
	prev := int64(1 << 62)
	for _, l := range lines[1:] {
		var o, lo int64
		if _, err := fmt.Sscanf(l, "  Index offset: %d, log offset: %d", &o, &lo); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if o >= prev {
			t.Fatalf("not descending: %q", buf.String())
		}
		prev = o
	}
}

// A .log cut while verify holds it open (a follower's LogSegment.truncateTo on a running
// broker) is not a preallocated .log: past the new end there are no zeros, the bytes are gone.
// The walk's error at the cut (the mapped read's fault, or pread's short read) is the finding;
// before, ZerosFrom counted the lost bytes as zeros (holes past the listed data regions) and
// verify reported "preallocated-log" (issue 13, item 4: readers under a live broker).
func TestVerifyLogShrankUnderTheWalk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 300
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 596 bytes, then 500 each: a batch starts at byte 4096 (596 + 7*500), a page boundary, so a
	// mapped read past a cut there faults rather than reading the last page's zeros.
	for i := int64(0); i < 40; i++ {
		size := 500
		if i == 0 {
			size = 596
		}
		segmenttest.AppendSized(t, l, i, 1, size, 1700000000000+i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
	saved, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	const cut = 4096
	for _, deep := range []bool{false, true} {
		if err := os.WriteFile(logPath, saved, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Verify([]string{dir}, VerifyOptions{Deep: deep, Visit: func(sf segment.SegmentFiles, _ *segment.Segment) SegmentVisitor {
			if err := os.Truncate(sf.Log, cut); err != nil {
				t.Error(err)
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		corrupt := false
		for _, f := range rep.Findings {
			if f.Check == CheckPreallocatedLog {
				t.Errorf("deep %v: the cut .log reported as preallocated: %s", deep, f)
			}
			corrupt = corrupt || f.Check == CheckLogCorrupt && f.File == logPath && f.Pos == cut
		}
		if !corrupt {
			t.Errorf("deep %v: no log-corrupt finding at byte %d: %v", deep, cut, rep.Findings)
		}
	}
}
