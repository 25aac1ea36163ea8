package sim

import (
	"testing"

	"kidx/model"
)

// seg is a replaySegment with no index facts.
func seg(size, beforeLast, firstAppend int64) replaySegment {
	return replaySegment{size: size, beforeLast: beforeLast, firstAppend: firstAppend, firstTs: -1, indexSize: -1, timeSize: -1}
}

// Issue 11, defect 6: what the rolls prove about segment.bytes, by hand.
func TestInferSegmentBytesFromRolls(t *testing.T) {
	perBatch := model.EraForRule(model.PerBatch)
	noIndex := ReplaySetting{Value: model.DefaultSegmentIndexBytes}
	// Four 16350-byte batches per segment, and the fifth did not fit: [65400, 65400+16350-1].
	s := inferSegmentBytes([]replaySegment{seg(65400, 49050, 16350), seg(65400, 49050, 16350), seg(53810, 49050, 16350)}, noIndex, perBatch)
	if !s.FromFiles || s.Lo != 65400 || s.Hi != 81749 || s.Value != 65536 {
		t.Errorf("seed rolls: %+v, want [65400, 81749] and the power of two 65536", s)
	}
	// A segment of 1000 bytes rolled although 64 KiB segments exist: not every roll was by size.
	s = inferSegmentBytes([]replaySegment{seg(65400, 49050, 16350), seg(1000, 0, 1000), seg(500, 0, 500)}, noIndex, perBatch)
	if s.FromFiles || s.Value != model.DefaultSegmentBytes || !s.Default {
		t.Errorf("a roll not by size: %+v, want the default assumed", s)
	}
	// No roll at all: only a lower bound.
	s = inferSegmentBytes([]replaySegment{seg(70000, 0, 70000)}, noIndex, perBatch)
	if s.FromFiles || s.Value != model.DefaultSegmentBytes {
		t.Errorf("one segment: %+v, want the default assumed", s)
	}
	// Kafka 0.8.1 rolls once size > segment.bytes, after the append that passed it: a segment
	// of 1200 bytes whose last append started at 800, and one of 1100 from 700, give [800, 1099].
	old, err := model.EraForKafkaVersion("0.8.1")
	if err != nil {
		t.Fatal(err)
	}
	s = inferSegmentBytes([]replaySegment{seg(1200, 800, 400), seg(1100, 700, 400), seg(300, 0, 300)}, noIndex, old)
	if !s.FromFiles || s.Lo != 800 || s.Hi != 1099 || s.Value != 1024 {
		t.Errorf("0.8.1 rolls: %+v, want [800, 1099] and 1024", s)
	}
}

// A live segment's preallocated indexes bound segment.index.bytes: a 4096-byte .index holds
// [4096, 4103], a 4092-byte .timeindex [4092, 4103].
func TestInferIndexBytesFromALiveSegment(t *testing.T) {
	live := seg(100, 0, 100)
	live.indexSize, live.timeSize = 4096, 4092
	s := inferIndexBytes([]replaySegment{seg(5000, 4000, 1000), live})
	if !s.FromFiles || s.Lo != 4096 || s.Hi != 4103 || s.Value != 4096 {
		t.Errorf("live segment: %+v, want [4096, 4103] and 4096", s)
	}
	closed := seg(5000, 4000, 1000)
	closed.entries = 300
	s = inferIndexBytes([]replaySegment{closed})
	if s.FromFiles || s.Value != model.DefaultSegmentIndexBytes || !s.Default {
		t.Errorf("no live segment: %+v, want the default assumed", s)
	}
}

// One roll cannot tell a roll by size from one by time: the value it allows is assumed, not read.
func TestInferSegmentBytesOneRollIsAnAssumption(t *testing.T) {
	s := inferSegmentBytes([]replaySegment{seg(2651978, 2600000, 19795), seg(394007, 0, 1000)},
		ReplaySetting{Value: model.DefaultSegmentIndexBytes}, model.EraForRule(model.PerBatch))
	if s.FromFiles || s.Value != model.DefaultSegmentBytes || !s.Default {
		t.Errorf("one roll: %+v, want the default assumed", s)
	}
}
