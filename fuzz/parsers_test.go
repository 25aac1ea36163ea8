package fuzz

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kidx/fuzz/internal/parsecheck"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
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
		// Replicated workloads (docs/contract.md §3.1; issue 23): the format's example,
		// a follower starting inside the leader's log, and refusals.
		`{"config": {"segment.bytes": 1073741824, "index.interval.bytes": 4096, "segment.index.bytes": 4096}, "kafkaVersion": "4.1.0",
		  "replicas": {"count": 2, "fetchMaxBytes": 1048576, "startOffsets": [0, 0]},
		  "steps": [{"append": [{"records": 1, "bytes": 5070, "maxTimestamp": 1}]}, {"fetch": 1}, {"fetch": 1, "maxBytes": 500000},
		            {"restart": true, "replica": 1}, {"recover": true, "replica": 1}, {"roll": true, "replica": 0}, {"elect": 1}]}`,
		`{"config": {"segment.bytes": 300, "index.interval.bytes": 0}, "replicas": {"count": 3, "fetchMaxBytes": 150, "startOffsets": [0, 2, 0]},
		  "steps": [{"append": [{"records": 1, "bytes": 100}, {"records": 2, "bytes": 100}]}, {"append": [{"records": 1, "bytes": 100}]},
		            {"fetch": 1}, {"fetch": 2, "maxBytes": 0}, {"fetch": 2}, {"elect": 2}, {"fetch": 0}, {"restart": true}]}`,
		`{"replicas": {"count": 2}, "steps": [{"fetch": 0}]}`, `{"replicas": {"count": 2}, "batches": []}`, `{"steps": [{"elect": 1}]}`,
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
		if serr == nil && sw.Replicas != nil {
			writeSmallReplicated(t, sw)
		}
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

// writeSmallReplicated writes a replicated workload the file writer accepts (Validate) into
// memory, when its batches total at most 1 MiB: whatever its steps ask (a lagging election, a
// fetch from inside a batch), the ReplicaSet returns an error or writes, never panics, and a
// write that succeeds leaves every replica's log end at or below the leader's.
func writeSmallReplicated(t *testing.T, sw *segment.Workload) {
	var total int64
	for _, s := range sw.Steps {
		for _, b := range s.Append {
			total += int64(b.Bytes)
		}
	}
	if total > 1<<20 || sw.Validate() != nil {
		return
	}
	res, err := segment.WriteWorkloadFS(vfs.NewMemFS(), "/p", sw)
	if err != nil {
		return
	}
	lead := res.Replicas[res.Leader].NextOffset
	for _, r := range res.Replicas {
		if r.FailedAt < 0 && r.NextOffset > lead && r.NextOffset != sw.Replicas.StartOffsets[r.Replica] {
			t.Fatalf("replica %d ends at %d, past the leader's (replica %d) %d", r.Replica, r.NextOffset, res.Leader, lead)
		}
	}
}
