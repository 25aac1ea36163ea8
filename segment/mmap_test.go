package segment

import (
	"os"
	"path/filepath"
	"testing"
)

// A broker can truncate a segment while kidx has it mapped (follower truncation, recovery):
// reading the lost pages raises SIGBUS. Reads must turn that into an error naming the file.
func TestMappedLogTruncatedUnderneath(t *testing.T) {
	src := "../testdata/kafka-golden/blog-i4096/files/00000000000000000316.log"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "00000000000000000316.log")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := OpenLogWith(p, AccessMmap)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.NextBatch(16350, l.Size()); err != nil {
		t.Fatalf("before truncation: %v", err)
	}
	if err := os.Truncate(p, 100); err != nil {
		t.Fatal(err)
	}
	_, err = l.NextBatch(32700, l.Size())
	if err == nil {
		t.Fatal("a read past the truncated end must fail")
	}
	fe, ok := err.(*FormatError)
	if !ok || fe.File != p || fe.Pos != 32700 {
		t.Fatalf("error %v (%T) must name the file and position", err, err)
	}
}
