package logdir

import (
	"runtime"
	"sync"

	"kidx/segment"
)

// crcQueue checks the CRCs of a deep walk's batches on every core (ensureValid is
// independent per batch): the walk queues batches, and each full chunk is checked in
// parallel, its failures reported in batch order. On a mapped file the CRC runs over the
// mapping, with no copy (docs/logdirs.md, "Reading only what is needed").
type crcQueue struct {
	lf      *segment.LogFile
	batches []segment.BatchInfo
	bytes   int64
	report  func(segment.BatchInfo, error)
}

// crcChunkBytes and crcChunkBatches bound a chunk: enough work to spread, little memory.
const (
	crcChunkBytes   = 16 << 20
	crcChunkBatches = 4096
)

func (q *crcQueue) add(b segment.BatchInfo) {
	q.batches = append(q.batches, b)
	q.bytes += b.Size
	if q.bytes >= crcChunkBytes || len(q.batches) >= crcChunkBatches {
		q.flush()
	}
}

func (q *crcQueue) flush() {
	n := len(q.batches)
	if n == 0 {
		return
	}
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	if q.lf.Access() != segment.AccessMmap || workers < 2 || q.bytes < 1<<20 {
		for i, b := range q.batches {
			errs[i] = q.lf.CheckBatch(b)
		}
	} else {
		// Split by bytes, not by count, so that one large batch does not idle a core.
		var wg sync.WaitGroup
		per := q.bytes/int64(workers) + 1
		start, acc := 0, int64(0)
		for i, b := range q.batches {
			acc += b.Size
			if acc >= per || i == n-1 {
				lo, hi := start, i+1
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := lo; j < hi; j++ {
						errs[j] = q.lf.CheckBatch(q.batches[j])
					}
				}()
				start, acc = i+1, 0
			}
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			q.report(q.batches[i], err)
		}
	}
	q.batches, q.bytes = q.batches[:0], 0
}
