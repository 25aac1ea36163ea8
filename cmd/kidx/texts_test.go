package main

import (
	"strings"
	"testing"
)

// TestSeedLineOnlyForADrawnSeed pins issue 11, defect 5: the seed line was printed when
// --seed was given, and before a --gen parse error. It is printed only for a seed kidx drew,
// and only once the inputs parsed.
func TestSeedLineOnlyForADrawnSeed(t *testing.T) {
	for _, cmd := range []string{"whatif", "sim"} {
		_, errOut, code := runKidx(t, cmd, "--gen", "fixed:bytes=1000,records=2", "--records", "100", "--seed", "7")
		if code != 0 || strings.Contains(errOut, "seed") {
			t.Errorf("%s --seed 7: exit %d, stderr %q (want no seed line)", cmd, code, errOut)
		}
		_, errOut, code = runKidx(t, cmd, "--gen", "nosuchkind:x=1", "--records", "100")
		if code != 2 || strings.Contains(errOut, "replay with") {
			t.Errorf("%s with a bad --gen: exit %d, stderr %q (want exit 2, no seed line)", cmd, code, errOut)
		}
		_, errOut, code = runKidx(t, cmd, "--gen", "fixed:bytes=1000,records=2", "--records", "100")
		if code != 0 || !strings.HasPrefix(errOut, "kidx: seed ") || strings.Count(errOut, "(replay with --seed ") != 1 {
			t.Errorf("%s with a drawn seed: exit %d, stderr %q (want one line \"kidx: seed N (replay with --seed N)\")", cmd, code, errOut)
		}
	}
	_, errOut, code := runKidx(t, "whatif", "--gen", "fixed:bytes=1000,records=2", "--records", "100", "--sweep", "nosuchkey=1")
	if code != 2 || strings.Contains(errOut, "replay with") {
		t.Errorf("whatif with a bad --sweep: exit %d, stderr %q (want exit 2, no seed line)", code, errOut)
	}
}

// TestSimPerAppendDensityNote pins issue 11, defect 5 ("every batch" where it is every
// append): under the per-append rule, three-batch appends at index.interval.bytes=0 get one
// entry each, which sim called thinning.
func TestSimPerAppendDensityNote(t *testing.T) {
	b := `{"records": 10, "bytes": 1000}`
	step := `{"append": [` + b + `,` + b + `,` + b + `]}`
	w := writeFile(t, t.TempDir(), "w.json", `{"config": {"index.interval.bytes": 0}, "steps": [`+strings.Repeat(step+",", 5)+step+`]}`)
	out, errOut, code := runKidx(t, "sim", "--rule", "per-append", "--workload", w)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "index density: plateau: index.interval.bytes=0 indexes every append but each segment's first (5 entries); under the per-append rule " +
		"an append gets one entry, however many batches it holds\n"
	if !strings.Contains(out, want) || strings.Contains(out, "thinning") {
		t.Errorf("sim output lacks %q:\n%s", want, out)
	}
}
