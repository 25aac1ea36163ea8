package fuzz

// This is the only file that imports github.com/google/gofuzz (archived upstream). It turns
// fuzz bytes into a Source; everything else draws from Source, so replacing gofuzz means
// replacing this file only.

import (
	gofuzz "github.com/google/gofuzz"

	"kidx/model"
)

// FromGoFuzz turns fuzz bytes into a valid, edge-heavy workload: gofuzz's NewFromGoFuzz reads
// its randomness from data (then from a PRNG seeded by data's first 8 bytes), and a custom
// function for model.Workload draws every field through Generate, which keeps sizes
// encodable (>= segment.MinBatchSize, never a size the builder cannot make), record counts in
// range, timestamps >= -1 (equal, going back, -1, 0) and groupings valid.
func FromGoFuzz(data []byte, o GenOptions) model.Workload {
	var w model.Workload
	gofuzz.NewFromGoFuzz(data).Funcs(func(w *model.Workload, c gofuzz.Continue) {
		*w = Generate(c, o)
	}).Fuzz(&w)
	return w
}
