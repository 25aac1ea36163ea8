package segment_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
)

func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Issue 11, defect 2: a failure in the middle of a write (here injected before step 6, as a
// full disk would strike) leaves nothing: no target directory, no temporary directory; and
// with replace, the directory that was there is left as it was.
func TestWriteDirFailureMidWriteLeavesNothing(t *testing.T) {
	injected := errors.New("injected failure")
	segment.SetWriteStepHook(func(step int) error {
		if step == 6 {
			return injected
		}
		return nil
	})
	defer segment.SetWriteStepHook(nil)
	parent := t.TempDir()
	dir := filepath.Join(parent, "t-0")
	if _, err := segment.WriteWorkloadDir(dir, segmenttest.SeedWorkload(10), false); !errors.Is(err, injected) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	if names := namesIn(t, parent); len(names) != 0 {
		t.Fatalf("the failed write left %v", names)
	}

	segment.SetWriteStepHook(nil)
	if _, err := segment.WriteWorkloadDir(dir, segmenttest.SeedWorkload(4), false); err != nil {
		t.Fatal(err)
	}
	before := namesIn(t, dir)
	logBefore, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.log"))
	segment.SetWriteStepHook(func(step int) error {
		if step == 6 {
			return injected
		}
		return nil
	})
	if _, err := segment.WriteWorkloadDir(dir, segmenttest.SeedWorkload(10), true); !errors.Is(err, injected) {
		t.Fatalf("replace: err = %v, want the injected failure", err)
	}
	if names := namesIn(t, parent); strings.Join(names, " ") != "t-0" {
		t.Fatalf("the failed replace left %v beside the target", names)
	}
	logAfter, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.log"))
	if got := namesIn(t, dir); strings.Join(got, " ") != strings.Join(before, " ") || string(logAfter) != string(logBefore) {
		t.Fatalf("the failed replace changed the old directory: %v (was %v)", got, before)
	}
}

// Validate reports what the writer would reject mid-write, before any file exists: a batch
// below the minimum of its record count, a 1-record batch of a size no record has (126 =
// 61 + 65; records are 64 or 66 bytes, never 65), a recipe batch of no record.
func TestWorkloadValidateCatchesWhatTheWriterRejects(t *testing.T) {
	for _, c := range []struct {
		b    segment.BatchSpec
		want string
	}{
		{segment.BatchSpec{Records: 1, Bytes: 61}, "at least 68 bytes"},
		{segment.BatchSpec{Records: 2, Bytes: 74}, "at least 75 bytes"},
		{segment.BatchSpec{Records: 1, Bytes: 126}, "no record layout"},
	} {
		w := segmenttest.SeedWorkload(3)
		w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{c.b}})
		err := w.Validate()
		if err == nil || !strings.Contains(err.Error(), "append 3 batch 0") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Validate = %v, want %q", c.b, err, c.want)
		}
		parent := t.TempDir()
		if _, err := segment.WriteWorkloadDir(filepath.Join(parent, "t-0"), w, false); err == nil {
			t.Errorf("%+v: written", c.b)
		}
		if names := namesIn(t, parent); len(names) != 0 {
			t.Errorf("%+v: left %v", c.b, names)
		}
	}
	r := &segment.Recipe{Config: segment.DefaultConfig(), Appends: [][]segment.RecipeBatch{{{Records: 3}}, {{Records: 0}}}}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "append 1 batch 0") {
		t.Errorf("recipe with a 0-record batch: Validate = %v", err)
	}
}

// MinBatchSize's closed form against the sum it stands for, record by record
// (recordSize of a null key and value, timestamp delta 0), across every varint step of the
// offset delta up to 2^20+2; and by hand: 68 (1 record), 509 (64), 629 (79, the seed post's, docs/background.md).
func TestMinBatchSizeClosedForm(t *testing.T) {
	for n, want := range map[int]int{0: 61, 1: 68, 64: 509, 65: 517, 79: 629} {
		if got := segment.MinBatchSize(n); got != want {
			t.Errorf("MinBatchSize(%d) = %d, want %d", n, got, want)
		}
	}
	sum := segment.RecordBatchOverhead
	for n := 1; n <= 1<<20+2; n++ {
		sum += segment.RecordSize(int32(n-1), 0, -1, -1)
		if n < 70 || n%997 == 0 || (n > 8185 && n < 8200) || n > 1<<20-3 {
			if got := segment.MinBatchSize(n); got != sum {
				t.Fatalf("MinBatchSize(%d) = %d, the sum of the records is %d", n, got, sum)
			}
		}
	}
}
