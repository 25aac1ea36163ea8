package against

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"kidx/corpus"
	"kidx/segment"
)

// Mismatch kinds: how a reader's answer to one query differs from kidx's.
const (
	MismatchStart       = "start"        // phase 1's start position differs
	MismatchHit         = "hit"          // phase 2's hit position differs (or one found a batch, the other none)
	MismatchHops        = "hops"         // the reader gave hops, and they differ
	MismatchMissedError = "missed-error" // kidx's reader stops at corrupt data; the reader answered a position
	MismatchFalseError  = "false-error"  // the reader reported an error where kidx's answers
	MismatchErrorFile   = "error-file"   // both report an error, in different files
	MismatchErrorByte   = "error-byte"   // both report an error in the file, at different bytes
)

// Mismatch is one query answered otherwise than kidx answers it.
type Mismatch struct {
	Kind  string
	Index int // the query's place in the request
	Query Query
	Want  Answer // kidx's answer
	Got   Answer
}

// Fields are the parts of a position answer compared (--compare start,hit,hops). Errors are
// compared whatever the fields: an error against a position is always a mismatch.
type Fields uint8

const (
	FieldStart Fields = 1 << iota // phase 1's start position
	FieldHit                      // phase 2's hit position
	FieldHops                     // the batch headers phase 2 read, when the reader gives them
	AllFields  = FieldStart | FieldHit | FieldHops
)

// fieldNames are --compare's words, in Fields' bit order.
var fieldNames = []string{"start", "hit", "hops"}

// ParseFields reads a comma-separated list of start, hit and hops.
func ParseFields(s string) (Fields, error) {
	var f Fields
	for w := range strings.SplitSeq(s, ",") {
		w = strings.TrimSpace(w)
		i := -1
		for j, n := range fieldNames {
			if n == w {
				i = j
			}
		}
		if i < 0 {
			return 0, fmt.Errorf("%q: want a comma-separated list of start, hit, hops", w)
		}
		f |= 1 << i
	}
	return f, nil
}

// String is f in ParseFields' words.
func (f Fields) String() string {
	var ws []string
	for i, n := range fieldNames {
		if f&(1<<i) != 0 {
			ws = append(ws, n)
		}
	}
	return strings.Join(ws, ",")
}

// Questions are a case's queries and kidx's answers to them, in the same order.
type Questions struct {
	Rules   segment.ReadRules // whose answers Want are: the request's release and index view
	Queries []Query
	Want    []Answer
	// Fields are the parts of a position answer compared; 0 compares all (AllFields).
	Fields Fields
}

// QuestionsOf reads a case's offset lookups from its expected.json (docs/corpus.md): every
// lookup of every segment, in order. kidx's error files are relative to the case directory
// (t-0/<base>.log); a reader's are relative to the partition, so the answers name the file
// alone.
func QuestionsOf(exp *corpus.Expected) Questions {
	var q Questions
	// ReadCase and the corpus wrote these names; an unknown one leaves the zero rules.
	q.Rules.Release, _ = segment.ParseReadRelease(exp.Release)
	q.Rules.View, _ = segment.ParseIndexView(exp.IndexView)
	for _, sa := range exp.Segments {
		stem := strings.TrimSuffix(filepath.Base(sa.Log), ".log")
		for _, l := range sa.Lookups {
			q.Queries = append(q.Queries, Query{Segment: stem, BaseOffset: sa.BaseOffset, Offset: l.Offset})
			q.Want = append(q.Want, wantOf(l))
		}
	}
	return q
}

func wantOf(l corpus.OffsetLookup) Answer {
	if l.Error != nil {
		return Answer{Hops: -1, Err: &AnswerError{Message: l.Error.Message, File: path.Base(filepath.ToSlash(l.Error.File)), Byte: l.Error.Byte}, Reason: l.Reason}
	}
	a := Answer{Start: l.IndexPosition, Hit: -1, Hops: int64(l.Hops), Reason: l.Reason}
	if l.Found && l.Hit != nil {
		a.Hit = l.Hit.Position
	}
	return a
}

// Compare compares got with q's answers query by query (len(got) == len(q.Queries), as the
// protocol reader guarantees) and returns every mismatch, in query order, one per query:
// the first difference of start, hit, hops (those of q.Fields); of error or not; of error
// file, byte.
func Compare(q Questions, got []Answer) []Mismatch {
	f := q.Fields
	if f == 0 {
		f = AllFields
	}
	var ms []Mismatch
	for i, want := range q.Want {
		if k := mismatch(want, got[i], f); k != "" {
			ms = append(ms, Mismatch{Kind: k, Index: i, Query: q.Queries[i], Want: want, Got: got[i]})
		}
	}
	return ms
}

func mismatch(want, got Answer, f Fields) string {
	if k, ok := mismatchProtocol2(want, got); ok {
		return k
	}
	switch {
	case want.Err != nil && got.Err == nil:
		return MismatchMissedError
	case want.Err == nil && got.Err != nil:
		return MismatchFalseError
	case want.Err != nil:
		// The message is the reader's own words; the place is not.
		if got.Err.File != "" && path.Base(filepath.ToSlash(got.Err.File)) != want.Err.File {
			return MismatchErrorFile
		}
		if got.Err.Byte >= 0 && got.Err.Byte != want.Err.Byte {
			return MismatchErrorByte
		}
		return ""
	case f&FieldStart != 0 && got.Start != want.Start:
		return MismatchStart
	case f&FieldHit != 0 && got.Hit != want.Hit:
		return MismatchHit
	case f&FieldHops != 0 && got.Hops >= 0 && got.Hops != want.Hops:
		return MismatchHops
	}
	return ""
}
