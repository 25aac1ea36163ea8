package reports

import (
	"fmt"
	"math"
	"slices"

	"kidx/model"
	"kidx/sim"
)

// An IntervalPiece is a closed range of index.interval.bytes values over which a workload's
// whole run is the same: the same entries, rolls and lookup costs. The index changes only at
// the edges between pieces (docs/reports.md, "The exact interval sweep").
type IntervalPiece struct {
	Min, Max           int64
	Segments           int
	OffsetIndexEntries int64
	Scan               model.ScanStats
	// Regime is the regime of the sweep's point inside the piece (filled by RunWhatIf).
	Regime Regime
}

// maxPieces bounds the exact sweep: every piece costs one run of the workload.
const maxPieces = 64

// ExactIntervals cuts the interval axis [0, 2^31-1] into the pieces over which the run is the
// same: it runs the reference model at the lowest value of a piece, and the run itself says how
// far the piece reaches (model.Log.IntervalRange: every index check decided as it did), then
// goes on from just above it. A piece that gives exactly the figures of the one below (a
// recovery can make a check matter that the rebuilt index then forgets) is merged into it.
// complete is false when more than maxPieces were found; the pieces then stop there.
func ExactIntervals(src sim.Source, cfg model.Config, era model.Era) (pieces []IntervalPiece, complete bool, err error) {
	for I := int64(0); ; {
		c := cfg
		c.IndexIntervalBytes = I
		res, err := sim.Run(src, c, era.Rule(), sim.RunOptions{Era: era, TrackInterval: true})
		if err != nil {
			return nil, false, err
		}
		if res.IntervalHi < I {
			return nil, false, fmt.Errorf("index.interval.bytes=%d: the run's own value is outside its range [%d, %d]", I, res.IntervalLo, res.IntervalHi)
		}
		p := IntervalPiece{Min: I, Max: res.IntervalHi, Segments: res.Segments, OffsetIndexEntries: res.OffsetIndexEntries, Scan: res.Scan}
		if n := len(pieces); n > 0 && samePiece(pieces[n-1], p) {
			pieces[n-1].Max = p.Max
		} else {
			if len(pieces) == maxPieces {
				return pieces, false, nil
			}
			pieces = append(pieces, p)
		}
		if p.Max >= math.MaxInt32 {
			return pieces, true, nil
		}
		I = p.Max + 1
	}
}

func samePiece(a, b IntervalPiece) bool {
	return a.Segments == b.Segments && a.OffsetIndexEntries == b.OffsetIndexEntries && a.Scan == b.Scan
}

// PieceOf is the piece holding interval value v (nil when none).
func (r *WhatIf) PieceOf(v int64) *IntervalPiece {
	for i := range r.Pieces {
		if r.Pieces[i].Min <= v && v <= r.Pieces[i].Max {
			return &r.Pieces[i]
		}
	}
	return nil
}

// exactSweepValues are the values a sweep with exact intervals runs: the given ones, and the
// lowest value of every piece none of them falls in, ascending.
func exactSweepValues(given []int64, pieces []IntervalPiece) []int64 {
	out := append([]int64(nil), given...)
	for _, p := range pieces {
		hit := false
		for _, v := range given {
			hit = hit || (p.Min <= v && v <= p.Max)
		}
		if !hit {
			out = append(out, p.Min)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
