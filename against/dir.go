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
	return partitionQuestions(&ds.Partitions[0], rules)
}

// partitionQuestions are DirQuestions of one scanned partition.
func partitionQuestions(p *logdir.PartitionDir, rules segment.ReadRules) (Questions, error) {
	q := Questions{Rules: rules}
	for _, sf := range p.LogSegments() {
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

// RunDir runs r on every partition of dir, a partition directory or a whole log directory
// kidx did not write (logdir.ScanDir; partitions without a segment are skipped), once per
// partition (so a Command's time limit is per partition), and compares its answers with
// kidx's (partitionQuestions). There is no workload to shrink: per partition, each divergence
// is the first query of its group (kind and kidx's reason), and its Cases counts the queries
// of that group. The report's Cases are the partitions asked. Nothing in dir is written.
func RunDir(ctx context.Context, dir string, rules segment.ReadRules, r Reader, fields Fields) (*CorpusReport, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ds, err := logdir.ScanDir(abs)
	if err != nil {
		return nil, err
	}
	rep := &CorpusReport{}
	for i := range ds.Partitions {
		p := &ds.Partitions[i]
		if len(p.LogSegments()) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		q, err := partitionQuestions(p, rules)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p.Path, err)
		}
		if readerProtocol(r) >= ProtocolVersion2 {
			if q, err = addDirProtocol2(p.Path, q); err != nil {
				return rep, fmt.Errorf("%s: %w", p.Path, err)
			}
		}
		q.Fields = fields
		ds, err := askPartition(ctx, p.Path, q, r)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p.Path, err)
		}
		rep.Cases++
		rep.Asked = append(rep.Asked, p.Path)
		rep.Queries += int64(len(q.Queries))
		for _, d := range ds {
			rep.Divergences = append(rep.Divergences, CorpusDivergence{Dir: p.Path, Divergence: d})
		}
	}
	if rep.Cases == 0 {
		return nil, fmt.Errorf("%s: no partition directory with a segment (<base offset>.log) in it", dir)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// askPartition runs r once on one partition and groups its divergences by kind and kidx's
// reason, in query order; nil when every answer agrees.
func askPartition(ctx context.Context, part string, q Questions, r Reader) ([]*Divergence, error) {
	answers, err := r.Answer(ctx, part, q.Rules, q.Queries)
	d := &Divergence{Queries: len(q.Queries), Cases: 1}
	var f *Failure
	switch {
	case errors.As(err, &f):
		d.Kind, d.Failure = f.Kind, f
		return []*Divergence{d}, nil
	case err != nil:
		return nil, err
	case len(answers) != len(q.Queries):
		d.Kind, d.Failure = FailProtocol, &Failure{Kind: FailProtocol, What: fmt.Sprintf("%d answers for %d queries", len(answers), len(q.Queries))}
		return []*Divergence{d}, nil
	}
	// One divergence per group: a reader wrong about a legacy log is wrong at most of it.
	var out []*Divergence
	byKey := map[string]*Divergence{}
	for _, m := range Compare(q, answers) {
		d := &Divergence{Kind: m.Kind, Reason: m.Want.Reason, Mismatch: &m, Cases: 1, Queries: len(q.Queries)}
		if g := byKey[d.Key()]; g != nil {
			g.Cases++
			continue
		}
		byKey[d.Key()] = d
		out = append(out, d)
	}
	return out, nil
}
