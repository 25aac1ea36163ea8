package segment

import (
	"bytes"
	"testing"
)

// countingReader counts ReadAt calls and bytes.
type countingReader struct {
	r            *bytes.Reader
	calls, bytes int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	n, err := c.r.ReadAt(p, off)
	c.bytes += n
	return n, err
}

// A header walk over small batches widens its reads (every page holds a header, so no page is
// read that the walk would not read) and gives the same batches; over large ones it reads a
// header's 61 bytes per batch, as before.
func TestHeaderWalkWidensOverSmallBatches(t *testing.T) {
	var small, large []byte
	for i := range 2000 {
		b, _ := BuildSizedBatch(int64(i), 1, 300, 1700000000000)
		small = append(small, b...)
	}
	for i := range 100 {
		b, _ := BuildSizedBatch(int64(i), 1, 20000, 1700000000000)
		large = append(large, b...)
	}
	for _, c := range []struct {
		name             string
		data             []byte
		batches          int
		maxCalls, maxLen int
	}{
		{"300-byte batches", small, 2000, 20, len(small) + wideWindow},
		{"20,000-byte batches", large, 100, 101, pageSize + 100*RecordBatchOverhead},
	} {
		cr := &countingReader{r: bytes.NewReader(c.data)}
		lf := logFileOn("00000000000000000000.log", cr, int64(len(c.data)))
		lf.SetReadAhead(pageSize)
		want := walkAll(0, func(fn func(BatchInfo) bool) WalkResult {
			return LogFileFromBytes("00000000000000000000.log", c.data).Walk(0, 0, fn)
		})
		got := walkAll(0, func(fn func(BatchInfo) bool) WalkResult { return lf.Walk(0, 0, fn) })
		sameWalk(t, c.name, got, want)
		if len(got.pos) != c.batches || cr.calls > c.maxCalls || cr.bytes > c.maxLen {
			t.Errorf("%s: %d batches in %d reads of %d bytes; want %d batches, at most %d reads and %d bytes", c.name, len(got.pos), cr.calls, cr.bytes, c.batches, c.maxCalls, c.maxLen)
		}
	}
}
