package against

import (
	"context"
	"path/filepath"

	"kidx/segment"
)

// KidxReader is kidx's own reader (segment.Segment.LookupAs) as a Reader, in process: the
// fast reader of BenchmarkAgainstInProcess, and the baseline every other reader is held to.
type KidxReader struct {
	// lookup replaces Segment.LookupAs (the tests plant bugs here); nil: Segment.LookupAs.
	lookup func(*segment.Segment, int64, segment.ReadRules) (segment.LookupResult, error)
}

// Answer opens each segment once and answers every query with kidx's answer.
func (r KidxReader) Answer(_ context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
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
				out = append(out, kidxAnswer(segment.LookupResult{}, err))
				continue
			}
			segs[q.Segment] = s
		}
		var res segment.LookupResult
		var err error
		if r.lookup != nil {
			res, err = r.lookup(s, q.Offset, rules)
		} else {
			res, err = s.LookupAs(q.Offset, rules)
		}
		out = append(out, kidxAnswer(res, err))
	}
	return out, nil
}
