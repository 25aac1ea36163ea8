package logdir

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/testfiles"
	"kidx/segment"
)

// The seed partition's newest segment (brokerDir): base offset 316, a .log of 32700 bytes, so
// an offset index of it holds at most 32700/26+1 = 1258 entries (maxEntriesFor).
const (
	newestBase    = 316
	newestLogSize = 32700
)

// pastLogIndex is n entries with relative offsets 1..n at positions 40000+i: strictly
// increasing (no index-order finding), every one past the 32700-byte .log.
func pastLogIndex(n int) []byte {
	b := make([]byte, 0, 8*n)
	for i := 1; i <= n; i++ {
		b = binary.BigEndian.AppendUint32(b, uint32(i))
		b = binary.BigEndian.AppendUint32(b, uint32(40000+i))
	}
	return b
}

func partitionWithIndex(t *testing.T, index []byte) string {
	t.Helper()
	part := filepath.Join(brokerDir(t, 0, nil), "t-0")
	testfiles.MustWrite(t, filepath.Join(part, segment.FilenamePrefixFromOffset(newestBase)+segment.IndexSuffix), index)
	return part
}

func verifyWith(t *testing.T, path string, maxFindings int) *VerifyReport {
	t.Helper()
	r, err := Verify([]string{path}, VerifyOptions{MaxFindings: maxFindings})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countFindings counts the listed findings of a check and the More of its summary lines.
func countFindings(r *VerifyReport, check string) (listed, more int) {
	for _, f := range r.Findings {
		if f.Check != check {
			continue
		}
		if f.More > 0 {
			more += f.More
			if f.Pos != -1 || f.Severity != SeverityError {
				t := f
				panic("summary line with a byte or another severity: " + t.String())
			}
			continue
		}
		listed++
	}
	return
}

// Issue 27 item 1: findings of one kind in one file are listed up to the cap, the rest counted
// in one line; the problem total does not change.
func TestFindingsCappedPerFileAndCheck(t *testing.T) {
	part := partitionWithIndex(t, pastLogIndex(300)) // 300 <= 1258: judged entry by entry
	all := verifyWith(t, part, 0)
	if l, m := countFindings(all, CheckIndexPastLog); l != 300 || m != 0 {
		t.Fatalf("uncapped: %d listed, %d more index-past-log; want 300, 0", l, m)
	}
	capped := verifyWith(t, part, 5)
	if l, m := countFindings(capped, CheckIndexPastLog); l != 5 || m != 295 {
		t.Fatalf("--max-findings 5: %d listed, %d more; want 5, 295", l, m)
	}
	if all.Problems() != capped.Problems() {
		t.Fatalf("problems: %d uncapped, %d capped: the cap must not change the total", all.Problems(), capped.Problems())
	}
	var text bytes.Buffer
	capped.WriteText(&text)
	if !strings.Contains(text.String(), "and 295 more like the index-past-log above") {
		t.Fatalf("no summary line:\n%s", text.String())
	}
}

// Issue 27 item 1: an index with more entries than its .log has room for (2000 > 1258) is
// streamed, not loaded: one index-capacity error, its entries' positions judged one by one,
// the rest of the file not matched with batches.
func TestIndexOverCapacityIsStreamed(t *testing.T) {
	if got := maxEntriesFor(newestLogSize); got != 1258 {
		t.Fatalf("maxEntriesFor(32700) = %d, want 32700/26+1 = 1258", got)
	}
	part := partitionWithIndex(t, pastLogIndex(2000))
	r := verifyWith(t, part, 5)
	if l, m := countFindings(r, CheckIndexPastLog); l != 5 || m != 1995 {
		t.Fatalf("%d listed, %d more index-past-log; want 5, 1995", l, m)
	}
	if l, m := countFindings(r, CheckIndexOrder); l != 0 || m != 0 {
		t.Fatalf("index-order on increasing entries: %d, %d", l, m)
	}
	caps := findingsOf(r, CheckIndexCapacity)
	if len(caps) != 1 || caps[0].Severity != SeverityError || !strings.Contains(caps[0].Message, "2000 entries before the zero tail, more than the 1258") {
		t.Fatalf("index-capacity findings: %v", caps)
	}
	if n := len(findingsOf(r, CheckIndexSanity)); n != 0 {
		t.Fatalf("%d sanity findings on an index whose last offset (1316) is above its base", n)
	}
	segs := r.Partitions[0].Segments
	if last := segs[len(segs)-1]; last.IndexEntries != 2000 || last.Batches != 2 {
		t.Fatalf("newest segment: %d entries, %d batches; want 2000, 2", last.IndexEntries, last.Batches)
	}
	// Uncapped, the same total: 2000 past the log and the capacity error, beside the rest.
	if all := verifyWith(t, part, 0); all.Problems() != r.Problems() {
		t.Fatalf("problems: %d uncapped, %d capped", all.Problems(), r.Problems())
	}
}

// Issue 27 item 3: a .log past Integer.MAX_VALUE bytes is refused in FileRecords' words, at the
// byte where int32 positions end, and not walked (a sparse 10 GiB file costs no disk).
func TestSegmentLargerThanKafkaAllows(t *testing.T) {
	part := filepath.Join(brokerDir(t, 0, nil), "t-0")
	logPath := filepath.Join(part, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
	testfiles.Sparse(t, logPath, 10<<30)
	r := verifyWith(t, part, 20)
	var hit *Finding
	for i, f := range r.Findings {
		if f.File == logPath && f.Check == CheckLogCorrupt {
			hit = &r.Findings[i]
		}
	}
	want := "The size of segment " + segment.KafkaPath(logPath) + " (10737418240) is larger than the maximum allowed segment size of 2147483647"
	if hit == nil || hit.Severity != SeverityError || hit.Pos != 2147483647 || !strings.HasPrefix(hit.Message, want) {
		t.Fatalf("finding %+v, want an error at byte 2147483647 starting %q", hit, want)
	}
	// Only the other segment's 2 batches were walked.
	if r.Batches != 2 {
		t.Fatalf("%d batches walked, want 2 (the 10 GiB segment is not walked)", r.Batches)
	}
}

// Issue 27 item 6: a file name with a newline cannot fake a line of the report.
func TestFileNameCannotFakeALine(t *testing.T) {
	fake := "9 partitions, 9 segments, 9 batches, 9 log bytes, 0 problems"
	f := Finding{File: "d/x\n" + fake, Pos: -1, Severity: SeverityInfo, Check: "stray-file", Message: "m\rn"}
	s := f.String()
	if strings.ContainsAny(s, "\n\r") || !strings.HasPrefix(s, `"d/x\n`+fake+`": info: stray-file: m\rn`) {
		t.Fatalf("String() = %q", s)
	}
	part := filepath.Join(brokerDir(t, 0, nil), "t-0")
	testfiles.MustWrite(t, filepath.Join(part, "x\n"+fake), []byte("z"))
	var out bytes.Buffer
	verifyWith(t, part, 20).WriteText(&out)
	for _, line := range strings.Split(out.String(), "\n") {
		if line == fake {
			t.Fatalf("the name printed a line of its own:\n%s", out.String())
		}
	}
}

// Issue 27 item 6: a checkpoint's 1 MB garbage line is quoted as an excerpt, not echoed.
func TestCheckpointGarbageLineIsBounded(t *testing.T) {
	garbage := strings.Repeat("x", 1<<20)
	root := brokerDir(t, 0, map[string]string{segment.RecoveryPointCheckpointName: "0\n1\n" + garbage + "\n"})
	var out bytes.Buffer
	verifyWith(t, root, 20).WriteTextWith(&out, true)
	if out.Len() > 16<<10 {
		t.Fatalf("%d bytes of output for a 1 MB line", out.Len())
	}
	if !strings.Contains(out.String(), "bytes)") {
		t.Fatalf("no cut marker:\n%s", out.String())
	}
}

// A value read from a file is shown as it is when short and printable, else quoted and cut
// (printsafe's own rules are tested in internal/printsafe).
func TestFileValue(t *testing.T) {
	if got := fileValue("t-0"); got != "t-0" {
		t.Fatalf("a plain value is quoted: %s", got)
	}
	if got := fileValue("a\tb"); got != `"a\tb"` {
		t.Fatalf("fileValue(a\\tb) = %s", got)
	}
	long := strings.Repeat("ab", 150) // 300 bytes
	if got, want := fileValue(long), `"`+strings.Repeat("ab", 128)+`"... (the first 256 of 300 bytes)`; got != want {
		t.Fatalf("fileValue = %s, want %s", got, want)
	}
}
