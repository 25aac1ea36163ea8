package logdir

import (
	"encoding/json"
	"testing"
)

// kidx.verify/1 (docs/schema/kidx.verify.1.json) makes a segment's "restarts" a list: a
// segment whose restarts are kept only where evidenced, and none is, says [] (a real
// partition of ../shared/realdata said null before).
func TestEvidencedRestartsIsAListInJSON(t *testing.T) {
	unmarked := []Restart{{Offset: 5, Position: 100, TimeIndexMark: -1}}
	b, err := json.Marshal(SegmentVerdict{Restarts: evidencedRestarts(unmarked), EraIDs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Restarts *[]Restart `json:"restarts"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Restarts == nil || len(*back.Restarts) != 0 {
		t.Errorf("restarts of a segment with no evidenced restart: %s, want []", b)
	}
	marked := []Restart{{Offset: 5, Position: 100, TimeIndexMark: 3}}
	if got := evidencedRestarts(append(unmarked, marked...)); len(got) != 1 || got[0].TimeIndexMark != 3 {
		t.Errorf("evidencedRestarts kept %+v, want the marked restart alone", got)
	}
}
