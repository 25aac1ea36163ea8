package segment_test

import (
	"encoding/binary"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 24, "compacted segments with offset gaps": a batch whose workload names a base offset
// past the log end keeps it (the offsets between are a gap, as after compaction), and a roll
// that the batch causes starts the new segment at that base offset: UnifiedLog.roll gets the
// append's first offset and LocalLog.roll takes max(it, log end offset) = 10 here, not the
// log end 2. Worked by hand: segment.bytes 300, batches of 200 bytes at offsets 0-1, then 10-12
// (a 200-byte append does not fit after 200 bytes: roll).
func TestOffsetGapKeptAndRolledAt(t *testing.T) {
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 300
	w := &segment.Workload{Config: cfg, Rule: segment.PerBatch, Steps: []segment.Step{
		{Append: []segment.BatchSpec{{Records: 2, Bytes: 200, MaxTimestamp: 1}}},
		{Append: []segment.BatchSpec{{Records: 3, Bytes: 200, MaxTimestamp: 2, BaseOffset: 10}}},
		{Append: []segment.BatchSpec{{Records: 1, Bytes: 90, MaxTimestamp: 3, BaseOffset: 11}}}, // passed: the log end, 13
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	mem := vfs.NewMemFS()
	res, err := segment.WriteWorkloadFS(mem, "/p", w)
	if err != nil {
		t.Fatal(err)
	}
	if res.NextOffset != 14 {
		t.Errorf("next offset %d, want 14", res.NextOffset)
	}
	for _, f := range []struct {
		name  string
		bases []int64
	}{{"/p/00000000000000000000.log", []int64{0}}, {"/p/00000000000000000010.log", []int64{10, 13}}} {
		data, err := mem.ReadFileShared(f.name)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for p := 0; p+12 <= len(data); p += 12 + int(binary.BigEndian.Uint32(data[p+8:])) {
			got = append(got, int64(binary.BigEndian.Uint64(data[p:])))
		}
		if len(got) != len(f.bases) || got[0] != f.bases[0] || got[len(got)-1] != f.bases[len(f.bases)-1] {
			t.Errorf("%s: batches at offsets %v, want %v", f.name, got, f.bases)
		}
	}
}
