package sim

import (
	"strings"
	"testing"

	"kidx/model"
)

// Issue 11, defect 10: `--gen fixed:bytes=10` silently became 61-byte batches of 1 record,
// which no file can hold. A requested size no batch can have is now refused, naming the
// minimum (68 bytes for 1 record; 629 for 79 records: 61 + 64*7 + 15*8).
func TestGeneratorRefusesImpossibleSizes(t *testing.T) {
	for spec, want := range map[string]string{
		"fixed:bytes=10":                       "at least 68 bytes",
		"fixed:bytes=61":                       "at least 68 bytes",
		"fixed:bytes=628,records=79":           "at least 629 bytes",
		"fixed:bytes=126,records=1":            "no batch of 1 record is 126 bytes",
		"uniform:min=61,max=100":               "min=61",
		"lognormal:median=100,max=60":          "max=60",
		"mixture:0.5*fixed(bytes=20)+0.5*tiny": "at least 68 bytes",
	} {
		_, err := NewGenerator(spec, Limits{Batches: 10}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", spec, err, want)
		}
	}
	// As record value sizes (producer record=), small sizes are fine.
	if _, err := NewGenerator("producer:record=fixed(bytes=10)", Limits{Batches: 10}, 1, nil); err != nil {
		t.Errorf("producer with 10-byte values: %v", err)
	}
	if _, err := (&FixedSource{Count: 1, Bytes: 61, Records: 1}).Open(); err == nil || !strings.Contains(err.Error(), "at least 68") {
		t.Errorf("FixedSource of 61-byte batches: %v", err)
	}
}

// Every batch a generator yields can exist: the draws below the smallest batch of their count
// (a lognormal's low tail, a compression ratio of 0.01, the last batch cut to --records) are
// raised to it, and a derived record count never exceeds what the size holds or lands on a
// 1-record size no record has (126 bytes: 2 records then).
func TestGeneratorsYieldOnlyPossibleBatches(t *testing.T) {
	for _, spec := range []string{
		"lognormal:median=70,sigma=1",
		"lognormal:median=300,sigma=2,record.bytes=1",
		"uniform:min=68,max=200",
		"fixed:bytes=126",
		"fixed:bytes=8255",
		"fixed:bytes=700,records=79",
		"tiny:records.max=20,value.min=0,value.max=3",
		"producer:rate=1000/s,record=fixed(bytes=300),compression.ratio=0.01",
		"producer:rate=50/ms,record=lognormal(median=20,sigma=1),linger.ms=0",
		"bursty:burst=fixed(bytes=70),quiet=tiny",
		"follower:fetch=1000,uniform:min=68,max=500",
	} {
		src, err := NewGenerator(spec, Limits{Records: 20011}, 3, nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var tally model.ImpossibleBatches
		steps := drain(t, src)
		tally.Add(steps)
		if tally.Count > 0 {
			t.Errorf("%s: %s", spec, tally.String())
		}
		// The same through the columnar path sweeps read.
		st, _ := src.Open()
		if bs, ok := st.(BatchStream); ok {
			bytes, records := make([]int32, 512), make([]int32, 512)
			for {
				n, err := bs.NextBatches(bytes, records, nil)
				for i := range n {
					if err := model.PossibleBatchError(int64(records[i]), int64(bytes[i]), model.NotLegacy); err != nil {
						t.Fatalf("%s (columnar): %v", spec, err)
					}
				}
				if err != nil {
					break
				}
			}
		}
	}
}
