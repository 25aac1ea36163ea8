package logdir

import (
	"strings"
	"testing"
)

// Issue 25: CleanerEvidence counted batch by batch, by hand. A segment based at 100 with
// batches 100-104, 110-110 (offsets 105-109 skipped), 111-120 and 130-131 (121-129 skipped)
// skips offsets twice; one batch carries a delete horizon. Its last offset is 131: a
// cleaner checkpoint of 132 lies past it (the cleaner has cleaned it), one of 131 does not
// (131 is not below 131), and a segment with no batch is below nothing.
func TestCleanerEvidenceByHand(t *testing.T) {
	m := NewCleanerMarks(100)
	m.Batch(100, 104, false)
	m.Batch(110, 110, true)
	m.Batch(111, 120, false)
	m.Batch(130, 131, false)
	ev := m.Evidence(132, true)
	if ev.Gaps != 2 || ev.DeleteHorizons != 1 || !ev.BelowCheckpoint || !ev.Strong() || !ev.Any() {
		t.Errorf("%+v; want 2 gaps, 1 delete horizon, below the checkpoint 132", ev)
	}
	if got := ev.String(); !strings.Contains(got, "skips offsets 2 times") || !strings.Contains(got, "below offset 132") {
		t.Errorf("facts %q", got)
	}
	if ev := m.Evidence(131, true); ev.BelowCheckpoint {
		t.Errorf("checkpoint 131: %+v; 131 is not below 131", ev)
	}
	if ev := m.Evidence(0, false); ev.BelowCheckpoint || ev.HasCheckpoint {
		t.Errorf("no checkpoint: %+v", ev)
	}
	empty := NewCleanerMarks(100).Evidence(500, true)
	if empty.BelowCheckpoint || empty.Any() {
		t.Errorf("no batch: %+v; a segment with no batch shows nothing", empty)
	}
	// A gap from the base offset to the first batch counts; gaps alone are weak evidence.
	g := NewCleanerMarks(0)
	g.Batch(153, 160, false)
	if ev := g.Evidence(0, false); ev.Gaps != 1 || ev.Strong() || !ev.Any() {
		t.Errorf("%+v; want one gap, weak", ev)
	}
}
