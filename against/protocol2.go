package against

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"kidx/corpus"
	"kidx/segment"
)

// Query kinds of protocol 2 (docs/against.md, "Protocol 2"). A protocol-1 query has no kind
// (it is an offset query, and no "kind" key is sent).
const (
	KindOffset    = "offset"    // LogSegment.translateOffset: the offset index, then the walk
	KindTimestamp = "timestamp" // LogSegment.findOffsetByTimestamp: the time index, then the walk
	KindSegment   = "segment"   // LogSegments.floorSegment: the segment holding an offset
)

// ProtocolVersion2 is the version of a request with kinds of queries.
const ProtocolVersion2 = 2

// protocolOf is the version of a request asking qs: 2 as soon as one query has a kind.
func protocolOf(qs []Query) int {
	for _, q := range qs {
		if q.Kind != "" {
			return ProtocolVersion2
		}
	}
	return ProtocolVersion
}

// MarshalJSON writes q with the keys its kind has: a protocol-1 query (no kind) exactly as
// protocol 1 wrote it; a timestamp query without "offset"; a segment query with "offset" alone.
func (q Query) MarshalJSON() ([]byte, error) {
	switch q.Kind {
	case "":
		return fmt.Appendf(nil, `{"segment":%s,"baseOffset":%d,"offset":%d}`, strconv.Quote(q.Segment), q.BaseOffset, q.Offset), nil
	case KindOffset:
		return fmt.Appendf(nil, `{"kind":"offset","segment":%s,"baseOffset":%d,"offset":%d}`, strconv.Quote(q.Segment), q.BaseOffset, q.Offset), nil
	case KindTimestamp:
		return fmt.Appendf(nil, `{"kind":"timestamp","segment":%s,"baseOffset":%d,"timestamp":%d}`, strconv.Quote(q.Segment), q.BaseOffset, q.Timestamp), nil
	case KindSegment:
		return fmt.Appendf(nil, `{"kind":"segment","offset":%d}`, q.Offset), nil
	}
	return nil, fmt.Errorf("query kind %q: want %s, %s or %s", q.Kind, KindOffset, KindTimestamp, KindSegment)
}

// protocol2Speaker is a Reader asked protocol 2's questions (Command and Serve with Protocol
// 2, KidxReader with Protocol 2).
type protocol2Speaker interface{ protocolVersion() int }

// readerProtocol is the protocol r is asked in: 1 unless r says 2.
func readerProtocol(r Reader) int {
	if p, ok := r.(protocol2Speaker); ok && p.protocolVersion() >= ProtocolVersion2 {
		return ProtocolVersion2
	}
	return ProtocolVersion
}

// questionsFor are a case's questions in r's protocol: QuestionsOf, and in protocol 2 the
// offset queries said as such, the case's timestamp lookups and its which-segment queries.
func questionsFor(exp *corpus.Expected, r Reader) Questions {
	q := QuestionsOf(exp)
	if readerProtocol(r) < ProtocolVersion2 {
		return q
	}
	for i := range q.Queries {
		q.Queries[i].Kind = KindOffset
		q.Want[i].Kind = KindOffset
	}
	for _, sa := range exp.Segments {
		stem := strings.TrimSuffix(baseName(sa.Log), segment.LogSuffix)
		for _, l := range sa.TimeLookups {
			q.Queries = append(q.Queries, Query{Kind: KindTimestamp, Segment: stem, BaseOffset: sa.BaseOffset, Timestamp: l.Timestamp})
			q.Want = append(q.Want, timeWantOf(l))
		}
	}
	bases := make([]int64, 0, len(exp.Segments))
	for _, sa := range exp.Segments {
		bases = append(bases, sa.BaseOffset)
	}
	for _, o := range segmentQueryOffsets(exp) {
		q.Queries = append(q.Queries, Query{Kind: KindSegment, Offset: o})
		q.Want = append(q.Want, Answer{Kind: KindSegment, BaseOffset: floorSegment(bases, o), Hops: -1})
	}
	return q
}

// timeWantOf is expected.json's findOffsetByTimestamp answer as a protocol answer.
func timeWantOf(l corpus.TimeLookup) Answer {
	if l.Error != nil {
		return Answer{Kind: KindTimestamp, Hops: -1, Err: &AnswerError{Message: l.Error.Message, File: baseName(l.Error.File), Byte: l.Error.Byte}}
	}
	a := Answer{Kind: KindTimestamp, Start: l.StartPosition, Offset: -1, Timestamp: -1, Hops: -1}
	if l.Found {
		a.Offset, a.Timestamp = l.FoundOffset, l.FoundTimestamp
	}
	return a
}

