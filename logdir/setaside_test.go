package logdir

import (
	"os"
	"path/filepath"
	"testing"

	"kidx/segment"
)

// TestUnreadableNamesTheFileThatFailed pins issue 11, defect 4: a segment whose index could
// not be opened was reported as "unreadable" under its .log's name. The finding now names the
// index. (A directory stands for the unopenable file: tests may run as root, where mode 000
// does not stop a read.)
func TestUnreadableNamesTheFileThatFailed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "testdata", "kafka-golden", "blog-i4096", "files", "00000000000000000000.log")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "00000000000000000000.log")
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "00000000000000000000.index")
	if err := os.Mkdir(index, 0o755); err != nil {
		t.Fatal(err)
	}
	pd := &PartitionDir{Path: dir, Partition: -1, Segments: []segment.SegmentFiles{{BaseOffset: 0, Log: log, Index: index}}}
	r := VerifyPartition(pd, nil, VerifyOptions{})
	var got []Finding
	for _, f := range r.Findings {
		if f.Check == CheckUnreadable {
			got = append(got, f)
		}
	}
	want := "00000000000000000000.index: not a regular file: the segment is not read"
	if len(got) != 1 || got[0].File != index || filepath.Base(got[0].File)+": "+got[0].Message != want {
		t.Fatalf("unreadable findings %v, want one on %s: %q", got, index, want)
	}
}
