package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22, item 2: "A path with no Kafka log directory or partition in it is a usage error
// (exit 2, naming what was expected), never 'healthy'." An empty directory and one holding
// only files and directories Kafka does not know are refused by every command that reads a
// log directory; one holding a log directory's own files (a broker with no partition yet) is
// a log directory.
func TestNoLogDirIsAUsageError(t *testing.T) {
	empty := t.TempDir()
	stray := t.TempDir()
	writeFile(t, stray, "notes.txt", "not Kafka's")
	if err := os.Mkdir(filepath.Join(stray, "photos"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, stray} {
		for _, cmd := range [][]string{{"verify"}, {"verify", "--deep"}, {"analyze"}, {"explain"}, {"whatif", "--from-logdir"}, {"sim", "--from-logdir"}} {
			args := append(append([]string{}, cmd...), dir)
			out, errOut, code := runKidx(t, args...)
			if code != 2 || !strings.Contains(errOut, dir+": no Kafka log directory or partition here") || !strings.Contains(errOut, "meta.properties") {
				t.Errorf("kidx %s: exit %d, stderr %q, stdout %q; want exit 2 naming the path and what a log directory holds", strings.Join(args, " "), code, errOut, firstLine(out))
			}
		}
	}
	// A broker's log directory before its first partition: meta.properties alone.
	fresh := t.TempDir()
	writeFile(t, fresh, "meta.properties", "version=1\nnode.id=1\ncluster.id=abc\n")
	if _, errOut, code := runKidx(t, "verify", fresh); code != 0 {
		t.Errorf("verify of a log directory holding only meta.properties: exit %d: %s", code, errOut)
	}
}
