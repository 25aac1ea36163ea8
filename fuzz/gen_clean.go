package fuzz

import (
	"math"
	"slices"

	"kidx/model"
)

// Clean steps (issue 25, docs/contract.md §3 "clean"): a clean names the batches it drops and
// rewrites by base offset, so it is drawn against the log its position sees: the model runs the
// workload up to there, and the clean's names come from the segments it would clean.

// minGenRewrite is the smallest rewrite generated above the empty batch's 61 bytes: the file
// writer rebuilds a rewrite as one keyed record (docs/segment.md "The clean step"), which with
// a 10-byte timestamp delta, a 5-byte offset delta and a 4-byte value needs 30 bytes past the
// header.
const minGenRewrite = 91

// addCleanSteps inserts up to two clean steps into w's steps, each drawn against the model's
// log at its position. A position where the model fails or stopped gets none.
func (g *gen) addCleanSteps(w *model.Workload, cfg model.Config, rule model.AppendRule) {
	var count int
	switch k := g.n(8); {
	case k < 4:
		return
	case k < 7:
		count = 1
	default:
		count = 2
	}
	for range count {
		pos := 1 + g.n(len(w.Steps))
		l, err := model.Simulate(cfg, rule, w.StartOffset, w.Steps[:pos], true)
		if err != nil || l.Stopped() {
			continue
		}
		c := g.cleanAgainst(l)
		w.Steps = slices.Insert(w.Steps, pos, model.Step{Clean: c})
	}
}

// cleanAgainst draws a clean of l's rolled segments: the uncleanable offset (mostly the
// active segment's base), the buffer size (often small, so that chunks and growth show), and
// per batch cleaned: kept, dropped or rewritten (at 61 bytes, at a size from minGenRewrite to
// a little above the source's: KAFKA-5316's early return), with a delete horizon sometimes.
func (g *gen) cleanAgainst(l *model.Log) *model.Clean {
	segs := l.Segments()
	rolled := segs[:len(segs)-1]
	c := &model.Clean{}
	if len(rolled) > 0 && g.n(4) == 0 {
		c.HasUncleanableOffset = true
		c.UncleanableOffset = rolled[g.n(len(rolled))].BaseOffset()
		if g.n(3) == 0 {
			c.UncleanableOffset++ // inside a segment: the segment is cleaned whole
		}
	}
	switch g.n(4) {
	case 0:
		c.IOBufferSize = g.pick(1, 61, 100, 200, g.scale, 2*g.scale)
	case 1:
		c.IOBufferSize = g.between(61, 4*g.scale)
	}
	uncleanable := segs[len(segs)-1].BaseOffset()
	if c.HasUncleanableOffset {
		uncleanable = c.UncleanableOffset
	}
	for _, s := range rolled {
		if s.BaseOffset() >= uncleanable {
			break
		}
		for _, b := range s.Batches() {
			switch k := g.n(12); {
			case k < 3:
				c.Drop = append(c.Drop, b.BaseOffset)
			case k < 5:
				c.Rewrite = append(c.Rewrite, g.rewrite(b))
			}
		}
	}
	return c
}

func (g *gen) rewrite(b model.BatchInfo) model.CleanRewrite {
	r := model.CleanRewrite{BaseOffset: b.BaseOffset}
	switch g.n(6) {
	case 0:
		// The empty batch a producer's state keeps, which a timestamp lookup walks past
		// (FileRecords.searchForTimestamp finds no record in it; model.BatchInfo.Empty).
		r.Bytes = model.RecordBatchOverhead
	case 1:
		r.Bytes = b.Size + g.between(1, 200) // larger than its source
	default:
		r.Bytes = g.between(minGenRewrite, max(b.Size, minGenRewrite))
	}
	r.Bytes = min(r.Bytes, math.MaxInt32)
	if g.n(3) == 0 {
		r.MaxTimestamp, r.HasMaxTimestamp = g.pick(model.NoTimestamp, 0, max(b.MaxTimestamp-1, model.NoTimestamp), b.MaxTimestamp+1), true
	}
	if r.Bytes > model.RecordBatchOverhead && g.n(3) == 0 {
		r.DeleteHorizonMs, r.HasDeleteHorizon = g.ts+86_400_000, true
	}
	return r
}
