package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 27 item 4: a partition directory or a segment file that cannot be read is reported by
// explain and by whatif/sim --from-logdir in verify's words ("unreadable: open ...: permission
// denied"), never skipped (exit 0) nor given a wrong reason ("no index files", "the offset
// index was deleted"). explain exits 1, as verify does for an unreadable entry of a directory it
// reads; a replay cannot be built without the files and exits 2 (docs/cli.md, "Unreadable
// files").

// unprivileged runs `kidx ARGS` (this test binary as kidx, readonly_trace_test.go) where file
// modes bind: as root (CI), under setpriv with the two capabilities that bypass them
// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) dropped from the bounding set, so that a mode-000
// file owned by root cannot be opened; as another user, directly.
func unprivileged(t *testing.T) func(args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var prefix []string
	if os.Geteuid() == 0 {
		p, err := exec.LookPath("setpriv")
		if err != nil {
			msg := "THE UNREADABLE-FILE TESTS DID NOT RUN: running as root without setpriv (util-linux) to drop CAP_DAC_OVERRIDE, so mode 000 does not stop a read."
			if os.Getenv("CI") != "" {
				t.Fatal(msg + " CI is set: failing.")
			}
			t.Skip(msg + " Skipping (set CI=1 to make this a failure).")
		}
		prefix = []string{p, "--bounding-set=-dac_override,-dac_read_search"}
	}
	return func(args ...string) (string, string, int) {
		argv := append(append(append([]string{}, prefix...), os.Args[0]), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = asKidxEnviron()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if cmd.ProcessState == nil {
			t.Fatalf("%v: %v", argv, err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
}

// writtenPartition writes the seed post's 16-segment partition (docs/background.md) at dir
// and returns its second segment's files' common prefix (".../00000000000000000316").
func writtenPartition(t *testing.T, dir string) string {
	t.Helper()
	if _, errOut, code := runKidx(t, "write", "--workload", "../../testdata/kafka-golden/blog-i4096/kafka-input.json", "--dir", dir); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) < 3 {
		t.Fatalf("%s: %d segments, want several", dir, len(logs))
	}
	return strings.TrimSuffix(logs[1], ".log")
}

func chmodOrFatal(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	// Let t.TempDir's cleanup remove it.
	t.Cleanup(func() { os.Chmod(path, 0o755) })
}

func TestUnreadableIsReportedNotSkipped(t *testing.T) {
	kidx := unprivileged(t)
	root := t.TempDir()

	// A log directory of two partitions, one of which cannot be listed.
	logDir := filepath.Join(root, "logdir")
	writtenPartition(t, filepath.Join(logDir, "a-0"))
	locked := filepath.Join(logDir, "b-0")
	writtenPartition(t, locked)
	chmodOrFatal(t, locked, 0)
	dirWords := "unreadable: open " + locked + ": permission denied"

	// The reference: verify reads the mode as this test means it (else the test proves nothing).
	if out, errOut, code := kidx("verify", logDir); code != 1 || !strings.Contains(out, locked+": warning: "+dirWords) {
		t.Fatalf("verify %s: exit %d, want 1 and %q:\n%s%s", logDir, code, dirWords, out, errOut)
	}

	t.Run("explain-logdir", func(t *testing.T) {
		out, errOut, code := kidx("explain", logDir)
		want := "partition " + locked + ": " + dirWords + ": not explained\n"
		if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "a-0: reproduced byte for byte") {
			t.Fatalf("exit %d, want 1, the line %q and a-0 reproduced:\n%s%s", code, want, out, errOut)
		}
		out, _, code = kidx("explain", "--format", "json", logDir)
		var doc struct {
			Partitions []struct {
				Dir        string `json:"dir"`
				Reproduced bool   `json:"reproduced"`
				Unreadable []struct {
					File, Check, Message string
				} `json:"unreadable"`
			} `json:"partitions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || len(doc.Partitions) != 2 {
			t.Fatalf("json: exit %d, %v, want 2 partitions:\n%s", code, err, out)
		}
		b := doc.Partitions[1]
		if b.Dir != locked || b.Reproduced || len(b.Unreadable) != 1 || b.Unreadable[0].Check != "unreadable" || b.Unreadable[0].Message != "open "+locked+": permission denied" {
			t.Fatalf("json: partition %+v, want %s unreadable", b, locked)
		}
	})

	t.Run("replay-logdir", func(t *testing.T) {
		for _, cmd := range []string{"whatif", "sim"} {
			_, errOut, code := kidx(cmd, "--from-logdir", logDir)
			if code != 2 || !strings.Contains(errOut, locked+": "+dirWords) {
				t.Errorf("%s --from-logdir %s: exit %d, want 2 naming %s as %q:\n%s", cmd, logDir, code, locked, dirWords, errOut)
			}
		}
		// Asked for the readable partition by name, the other one does not matter.
		if _, errOut, code := kidx("sim", "--from-logdir", logDir, "--topic", "a", "--partition", "0"); code != 0 {
			t.Errorf("sim --from-logdir --topic a: exit %d, want 0:\n%s", code, errOut)
		}
		if _, errOut, code := kidx("sim", "--from-logdir", logDir, "--topic", "b", "--partition", "0"); code != 2 || !strings.Contains(errOut, dirWords) {
			t.Errorf("sim --from-logdir --topic b: exit %d, want 2 and %q:\n%s", code, dirWords, errOut)
		}
	})

	// One file of a segment with mode 000: the offset index, the time index, the log.
	for _, ext := range []string{".index", ".timeindex", ".log"} {
		t.Run("file"+ext, func(t *testing.T) {
			dir := filepath.Join(root, "one"+strings.ReplaceAll(ext, ".", "-"), "c-0")
			file := writtenPartition(t, dir) + ext
			chmodOrFatal(t, file, 0)
			words := file + ": unreadable: open: permission denied"
			if out, _, code := kidx("verify", dir); code != 1 || !strings.Contains(out, file+": warning: unreadable: open: permission denied") {
				t.Fatalf("verify: exit %d, want 1 and %q:\n%s", code, words, out)
			}
			out, errOut, code := kidx("explain", dir)
			if code != 1 || !strings.Contains(out, "\n    "+words+"\n") || !strings.Contains(out, ": not explained: 1 file unreadable\n") {
				t.Errorf("explain: exit %d, want 1 and %q:\n%s%s", code, words, out, errOut)
			}
			for _, wrong := range []string{"deleted", "no index files", "no .log", "no .index", "no .timeindex"} {
				if strings.Contains(out, wrong) {
					t.Errorf("explain gives a wrong reason (%q):\n%s", wrong, out)
				}
			}
			for _, cmd := range []string{"whatif", "sim"} {
				_, errOut, code := kidx(cmd, "--from-logdir", dir)
				if code != 2 || !strings.Contains(errOut, words+": the partition cannot be replayed") {
					t.Errorf("%s --from-logdir: exit %d, want 2 and %q:\n%s", cmd, code, words, errOut)
				}
			}
		})
	}
}
