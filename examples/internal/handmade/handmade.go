// Package handmade loads the hand-built partitions of examples/testdata/handmade and the
// answers written there by hand (answers.json), for the tests of the reference readers. It
// computes no answer itself: it only reads them and compares.
package handmade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Line is one answer line of the "against" protocol: start and hit (an offset query), start,
// offset and timestamp (a timestamp query), baseOffset (a segment query), or an error (for an
// expected error, Error is a substring of the message).
type Line struct {
	Start      *int64  `json:"start,omitempty"`
	Hit        *int64  `json:"hit,omitempty"`
	Offset     *int64  `json:"offset,omitempty"`
	Timestamp  *int64  `json:"timestamp,omitempty"`
	BaseOffset *int64  `json:"baseOffset,omitempty"`
	Error      *string `json:"error,omitempty"`
	File       *string `json:"file,omitempty"`
	Byte       *int64  `json:"byte,omitempty"`
}

// Query is one lookup of a case with its hand-written answers. Release and IndexView are the
// request's (empty: not sent, the protocol's default 2.1-3.9 and running); Kind, when set,
// makes the query a protocol 2 one (offset, timestamp or segment).
type Query struct {
	Release    string `json:"release,omitempty"`
	IndexView  string `json:"indexView,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Segment    string `json:"segment,omitempty"`
	BaseOffset int64  `json:"baseOffset"`
	Offset     int64  `json:"offset"`
	Timestamp  int64  `json:"timestamp,omitempty"`
	Want       Line   `json:"want"`
	SeedPost   *Line  `json:"seedPost"`
	Why        string `json:"why"`
}

// DefaultQueries is the case with only its queries of protocol 1 that name no release line
// and no view: what the seed post's reader (docs/background.md; one rule, protocol 1) is held to.
func (c Case) DefaultQueries() Case {
	var keep []Query
	for _, q := range c.Queries {
		if q.Release == "" && q.IndexView == "" && q.Kind == "" {
			keep = append(keep, q)
		}
	}
	c.Queries = keep
	return c
}

// PerRelease says the case's queries name a release line, a view or a kind: the seed post's
// reader (docs/background.md; protocol 1, one rule) is not held to them.
func (c Case) PerRelease() bool {
	for _, q := range c.Queries {
		if q.Release != "" || q.IndexView != "" || q.Kind != "" {
			return true
		}
	}
	return false
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
// reader must ignore them: docs/against.md). It is for a case whose queries share one
// release and view (see Requests).
func (c Case) Request() []byte {
	return request(c.Path, c.Queries)
}

// Batch is one request of a case and the queries it asks.
type Batch struct {
	Request []byte
	Queries []Query
}

// Requests splits a case's queries into requests, one per run of queries with the same
// release line and index view (a request names one of each), in order.
func (c Case) Requests() []Batch {
	var out []Batch
	for i := 0; i < len(c.Queries); {
		j := i + 1
		for j < len(c.Queries) && c.Queries[j].Release == c.Queries[i].Release && c.Queries[j].IndexView == c.Queries[i].IndexView {
			j++
		}
		out = append(out, Batch{request(c.Path, c.Queries[i:j]), c.Queries[i:j]})
		i = j
	}
	return out
}

func request(path string, queries []Query) []byte {
	type query struct {
		Kind       string `json:"kind,omitempty"`
		Segment    string `json:"segment,omitempty"`
		BaseOffset int64  `json:"baseOffset"`
		Offset     int64  `json:"offset"`
		Timestamp  *int64 `json:"timestamp,omitempty"`
		Future     string `json:"futureQueryKey"`
	}
	req := struct {
		Protocol  int     `json:"protocol"`
		Partition string  `json:"partition"`
		Release   string  `json:"release,omitempty"`
		IndexView string  `json:"indexView,omitempty"`
		Queries   []query `json:"queries"`
		Future    any     `json:"futureKey"`
	}{Protocol: 1, Partition: path, Future: map[string]any{"nested": []int{1, 2}}}
	for _, q := range queries {
		req.Release, req.IndexView = q.Release, q.IndexView
		wq := query{Kind: q.Kind, Segment: q.Segment, BaseOffset: q.BaseOffset, Offset: q.Offset, Future: "ignore me"}
		if q.Kind != "" {
			req.Protocol = 2
		}
		if q.Kind == "timestamp" {
			ts := q.Timestamp
			wq.Timestamp = &ts
		}
		req.Queries = append(req.Queries, wq)
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
		case got.Start != nil || got.Hit != nil || got.Offset != nil || got.Timestamp != nil || got.BaseOffset != nil:
			return fmt.Sprintf("an error line with an answer in it: %s", got)
		}
		return ""
	}
	if got.Error != nil || !sameInt(want.Start, got.Start) || !sameInt(want.Hit, got.Hit) ||
		!sameInt(want.Offset, got.Offset) || !sameInt(want.Timestamp, got.Timestamp) || !sameInt(want.BaseOffset, got.BaseOffset) {
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

// LongLivedBatches is requests of three cases for a reader's long-lived mode: a protocol 1
// request, three per-release ones and a protocol 2 one (three-v2, legacy-gzip, timestamps).
func LongLivedBatches(cases []Case) ([]Batch, error) {
	byDir := map[string]Case{}
	for _, c := range cases {
		byDir[c.Dir] = c
	}
	var batches []Batch
	for _, dir := range []string{"three-v2", "legacy-gzip", "timestamps"} {
		c, ok := byDir[dir]
		if !ok {
			return nil, fmt.Errorf("answers.json has no case %s", dir)
		}
		batches = append(batches, c.Requests()...)
	}
	return batches, nil
}

// RunLongLived runs a started reader's long-lived mode: it writes each batch's request as one
// line and reads that request's answer lines before writing the next (so a reader that waits
// for more input before it flushes hangs here, until the caller's deadline kills it), then
// closes stdin. It returns the answer lines of each batch and anything written after the last.
func RunLongLived(stdin io.WriteCloser, stdout io.Reader, batches []Batch) (answers [][]byte, rest []byte, err error) {
	r := bufio.NewReader(stdout)
	for i, b := range batches {
		if _, err := stdin.Write(append(b.Request, '\n')); err != nil {
			return answers, nil, fmt.Errorf("request %d: %w", i, err)
		}
		var got []byte
		for range b.Queries {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return answers, nil, fmt.Errorf("request %d: reading its answers: %w", i, err)
			}
			got = append(got, line...)
		}
		answers = append(answers, got)
	}
	stdin.Close()
	rest, err = io.ReadAll(r)
	return answers, rest, err
}
