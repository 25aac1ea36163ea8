package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 24, "realistic corpus content": the batch keys the file writer reads, "compression",
// "transactional", "control" and "producerId", parse into the batch (a codec makes it
// Compressed, a marker transactional) and survive a round trip through the workload's JSON;
// their contradictions are errors naming the field.
func TestWorkloadContentKeys(t *testing.T) {
	in := `{"steps": [{"append": [{"records": 3, "bytes": 300, "compression": "lz4", "transactional": true, "producerId": 2},
		{"records": 1, "bytes": 78, "control": "commit", "producerId": 2}, {"records": 1, "bytes": 100, "compression": "none"}]}]}`
	w, err := ParseWorkload([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	b := w.Steps[0].Append
	if !b[0].Compressed || b[0].Compression != "lz4" || !b[0].Transactional || b[0].ProducerID != 2 ||
		!b[1].Transactional || b[1].Control != "commit" || b[1].ProducerID != 2 || b[2].Compressed || b[2].Compression != "" {
		t.Fatalf("parsed %+v", b)
	}
	out, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"compression":"lz4","transactional":true,"producerId":2`, `"control":"commit","producerId":2`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s lacks %s", out, want)
		}
	}
	again, err := ParseWorkload(out)
	if err != nil || len(again.Steps[0].Append) != 3 || again.Steps[0].Append[0] != b[0] || again.Steps[0].Append[1] != b[1] {
		t.Fatalf("round trip: %+v, %v", again, err)
	}
	for _, tc := range []struct{ batch, want string }{
		{`{"records": 1, "bytes": 100, "compression": "brotli"}`, `batches[0].compression: "brotli" is no codec`},
		{`{"records": 1, "bytes": 100, "compression": "gzip", "compressed": false}`, `batches[0].compressed: false contradicts compression "gzip"`},
		{`{"records": 2, "bytes": 100, "control": "commit"}`, "batches[0].records: 2: a marker holds one control record"},
		{`{"records": 1, "bytes": 100, "control": "done"}`, `batches[0].control: "done" is no end-transaction marker`},
		{`{"records": 1, "bytes": 100, "control": "abort", "transactional": false}`, "batches[0].transactional: false, but a marker is transactional"},
		{`{"records": 1, "bytes": 100, "producerId": -1}`, "batches[0].producerId: -1 is negative"},
	} {
		if _, err := ParseWorkload([]byte(`{"batches": [` + tc.batch + `]}`)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.batch, err, tc.want)
		}
	}
}
