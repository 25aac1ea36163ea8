package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 27 item 6: a file or directory name holding a newline or an escape sequence cannot
// shape kidx's output. It is printed as Go's %q prints it (internal/printsafe), so every item
// stays on its one line and no control character reaches the terminal (docs/cli.md, "Names
// and input in the output"). The expected lines are written out by hand.

const (
	fakeLine   = "1 partition, 0 problems"  // what a name could try to print as a line of its own
	newlineDir = "evil\n" + fakeLine + "-0" // a partition directory (topic "evil\n1 partition, 0 problems")
	escapeDir  = "\x1b[2J-0"                // clears the screen when printed raw
	strayFile  = "stray\nDumping elsewhere" // a file dump lists but does not know
)

// checkShapeless fails when out holds an ESC byte or a line a name made.
func checkShapeless(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("%s: an ESC reached the output:\n%q", what, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, fakeLine) || strings.HasPrefix(line, "Dumping elsewhere") {
			t.Errorf("%s: a name printed a line of its own: %q\n%s", what, line, out)
		}
	}
}

// countPrefix counts out's lines that start with prefix.
func countPrefix(out, prefix string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			n++
		}
	}
	return n
}

func TestHostileNamesStayOnOneLine(t *testing.T) {
	root := t.TempDir()
	logDir := filepath.Join(root, "ld")
	evil, esc := filepath.Join(logDir, newlineDir), filepath.Join(logDir, escapeDir)
	for _, dir := range []string{evil, esc} {
		if _, errOut, code := runKidx(t, "write", "--workload", "../../testdata/kafka-golden/blog-i4096/kafka-input.json", "--dir", dir); code != 0 {
			t.Fatalf("write %q: exit %d: %s", dir, code, errOut)
		}
	}
	if err := os.WriteFile(filepath.Join(evil, strayFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The two names as %q writes them, by hand.
	evilQ := `"` + logDir + `/evil\n1 partition, 0 problems-0"`
	escQ := `"` + logDir + `/\x1b[2J-0"`

	t.Run("explain", func(t *testing.T) {
		out, errOut, code := runKidx(t, "explain", logDir)
		if code != 0 {
			t.Fatalf("exit %d:\n%s%s", code, out, errOut)
		}
		checkShapeless(t, "explain", out+errOut)
		for _, want := range []string{
			"partition " + escQ + ": reproduced byte for byte (16 segments)\n",
			"partition " + evilQ + ": reproduced byte for byte (16 segments)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("explain: no line %q:\n%s", want, out)
			}
		}
		if n := countPrefix(out, "partition "); n != 2 {
			t.Errorf("explain: %d partition lines, want 2:\n%s", n, out)
		}
	})

	t.Run("dump", func(t *testing.T) {
		out, errOut, code := runKidx(t, "dump", evil)
		if code != 0 {
			t.Fatalf("exit %d:\n%s%s", code, out, errOut)
		}
		checkShapeless(t, "dump", out+errOut)
		// 16 segments of three files, and the stray file: one Dumping line each.
		if n := countPrefix(out, "Dumping "); n != 49 {
			t.Errorf("dump: %d Dumping lines, want 49:\n%s", n, out)
		}
		first := "Dumping " + strings.TrimSuffix(evilQ, `"`) + `/00000000000000000000.index"` + "\n"
		stray := `Ignoring unknown file ` + strings.TrimSuffix(evilQ, `"`) + `/stray\nDumping elsewhere"` + "\n"
		if !strings.HasPrefix(out, first) || !strings.Contains(errOut, stray) {
			t.Errorf("dump: want %q first and %q on stderr:\n%s\n%s", first, stray, out, errOut)
		}
	})

	t.Run("whatif-sim", func(t *testing.T) {
		for _, c := range []struct{ dir, quoted string }{{evil, evilQ}, {esc, escQ}} {
			out, errOut, code := runKidx(t, "whatif", "--from-logdir", c.dir)
			if code != 0 {
				t.Fatalf("whatif --from-logdir %q: exit %d:\n%s%s", c.dir, code, out, errOut)
			}
			checkShapeless(t, "whatif", out+errOut)
			want := "source: replay of " + c.quoted + " as kidx explain infers it\n"
			if !strings.Contains(out, want) || countPrefix(out, "source: ") != 1 {
				t.Errorf("whatif: want one source line %q:\n%s", want, out)
			}
			out, errOut, code = runKidx(t, "sim", "--from-logdir", c.dir)
			if code != 0 {
				t.Fatalf("sim --from-logdir %q: exit %d:\n%s%s", c.dir, code, out, errOut)
			}
			checkShapeless(t, "sim", out+errOut)
			if want := "kidx sim: replay of " + c.quoted + " as kidx explain infers it; "; !strings.HasPrefix(out, want) {
				t.Errorf("sim: want a first line starting %q:\n%s", want, out)
			}
		}
	})

	// An error naming a path (the operating system's words name it raw) is one line too.
	t.Run("error", func(t *testing.T) {
		_, errOut, code := runKidx(t, "explain", filepath.Join(evil, "missing"))
		want := "kidx: stat " + logDir + `/evil\n1 partition, 0 problems-0/missing: no such file or directory` + "\n"
		if code != 2 || errOut != want {
			t.Errorf("exit %d, stderr %q, want 2 and %q", code, errOut, want)
		}
	})
}

// Issue 27 item 6: input shown in a message (a checkpoint's line, a config value) is cut to
// printsafe.ExcerptBytes (256) bytes and says how long it was; a 5 MiB garbage line is not
// echoed whole.
func TestLongInputIsExcerpted(t *testing.T) {
	dir := t.TempDir()
	const n = 5 << 20
	epochs := writeFile(t, dir, "leader-epoch-checkpoint", "0\n1\n"+strings.Repeat("y", n)+" 0\n")
	recovery := writeFile(t, dir, "recovery-point-offset-checkpoint", "0\n1\n"+strings.Repeat("x", n)+" 0\n")
	props := writeFile(t, dir, "server.properties", "log.segment.bytes="+strings.Repeat("9z", n/2)+"\n")
	stringBytes := writeFile(t, dir, "w1.json", `{"steps": [{"append": [{"bytes": "`+strings.Repeat("z", 1000000)+`"}]}]}`)
	for _, c := range []struct {
		args []string
		code int
		want string // the excerpt, written out by hand
	}{
		// LeaderEpochCheckpointFile reads the epoch with Integer.parseInt: NumberFormatException.
		{[]string{"dump", epochs}, 1, `For input string: "` + strings.Repeat("y", 256) + `"... (the first 256 of 5242880 bytes)`},
		// Two fields where OffsetCheckpointFile wants three: CheckpointFile's malformed line.
		{[]string{"dump", recovery}, 1, "Malformed line in checkpoint file [" + recovery + "]: " + strings.Repeat("x", 256) + "... (the first 256 of 5242882 bytes)"},
		{[]string{"sim", "--config-file", props}, 2, `segment.bytes="` + strings.Repeat("9z", 128) + `"... (the first 256 of 5242880 bytes) is not an integer`},
		// The JSON string as written, quotes included: its first 256 bytes are the quote and 255 z.
		{[]string{"sim", "--workload", stringBytes}, 2, `expected a number, found the string "` + strings.Repeat("z", 255) + `... (the first 256 of 1000002 bytes)`},
	} {
		out, errOut, code := runKidx(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("kidx %s: exit %d, want %d and %q on stderr:\n%.2000s", strings.Join(c.args, " "), code, c.code, c.want, errOut)
		}
		if len(out)+len(errOut) > 4096 {
			t.Errorf("kidx %s: %d bytes of output, want a few hundred", strings.Join(c.args, " "), len(out)+len(errOut))
		}
	}
	// Where no maker cut its input (encoding/json's unknown key), the error line is cut at
	// printsafe.MessageBytes (4096) bytes.
	unknownKey := writeFile(t, dir, "w2.json", `{"`+strings.Repeat("k", 1000000)+`": 1, "steps": []}`)
	_, errOut, code := runKidx(t, "sim", "--workload", unknownKey)
	if code != 2 || len(errOut) > 4096+100 || !strings.Contains(errOut, `unknown key "kkkk`) || !strings.HasSuffix(errOut, " bytes)\n") {
		t.Errorf("unknown 1 MB key: exit %d, %d bytes: %.100s...%s", code, len(errOut), errOut, errOut[max(len(errOut)-60, 0):])
	}
}
