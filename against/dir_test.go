package against

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kidx/corpus"
	"kidx/segment"
)

// logDirOfTwo writes two generated cases' partitions as a-0 and b-0 of one log directory.
func logDirOfTwo(t *testing.T) string {
	t.Helper()
	scratch, dir := t.TempDir(), t.TempDir()
	for i, name := range []string{"a-0", "b-0"} {
		c, err := corpus.WriteCase(scratch, corpus.Options{Seed: 3, Release: "4.1+"}, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(c.Dir, corpus.Partition), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wrongOnB is kidx's reader, with its hits one byte late on partition b-0 alone.
type wrongOnB struct{}

func (wrongOnB) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	if filepath.Base(partition) == "b-0" {
		return shiftedHitReader{}.Answer(ctx, partition, rules, qs)
	}
	return KidxReader{}.Answer(ctx, partition, rules, qs)
}

// Issue 24: --dir takes a whole log directory, one reader run per partition, and the report
// names each divergent partition.
func TestRunDirAsksEveryPartitionOfALogDirectory(t *testing.T) {
	dir := logDirOfTwo(t)
	rep, err := RunDir(context.Background(), dir, segment.ReadRules{Release: segment.Release41}, wrongOnB{}, AllFields)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a-0"), filepath.Join(dir, "b-0")
	if rep.Cases != 2 || !slices.Equal(rep.Asked, []string{a, b}) || len(rep.Divergences) == 0 {
		t.Fatalf("%d partitions %v, %d divergences", rep.Cases, rep.Asked, len(rep.Divergences))
	}
	for _, d := range rep.Divergences {
		if d.Dir != b || d.Divergence.Kind != MismatchHit {
			t.Errorf("divergence %s in %s, want hit in %s", d.Divergence.Key(), d.Dir, b)
		}
	}
	// One partition given alone is asked alone.
	rep, err = RunDir(context.Background(), a, segment.ReadRules{Release: segment.Release41}, wrongOnB{}, AllFields)
	if err != nil || rep.Cases != 1 || len(rep.Divergences) != 0 {
		t.Fatalf("partition a-0 alone: %+v, %v", rep, err)
	}
	if _, err := RunDir(context.Background(), t.TempDir(), segment.ReadRules{Release: segment.Release41}, wrongOnB{}, AllFields); err == nil {
		t.Fatal("an empty directory: no error")
	}
}

// Issue 24: the time limit applies per partition. A reader that takes 0.6 s on each of two
// partitions under a 1 s limit is slow, not hung: both runs end by themselves (here with
// exit status 3, a crash) and neither is a hang.
func TestRunDirTimeLimitIsPerPartition(t *testing.T) {
	dir := logDirOfTwo(t)
	sh := script(t, `sleep 0.6; exit 3`)
	rep, err := RunDir(context.Background(), dir, segment.ReadRules{Release: segment.Release41}, &Command{Line: sh, Timeout: time.Second}, AllFields)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Divergences) != 2 {
		t.Fatalf("%d divergences, want a crash in each partition", len(rep.Divergences))
	}
	for _, d := range rep.Divergences {
		if d.Divergence.Kind != FailCrash {
			t.Errorf("%s: %s, want crash", d.Dir, d.Divergence.Key())
		}
	}
}
