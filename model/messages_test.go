package model

import "testing"

// TestOversizeAppendMessage pins issue 11, defect 5: the rejection said "in append to
// partition," and named no partition (the model has none). The sentence keeps Kafka's words
// for what it knows.
func TestOversizeAppendMessage(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SegmentBytes = 1000
	l := newLog(t, cfg, PerBatch, 0)
	appendOK(t, l, Batch{Records: 1, Bytes: 1001, MaxTimestamp: NoTimestamp})
	want := "Message batch size is 1001 bytes, which exceeds the maximum configured segment size of 1000: Kafka rejects the append (RecordBatchTooLargeException), nothing is written."
	if ev := l.Events(); len(ev) != 1 || ev[0].Message != want {
		t.Fatalf("events %+v, want one with the message %q", ev, want)
	}
}

// TestWorkloadDecodeErrorsInWords pins issue 11, defect 5: a workload file of the wrong shape
// was refused with a Go type name ("model.workloadRaw cannot hold a JSON array"). Each error
// now says where (the JSON path) and what was expected, in words.
func TestWorkloadDecodeErrorsInWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1,2]`, `a workload is a JSON object ({"batches": [...]} or {"steps": [...]}), not a list`},
		{`{"batches": 3}`, `batches: expected a list, found a number`},
		{`{"steps":[{"append":{"records":1}}]}`, `steps[0].append: expected a list, found an object`},
		{`{"batches":[{"records":"x","bytes":100}]}`, `batches[0].records: expected a number, found the string "x"`},
		{`{"rule": 5, "batches":[]}`, `rule: expected a string, found a number`},
		{`{"steps":[{"restart":"yes"}]}`, `steps[0].restart: expected true or false, found a string`},
		{`{"batches":[{"records":1,"bytes":100,"bogus":1}]}`, `batches[0]: unknown key "bogus"`},
		{`{"batches":[`, `the JSON ends before the workload does (an empty or truncated file?)`},
	} {
		_, err := ParseWorkload([]byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseWorkload(%s): %v, want %q", c.in, err, c.want)
		}
	}
}
