package sim

import (
	"errors"
	"io"

	"kidx/model"
)

// RunOptions tune Run.
type RunOptions struct {
	StartOffset int64
	// KeepSummaries keeps every segment's summary in the result.
	KeepSummaries bool
	// OnRun, if set, sees every run of offsets that share one lookup cost (count offsets of
	// scanBytes and hops each); the runs add up to Result.Scan. Reports build exact quantiles
	// from them.
	OnRun func(count, scanBytes, hops int64)
	// OnSegment, if set, sees every segment's summary once it is final.
	OnSegment func(model.SegmentSummary)
	// Timestamps makes the fast path read batch timestamps (time-index counts and time
	// rolls). Without it batches are taken as having none, which is faster.
	Timestamps bool
	// TrackInterval runs the reference model.Log (not the fast path) and reports in
	// Result.IntervalLo/Hi the index.interval.bytes values under which the run is the same
	// (model.Log.IntervalRange).
	TrackInterval bool
	// ReferenceModel runs model.Log even where the fast path could: its events
	// (Result.Events) are the model's own, one per rejection or overflow.
	ReferenceModel bool
	// Era is the Kafka era whose rules the run follows; the zero Era means the rule's own
	// (model.EraForRule). Eras model.StatStream cannot run (model.StreamSupports) go through
	// model.Log even for single-batch sources.
	Era model.Era
	// NoRecovers says the source has no recover and no crash step, so the reference path's
	// model keeps only the last append's batches (model.LogOptions.ForgetBatches): its memory
	// is then one append and the indexes, not a segment's batches (issue 27). A recover or
	// crash step is then an error.
	NoRecovers bool
}

// Result is a source reduced to exact figures.
type Result struct {
	Scan                                 model.ScanStats
	Segments                             int
	Batches                              int64
	OffsetIndexEntries, TimeIndexEntries int64
	MaxBatchBytes                        int64
	Summaries                            []model.SegmentSummary // with KeepSummaries
	Events                               []model.Event
	Rejected                             int64
	// FastPath says the source went through model.StatStream (single-batch appends);
	// otherwise through the reference model.Log.
	FastPath bool
	// IntervalLo and IntervalHi, with RunOptions.TrackInterval, bound the index.interval.bytes
	// values that give this same run.
	IntervalLo, IntervalHi int64
	// Stopped says the model stopped where Kafka throws (model.Log.Stopped); the reference
	// model only.
	Stopped bool
}

func (r *Result) addSegment(s model.SegmentSummary, keep bool) {
	r.Segments++
	r.Batches += int64(s.BatchCount)
	r.OffsetIndexEntries += int64(s.OffsetIndexEntries)
	r.TimeIndexEntries += int64(s.TimeIndexEntries)
	r.MaxBatchBytes = max(r.MaxBatchBytes, s.MaxBatchBytes)
	if keep {
		r.Summaries = append(r.Summaries, s)
	}
}

const chunk = 1 << 16

// Run reduces src to exact figures under cfg and rule (or opts.Era). Single-batch sources
// take the fast path (model.StatStream), where the two rules coincide, when the stream
// supports the era; everything else runs through model.Log without keeping segments, so
// memory stays that of one segment either way.
func Run(src Source, cfg model.Config, rule model.AppendRule, opts RunOptions) (*Result, error) {
	era := opts.Era
	if era.ID == "" {
		era = model.EraForRule(rule)
	}
	rule = era.Rule()
	st, err := src.Open()
	if err != nil {
		return nil, err
	}
	res := &Result{}
	onSegment := func(s model.SegmentSummary) {
		res.addSegment(s, opts.KeepSummaries)
		if opts.OnSegment != nil {
			opts.OnSegment(s)
		}
	}
	if bs, ok := st.(BatchStream); ok && model.StreamSupports(era) && !opts.TrackInterval && !opts.ReferenceModel {
		res.FastPath = true
		ss, err := model.NewStatStream(cfg, opts.StartOffset, false, onSegment)
		if err != nil {
			return nil, err
		}
		if err := ss.SetEra(era); err != nil {
			return nil, err
		}
		if opts.OnRun != nil {
			ss.OnRun(opts.OnRun)
		}
		bytes, records := make([]int32, chunk), make([]int32, chunk)
		var ts []int64
		if opts.Timestamps {
			ts = make([]int64, chunk)
		}
		for {
			n, err := bs.NextBatches(bytes, records, ts)
			if n > 0 {
				var tsn []int64
				if ts != nil {
					tsn = ts[:n]
				}
				ss.AddBatches(bytes[:n], records[:n], tsn)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
		}
		res.Scan = ss.Close()
		res.Rejected = ss.Rejected()
		return res, nil
	}
	lo := model.LogOptions{StartOffset: opts.StartOffset, Era: era, ForgetRolled: true, OnSegmentDone: func(s *model.Segment) {
		onSegment(s.Summarize())
		if opts.OnRun != nil && !opts.NoRecovers {
			s.Runs(opts.OnRun)
		}
	}}
	if opts.NoRecovers {
		lo.ForgetBatches, lo.OnRun = true, opts.OnRun
	}
	l, err := model.NewLog(cfg, rule, lo)
	if err != nil {
		return nil, err
	}
	steps := make([]model.Step, 1024)
	for !l.Stopped() {
		n, err := st.Next(steps)
		for _, s := range steps[:n] {
			if l.Stopped() {
				break
			}
			if err := l.Apply(s); err != nil {
				return nil, err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	res.Scan = l.Scan()
	res.Events = l.Events()
	res.Stopped = l.Stopped()
	res.IntervalLo, res.IntervalHi = l.IntervalRange()
	for _, e := range res.Events {
		if e.Kind == model.EventRejected {
			res.Rejected++
		}
	}
	return res, nil
}
