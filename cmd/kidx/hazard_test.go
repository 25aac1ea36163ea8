package main

import (
	"strings"
	"testing"
)

// Issue 23, exposure: issue 23's reproduction configuration (segment.bytes 1 GiB,
// index.interval.bytes 4096, segment.index.bytes 4096) with 5070-byte batches, one per append.
// By hand: every batch after a segment's first is indexed; the time index is full at
// 4096/12 - 1 = 340 entries (TimeIndex.isFull keeps the last slot), so each segment rolls
// after 341 batches, and 2000 batches make 5 such rolls (5*341 = 1705) and a last segment of
// 295. The remedy: entries at least 4097 bytes apart whatever the batches,
// floor((1073741824-68)/4097) = 262079 of them fit, so 262081 time slots, 12*262082 =
// 3144984 bytes (a multiple of 24) never fill (model.SegmentIndexBytesNeverFull).
func TestWhatIfNamesTheFollowerOverflowHazard(t *testing.T) {
	out, errOut, code := runKidx(t, "whatif", "--gen", "lognormal:median=5070,sigma=0", "--batches", "2000", "--seed", "1",
		"--config", "segment.index.bytes=4096,segment.bytes=1073741824")
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	text := strings.Join(strings.Fields(out), " ") // the report wraps its lines
	for _, want := range []string{
		"5 segments rolled because an index was full (segment.index.bytes=4096 holds 512 offset entries and 340 time entries)",
		`a follower of Kafka 3.9.1+, 4.0.1+ or 4.1+ can throw "Attempt to append to a full time index"`,
		"segment.index.bytes=3144984 keeps every index from filling before segment.bytes=1073741824 whatever the batches.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
