package realdata

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestPartitionDirsAndCopy(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string, data []byte) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("b/t-0/00000000000000000000.log", nil)
	mk("a/t-1/00000000000000000005.log", []byte{1})
	mk("a/t-2/00000000000000000005.index", []byte{1})      // no .log: not a partition dir here
	mk("a/meta.properties", []byte("x"))                   // root file
	mk("a/t-1/00000000000000000005.log.deleted", []byte{}) // not *.log
	big := make([]byte, 200<<10)
	big[3], big[150<<10] = 7, 9 // zeros around two non-zero bytes
	mk("a/t-1/00000000000000000005.index", big)

	// A sparse file as restore.sh leaves it: data, then a hole made by extending the size, a
	// byte, and a hole to the end.
	sparse := filepath.Join(root, "a/t-1/00000000000000000005.timeindex")
	if err := os.WriteFile(sparse, []byte("head"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 3<<20); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(sparse, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{5}, 1<<20+3)
	f.Close()
	if err := os.Truncate(sparse, 10<<20); err != nil {
		t.Fatal(err)
	}

	got := PartitionDirs(root)
	want := []string{filepath.Join(root, "a/t-1"), filepath.Join(root, "b/t-0")}
	if !slices.Equal(got, want) {
		t.Fatalf("PartitionDirs = %v, want %v", got, want)
	}
	if n := Name(root, got[0]); n != "a/t-1" {
		t.Errorf("Name = %q", n)
	}
	if l := LogFiles(got[0]); len(l) != 1 || filepath.Base(l[0]) != "00000000000000000005.log" {
		t.Errorf("LogFiles = %v", l)
	}
	if o := Origins(root); len(o) != 2 || filepath.Base(o[0]) != "a" || filepath.Base(o[1]) != "b" {
		t.Errorf("Origins = %v", o)
	}
	if f := Files(filepath.Join(root, "a")); len(f) != 6 {
		t.Errorf("Files = %v, want 6", f)
	}

	cp := CopyDir(t, got[0])
	for _, name := range []string{"00000000000000000005.log", "00000000000000000005.index", "00000000000000000005.log.deleted", "00000000000000000005.timeindex"} {
		a, _ := os.ReadFile(filepath.Join(got[0], name))
		b, err := os.ReadFile(filepath.Join(cp, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: copy differs (%d vs %d bytes, %v)", name, len(a), len(b), err)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "realdata", "realdata.go")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
}
