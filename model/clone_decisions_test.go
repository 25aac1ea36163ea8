package model

import "testing"

// Issue 12 (found by kidx prove's parallel expansion under -race): a clone shared the
// original's interval range, so appending to the clone narrowed the original's
// IntervalRange. Two 100-byte batches at I=0: the second batch's check sees counter 100 and
// adds an entry, so the clone's run is the same exactly for I in [0, 99]. The original saw
// only the first batch, whose check (counter 0, no entry for any I >= 0) narrows nothing: it
// keeps [0, 2^31-1].
func TestCloneKeepsItsOwnIntervalRange(t *testing.T) {
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes = 0
	l, err := NewLog(cfg, PerBatch, LogOptions{KeepSegments: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(Batch{Records: 1, Bytes: 100, MaxTimestamp: 1}); err != nil {
		t.Fatal(err)
	}
	c := l.Clone()
	if err := c.Append(Batch{Records: 1, Bytes: 100, MaxTimestamp: 2}); err != nil {
		t.Fatal(err)
	}
	if lo, hi := c.IntervalRange(); lo != 0 || hi != 99 {
		t.Errorf("clone: [%d, %d], want [0, 99]", lo, hi)
	}
	if lo, hi := l.IntervalRange(); lo != 0 || hi != 1<<31-1 {
		t.Errorf("original after appending to its clone: [%d, %d], want [0, 2147483647]", lo, hi)
	}
}
