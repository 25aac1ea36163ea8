package against

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kidx/fuzz"
)

// samplePartition writes a partition directory topic-0 under dir: a .log of non-zero bytes, a
// 10 MiB .index made by Truncate (sparse) with an entry at its start and 8 bytes 5 MiB in, a
// checkpoint file and a subdirectory with a file. It returns the partition's path.
func samplePartition(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "topic-0")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(p, "sub"), 0o755))
	log := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 40)
	must(os.WriteFile(filepath.Join(p, "00000000000000000000.log"), log, 0o644))
	must(os.WriteFile(filepath.Join(p, "leader-epoch-checkpoint"), []byte("0\n1\n0 0\n"), 0o444))
	must(os.WriteFile(filepath.Join(p, "sub", "x"), []byte("x"), 0o644))
	idx, err := os.Create(filepath.Join(p, "00000000000000000000.index"))
	must(err)
	must(idx.Truncate(10 << 20))
	_, err = idx.WriteAt([]byte{0, 0, 0, 1, 0, 0, 0, 68}, 0)
	must(err)
	_, err = idx.WriteAt([]byte{9, 9, 9, 9, 9, 9, 9, 9}, 5<<20+3)
	must(err)
	must(idx.Close())
	return p
}

// snapshot is every file under dir: its path, mode and bytes (mtimes too: a reader that
// opened a file for writing and wrote nothing still may not touch the original).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		v := st.Mode().String() + " " + st.ModTime().String()
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[strings.TrimPrefix(p, dir)] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Issue 24, "--copy leaves nothing behind after a killed reader": a reader that writes into
// its directory and then hangs is killed at --timeout (its process group first), then the
// copy is removed: the scratch directory is empty, the partition unchanged, and the reader
// did run on a copy named as the partition.
func TestCopyingReaderRemovesTheCopyOfAHungReader(t *testing.T) {
	part := samplePartition(t, t.TempDir())
	before := snapshot(t, part)
	scratch, seen := t.TempDir(), filepath.Join(t.TempDir(), "seen")
	sh := script(t, `echo "$1" > "`+seen+`"; touch "$1/written-by-reader"; echo x >> "$1/00000000000000000000.log"; chmod 0555 "$1/sub"; sleep 60`)
	r := &CopyingReader{Reader: &Command{Line: sh, Timeout: time.Second}, Scratch: scratch}
	start := time.Now()
	_, err := r.Answer(context.Background(), part, rules21, twoQueries)
	var f *Failure
	if !errors.As(err, &f) || f.Kind != FailHang {
		t.Fatalf("err %v, want a hang", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("the hung reader took %s", el)
	}
	ents, err := os.ReadDir(scratch)
	if err != nil || len(ents) != 0 {
		t.Fatalf("scratch holds %v (%v) after the run", ents, err)
	}
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if dir := strings.TrimSpace(string(got)); !strings.HasPrefix(dir, scratch+"/") || filepath.Base(dir) != "topic-0" {
		t.Fatalf("the reader got %q, want a copy named topic-0 under %s", dir, scratch)
	}
	after := snapshot(t, part)
	if len(after) != len(before) {
		t.Fatalf("partition files %d before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
}

// CopyPartition copies every file byte for byte, keeps modes (made writable by the owner)
// and leaves the index's blocks of zeros as holes: the 10 MiB index takes a few blocks.
func TestCopyPartitionKeepsBytesAndHoles(t *testing.T) {
	src := samplePartition(t, t.TempDir())
	dst := filepath.Join(t.TempDir(), "topic-0")
	if err := CopyPartition(src, dst); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"00000000000000000000.log", "00000000000000000000.index", "leader-epoch-checkpoint", "sub/x"} {
		a, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s: copy differs (%v)", name, err)
		}
	}
	st, err := os.Stat(filepath.Join(dst, "leader-epoch-checkpoint"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("checkpoint's copy: %v %v, want 0644 (0444 made writable by its owner)", st.Mode(), err)
	}
	blocks := func(p string) int64 {
		var s syscall.Stat_t
		if err := syscall.Stat(p, &s); err != nil {
			t.Fatal(err)
		}
		return s.Blocks * 512
	}
	// Only where the filesystem keeps the original sparse can the copy be asked to.
	if orig := blocks(filepath.Join(src, "00000000000000000000.index")); orig < 1<<20 {
		if got := blocks(filepath.Join(dst, "00000000000000000000.index")); got > 1<<20 {
			t.Fatalf("the index's copy takes %d bytes on disk (the original %d)", got, orig)
		}
	}
}

// BenchmarkCopyPartition is --copy's cost per run on a partition of a 64 MiB .log of data and
// a preallocated 10 MiB .index and .timeindex (zero tails left as holes): MB/s of the
// partition's size.
func BenchmarkCopyPartition(b *testing.B) {
	src := filepath.Join(b.TempDir(), "topic-0")
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	log := bytes.Repeat([]byte{7}, 64<<20)
	if err := os.WriteFile(filepath.Join(src, "00000000000000000000.log"), log, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"00000000000000000000.index", "00000000000000000000.timeindex"} {
		if err := os.WriteFile(filepath.Join(src, name), make([]byte, 10<<20), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	size := float64(84 << 20)
	scratch := b.TempDir()
	b.SetBytes(int64(size))
	for b.Loop() {
		dst := filepath.Join(scratch, "topic-0")
		if err := CopyPartition(src, dst); err != nil {
			b.Fatal(err)
		}
		if err := os.RemoveAll(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAgainstInProcessCopying is BenchmarkAgainstInProcess with --copy: the cost of a
// private copy of each generated case's partition (cases/s), the copies made where kidx diff
// makes them for generated cases (fuzz.TempRoot: tmpfs where there is one).
func BenchmarkAgainstInProcessCopying(b *testing.B) {
	var cases int64
	var secs float64
	scratch, err := os.MkdirTemp(fuzz.TempRoot(), "kidx-copy-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(scratch)
	for b.Loop() {
		rep, err := Run(context.Background(), Options{Seed: 1, Cases: 200, Reader: &CopyingReader{Reader: KidxReader{}, Scratch: scratch}})
		if err != nil {
			b.Fatal(err)
		}
		cases += rep.Cases
		secs += rep.Elapsed.Seconds()
	}
	b.ReportMetric(float64(cases)/secs, "cases/s")
}
