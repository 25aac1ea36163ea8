package model

import "testing"

// Issue 23's configurations, worked by hand (docs/kafka-hazards.md). An entry at every k-th
// batch, k = floor(I/b)+1 (LogSegment.append checks bytesSinceLastIndexEntry > I before it
// counts the batch); the offset index full at segment.index.bytes/8 entries (AbstractIndex.isFull),
// the time index at segment.index.bytes/12 - 1 (TimeIndex.isFull keeps the last slot); full
// when the batch carrying the last entry, which starts at n*spacing, ends within segment.bytes.
func TestIndexFillByHand(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name                                         string
		interval, segmentIndexBytes, batch           int64
		spacing, offsetFull, timeFull                int64
		offsetFills, timeFills, exposed, exposedFlat bool
	}{
		// 4096-byte index, 5070-byte batches: every batch after the first indexed (k = 1);
		// 512 offset slots: 512*5070+5070 = 2,600,910; 341-1 = 340 time slots:
		// 340*5070+5070 = 1,728,870 (the throw at "size = 340").
		{"index 4096, batches 5070", 4096, 4096, 5070, 5070, 2600910, 1728870, true, true, true, true},
		// A 1 MiB index: 131,072 offset slots: 131,072*5070+5070 = 664,540,110; 87,381-1 =
		// 87,380 time slots: 87,380*5070+5070 = 443,021,670.
		{"index 1 MiB, batches 5070", 4096, 1 << 20, 5070, 5070, 664540110, 443021670, true, true, true, true},
		// The default 10 MiB index, index.interval.bytes 100, 1 KiB batches (k = 1): 1,310,720
		// offset slots: 1,342,178,304 > 1 GiB; 873,813-1 = 873,812 time slots:
		// 873,812*1024+1024 = 894,784,512 <= 1 GiB. Exposed only where timestamps grow.
		{"index 10 MiB, interval 100, batches 1024", 100, 10 << 20, 1024, 1024, 1342178304, 894784512, false, true, true, false},
		// Kafka's defaults with 16,350-byte batches (docs/background.md): 873,812*16,350+16,350 =
		// 14,286,842,550 and 1,310,720*16,350+16,350 = 21,430,288,350, far past 1 GiB.
		{"defaults, batches 16350", 4096, 10 << 20, 16350, 16350, 21430288350, 14286842550, false, false, false, false},
		// Small batches under the defaults: 100 bytes, k = floor(4096/100)+1 = 41, spacing 4100:
		// 873,812*4100+100 = 3,582,629,300 > 1 GiB.
		{"defaults, batches 100", 4096, 10 << 20, 100, 4100, 1310720*4100 + 100, 3582629300, false, false, false, false},
	} {
		cfg := DefaultConfig()
		cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = gib, c.interval, c.segmentIndexBytes
		f := UniformIndexFill(cfg, c.batch)
		if f.Spacing != c.spacing || f.OffsetFullBytes != c.offsetFull || f.TimeFullBytes != c.timeFull ||
			f.OffsetFills != c.offsetFills || f.TimeFills != c.timeFills {
			t.Errorf("%s: %+v, want spacing %d, offset full at %d (%v), time full at %d (%v)", c.name, f,
				c.spacing, c.offsetFull, c.offsetFills, c.timeFull, c.timeFills)
		}
		if f.Exposed(true) != c.exposed || f.Exposed(false) != c.exposedFlat {
			t.Errorf("%s: exposed %v (timestamps grow), %v (flat); want %v, %v", c.name, f.Exposed(true), f.Exposed(false), c.exposed, c.exposedFlat)
		}
	}
}

// A batch size below one byte is taken as 1, not divided by: no panic on any input.
func TestUniformIndexFillOfNoBytes(t *testing.T) {
	cfg := DefaultConfig()
	if f, g := UniformIndexFill(cfg, 0), UniformIndexFill(cfg, 1); f != g || f.Spacing != 4097 {
		t.Errorf("0 bytes: %+v, 1 byte: %+v; want both spacing 4097", f, g)
	}
}

