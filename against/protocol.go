package against

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"kidx/internal/english"
)

// ProtocolVersion is the version of the protocol a Request speaks (docs/against.md).
const ProtocolVersion = 1

// Query is one lookup asked of a reader. In protocol 1 (Kind "") and for an offset query of
// protocol 2 (Kind "offset"), the offset, in the segment whose files are <Segment>.log and
// <Segment>.index in the partition directory; a timestamp query asks Timestamp in that segment;
// a segment query asks which segment holds Offset (protocol2.go).
type Query struct {
	Kind       string `json:"kind,omitempty"`
	Segment    string `json:"segment,omitempty"`
	BaseOffset int64  `json:"baseOffset"`
	Offset     int64  `json:"offset"`
	Timestamp  int64  `json:"timestamp,omitempty"`
}

// Request is what a reader reads on stdin: one JSON object, then end of file.
type Request struct {
	Protocol  int    `json:"protocol"`
	Partition string `json:"partition"`
	// Release and IndexView say whose answers kidx compares with: a release line's
	// LogSegment.translateOffset over the running or reopened index (docs/against.md). A
	// protocol-1 reader may ignore them.
	Release   string  `json:"release"`
	IndexView string  `json:"indexView"`
	Queries   []Query `json:"queries"`
}

// Answer is a reader's answer to one query: Start and Hit (phase 1's start position, phase 2's
// hit position, -1 when no batch at or past the offset), or an error at File and Byte (Byte -1:
// not said). Hops, when a reader gives it, is the batch headers phase 2 read, the hit included.
type Answer struct {
	Start int64
	Hit   int64
	Hops  int64 // -1: not given
	Err   *AnswerError
	// Kind is the query kind answered ("" in protocol 1). A timestamp answer has Start, and
	// Offset and Timestamp (-1 when no record is at or past the timestamp); a segment answer
	// has BaseOffset (-1 when no segment).
	Kind                          string
	Offset, Timestamp, BaseOffset int64
	// Reason is kidx's side only: the rule that decided kidx's answer on irregular bytes, or
	// the Java class Kafka throws (segment.LookupResult.Reason); it groups divergences.
	Reason string
}

// AnswerError is a reader's error answer.
type AnswerError struct {
	Message string
	File    string // "" when not said
	Byte    int64  // -1 when not said
}

// String renders a in the protocol's own words, for reports.
func (a Answer) String() string {
	if a.Err != nil {
		s := "error " + strconv.Quote(a.Err.Message)
		if a.Err.File != "" {
			s += " in " + a.Err.File
		}
		if a.Err.Byte >= 0 {
			s += " at byte " + strconv.FormatInt(a.Err.Byte, 10)
		}
		return s
	}
	if a.Kind == KindTimestamp || a.Kind == KindSegment {
		return a.protocol2String()
	}
	s := fmt.Sprintf("start %d, hit %d", a.Start, a.Hit)
	if a.Hit < 0 {
		s = fmt.Sprintf("start %d, no hit", a.Start)
	}
	if a.Hops >= 0 {
		s += ", " + english.Plural(a.Hops, "hop")
	}
	return s
}

// wireAnswer is one output line as written. Pointers tell a key that is absent from one that
// is zero.
type wireAnswer struct {
	Start *int64  `json:"start"`
	Hit   *int64  `json:"hit"`
	Hops  *int64  `json:"hops"`
	Error *string `json:"error"`
	File  *string `json:"file"`
	Byte  *int64  `json:"byte"`
}

// maxLine bounds one output line: an answer is a few dozen bytes.
const maxLine = 64 << 10

// parseAnswers is parseAnswersOf for n protocol-1 queries.
func parseAnswers(out []byte, n int) ([]Answer, error) { return parseAnswersOf(out, make([]Query, n)) }

// parseAnswersOf reads a reader's stdout: exactly one line per query of qs (blank lines are not
// allowed), each one JSON object with exactly the keys docs/against.md allows for its query's
// kind. Anything else is a protocol violation, said in words that name the line.
func parseAnswersOf(out []byte, qs []Query) ([]Answer, error) {
	n := len(qs)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	answers := make([]Answer, 0, n)
	line := 0
	for sc.Scan() {
		line++
		if len(answers) == n {
			return nil, fmt.Errorf("more output than the %d answers asked for (line %d: %s)", n, line, clip(sc.Bytes()))
		}
		a, err := parseAnswerAs(qs[len(answers)].Kind, sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("line %d (answer to query %d): %v: %s", line, len(answers), err, clip(sc.Bytes()))
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", line+1, err)
	}
	if len(answers) < n {
		return nil, fmt.Errorf("%d answers for %d queries", len(answers), n)
	}
	return answers, nil
}

func parseAnswer(line []byte) (Answer, error) {
	var w wireAnswer
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Answer{}, fmt.Errorf("not an answer object (%v)", err)
	}
	if dec.More() {
		return Answer{}, fmt.Errorf("more than one JSON value on the line")
	}
	a := Answer{Hops: -1}
	if w.Hops != nil {
		if *w.Hops < 0 {
			return Answer{}, fmt.Errorf(`"hops" %d: a count`, *w.Hops)
		}
		a.Hops = *w.Hops
	}
	if w.Error != nil {
		if w.Start != nil || w.Hit != nil || w.Hops != nil {
			return Answer{}, fmt.Errorf(`an error answer has no "start", "hit" or "hops"`)
		}
		var err error
		a.Err, err = errorAnswer(*w.Error, w.File, w.Byte)
		return a, err
	}
	if w.File != nil || w.Byte != nil {
		return Answer{}, fmt.Errorf(`"file" and "byte" belong to an error answer`)
	}
	if w.Start == nil || w.Hit == nil {
		return Answer{}, fmt.Errorf(`an answer has "start" and "hit", or "error"`)
	}
	a.Start, a.Hit = *w.Start, *w.Hit
	if a.Hit < -1 {
		return Answer{}, fmt.Errorf(`"hit" %d: a position, or -1 for none`, a.Hit)
	}
	return a, nil
}

// clip shortens a line for an error message.
func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// errorAnswer is an error answer's place: file and byte when given (byte -1: none said).
func errorAnswer(msg string, file *string, at *int64) (*AnswerError, error) {
	e := &AnswerError{Message: msg, Byte: -1}
	if file != nil {
		e.File = *file
	}
	if at != nil {
		if *at < -1 {
			return nil, fmt.Errorf(`"byte" %d: a position in the file, or -1 for none`, *at)
		}
		e.Byte = *at
	}
	return e, nil
}
