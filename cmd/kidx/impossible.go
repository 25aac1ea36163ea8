package main

import (
	"fmt"
	"io"

	"kidx/model"
)

// warnImpossibleBatches prints one `kidx: warning:` line when a workload holds batches no
// file can hold (model.Batch.Possible: fewer bytes than the header and the smallest records
// of their count): the model runs them, being arithmetic over sizes, but kidx write refuses
// them, so such a run cannot be materialized. Nothing when every batch can exist.
func warnImpossibleBatches(stderr io.Writer, steps []model.Step) {
	var t model.ImpossibleBatches
	t.Add(steps)
	if t.Count > 0 {
		fmt.Fprintf(stderr, "kidx: warning: %s\n", t.String())
	}
}
