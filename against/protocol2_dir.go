package against

import (
	"math"
	"path/filepath"
	"slices"

	"kidx/segment"
)

// maxDirTimestamps bounds the timestamp queries asked of one segment of a real directory:
// beyond it the batches whose timestamps are asked are spread evenly over the segment.
const maxDirTimestamps = 256

// addDirProtocol2 adds protocol 2's questions about a partition directory kidx did not write
// to q (DirQuestions' offset queries, marked as such): per segment, the max timestamp of its
// batches (at most maxDirTimestamps, spread), one before the first and one past the last (no
// record) answered by Segment.LookupTimestampIn on its files; then which segment holds each
// segment's base offset, the offset before it, and the first, last and one past the last
// offset the offset queries asked of it (floorSegment).
func addDirProtocol2(dir string, q Questions) (Questions, error) {
	for i := range q.Queries {
		q.Queries[i].Kind, q.Want[i].Kind = KindOffset, KindOffset
	}
	bases, err := partitionBaseOffsets(dir)
	if err != nil {
		return q, err
	}
	asked := map[int64][2]int64{} // base offset: the lowest and highest offset asked
	for _, qu := range q.Queries {
		r, ok := asked[qu.BaseOffset]
		if !ok {
			r = [2]int64{qu.Offset, qu.Offset}
		}
		asked[qu.BaseOffset] = [2]int64{min(r[0], qu.Offset), max(r[1], qu.Offset)}
	}
	var segOffsets []int64
	for _, b := range bases {
		stem := segment.FilenamePrefixFromOffset(b)
		segOffsets = append(segOffsets, b, b-1)
		if r, ok := asked[b]; ok {
			segOffsets = append(segOffsets, r[0], r[1], r[1]+1)
		}
		s, err := segment.OpenSegment(filepath.Join(dir, stem+segment.LogSuffix))
		if err != nil {
			a := kidxAnswer(segment.LookupResult{}, err)
			a.Kind = KindTimestamp
			q.Queries = append(q.Queries, Query{Kind: KindTimestamp, Segment: stem, BaseOffset: b, Timestamp: 0})
			q.Want = append(q.Want, a)
			continue
		}
		for _, ts := range dirTimestamps(s) {
			res, err := s.LookupTimestampIn(ts, q.Rules.View)
			q.Queries = append(q.Queries, Query{Kind: KindTimestamp, Segment: stem, BaseOffset: b, Timestamp: ts})
			q.Want = append(q.Want, kidxTimeAnswer(res, err))
		}
		if err := s.Close(); err != nil {
			return q, err
		}
	}
	slices.Sort(segOffsets)
	for _, o := range slices.Compact(segOffsets) {
		q.Queries = append(q.Queries, Query{Kind: KindSegment, Offset: o})
		q.Want = append(q.Want, Answer{Kind: KindSegment, BaseOffset: floorSegment(bases, o), Hops: -1})
	}
	return q, nil
}

// dirTimestamps are the timestamps asked of segment s, sorted, without repeats: its batches'
// max timestamps (spread when there are many), one below the least and one past the greatest.
func dirTimestamps(s *segment.Segment) []int64 {
	var all []int64
	s.Log.Walk(0, 0, func(b segment.BatchInfo) bool {
		all = append(all, b.MaxTimestamp())
		return true
	})
	if len(all) == 0 {
		return []int64{0}
	}
	stride := max(1, (len(all)+maxDirTimestamps-1)/maxDirTimestamps)
	var out []int64
	for i := 0; i < len(all); i += stride {
		out = append(out, all[i])
	}
	lo, hi := slices.Min(all), slices.Max(all)
	if lo > math.MinInt64 {
		out = append(out, lo-1)
	}
	if hi < math.MaxInt64 {
		out = append(out, hi+1)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
