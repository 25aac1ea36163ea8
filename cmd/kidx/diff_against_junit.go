package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"kidx/internal/english"
)

// JUnit XML (the Ant/Surefire shape CI systems read), for `kidx diff --against --format junit`
// (docs/against.md, "JUnit"). Each divergence group is a failing test case; each case or
// partition directory that agrees (--corpus, --dir) is a passing one, and generated cases that
// agree are one passing test case together.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"` // the divergence's kind
	// Text is CDATA: chardata would escape every newline (&#xA;), unreadable in a CI's page.
	Text string `xml:",cdata"`
}

// renderAgainstJUnit writes rep as JUnit XML.
func renderAgainstJUnit(w io.Writer, rep againstReport) error {
	class := "kidx.against"
	suite := junitSuite{Name: "kidx diff --against " + rep.Command}
	prop := func(k, v string) { suite.Properties = append(suite.Properties, junitProperty{k, v}) }
	switch {
	case rep.Seed != nil:
		prop("seed", fmt.Sprint(*rep.Seed))
		class += ".generated"
	case rep.Corpus != "":
		prop("corpus", rep.Corpus)
		class += ".corpus"
	case rep.Dir != "":
		prop("dir", rep.Dir)
		class += ".dir"
	}
	prop("command", rep.Command)
	prop("timeout", rep.Timeout)
	prop("compare", rep.Compare)
	prop("cases", fmt.Sprint(rep.Cases))
	prop("queries", fmt.Sprint(rep.Queries))
	divergent := map[string]bool{}
	for _, d := range rep.Divergences {
		name := d.group()
		if d.Dir != "" {
			name = d.Dir + ": " + name
			divergent[d.Dir] = true
		}
		suite.Cases = append(suite.Cases, junitCase{Name: name, ClassName: class,
			Failure: &junitFailure{Message: name, Type: d.Kind, Text: xmlChars(junitFailureText(rep, d))}})
	}
	if rep.asked != nil {
		for _, dir := range rep.asked {
			if !divergent[dir] {
				suite.Cases = append(suite.Cases, junitCase{Name: dir, ClassName: class})
			}
		}
	} else if agree := rep.Cases - rep.DivergentCases; agree > 0 {
		suite.Cases = append(suite.Cases, junitCase{Name: "agreeing cases", ClassName: class,
			SystemOut: fmt.Sprintf("%s of %d agree with kidx on every query", english.Plural(agree, "case"), rep.Cases)})
	}
	suite.Tests, suite.Failures = len(suite.Cases), len(rep.Divergences)
	out := junitSuites{Name: "kidx diff --against", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// xmlChars is s with every rune XML 1.0 does not allow (control characters, invalid UTF-8: a
// reader's stderr may hold any bytes) replaced by U+FFFD, as encoding/xml's chardata escaping
// does; CDATA is written as given.
func xmlChars(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF && r != utf8.RuneError,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// junitFailureText is a divergence group in the text report's words.
func junitFailureText(rep againstReport, d againstDivergence) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind:    %s\n", d.Kind)
	if d.Damage != "" {
		fmt.Fprintf(&b, "damage:  %s\n", d.Damage)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, "reason:  %s (kidx's)\n", d.Reason)
	}
	if rep.Dir != "" {
		fmt.Fprintf(&b, "queries: %d\n", d.Cases)
	} else {
		fmt.Fprintf(&b, "cases:   %d, first %d\n", d.Cases, d.Case)
		if len(d.CaseList) > 1 {
			fmt.Fprintf(&b, "case list: %s\n", caseListText(d.CaseList))
		}
	}
	if d.Query != nil {
		fmt.Fprintf(&b, "query:   segment %s, offset %d\nkidx:    %s\n", d.Query.Segment, d.Query.Offset, d.Kidx)
	}
	fmt.Fprintf(&b, "reader:  %s\n", d.Reader)
	if d.Stderr != "" {
		fmt.Fprintf(&b, "stderr:\n%s\n", d.Stderr)
	}
	if s := d.Shrunk; s != nil {
		fmt.Fprintf(&b, "shrunk:  %s\n", s.Dir)
	}
	return b.String()
}
