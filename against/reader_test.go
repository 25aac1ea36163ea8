package against

import (
	"context"
	"errors"
	"path/filepath"

	"kidx/segment"
)

// segmentReader is the fast in-process reader of the tests and the benchmark: kidx's own
// segment readers (segment.Segment.Lookup), so its answers are kidx's. strictPhase1 plants the
// bug of issue 14's first example: phase 1 takes the largest entry with offset < the target,
// where OffsetIndex.lookup takes <= (docs/kafka.md §7.1).
type segmentReader struct {
	strictPhase1 bool
}

func (r segmentReader) Answer(_ context.Context, partition string, qs []Query) ([]Answer, error) {
	segs := map[string]*segment.Segment{}
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	out := make([]Answer, 0, len(qs))
	for _, q := range qs {
		s, ok := segs[q.Segment]
		if !ok {
			var err error
			if s, err = segment.OpenSegment(filepath.Join(partition, q.Segment+segment.LogSuffix)); err != nil {
				return nil, err
			}
			segs[q.Segment] = s
		}
		res, err := s.Lookup(q.Offset)
		if r.strictPhase1 && s.Index != nil {
			res, err = strictLookup(s, q.Offset)
		}
		out = append(out, answerOf(res, err))
	}
	return out, nil
}

func answerOf(res segment.LookupResult, err error) Answer {
	var fe *segment.FormatError
	if errors.As(err, &fe) {
		return Answer{Hops: -1, Err: &AnswerError{Message: fe.Msg, File: filepath.Base(fe.File), Byte: fe.Pos}}
	}
	if err != nil {
		return Answer{Hops: -1, Err: &AnswerError{Message: err.Error(), Byte: -1}}
	}
	a := Answer{Start: res.IndexPosition, Hit: -1, Hops: -1}
	if res.Found {
		a.Hit = res.HitPosition
	}
	return a
}

// strictLookup is the planted phase 1 (a linear scan for the last entry below the target),
// then kidx's phase 2 from there.
func strictLookup(s *segment.Segment, target int64) (segment.LookupResult, error) {
	res := segment.LookupResult{Target: target, IndexOffset: s.BaseOffset}
	for _, e := range s.Index.Entries(s.Index.ValidLen()) {
		if e.Offset < target { // the planted bug: Kafka's is <=
			res.IndexOffset, res.IndexPosition = e.Offset, e.Position
		}
	}
	wr := s.Log.Walk(max(res.IndexPosition, 0), 0, func(b segment.BatchInfo) bool {
		if b.LastOffset() >= target {
			res.Found, res.HitPosition = true, b.Position
			return false
		}
		return true
	})
	if !res.Found && wr.Err != nil {
		return res, wr.Err
	}
	return res, nil
}
