package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docs/contract.md §8/§9: questions answered "no" are findings (exit 0), the JSON names seed and rule,
// and each counterexample file replays with kidx sim (the overflow event reappears).
func TestCheckFindingsExitZeroAndReplay(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"check", "--seed", "5", "--checks", "2000", "--format", "json", "--out", dir,
		"--property", "NoIndexOverflowMidAppend", "--property", "ScanBound"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Seed       uint64 `json:"seed"`
		Rule       string `json:"rule"`
		Properties []struct {
			Name, Kind, Result string
		} `json:"properties"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed != 5 || doc.Rule != "per-batch" || len(doc.Properties) != 2 ||
		doc.Properties[0].Result != "finding" || doc.Properties[1].Result != "holds" {
		t.Fatalf("%s", out.String())
	}
	path := filepath.Join(dir, "NoIndexOverflowMidAppend.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"sim", "--workload", path, "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("sim exit %d: %s", code, errb.String())
	}
	if !bytes.Contains(out.Bytes(), []byte("index-overflow")) {
		t.Fatalf("replay shows no overflow: %s", out.String())
	}
}

func TestCheckUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--property", "Nope"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if code := run([]string{"check", "--exhaustive", "--alphabet", "12"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d", code)
	}
}

// Issue 11, defect 1: rapid reads 0 checks as "its default, 100", so --checks 0 ran 100 cases
// silently. A number of cases below 1, from the flag or RAPID_CHECKS, is a usage error (exit 2).
func TestCheckRefusesZeroChecks(t *testing.T) {
	for _, n := range []string{"0", "-3"} {
		_, errOut, code := runKidx(t, "check", "--property", "ScanBound", "--checks", n)
		if code != 2 || !strings.Contains(errOut, "--checks "+n+": want at least 1") {
			t.Errorf("--checks %s: exit %d, stderr %q", n, code, errOut)
		}
	}
	t.Setenv("RAPID_CHECKS", "0")
	if _, errOut, code := runKidx(t, "check", "--property", "ScanBound"); code != 2 || !strings.Contains(errOut, `RAPID_CHECKS="0"`) {
		t.Errorf("RAPID_CHECKS=0: exit %d, stderr %q", code, errOut)
	}
}

// Issue 11 review: rapid parses its RAPID_* variables in its package init and panicked on a
// malformed one, killing every kidx command before main ran. In a child process of this test
// binary (which links rapid the same way), RAPID_CHECKS=abc now gives a warning and `version`
// still runs; `check` refuses it with exit 2.
func TestMalformedRapidEnvDoesNotPanic(t *testing.T) {
	if os.Getenv("KIDX_RAPIDENV_CHILD") != "" {
		var out, errb bytes.Buffer
		code := run(strings.Fields(os.Getenv("KIDX_RAPIDENV_CHILD")), &out, &errb)
		fmt.Printf("exit=%d\n%s", code, errb.String())
		os.Exit(0)
	}
	for args, want := range map[string]string{
		"version": "exit=0\nkidx: warning: RAPID_CHECKS=\"abc\" is not a whole number: ignored (rapid reads it, for kidx check)\n",
		"check --property ScanBound": "exit=2\nkidx: warning: RAPID_CHECKS=\"abc\" is not a whole number: ignored (rapid reads it, for kidx check)\n" +
			"kidx: RAPID_CHECKS=\"abc\": want a whole number (rapid reads it)\n",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMalformedRapidEnvDoesNotPanic$")
		cmd.Env = append(os.Environ(), "RAPID_CHECKS=abc", "KIDX_RAPIDENV_CHILD="+args)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("kidx %s with RAPID_CHECKS=abc: %v\n%s\nwant it to start with %q", args, err, out, want)
		}
	}
}
