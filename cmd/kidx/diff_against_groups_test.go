package main

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/against"
	"kidx/corpus"
	"kidx/segment"
)

// lateHitReader is kidx's reader with every hit one byte late (a reader's bug on every query
// with a hit).
type lateHitReader struct{}

func (lateHitReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []against.Query) ([]against.Answer, error) {
	as, err := against.KidxReader{}.Answer(ctx, partition, rules, qs)
	for i := range as {
		if as[i].Err == nil && as[i].Hit >= 0 {
			as[i].Hit++
		}
	}
	return as, err
}

// Issue 24: each group lists its cases (JSON: all of them; text: the first 20 and how many
// more), and --format junit is JUnit XML that parses back with a failing test case per group
// and a passing one for the cases that agree.
func TestDiffAgainstGroupsCaseListsAndJUnit(t *testing.T) {
	diffAgainstReader = lateHitReader{}
	defer func() { diffAgainstReader = nil }()
	args := []string{"diff", "--against", "in-process", "--cases", "60", "--seed", "5", "--shrink-budget", "5", "--out", t.TempDir()}
	rep := runAgainst(t, 1, args[1:]...)
	var big *struct{ cases, listed int64 }
	groups := map[string]int64{}
	for _, d := range rep.Divergences {
		key := d.Kind
		if d.Damage != "" {
			key += " on " + d.Damage
		}
		if d.Reason != "" {
			key += " (kidx: " + d.Reason + ")"
		}
		groups[key] = d.Cases
		if int64(len(d.CaseList)) != d.Cases || d.CaseList[0] != d.Case {
			t.Errorf("%s: %d cases, first %d, list %v", key, d.Cases, d.Case, d.CaseList)
		}
		if d.Cases > 20 {
			big = &struct{ cases, listed int64 }{d.Cases, int64(len(d.CaseList))}
		}
	}
	if big == nil {
		t.Fatalf("no group of more than 20 cases: %v", groups)
	}
	text, _, code := runKidx(t, args...)
	if want := fmt.Sprintf(" and %d more\n", big.cases-20); code != 1 || !strings.Contains(text, want) {
		t.Fatalf("text report (exit %d) lacks %q:\n%s", code, want, text)
	}
	out, _, code := runKidx(t, append(args, "--format", "junit")...)
	if code != 1 {
		t.Fatalf("junit: exit %d", code)
	}
	var x struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("junit does not parse: %v\n%s", err, out)
	}
	if len(x.Suites) != 1 {
		t.Fatalf("%d test suites", len(x.Suites))
	}
	s := x.Suites[0]
	failing, passing := 0, 0
	for _, c := range s.Cases {
		if c.Failure == nil {
			passing++
			continue
		}
		failing++
		if _, ok := groups[c.Name]; !ok || c.Failure.Message != c.Name || !strings.Contains(c.Failure.Text, "reader:  start") {
			t.Errorf("failing test case %q (%+v): not a group of the JSON report %v", c.Name, c.Failure, groups)
		}
	}
	wantPassing := 0
	if rep.DivergentCases < rep.Cases {
		wantPassing = 1
	}
	if failing != len(groups) || passing != wantPassing || s.Tests != len(s.Cases) || s.Failures != failing || x.Tests != s.Tests || x.Failures != s.Failures {
		t.Fatalf("junit: %d tests, %d failures (suite %d, %d); %d failing and %d passing test cases; want %d groups and %d passing", x.Tests, x.Failures, s.Tests, s.Failures, failing, passing, len(groups), wantPassing)
	}
}

// Issue 24: --dir over a whole log directory with --copy: one run per partition on a private
// copy (the reader's writes land in the copy, removed after the run), and the report names
// the divergent partition.
func TestDiffAgainstDirLogDirectoryWithCopy(t *testing.T) {
	scratch, logDir := t.TempDir(), t.TempDir()
	for i, name := range []string{"a-0", "b-0"} {
		c, err := corpus.WriteCase(scratch, corpus.Options{Seed: 3, Release: "4.1+"}, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(c.Dir, corpus.Partition), filepath.Join(logDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	copies := t.TempDir()
	againstCopyScratch = copies
	defer func() { againstCopyScratch = "" }()
	// A reader that writes into its directory, and answers "no hit" everywhere.
	sh := readerScript(t, `touch "$1/written-by-reader"; `+noHitReader)
	out, errOut, code := runKidx(t, "diff", "--against", sh, "--copy", "--dir", logDir)
	if code != 1 || !strings.Contains(out, "2 partitions") || !strings.Contains(out, "partition: "+filepath.Join(logDir, "a-0")) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, name := range []string{"a-0", "b-0"} {
		if _, err := os.Stat(filepath.Join(logDir, name, "written-by-reader")); err == nil {
			t.Errorf("the reader wrote into %s, not into its copy", name)
		}
	}
	if ents, err := os.ReadDir(copies); err != nil || len(ents) != 0 {
		t.Fatalf("copies left behind: %v (%v)", ents, err)
	}
}

// A reader's stderr may hold any bytes: the JUnit failure text stays XML that parses back,
// control characters and invalid UTF-8 replaced, a "]]>" kept.
func TestJUnitFailureTextIsAlwaysXML(t *testing.T) {
	var b strings.Builder
	stderr := "boom\x00\x01\xff]]>end"
	rep := againstReport{Command: "r", Cases: 1, DivergentCases: 1, Divergences: []againstDivergence{{Kind: against.FailCrash, Cases: 1, Reader: "exit 1", Stderr: stderr}}}
	if err := renderAgainstJUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	var x struct {
		Suites []struct {
			Cases []struct {
				Failure struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(b.String()), &x); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(x.Suites) != 1 || len(x.Suites[0].Cases) != 1 || !strings.Contains(x.Suites[0].Cases[0].Failure.Text, "boom\uFFFD\uFFFD\uFFFD]]>end") {
		t.Fatalf("parsed back %+v", x)
	}
}
