package fuzz

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/model"
	"kidx/segment"
)

// Parsers must never panic and never allocate more than a small multiple of their input
// (docs/contract.md §7: "never trust a length field beyond the file size"). The allocation
// bound, the sampling of costly checks under -fuzz and the golden seeds are
// fuzz/internal/parsecheck's, shared with the parser targets of fuzz/parsers.

// FuzzWorkloadJSON: arbitrary bytes as a docs/contract.md §3 workload file (model.ParseWorkload, the
// SPEC's parser), and through segment.ParseWorkload and segment.ParseRecipe. Checked: no
// panic, bounded allocation, an accepted workload writes back (MarshalJSON) to a file that
// parses to the same workload, and when both workload parsers accept a file they read the
// same steps, start offset and rule.
func FuzzWorkloadJSON(f *testing.F) {
	for _, s := range []string{
		`{"config": {"index.interval.bytes": 4096, "segment.bytes": 65536}, "rule": "per-batch", "startOffset": 0, "batches": [{"records": 79, "bytes": 16350, "maxTimestamp": 1700000000000}]}`,
		`{"steps": [{"append": [{"records": 1, "bytes": 61}, {"records": 2, "bytes": 200}]}, {"restart": true}, {"recover": true}]}`,
		`{"batches": [{"records": -1, "bytes": 2147483647}]}`, `{"batches": [{"records": 0, "bytes": 13}]}`,
		`{"steps": [{"append": []}]}`, `{"batches": [{"records": 1e3, "bytes": 1.5}]}`,
		`{"config": {"segment.index.bytes": 4}, "batches": [{"records": 1, "bytes": 61}]}`, `{"rule": "per-append", "batches": [{"records": 1, "bytes": 61}]} x`,
		`{"appends": [[{"records": 2, "valueBytes": 5}]]}`, `{"steps": [{"restart": false}]}`, `[`, ``,
	} {
		f.Add([]byte(s))
	}
	for _, g := range parsecheck.GoldenDirs(f) {
		for _, name := range []string{"workload.json", "kafka-input.json"} {
			if b, err := os.ReadFile(filepath.Join(g, name)); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		measure := parsecheck.SampleOf(data, 0).Alloc
		var w model.Workload
		var err error
		parsecheck.CheckAllocN(t, measure, "model.ParseWorkload", len(data), parsecheck.JSONAllocFactor, func() { w, err = model.ParseWorkload(data) })
		var sw *segment.Workload
		var serr error
		parsecheck.CheckAllocN(t, measure, "segment.ParseWorkload", len(data), parsecheck.JSONAllocFactor, func() { sw, serr = segment.ParseWorkload(data) })
		// segment.ParseRecipe bounds its "repeat" expansion (a 68-byte input once asked for
		// 2^31-1 batches), so every input goes through it.
		parsecheck.CheckAllocN(t, measure, "segment.ParseRecipe", len(data), parsecheck.JSONAllocFactor, func() { _, _ = segment.ParseRecipe(data) })
		if err != nil {
			return
		}
		out, merr := w.MarshalJSON()
		if merr != nil {
			t.Fatalf("MarshalJSON: %v", merr)
		}
		w2, err := model.ParseWorkload(out)
		if err != nil {
			t.Fatalf("%s written back as %s does not parse: %v", data, out, err)
		}
		a, _ := cloneWorkload(w).MarshalJSON()
		b, _ := cloneWorkload(w2).MarshalJSON()
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip changed the workload: %s -> %s", a, b)
		}
		if serr != nil {
			return
		}
		if sw.StartOffset != w.StartOffset || len(sw.Steps) != len(w.Steps) || (w.Rule == "per-append") != (sw.Rule == segment.PerAppend) {
			t.Fatalf("parsers disagree: model start %d steps %d rule %q, segment start %d steps %d rule %v", w.StartOffset, len(w.Steps), w.Rule, sw.StartOffset, len(sw.Steps), sw.Rule)
		}
		for i, s := range w.Steps {
			ss := sw.Steps[i]
			if s.Restart != ss.Restart || s.Recover != ss.Recover || len(s.Append) != len(ss.Append) {
				t.Fatalf("step %d: model %+v, segment %+v", i, s, ss)
			}
			for j, b := range s.Append {
				if sb := ss.Append[j]; int64(sb.Records) != b.Records || int64(sb.Bytes) != b.Bytes || sb.MaxTimestamp != b.MaxTimestamp {
					t.Fatalf("step %d batch %d: model %+v, segment %+v", i, j, b, sb)
				}
			}
		}
	})
}
