package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Kafka's own golden follower files (testdata/kafka-golden/follower3-*, GOLDEN-README.md): the
// blog stream fetched three 16350-byte batches per append, segment.bytes=65536,
// index.interval.bytes=4096. Under the per-append rule (Kafka up to 3.8.x, 3.9.0, 4.0.0) each
// full segment is one three-batch append, never indexed (the first append of a segment never
// is), and the last segment's one-batch append gets (5055, 49050). Under the per-batch rule
// (3.9.1+, 4.0.1+, 4.1+) the same stream gives every batch after a segment's first its entry
// (follower3-per-batch: 157@16350, 236@32700, ...). The .log files of the two cases are
// identical; only the indexes differ.

const (
	followersPerAppend = "../../testdata/kafka-golden/follower3-per-append"
	followersPerBatch  = "../../testdata/kafka-golden/follower3-per-batch"
)

// caseInterval is indexIntervalBytes of a case's kafka-input.json.
func caseInterval(t *testing.T, dir string) int64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "kafka-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		IndexIntervalBytes *int64 `json:"indexIntervalBytes"`
	}
	if err := json.Unmarshal(data, &in); err != nil || in.IndexIntervalBytes == nil {
		t.Fatalf("%s/kafka-input.json: indexIntervalBytes: %v", dir, err)
	}
	return *in.IndexIntervalBytes
}

// TestGoldenFollowersPerAppendEra: Kafka 3.8.1 (per-append rule) wrote exactly these files, so
// verify under that release finds nothing, with or without the case's interval.
func TestGoldenFollowersPerAppendEra(t *testing.T) {
	files := filepath.Join(followersPerAppend, "files")
	interval := caseInterval(t, followersPerAppend)
	if interval != 4096 {
		t.Fatalf("interval %d, GOLDEN-README says 4096", interval)
	}
	for _, args := range [][]string{
		{"--kafka-version", "3.8.1", files},
		{"--kafka-version", "3.8.1", "--config", "index.interval.bytes=" + strconv.FormatInt(interval, 10), files},
	} {
		out, errOut, code := runKidx(t, append([]string{"verify"}, args...)...)
		if code != 0 {
			t.Errorf("verify %s: exit %d, want 0\n%s%s", strings.Join(args, " "), code, lastLines(out, 12), errOut)
		}
	}
}

// TestGoldenFollowersPerBatchEra: under Kafka 4.1.0 (per-batch rule) with the case's interval,
// the per-append files are wrong: every segment misses entries the per-batch rule makes (its
// second and third batches begin more than 4096 bytes after the last entry or the segment's
// start). Only byte-counter restarts before them could explain that, and those left none of a
// shutdown's marks (no producer snapshot, no time-index entry that LogSegment.close or recover
// would have appended): under the release and interval claimed, a problem in every one of the
// 21 segments (exit 1). The per-batch files, which Kafka wrote under that rule, are clean (so
// the failure is about the files, not the release).
//
// What the files do not have is a DumpLogSegments mismatch ("Index offset: X, log offset: Y"):
// their only entry, (5055, 49050), names the last offset of the batch at 49050, and
// DumpLogSegments' check is the same in every era. verify must not invent one.
func TestGoldenFollowersPerBatchEra(t *testing.T) {
	interval := "index.interval.bytes=" + strconv.FormatInt(caseInterval(t, followersPerAppend), 10)

	files := filepath.Join(followersPerBatch, "files")
	if out, errOut, code := runKidx(t, "verify", "--kafka-version", "4.1.0", "--config", interval, files); code != 0 {
		t.Errorf("per-batch files under 4.1.0: exit %d, want 0\n%s%s", code, lastLines(out, 12), errOut)
	}

	files = filepath.Join(followersPerAppend, "files")
	out, errOut, code := runKidx(t, "verify", "--kafka-version", "4.1.0", "--config", interval, "--format", "json", files)
	if code != 1 {
		t.Fatalf("per-append files under 4.1.0: exit %d, want 1\n%s%s", code, lastLines(out, 12), errOut)
	}
	var doc verifyDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ents, err := os.ReadDir(files)
	if err != nil {
		t.Fatal(err)
	}
	segments := map[string]bool{} // 20-digit stem of every segment -> has a problem
	for _, e := range ents {
		if stem, ok := strings.CutSuffix(e.Name(), ".log"); ok {
			segments[stem] = false
		}
	}
	if len(segments) != 21 {
		t.Fatalf("%d segments, want 21", len(segments))
	}
	for _, f := range problemsOf(doc.Findings) {
		stem, _, _ := strings.Cut(filepath.Base(f.File), ".")
		if _, ok := segments[stem]; ok {
			segments[stem] = true
		}
		if strings.Contains(f.Message, "Index offset:") {
			t.Errorf("a DumpLogSegments mismatch these files do not have: %s", f)
		}
	}
	for stem, bad := range segments {
		if !bad {
			t.Errorf("segment %s: no problem reported; its lookups scan past the per-batch bound", stem)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... %d lines", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}
