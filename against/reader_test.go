package against

import (
	"context"

	"kidx/examples/goreader/kafkaindex"

	"kidx/segment"
)

// plantedReader is KidxReader with issue 14's first planted bug: phase 1 takes the largest
// entry with offset < the target, where OffsetIndex.lookup takes <= (docs/kafka.md §7.1).
type plantedReader struct{}

func (plantedReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	return KidxReader{lookup: strictLookup}.Answer(ctx, partition, rules, qs)
}

// strictLookup is the planted phase 1 (a linear scan for the last entry below the target),
// then Kafka's phase 2 from there (segment.LookupFrom).
func strictLookup(s *segment.Segment, target int64, rules segment.ReadRules) (segment.LookupResult, error) {
	start := int64(0)
	for _, e := range s.Index.Entries(s.Index.ValidLen()) {
		if e.Offset < target { // the planted bug: Kafka's is <=
			start = e.Position
		}
	}
	return s.LookupFrom(target, start, rules)
}

// independentReader is the Go reference adapter's package (examples/goreader/kafkaindex,
// written from Kafka's rules with no kidx package) as an in-process Reader: its answers are
// not kidx's code.
type independentReader struct{}

func (independentReader) Answer(_ context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	// The line and view names are the protocol's, and both packages spell them alike.
	release, err := kafkaindex.ParseRelease(rules.Release.String())
	if err != nil {
		return nil, err
	}
	view, err := kafkaindex.ParseView(rules.View.String())
	if err != nil {
		return nil, err
	}
	segs := map[string]*kafkaindex.Segment{}
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
			if s, err = kafkaindex.OpenNamed(partition, q.Segment, q.BaseOffset); err != nil {
				return nil, err
			}
			segs[q.Segment] = s
		}
		a := s.LookupAs(q.Offset, kafkaindex.Rules{Release: release, View: view})
		if a.Err != nil {
			out = append(out, Answer{Hops: -1, Err: &AnswerError{Message: a.Err.Message, File: a.Err.File, Byte: a.Err.Byte}})
			continue
		}
		out = append(out, Answer{Start: a.Start, Hit: a.Hit, Hops: -1})
	}
	return out, nil
}
