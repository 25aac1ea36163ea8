package model

import (
	"reflect"
	"strings"
	"testing"
)

// docs/kafka.md §0.1: per-batch from 3.9.1, 4.0.1 and 4.1.0 on; per-append up to 3.8.1, 3.9.0,
// 4.0.0. The seeds ran 4.3.1 (post 003) and 4.5.0-SNAPSHOT (post 000), both per-batch.
func TestRuleForKafkaVersion(t *testing.T) {
	cases := map[string]AppendRule{
		"2.8.2": PerAppend, "3.0.0": PerAppend, "3.7.1": PerAppend, "3.8.0": PerAppend, "3.8.1": PerAppend,
		"3.9.0": PerAppend, "3.9.1": PerBatch, "3.9.2": PerBatch,
		"4.0.0": PerAppend, "4.0": PerAppend, "4.0.1": PerBatch,
		"4.1.0": PerBatch, "4.1": PerBatch, "4.2.0": PerBatch, "4.3.1": PerBatch, "4.5.0-SNAPSHOT": PerBatch,
		"0.10.2.1": PerAppend, "0.8.0": PerAppend, "1.1.1": PerAppend,
		// As Kafka users write them: a bare major is X.0.0, a missing patch .0, a suffix ignored.
		"4": PerAppend, "3.6": PerAppend, "3.7.0-SNAPSHOT": PerAppend, "4.5.1": PerBatch,
	}
	for v, want := range cases {
		got, err := RuleForKafkaVersion(v)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", v, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "four.one", "4.1.0.1", "4.-1.0", "0.7.2", "1.2.0", "2.9.0", "3.10.0", "0.10.2.1.1", "+4.1"} {
		if _, err := RuleForKafkaVersion(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	// No release: past trunk (4.5) or between lines; the error names the release lines.
	for _, bad := range []string{"9.9.9", "5.0", "5", "4.6.0", "2.9", "3.10"} {
		_, err := RuleForKafkaVersion(bad)
		if err == nil || !strings.Contains(err.Error(), "no Apache Kafka release; the release lines are 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)") {
			t.Errorf("%q: %v, want the release lines", bad, err)
		}
	}
}

// docs/contract.md §2 and docs/kafka.md §9: Kafka's names, defaults and ranges.
func TestConfigDefaultsAndRanges(t *testing.T) {
	want := map[string]int64{"index.interval.bytes": 4096, "segment.bytes": 1073741824, "segment.index.bytes": 10485760,
		"max.message.bytes": 1048588, "segment.ms": 604800000, "segment.jitter.ms": 0, "flush.messages": 9223372036854775807}
	if got := DefaultConfig().Map(); !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults %v", got)
	}
	var c Config = DefaultConfig()
	for _, bad := range []struct{ k, v string }{
		{"index.interval.bytes", "-1"}, {"segment.bytes", "13"}, {"segment.index.bytes", "3"}, {"segment.ms", "0"},
		{"segment.bytes", "2147483648"}, {"index.interval.bytes", "4k"}, {"index.interval", "1"},
	} {
		if err := c.Set(bad.k, bad.v); err == nil {
			t.Errorf("%s=%s accepted", bad.k, bad.v)
		}
	}
	if err := c.Set("index.interval.bytes", "0"); err != nil || c.IndexIntervalBytes != 0 {
		t.Fatal("index.interval.bytes=0 is valid (>= 0)")
	}
	// segment.index.bytes 4..11 passes ConfigDef but no segment can be created with it.
	c = DefaultConfig()
	if err := c.Set("segment.index.bytes", "8"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "Invalid max index size") {
		t.Fatalf("segment.index.bytes=8: %v", err)
	}
}

// docs/contract.md §2: the CLI warns where a Kafka release rejects a value the model accepts.
func TestVersionWarnings(t *testing.T) {
	c := DefaultConfig()
	c.SegmentBytes = 65536
	for v, n := range map[string]int{"3.9.1": 0, "4.0.1": 1, "4.1.0": 1, "4.3.1": 1} {
		w, err := VersionWarnings(c, v)
		if err != nil || len(w) != n {
			t.Errorf("%s: %v %v", v, w, err)
		}
	}
	if w, _ := VersionWarnings(DefaultConfig(), "4.1.0"); len(w) != 0 {
		t.Errorf("defaults warned: %v", w)
	}
}

// A workload written back (MarshalJSON) parses to the same steps, in both forms.
func TestWorkloadJSONRoundTrip(t *testing.T) {
	for _, w := range []Workload{
		{Config: map[string]int64{"segment.bytes": 65536}, Rule: "per-append", StartOffset: 7, SingleBatch: true,
			Steps: []Step{AppendStep(Batch{Records: 79, Bytes: 16350, MaxTimestamp: 1700000000000}), AppendStep(Batch{Records: 1, Bytes: 61, MaxTimestamp: NoTimestamp})}},
		{StartOffset: 0, Steps: []Step{AppendStep(Batch{Records: 1, Bytes: 78, MaxTimestamp: 5}, Batch{Records: 2, Bytes: 100, MaxTimestamp: 4}), {Restart: true}, {Recover: true}}},
	} {
		data, err := w.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseWorkload(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if w.Config == nil {
			w.Config = map[string]int64{}
		}
		if !reflect.DeepEqual(back, w) {
			t.Fatalf("round trip:\n%+v\n%+v\n%s", back, w, data)
		}
	}
}

// An empty workload writes back to a file that parses (FuzzWorkloadJSON found that an empty
// "batches" list was dropped).
func TestEmptyWorkloadRoundTrip(t *testing.T) {
	for _, in := range []string{`{"batches": []}`, `{"steps": []}`} {
		w, err := ParseWorkload([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, err := w.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseWorkload(out); err != nil {
			t.Fatalf("%s -> %s: %v", in, out, err)
		}
	}
}

// A workload may replay legacy messages (docs/contract.md §3 optional key "magic"): the smallest entry
// is then LOG_OVERHEAD + LegacyRecord.RECORD_OVERHEAD_V0 (26) or _V1 (34), not a v2 batch's
// 61, and the key survives a round trip.
func TestWorkloadLegacyMagic(t *testing.T) {
	good := `{"batches":[{"records":1,"bytes":26,"magic":0},{"records":254,"bytes":6290,"magic":1},{"records":3,"bytes":61,"magic":2}]}`
	w, err := ParseWorkload([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := []LegacyMagic{w.Steps[0].Append[0].Legacy, w.Steps[1].Append[0].Legacy, w.Steps[2].Append[0].Legacy}; got[0] != Magic0 || got[1] != Magic1 || got[2] != NotLegacy {
		t.Fatalf("formats %v", got)
	}
	out, err := w.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"bytes":26,"magic":0`) || !strings.Contains(string(out), `"magic":1`) || strings.Count(string(out), "magic") != 2 {
		t.Fatalf("round trip %s", out)
	}
	for _, bad := range []string{
		`{"batches":[{"records":1,"bytes":25,"magic":0}]}`,
		`{"batches":[{"records":1,"bytes":33,"magic":1}]}`,
		`{"batches":[{"records":1,"bytes":60}]}`,
		`{"batches":[{"records":1,"bytes":100,"magic":3}]}`,
	} {
		if _, err := ParseWorkload([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
