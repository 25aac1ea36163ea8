package main

import (
	"strings"
	"testing"
)

// Issue 11, tables: `--wide` shows every column of the whatif and analyze tables; without it
// the table keeps the essential ones and says what --wide adds.
func TestWideFlag(t *testing.T) {
	root := goldenLogDir(t, "blog-i4096")
	for _, c := range []struct {
		args  []string
		extra string // a column only --wide shows
	}{
		{[]string{"whatif"}, "ph1 pages tail/cold"},
		{[]string{"whatif", "--format", "markdown"}, "ph1 pages tail/cold"},
		{[]string{"analyze", root}, "batches/entry"},
	} {
		out, errOut, code := runKidx(t, c.args...)
		if code != 0 || strings.Contains(out, "| "+c.extra+" |") || strings.Contains(out, "  "+c.extra+"  ") || !strings.Contains(out, "more with --wide") {
			t.Errorf("%v: exit %d (%s); the default shows %q or does not say what --wide adds:\n%s", c.args, code, errOut, c.extra, out)
		}
		out, errOut, code = runKidx(t, append(c.args, "--wide")...)
		if code != 0 || !strings.Contains(out, c.extra) || strings.Contains(out, "more with --wide") {
			t.Errorf("%v --wide: exit %d (%s); no %q column:\n%s", c.args, code, errOut, c.extra, out)
		}
	}
}
