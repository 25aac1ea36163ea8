// Package handmade loads the hand-built partitions of examples/testdata/handmade and the
// answers written there by hand (answers.json), for the tests of the reference readers. It
// computes no answer itself: it only reads them and compares.
package handmade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Line is one answer line of the "against" protocol: start and hit, or an error (for an
// expected error, Error is a substring of the message).
type Line struct {
	Start *int64  `json:"start,omitempty"`
	Hit   *int64  `json:"hit,omitempty"`
	Error *string `json:"error,omitempty"`
	File  *string `json:"file,omitempty"`
	Byte  *int64  `json:"byte,omitempty"`
}

// Query is one lookup of a case with its hand-written answers.
type Query struct {
	Segment    string `json:"segment"`
	BaseOffset int64  `json:"baseOffset"`
	Offset     int64  `json:"offset"`
	Want       Line   `json:"want"`
	SeedPost   *Line  `json:"seedPost"`
	Why        string `json:"why"`
}

// Case is one partition directory.
type Case struct {
	Dir             string  `json:"dir"`
	Layout          string  `json:"layout"`
	SeedPostCrashes bool    `json:"seedPostCrashes"`
	SeedPostHangs   bool    `json:"seedPostHangs"`
	Queries         []Query `json:"queries"`
	Path            string  `json:"-"` // the directory, absolute
}

// Dir is the absolute path of examples/testdata/handmade.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "handmade")
}

// Load reads answers.json.
func Load() ([]Case, error) {
	dir, err := filepath.Abs(Dir())
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "answers.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		About string `json:"about"`
		Cases []Case `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("answers.json: %w", err)
	}
	for i := range doc.Cases {
		doc.Cases[i].Path = filepath.Join(dir, doc.Cases[i].Dir)
		if _, err := os.Stat(doc.Cases[i].Path); err != nil {
			return nil, fmt.Errorf("answers.json names %s: %w (run go generate.go in %s)", doc.Cases[i].Dir, err, dir)
		}
	}
	return doc.Cases, nil
}

// Request is the protocol's request for a case's queries, with keys no reader knows yet (a
// reader must ignore them: docs/against.md).
func (c Case) Request() []byte {
	type query struct {
		Segment    string `json:"segment"`
		BaseOffset int64  `json:"baseOffset"`
		Offset     int64  `json:"offset"`
		Future     string `json:"futureQueryKey"`
	}
	req := struct {
		Protocol  int     `json:"protocol"`
		Partition string  `json:"partition"`
		Queries   []query `json:"queries"`
		Future    any     `json:"futureKey"`
	}{Protocol: 1, Partition: c.Path, Future: map[string]any{"nested": []int{1, 2}}}
	for _, q := range c.Queries {
		req.Queries = append(req.Queries, query{q.Segment, q.BaseOffset, q.Offset, "ignore me"})
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err) // a fixed shape: cannot fail
	}
	return b
}

// ParseLines splits a reader's stdout into answer lines; an unknown key or a line that is not
// one JSON object is an error.
func ParseLines(out []byte) ([]Line, error) {
	var lines []Line
	for i, text := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if text == "" && len(out) == 0 {
			break
		}
		var l Line
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, text, err)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// Mismatch says how got differs from want, or "" when it matches.
func Mismatch(want, got Line) string {
	if want.Error != nil {
		switch {
		case got.Error == nil:
			return fmt.Sprintf("want an error containing %q at %s, got %s", *want.Error, where(want), got)
		case !strings.Contains(*got.Error, *want.Error):
			return fmt.Sprintf("want an error containing %q, got %q", *want.Error, *got.Error)
		case !sameString(want.File, got.File) || !sameInt(want.Byte, got.Byte):
			return fmt.Sprintf("want the error at %s, got it at %s", where(want), where(got))
		case got.Start != nil || got.Hit != nil:
			return fmt.Sprintf("an error line with start or hit: %s", got)
		}
		return ""
	}
	if got.Error != nil || !sameInt(want.Start, got.Start) || !sameInt(want.Hit, got.Hit) {
		return fmt.Sprintf("want %s, got %s", want, got)
	}
	return ""
}

func where(l Line) string {
	f, b := "?", "?"
	if l.File != nil {
		f = *l.File
	}
	if l.Byte != nil {
		b = fmt.Sprint(*l.Byte)
	}
	return f + " byte " + b
}

func (l Line) String() string {
	b, _ := json.Marshal(l)
	return string(b)
}

func sameInt(a, b *int64) bool     { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func sameString(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
