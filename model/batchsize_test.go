package model_test

import (
	"strings"
	"testing"

	"kidx/model"
	"kidx/segment"
)

// Issue 11, defect 10: the model accepted a 1-record 61-byte batch, which no file can hold.
// The smallest batches, worked out by hand from DefaultRecord (docs/workloads.md): 61 bytes of
// header plus 7 bytes a record for offset deltas 0-63, 8 for 64-8191, 9 from 8192; legacy
// messages 12 + 14 (v0) and 12 + 22 (v1).
func TestMinBatchBytesByHand(t *testing.T) {
	for _, c := range []struct {
		records int64
		magic   model.LegacyMagic
		want    int64
	}{
		{1, model.NotLegacy, 68},
		{2, model.NotLegacy, 75},
		{3, model.NotLegacy, 82},
		{64, model.NotLegacy, 61 + 64*7},                                // 509
		{65, model.NotLegacy, 61 + 64*7 + 8},                            // 517
		{79, model.NotLegacy, 629},                                      // the seed post's batch (docs/background.md): 61 + 64*7 + 15*8
		{8192, model.NotLegacy, 61 + 64*7 + 8128*8},                     // 65533
		{8193, model.NotLegacy, 61 + 64*7 + 8128*8 + 9},                 // 65542
		{1 << 20, model.NotLegacy, 61 + 64*7 + 8128*8 + (1<<20-8192)*9}, // 9363517
		{1, model.Magic0, 26},
		{1, model.Magic1, 34},
		{0, model.NotLegacy, 61},
	} {
		if got := model.MinBatchBytes(c.records, c.magic); got != c.want {
			t.Errorf("MinBatchBytes(%d, %v) = %d, want %d", c.records, c.magic, got, c.want)
		}
	}
	for bytes, want := range map[int64]int64{67: 0, 68: 1, 74: 1, 75: 2, 509: 64, 516: 64, 517: 65, 16350: 2044 /* 64 + (16350-509)/8 */} {
		if got := model.MaxBatchRecords(bytes); got != want {
			t.Errorf("MaxBatchRecords(%d) = %d, want %d", bytes, got, want)
		}
	}
}

// The rule is stated twice, once in model and once in segment (which never imports model);
// they agree with each other and with what segment's builder can actually build: a batch of
// n records and b bytes can be built exactly when PossibleBatchError says it can exist.
func TestPossibleBatchMatchesTheBuilder(t *testing.T) {
	for n := 0; n <= 9000; n++ {
		if a, b := model.MinBatchBytes(int64(n), model.NotLegacy), int64(segment.MinBatchSize(n)); a != b {
			t.Fatalf("%d records: model says %d bytes, segment %d", n, a, b)
		}
	}
	sizes := []int64{}
	for b := int64(55); b <= 700; b++ {
		sizes = append(sizes, b)
	}
	sizes = append(sizes, 8250, 8254, 8255, 8256, 1048639, 1048640, 1048641)
	for _, n := range []int64{1, 2, 3, 79} {
		for _, b := range sizes {
			_, buildErr := segment.BuildSizedBatch(0, int(n), int(b), 0)
			possible := model.PossibleBatchError(n, b, model.NotLegacy)
			if (buildErr == nil) != (possible == nil) {
				t.Errorf("%d records, %d bytes: builder %v, model %v", n, b, buildErr, possible)
			}
			if possible == nil && model.PossibleBytes(n, b) != b {
				t.Errorf("%d records, %d bytes: possible, but PossibleBytes moves it to %d", n, b, model.PossibleBytes(n, b))
			}
			if pb := model.PossibleBytes(n, b); model.PossibleBatchError(n, pb, model.NotLegacy) != nil || pb < b {
				t.Errorf("PossibleBytes(%d, %d) = %d, not a possible size", n, b, pb)
			}
		}
	}
	if err := model.PossibleBatchError(1, 126, model.NotLegacy); err == nil || !strings.Contains(err.Error(), "125 or 127") {
		t.Errorf("1 record, 126 bytes: %v", err)
	}
}

// Batches replayed from real logs are held only to the header: compaction leaves batches with
// fewer records than offsets (down to the cleaner's empty 61-byte batch), and a compressed
// batch's size is the codec's.
func TestBatchPossibleExemptions(t *testing.T) {
	for _, c := range []struct {
		b  model.Batch
		ok bool
	}{
		{model.Batch{Records: 1, Bytes: 61}, false},
		{model.Batch{Records: 5, Bytes: 61, BaseOffset: 100}, true},
		{model.Batch{Records: 100, Bytes: 200, Compressed: true}, true},
		{model.Batch{Records: 100, Bytes: 60, Compressed: true}, false},
		{model.Batch{Records: 1, Bytes: 25, Legacy: model.Magic0}, false},
		{model.Batch{Records: 1, Bytes: 26, Legacy: model.Magic0}, true},
		{model.Batch{Records: 1, Bytes: 33, Legacy: model.Magic1}, false},
	} {
		if err := c.b.Possible(); (err == nil) != c.ok {
			t.Errorf("%+v: Possible = %v, want ok %v", c.b, err, c.ok)
		}
	}
	var t2 model.ImpossibleBatches
	t2.Add([]model.Step{model.AppendStep(model.Batch{Records: 79, Bytes: 16350}), {Restart: true},
		model.AppendStep(model.Batch{Records: 2, Bytes: 100}, model.Batch{Records: 1, Bytes: 61}), model.AppendStep(model.Batch{Records: 3, Bytes: 78})})
	if t2.Count != 2 || t2.FirstStep != 2 || t2.FirstBatch != 1 || !strings.Contains(t2.String(), "2 batches") || !strings.Contains(t2.String(), "at least 68 bytes") {
		t.Errorf("tally: %+v %q", t2, t2.String())
	}
}
