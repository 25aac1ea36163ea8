package explain

import (
	"encoding/binary"
	"math"
	"runtime"
	"sync"

	"kidx/segment"
)

// prefetchExact finds the exact offsets of the batches in js (those the time index would
// name under a 0.11-3.6 leader's rule) on every core, each worker reading with its own view of
// the file (pread is safe to share); whatever fails there is left for exactOffset to read and
// report in order. When the max is held by a later record, that reads each such batch whole.
func (s *exSegment) prefetchExact(js []int) {
	var todo []int
	for _, j := range js {
		if _, ok := s.knownExact(j); !ok {
			todo = append(todo, j)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(todo) < 256 || workers < 2 {
		return
	}
	s.exactMemo() // allocated before the workers share it
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			view := s.lf.PreadView()
			for i := w; i < len(todo); i += workers {
				j := todo[i]
				b := s.batches.at(j)
				n := int(b.size)
				if b.flags&batchBaseIsMax != 0 {
					n = min(n, segment.RecordBatchOverhead+32)
				}
				if data, err := view.ReadBytes(b.pos, n); err == nil {
					if off, ok := firstMaxRecord(data, b.base, b.maxTs, n < int(b.size)); ok {
						s.keepExact(j, b.base, off) // each worker owns its ordinals
					}
				}
			}
		}()
	}
	wg.Wait()
}

// exactOffset is the offset of batch j's first record holding its max timestamp (strict >,
// as LogValidator keeps it).
func (s *exSegment) exactOffset(j int) (int64, error) {
	if off, ok := s.knownExact(j); ok {
		return off, nil
	}
	b := s.batches.at(j)
	// Most producers stamp a batch's records alike: the first record then holds the max, and
	// its header (a few bytes past the batch's) says so.
	n := int(b.size)
	if b.flags&batchBaseIsMax != 0 {
		n = min(n, segment.RecordBatchOverhead+32)
	}
	data, err := s.lf.ReadBytes(b.pos, n)
	if err == nil {
		if off, ok := firstMaxRecord(data, b.base, b.maxTs, n < int(b.size)); ok {
			s.keepExact(j, b.base, off)
			return off, nil
		}
	}
	// Anything unusual: Kafka's record iteration, with its errors.
	info, err := s.lf.NextBatch(b.pos, s.logEnd)
	if err != nil {
		return 0, err
	}
	off, best := b.last, int64(-2)
	err = s.lf.RecordTimestamps(info, func(o, ts int64) bool {
		if ts > best {
			best, off = ts, o
		}
		return true
	})
	if err != nil {
		return 0, err
	}
	s.keepExact(j, b.base, off)
	return off, nil
}

// exactMemo is the memo of exact offsets, allocated at its first use: a segment whose time
// index never names a record inside a batch (one-record batches, eras that name the last
// offset) keeps none.
func (s *exSegment) exactMemo() []int32 {
	if s.exact == nil {
		s.exact = make([]int32, s.batches.len())
		for i := range s.exact {
			s.exact[i] = -1
		}
	}
	return s.exact
}

// knownExact is batch j's exact offset, if read already.
func (s *exSegment) knownExact(j int) (int64, bool) {
	if s.exact == nil || s.exact[j] < 0 {
		return 0, false
	}
	return s.batches.at(j).base + int64(s.exact[j]), true
}

// keepExact remembers batch j's exact offset (a record's offset delta is an int32; one that
// does not fit, in a damaged batch, is read again when asked).
func (s *exSegment) keepExact(j int, base, off int64) {
	if d := off - base; d >= 0 && d <= math.MaxInt32 {
		s.exactMemo()[j] = int32(d)
	}
}

// firstMaxRecord scans an uncompressed v2 batch's records (length, attributes,
// timestampDelta, offsetDelta, then skipped) for the first one stamped maxTs (LogValidator's
// strict >). With prefix set the data is the batch's start only and only its first record is
// read. ok is false when the bytes do not parse or no record holds maxTs.
func firstMaxRecord(data []byte, base, maxTs int64, prefix bool) (int64, bool) {
	if len(data) < segment.RecordBatchOverhead {
		return 0, false
	}
	baseTs := int64(binary.BigEndian.Uint64(data[27:]))
	p := segment.RecordBatchOverhead
	for p < len(data) {
		length, k := binary.Varint(data[p:])
		if k <= 0 || length < 0 {
			return 0, false
		}
		q := p + k
		if q >= len(data) {
			return 0, false
		}
		q++ // attributes
		tsDelta, k := binary.Varint(data[q:])
		if k <= 0 {
			return 0, false
		}
		q += k
		offDelta, k := binary.Varint(data[q:])
		if k <= 0 {
			return 0, false
		}
		if baseTs+tsDelta == maxTs {
			return base + offDelta, true
		}
		if prefix {
			return 0, false
		}
		p += k0(data[p:]) + int(length)
	}
	return 0, false
}

// k0 is the size of the varint at the start of b.
func k0(b []byte) int {
	_, k := binary.Varint(b)
	return k
}
