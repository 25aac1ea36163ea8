package against

import (
	"context"
	"path/filepath"

	"kidx/segment"
)

// KidxReader is kidx's own reader (segment.Segment.LookupAs) as a Reader, in process: the
// fast reader of BenchmarkAgainstInProcess, and the baseline every other reader is held to.
// It answers protocol 2's timestamp and segment queries too.
type KidxReader struct {
	// Protocol 2 makes a campaign ask protocol 2's questions; 0 or 1: protocol 1's.
	Protocol int
	// lookup replaces Segment.LookupAs (the tests plant bugs here); nil: Segment.LookupAs.
	lookup func(*segment.Segment, int64, segment.ReadRules) (segment.LookupResult, error)
	// timeLookup replaces Segment.LookupTimestampIn; nil: LookupTimestampIn.
	timeLookup func(*segment.Segment, int64, segment.IndexView) (segment.TimeLookupResult, error)
	// floor replaces floorSegment; nil: floorSegment.
	floor func(bases []int64, offset int64) int64
}

func (r KidxReader) protocolVersion() int { return r.Protocol }

// Answer opens each segment once and answers every query with kidx's answer.
func (r KidxReader) Answer(_ context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	segs := map[string]*segment.Segment{}
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	var bases []int64
	var basesErr error
	basesRead := false
	out := make([]Answer, 0, len(qs))
	for _, q := range qs {
		if q.Kind == KindSegment {
			if !basesRead {
				bases, basesErr = partitionBaseOffsets(partition)
				basesRead = true
			}
			a := Answer{Kind: KindSegment, Hops: -1}
			if basesErr != nil {
				a.Err = &AnswerError{Message: basesErr.Error(), Byte: -1}
			} else if r.floor != nil {
				a.BaseOffset = r.floor(bases, q.Offset)
			} else {
				a.BaseOffset = floorSegment(bases, q.Offset)
			}
			out = append(out, a)
			continue
		}
		s, ok := segs[q.Segment]
		if !ok {
			var err error
			if s, err = segment.OpenSegment(filepath.Join(partition, q.Segment+segment.LogSuffix)); err != nil {
				a := kidxAnswer(segment.LookupResult{}, err)
				a.Kind = q.Kind
				out = append(out, a)
				continue
			}
			segs[q.Segment] = s
		}
		if q.Kind == KindTimestamp {
			var res segment.TimeLookupResult
			var err error
			if r.timeLookup != nil {
				res, err = r.timeLookup(s, q.Timestamp, rules.View)
			} else {
				res, err = s.LookupTimestampIn(q.Timestamp, rules.View)
			}
			out = append(out, kidxTimeAnswer(res, err))
			continue
		}
		var res segment.LookupResult
		var err error
		if r.lookup != nil {
			res, err = r.lookup(s, q.Offset, rules)
		} else {
			res, err = s.LookupAs(q.Offset, rules)
		}
		a := kidxAnswer(res, err)
		a.Kind = q.Kind
		out = append(out, a)
	}
	return out, nil
}

// kidxTimeAnswer is a timestamp lookup of kidx's reader (Segment.LookupTimestampIn) as a
// protocol answer.
func kidxTimeAnswer(res segment.TimeLookupResult, err error) Answer {
	if err != nil {
		a := kidxAnswer(segment.LookupResult{}, err)
		a.Kind = KindTimestamp
		return a
	}
	a := Answer{Kind: KindTimestamp, Start: res.StartPosition, Offset: -1, Timestamp: -1, Hops: -1}
	if res.Found {
		a.Offset, a.Timestamp = res.FoundOffset, res.FoundTimestamp
	}
	return a
}
