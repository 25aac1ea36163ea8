package fuzz

import (
	"fmt"
	"slices"

	"kidx/model"
	"kidx/segment"
)

// Resolved is a workload with its config and rule resolved on both sides.
type Resolved struct {
	Model     model.Config
	Rule      model.AppendRule
	File      *segment.Workload
	Workload  model.Workload
	MaxSpanTs int64 // largest max timestamp minus the smallest non-negative one
}

// Resolve applies the workload's config to Kafka's defaults (as `kidx sim` and `kidx write`
// do) and converts it to the file side's workload, as cmd/kidx/write.go does. It fails for a
// workload the model refuses (an invalid batch or config) or that the file side cannot
// encode (Encodable): such inputs are not divergences.
func Resolve(w model.Workload) (*Resolved, error) {
	cfg := model.DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rule := model.PerBatch
	if w.Rule != "" {
		r, err := model.ParseRule(w.Rule)
		if err != nil {
			return nil, err
		}
		rule = r
	}
	if w.StartOffset < 0 {
		return nil, fmt.Errorf("start offset %d is negative", w.StartOffset)
	}
	r := &Resolved{Model: cfg, Rule: rule, Workload: w}
	sw := &segment.Workload{
		Config: segment.Config{IndexIntervalBytes: cfg.IndexIntervalBytes, SegmentBytes: cfg.SegmentBytes,
			SegmentIndexBytes: cfg.SegmentIndexBytes, SegmentMs: cfg.SegmentMs, MaxMessageBytes: cfg.MaxMessageBytes},
		Rule:        segment.PerBatch,
		StartOffset: w.StartOffset,
		Steps:       make([]segment.Step, 0, len(w.Steps)),
	}
	if rule == model.PerAppend {
		sw.Rule = segment.PerAppend
	}
	if cfg.FlushMessages != model.DefaultFlushMessages {
		sw.Config.FlushMessages = cfg.FlushMessages
	}
	minTs, maxTs := int64(-1), int64(-1)
	for i, s := range w.Steps {
		n := 0
		if s.Restart {
			n++
		}
		if s.Recover {
			n++
		}
		if len(s.Append) > 0 {
			n++
		}
		if s.Crash != nil {
			n++
		}
		if s.Clean != nil {
			n++
		}
		if n != 1 {
			return nil, fmt.Errorf("step %d: exactly one of append, restart, recover, crash, clean", i)
		}
		st := segment.Step{Restart: s.Restart, Recover: s.Recover, Clean: FileClean(s.Clean),
			RecoveryPoint: s.RecoveryPoint, HasRecoveryPoint: s.HasRecoveryPoint}
		if c := s.Crash; c != nil {
			st.Crash = &segment.CrashSpec{RecoveryPoint: c.RecoveryPoint}
			for _, cs := range c.Segments {
				st.Crash.Segments = append(st.Crash.Segments, segment.CrashSegment{BaseOffset: cs.BaseOffset, LogBytes: cs.LogBytes,
					IndexBytes: cs.IndexBytes, TimeIndexBytes: cs.TimeIndexBytes})
			}
		}
		for j, b := range s.Append {
			if err := b.Validate(); err != nil {
				return nil, fmt.Errorf("step %d batch %d: %w", i, j, err)
			}
			spec := segment.BatchSpec{Records: int(b.Records), Bytes: int(b.Bytes), MaxTimestamp: b.MaxTimestamp,
				Transactional: b.Transactional, Control: b.Control, ProducerID: b.ProducerID, BaseOffset: b.BaseOffset}
			if b.Compression != "" {
				// A compressed batch's size is searched by its builder, whose refusal (a size
				// just above its minimum) makes the harness skip the case (isBuilderRefusal).
				c, err := segment.ParseCompression(b.Compression)
				if err != nil {
					return nil, fmt.Errorf("step %d batch %d: %w", i, j, err)
				}
				spec.Compression = c
			} else if b.Control == "" && !Encodable(b.Records, b.Bytes) {
				return nil, fmt.Errorf("step %d batch %d: %d records in %d bytes cannot be encoded", i, j, b.Records, b.Bytes)
			}
			if b.MaxTimestamp >= 0 {
				if minTs < 0 || b.MaxTimestamp < minTs {
					minTs = b.MaxTimestamp
				}
				maxTs = max(maxTs, b.MaxTimestamp)
			}
			st.Append = append(st.Append, spec)
		}
		sw.Steps = append(sw.Steps, st)
	}
	if minTs >= 0 {
		r.MaxSpanTs = maxTs - minTs
	}
	r.File = sw
	return r, nil
}

// FileCandidate is a candidate era's knobs as the file side takes them (the two fixes of the
// follower index overflow, docs/kafka-hazards.md §6); a release's era gives the zero value.
func FileCandidate(e model.Era) segment.Candidate {
	return segment.Candidate{RollWhenAppendLacksIndexRoom: e.RollWhenAppendLacksIndexRoom, SkipEntryWhenIndexFull: e.SkipEntryWhenIndexFull}
}

// FileClean is a model clean step as the file side takes it (the same fields: docs/contract.md
// §3 "clean"); nil for nil.
func FileClean(c *model.Clean) *segment.CleanSpec {
	if c == nil {
		return nil
	}
	fc := &segment.CleanSpec{UncleanableOffset: c.UncleanableOffset, HasUncleanableOffset: c.HasUncleanableOffset,
		Drop: slices.Clone(c.Drop), IOBufferSize: c.IOBufferSize}
	for _, r := range c.Rewrite {
		fc.Rewrite = append(fc.Rewrite, segment.CleanRewrite{BaseOffset: r.BaseOffset, Bytes: r.Bytes,
			MaxTimestamp: r.MaxTimestamp, HasMaxTimestamp: r.HasMaxTimestamp, DeleteHorizonMs: r.DeleteHorizonMs, HasDeleteHorizon: r.HasDeleteHorizon})
	}
	return fc
}