// Whatever the batches: entries at least max(I+1, 68) apart (batches of I+1 bytes reach it),
// the last entry's batch 68 bytes (a v2 batch of one empty record). Under Kafka's defaults the
// time index fills at the earliest at 873,812*4,097+68 = 3,580,007,832 bytes, past 1 GiB: no
// batches can fill an index (issue 23: "with the default interval, index size and segment size
// it cannot happen"). With a 4096-byte index: 340*4097+68 = 1,393,048.
func TestWorstCaseIndexFillByHand(t *testing.T) {
	cfg := DefaultConfig()
	if f := WorstCaseIndexFill(cfg); f.Spacing != 4097 || f.TimeFullBytes != 3580007832 || f.Exposed(true) {
		t.Errorf("defaults: %+v, want spacing 4097, time full at 3,580,007,832, not exposed", f)
	}
	cfg.SegmentIndexBytes = 4096
	if f := WorstCaseIndexFill(cfg); f.TimeFullBytes != 1393048 || !f.Exposed(true) {
		t.Errorf("index 4096: %+v, want time full at 1,393,048, exposed", f)
	}
	// Below the smallest batch the batch is the spacing: I = 10 gives 68.
	cfg.IndexIntervalBytes = 10
	if f := WorstCaseIndexFill(cfg); f.Spacing != 68 {
		t.Errorf("interval 10: spacing %d, want 68", f.Spacing)
	}
}

// The remedy, by hand. segment.bytes 1 GiB, index.interval.bytes 4096: entries 4,097 apart,
// floor((1,073,741,824-68)/4,097) = 262,079 can carry their batch within the segment, so the
// time index needs 262,080 slots that count, 262,081*12 = 3,144,972 bytes, rounded up to whole
// offset and time entries (24): 3,144,984; 3,144,960 holds only 262,079 and fills. With
// index.interval.bytes 100: floor((1,073,741,824-68)/101) = 10,631,106, (10,631,106+2)*12 =
// 127,573,296, already a multiple of 24.
func TestSegmentIndexBytesNeverFullByHand(t *testing.T) {
	cfg := DefaultConfig()
	for _, c := range []struct{ interval, want int64 }{{4096, 3144984}, {100, 127573296}} {
		cfg.IndexIntervalBytes = c.interval
		got := SegmentIndexBytesNeverFull(cfg)
		if got != c.want {
			t.Errorf("interval %d: %d, want %d", c.interval, got, c.want)
		}
		at := cfg
		at.SegmentIndexBytes = got
		below := cfg
		below.SegmentIndexBytes = got - 24
		if WorstCaseIndexFill(at).Exposed(true) || !WorstCaseIndexFill(below).Exposed(true) {
			t.Errorf("interval %d: %d is not the smallest multiple of 24 that never fills", c.interval, got)
		}
	}
}

// UniformIndexFill agrees with the model's own segment: one batch per append of one size,
// timestamps growing, until the segment rolls; the roll's reason and size are the fill's.
func TestUniformIndexFillMatchesTheModel(t *testing.T) {
	for _, c := range []struct{ interval, sib, batch int64 }{{4096, 4096, 5070}, {100, 240, 70}, {0, 96, 68}, {300, 600, 100}} {
		cfg := DefaultConfig()
		cfg.SegmentBytes, cfg.IndexIntervalBytes, cfg.SegmentIndexBytes = 1<<30, c.interval, c.sib
		f := UniformIndexFill(cfg, c.batch)
		var first *SegmentSummary
		l, err := NewLog(cfg, PerBatch, LogOptions{OnSegmentDone: func(s *Segment) {
			if first == nil {
				sum := s.Summarize()
				first = &sum
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); first == nil && i < 1<<20; i++ {
			if err := l.Append(Batch{Records: 1, Bytes: c.batch, MaxTimestamp: 1000 + i}); err != nil {
				t.Fatal(err)
			}
		}
		if first == nil || first.RollReason != RollTimeIndexFull || first.SizeBytes != f.TimeFullBytes {
			t.Errorf("%+v: the model's first segment %+v, the fill %+v", c, first, f)
		}
	}
}
