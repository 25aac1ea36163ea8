package model

import (
	"strings"
	"testing"
)

// Issue 11 review: offsets past Long.MaxValue were accepted (kidx write then wrote negative
// offsets), and a batch after a roll past the log end silently landed below the new
// segment's base. Both are input errors naming the field.
func TestWorkloadOffsetLimits(t *testing.T) {
	for in, want := range map[string]string{
		`{"startOffset":9223372036854775800,"batches":[{"records":100,"bytes":1000}]}`:                                            "batches[0].records: offsets 9223372036854775800 and up pass 9223372036854775807",
		`{"steps":[{"append":[{"records":2,"bytes":75}]},{"roll":true,"baseOffset":1000},{"append":[{"records":2,"bytes":75}]}]}`: `steps[2].append[0].baseOffset: the roll before this batch started a segment at offset 1000, past the log end 2`,
	} {
		_, err := ParseWorkload([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	ok := `{"steps":[{"append":[{"records":2,"bytes":75}]},{"roll":true,"baseOffset":1000},{"append":[{"records":2,"bytes":75,"baseOffset":1000}]}]}`
	if _, err := ParseWorkload([]byte(ok)); err != nil {
		t.Errorf("a batch naming its offset after the roll: %v", err)
	}
}
