package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// goldenWhatIf is the text report of `kidx whatif` with no arguments, read by eye against the
// seed post's figures (docs/background.md) and the hand derivation of its pieces
// (TestWhatIfDefaultExactIntervals) when it was written, then pinned (issue 11: "a golden text
// report of the default whatif"). Regenerate with KIDX_UPDATE_GOLDEN=1 and read the diff.
const goldenWhatIf = "../../testdata/reports/whatif-default.txt"

func TestWhatIfDefaultGoldenText(t *testing.T) {
	out, errOut, code := runKidx(t, "whatif", "--max-map-count", "65530")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if os.Getenv("KIDX_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(goldenWhatIf, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Issue 11: an operator's terminal is 120 columns; every line fits, notes included.
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 120 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	want, err := os.ReadFile(goldenWhatIf)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		got := filepath.Join(t.TempDir(), "whatif-default.txt")
		_ = os.WriteFile(got, []byte(out), 0o644)
		t.Errorf("the default whatif report differs from %s (diff %s %s)", goldenWhatIf, goldenWhatIf, got)
	}
}
