package against

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kidx/logdir"
	"kidx/segment"
)

// maxDirQueries bounds the queries asked of one segment of a real directory: beyond it the
// batches asked about are spread evenly over the segment.
const maxDirQueries = 4000

// DirQuestions are the questions asked of a partition directory kidx did not write (a real
// broker's, `kidx diff --against CMD --dir DIR`), with kidx's answers read from its files by
// kidx's readers: for each segment, the first and the last offset of each batch (the first
// being one past the batch before; a compressed legacy wrapper holds several), one past the
// last, and the offset after the place where the walk stops at corrupt data. Nothing in dir is
// written.
func DirQuestions(dir string, rules segment.ReadRules) (Questions, error) {
	ds, err := logdir.ScanDir(dir)
	if err != nil {
		return Questions{}, err
	}
	if len(ds.Partitions) != 1 || len(ds.Partitions[0].LogSegments()) == 0 {
		return Questions{}, fmt.Errorf("%s: not a partition directory with a segment (<base offset>.log) in it", dir)
	}
	q := Questions{Rules: rules}
	for _, sf := range ds.Partitions[0].LogSegments() {
		stem := strings.TrimSuffix(filepath.Base(sf.Log), segment.LogSuffix)
		s, err := segment.OpenSegmentFiles(sf, segment.DefaultAccess)
		if err != nil {
			q.Queries = append(q.Queries, Query{Segment: stem, BaseOffset: sf.BaseOffset, Offset: sf.BaseOffset})
			q.Want = append(q.Want, kidxAnswer(segment.LookupResult{}, err))
			continue
		}
		for _, o := range dirOffsets(s) {
			res, err := s.LookupAs(o, rules)
			q.Queries = append(q.Queries, Query{Segment: stem, BaseOffset: sf.BaseOffset, Offset: o})
			q.Want = append(q.Want, kidxAnswer(res, err))
		}
		if err := s.Close(); err != nil {
			return Questions{}, err
		}
	}
	return q, nil
}

// dirOffsets are the offsets asked of segment s, sorted, without repeats.
func dirOffsets(s *segment.Segment) []int64 {
	type span struct{ first, last int64 }
	var spans []span
	next := s.BaseOffset
	wr := s.Log.Walk(0, 0, func(b segment.BatchInfo) bool {
		first := next
		if !b.IsLegacy() {
			first = b.BaseOffset()
		}
		spans = append(spans, span{first, b.LastOffset()})
		next = b.LastOffset() + 1
		return true
	})
	stride := max(1, (2*len(spans)+maxDirQueries-1)/maxDirQueries)
	out := []int64{s.BaseOffset}
	for i := 0; i < len(spans); i += stride {
		out = append(out, spans[i].first, spans[i].last)
	}
	out = append(out, next) // one past the last batch, or the offset where corrupt data stops the walk
	if wr.Err != nil {
		out = append(out, next+1)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// kidxAnswer is a lookup of kidx's reader (segment.Segment.Lookup) as a protocol answer.
func kidxAnswer(res segment.LookupResult, err error) Answer {
	var fe *segment.FormatError
	var oe *segment.OpenError
	switch {
	case errors.As(err, &fe):
		return Answer{Hops: -1, Err: &AnswerError{Message: fe.Msg, File: filepath.Base(fe.File), Byte: fe.Pos}, Reason: res.Reason}
	case errors.As(err, &oe):
		return Answer{Hops: -1, Err: &AnswerError{Message: oe.Reason(), File: filepath.Base(oe.Path), Byte: -1}}
	case err != nil:
		return Answer{Hops: -1, Err: &AnswerError{Message: err.Error(), Byte: -1}}
	}
	a := Answer{Start: res.IndexPosition, Hit: -1, Hops: int64(res.Hops), Reason: res.Reason}
	if res.Found {
		a.Hit = res.HitPosition
	}
	return a
}

// RunDir runs r once on a partition directory kidx did not write and compares its answers
// with kidx's (DirQuestions). There is no workload to shrink: each divergence names the first
// query of its kind, and its Cases counts the queries of that kind (not cases: there is one).
func RunDir(ctx context.Context, dir string, rules segment.ReadRules, r Reader) (*CorpusReport, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	q, err := DirQuestions(abs, rules)
	if err != nil {
		return nil, err
	}
	if readerProtocol(r) >= ProtocolVersion2 {
		if q, err = addDirProtocol2(abs, q); err != nil {
			return nil, err
		}
	}
	answers, err := r.Answer(ctx, abs, rules, q.Queries)
	rep := &CorpusReport{Cases: 1, Queries: int64(len(q.Queries))}
	d := &Divergence{Queries: len(q.Queries), Cases: 1}
	var f *Failure
	switch {
	case errors.As(err, &f):
		d.Kind, d.Failure = f.Kind, f
	case err != nil:
		return nil, err
	case len(answers) != len(q.Queries):
		d.Kind, d.Failure = FailProtocol, &Failure{Kind: FailProtocol, What: fmt.Sprintf("%d answers for %d queries", len(answers), len(q.Queries))}
	default:
		// One divergence per kind: a reader wrong about a legacy log is wrong at most of it.
		byKind := map[string]*Divergence{}
		for _, m := range Compare(q, answers) {
			if d := byKind[m.Kind]; d != nil {
				d.Cases++
				continue
			}
			byKind[m.Kind] = &Divergence{Kind: m.Kind, Mismatch: &m, Cases: 1, Queries: len(q.Queries)}
			rep.Divergences = append(rep.Divergences, CorpusDivergence{Dir: abs, Divergence: byKind[m.Kind]})
		}
		rep.Elapsed = time.Since(start)
		return rep, nil
	}
	rep.Divergences = append(rep.Divergences, CorpusDivergence{Dir: abs, Divergence: d})
	rep.Elapsed = time.Since(start)
	return rep, nil
}
