package props

import (
	"strings"
	"testing"

	"kidx/model"
)

// A crash step (docs/contract.md §3) is outside the properties' step space: a run given one
// reports it as an invalid input instead of recording a trace for a step it does not model.
func TestRunRefusesCrashStep(t *testing.T) {
	steps := []model.Step{
		model.AppendStep(model.Batch{Records: 1, Bytes: 78, MaxTimestamp: model.NoTimestamp}),
		{Crash: &model.Crash{Segments: []model.CrashSegment{{LogBytes: 40}}}},
	}
	r := simulate(steps, 0, model.DefaultConfig(), model.PerBatch, nil, model.Exact)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "a crash step is outside the properties' step space") {
		t.Fatalf("Err %v", r.Err)
	}
}
