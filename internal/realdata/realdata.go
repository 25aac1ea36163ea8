// Package realdata gives tests the real brokers' log directories of ../shared/realdata (289
// partition directories in 12 origins, written by Kafka 0.8 to 4.2, see its README.md and
// MANIFEST.tsv), restored to their original sizes in a temporary directory. The data is never copied into the
// project: Restore runs ../shared/realdata/restore.sh into t.TempDir().
//
// Without ../shared/realdata the tests skip with a message saying that they did not run, unless
// the environment variable CI is set (CI always has ../shared): then they fail.
//
// It is test support: nothing outside _test.go files imports it.
package realdata

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// Hand-written facts from ../shared/realdata/README.md and MANIFEST.tsv (facts.go has those
// of the second collection).
const (
	// PartitionCount is the number of directories holding a .log file: 32 in the first
	// collection, 257 in the second (139 + 62 + 54 + 2, facts.go).
	PartitionCount = 289
	// OriginCount is the number of origins (top-level directories, one per repository).
	OriginCount = 12
	// MissingLogDir is the one directory that is not healthy: segment MissingLogBase of this
	// KRaft metadata log has its .index and .timeindex but its .log (over 4 MiB) was not in the
	// repository.
	MissingLogDir  = "ronem/__cluster_metadata-0"
	MissingLogBase = 839130
)

// ModuleRoot is the directory of the go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// SharedDir is ../shared/realdata from the module root.
func SharedDir() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "..", "shared", "realdata"), nil
}

// Restore restores the real data into a new temporary directory of t and returns its root
// (holding the origins: kafkalite/, ldi-poc/, ...). It skips t, loudly, when ../shared/realdata
// is absent, and fails it instead when CI is set.
func Restore(t testing.TB) string {
	t.Helper()
	src, err := SharedDir()
	if err != nil {
		t.Fatalf("realdata: %v", err)
	}
	script := filepath.Join(src, "restore.sh")
	skipIfMissing(t, script)
	dest := filepath.Join(t.TempDir(), "rd")
	cmd := exec.Command("bash", script, dest)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("realdata: %s %s: %v\n%s", script, dest, err, out.String())
	}
	return dest
}

// Stored is ../shared/realdata itself, to be read in place and never written: its .log and
// .checkpoint files are stored byte for byte (MANIFEST.tsv), only the index files lack their
// zero tails (tests of indexes Restore). It skips t, loudly, when the directory is absent, and
// fails it instead when CI is set.
func Stored(t testing.TB) string {
	t.Helper()
	dir, err := SharedDir()
	if err != nil {
		t.Fatalf("realdata: %v", err)
	}
	skipIfMissing(t, filepath.Join(dir, "MANIFEST.tsv"))
	return dir
}

// skipIfMissing skips t, loudly, when path (a file of ../shared/realdata) is absent, and fails
// it instead when CI is set: CI always has ../shared.
func skipIfMissing(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		msg := "REAL-DATA TESTS DID NOT RUN: " + path + " is not there (" + err.Error() + "). " +
			"These tests check kidx against 289 partition directories that real Kafka brokers wrote; " +
			"they live in ../shared/realdata next to the project, never inside it."
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " CI is set, and CI always has ../shared: failing.")
		}
		t.Skip(msg + " Skipping (set CI=1 to make this a failure).")
	}
}

// PartitionDirs is every directory under root holding a *.log file, sorted.
func PartitionDirs(root string) []string {
	seen := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".log") {
			seen[filepath.Dir(p)] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Origins is every top-level directory of root (one per source repository), sorted.
func Origins(root string) []string {
	ents, _ := os.ReadDir(root)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

// Name is dir relative to root with forward slashes ("ronem/__cluster_metadata-0").
func Name(root, dir string) string {
	r, err := filepath.Rel(root, dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(r)
}

// LogFiles is the *.log regular files directly in dir, sorted.
func LogFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".log") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Files is every regular file under dir, sorted.
func Files(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// CopyDir copies the regular files of src (one level: a partition directory) into a new
// temporary directory of t and returns it. Runs of zero bytes are left as holes, so a
// preallocated 10 MiB index costs no writes; sizes and contents are the same.
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copySparse(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// Whence values of lseek(2) for sparse files (Linux and the BSDs): the next byte that is data,
// the next hole.
const (
	seekData = 3
	seekHole = 4
)

// copySparse copies src to dst, leaving holes where src has holes (found with SEEK_DATA and
// SEEK_HOLE, so a restored 10 MiB zero tail is not even read) or blocks of zeros.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	size := st.Size()
	buf := make([]byte, 64<<10)
	for off := int64(0); off < size; {
		// The next data region [start, end): where SEEK_DATA/SEEK_HOLE are not supported,
		// the whole rest of the file.
		start, end := off, size
		if d, err := in.Seek(off, seekData); err == nil {
			start = d
			if h, err := in.Seek(d, seekHole); err == nil {
				end = min(h, size)
			}
		} else if errors.Is(err, syscall.ENXIO) {
			break // only a hole is left
		}
		for p := start; p < end; {
			n, err := in.ReadAt(buf[:min(int64(len(buf)), end-p)], p)
			if n > 0 && !allZero(buf[:n]) {
				if _, err := out.WriteAt(buf[:n], p); err != nil {
					out.Close()
					return err
				}
			}
			p += int64(n)
			if err != nil && !(errors.Is(err, io.EOF) && p >= end) {
				out.Close()
				return err
			}
		}
		off = max(end, start+1)
	}
	if err := out.Truncate(size); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

var zeros [64 << 10]byte

// allZero is a bytes.Equal against a zero block (assembly: quick under -race too).
func allZero(b []byte) bool { return bytes.Equal(b, zeros[:len(b)]) }