func baseName(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// segmentQueryOffsets are the offsets a case's which-segment queries ask: each segment's base
// offset and the one before it (the boundary floorSegment decides), and the first, last and
// one past the last offset its lookups asked (the case's offsets inside and after it).
func segmentQueryOffsets(exp *corpus.Expected) []int64 {
	var out []int64
	for _, sa := range exp.Segments {
		out = append(out, sa.BaseOffset, sa.BaseOffset-1)
		if n := len(sa.Lookups); n > 0 {
			lo, hi := sa.Lookups[0].Offset, sa.Lookups[0].Offset
			for _, l := range sa.Lookups {
				lo, hi = min(lo, l.Offset), max(hi, l.Offset)
			}
			out = append(out, lo, hi, hi+1)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// floorSegment is LogSegments.floorSegment(offset): the base offset of the segment with the
// greatest base offset <= offset (Kafka's ConcurrentSkipListMap.floorEntry), -1 when none.
func floorSegment(bases []int64, offset int64) int64 {
	best := int64(-1)
	for _, b := range bases {
		if b <= offset && b > best {
			best = b
		}
	}
	return best
}

// partitionBaseOffsets are the base offsets of the segments (<20 digits>.log files) of a
// partition directory, as LogLoader loads them; nothing is opened.
func partitionBaseOffsets(dir string) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segment.LogSuffix)
		if !ok || len(name) != 20 || e.IsDir() {
			continue
		}
		b, err := strconv.ParseInt(name, 10, 64)
		if err != nil {
			continue
		}
		out = append(out, b)
	}
	slices.Sort(out)
	return out, nil
}

// parseAnswerAs parses a protocol-2 answer line by its query's kind.
func parseAnswerAs(kind string, line []byte) (Answer, error) {
	switch kind {
	case "", KindOffset:
		a, err := parseAnswer(line)
		a.Kind = kind
		return a, err
	}
	var w wireAnswer2
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Answer{}, fmt.Errorf("not an answer object (%v)", err)
	}
	if dec.More() {
		return Answer{}, fmt.Errorf("more than one JSON value on the line")
	}
	a := Answer{Kind: kind, Hops: -1}
	if w.Error != nil {
		if w.Start != nil || w.Offset != nil || w.Timestamp != nil || w.BaseOffset != nil {
			return Answer{}, fmt.Errorf("an error answer has no other key than \"file\" and \"byte\"")
		}
		var err error
		a.Err, err = errorAnswer(*w.Error, w.File, w.Byte)
		return a, err
	}
	if w.File != nil || w.Byte != nil {
		return Answer{}, fmt.Errorf(`"file" and "byte" belong to an error answer`)
	}
	switch kind {
	case KindTimestamp:
		if w.BaseOffset != nil {
			return Answer{}, fmt.Errorf(`"baseOffset" belongs to a segment query's answer`)
		}
		if w.Start == nil || w.Offset == nil || w.Timestamp == nil {
			return Answer{}, fmt.Errorf(`a timestamp answer has "start", "offset" and "timestamp", or "error"`)
		}
		a.Start, a.Offset, a.Timestamp = *w.Start, *w.Offset, *w.Timestamp
		// A record's timestamp may be -1 (RecordBatch.NO_TIMESTAMP): only "no record" is pinned.
		if a.Offset < -1 || (a.Offset == -1 && a.Timestamp != -1) {
			return Answer{}, fmt.Errorf(`"offset" %d, "timestamp" %d: a record found, or both -1 for none`, a.Offset, a.Timestamp)
		}
	case KindSegment:
		if w.Start != nil || w.Offset != nil || w.Timestamp != nil {
			return Answer{}, fmt.Errorf(`a segment answer has "baseOffset" alone`)
		}
		if w.BaseOffset == nil {
			return Answer{}, fmt.Errorf(`a segment answer has "baseOffset", or "error"`)
		}
		if a.BaseOffset = *w.BaseOffset; a.BaseOffset < -1 {
			return Answer{}, fmt.Errorf(`"baseOffset" %d: a segment's base offset, or -1 for none`, a.BaseOffset)
		}
	default:
		return Answer{}, fmt.Errorf("query kind %q", kind)
	}
	return a, nil
}

// wireAnswer2 is a timestamp or segment answer line as written; "hit" and "hops" are not
// among its keys (an offset answer's keys are a violation here).
type wireAnswer2 struct {
	Start      *int64  `json:"start"`
	Offset     *int64  `json:"offset"`
	Timestamp  *int64  `json:"timestamp"`
	BaseOffset *int64  `json:"baseOffset"`
	Error      *string `json:"error"`
	File       *string `json:"file"`
	Byte       *int64  `json:"byte"`
}

// answerString renders a timestamp or segment answer (Answer.String's protocol-2 part).
func (a Answer) protocol2String() string {
	switch a.Kind {
	case KindTimestamp:
		if a.Offset < 0 {
			return fmt.Sprintf("start %d, no record at or past the timestamp", a.Start)
		}
		return fmt.Sprintf("start %d, offset %d at timestamp %d", a.Start, a.Offset, a.Timestamp)
	case KindSegment:
		if a.BaseOffset < 0 {
			return "no segment"
		}
		return fmt.Sprintf("segment %d", a.BaseOffset)
	}
	return ""
}

// Protocol2 asks its Reader protocol 2's questions: an in-process Reader (a test's) run as
// --protocol 2 runs an external one.
type Protocol2 struct{ Reader }

func (Protocol2) protocolVersion() int { return ProtocolVersion2 }

// String says q in words, for reports: "segment S, offset O", "segment S, timestamp T", or
// "which segment holds offset O".
func (q Query) String() string {
	switch q.Kind {
	case KindTimestamp:
		return fmt.Sprintf("segment %s, timestamp %d", q.Segment, q.Timestamp)
	case KindSegment:
		return fmt.Sprintf("which segment holds offset %d", q.Offset)
	}
	return fmt.Sprintf("segment %s, offset %d", q.Segment, q.Offset)
}
