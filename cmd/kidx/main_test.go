package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func runKidx(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// docs/contract.md §4: `kidx sim --format json` of the default scenario. The figures are the seed post's
// (docs/background.md; segment 316: 473→16350, 552→32700, 631→49050; segment 4740: 4897, 4976, 4999 at the same
// positions) and docs/contract.md §4's key names.
func TestSimJSONDefaultScenario(t *testing.T) {
	out, errOut, code := runKidx(t, "sim", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Rule     string           `json:"rule"`
		Config   map[string]int64 `json:"config"`
		Segments []struct {
			BaseOffset  int64      `json:"baseOffset"`
			SizeBytes   int64      `json:"sizeBytes"`
			BatchCount  int        `json:"batchCount"`
			LastOffset  int64      `json:"lastOffset"`
			OffsetIndex [][2]int64 `json:"offsetIndex"`
			TimeIndex   [][2]int64 `json:"timeIndex"`
			Scan        struct {
				Lookups, MaxScanBytes, TotalScanBytes, MaxHops, TotalHops *int64
			} `json:"scan"`
		} `json:"segments"`
		Events []json.RawMessage `json:"events"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Rule != "per-batch" || doc.Config["index.interval.bytes"] != 4096 || doc.Config["segment.bytes"] != 65536 ||
		doc.Config["segment.index.bytes"] != 10485760 {
		t.Fatalf("rule/config: %s %v", doc.Rule, doc.Config)
	}
	if len(doc.Segments) != 16 || doc.Events == nil || len(doc.Events) != 0 {
		t.Fatalf("%d segments, events %v", len(doc.Segments), doc.Events)
	}
	want := map[int64][][2]int64{
		316:  {{473, 16350}, {552, 32700}, {631, 49050}},
		4740: {{4897, 16350}, {4976, 32700}, {4999, 49050}},
	}
	for _, s := range doc.Segments {
		if w, ok := want[s.BaseOffset]; ok {
			if len(s.OffsetIndex) != 3 || s.OffsetIndex[0] != w[0] || s.OffsetIndex[1] != w[1] || s.OffsetIndex[2] != w[2] {
				t.Errorf("segment %d offsetIndex %v, want %v", s.BaseOffset, s.OffsetIndex, w)
			}
		}
		if s.Scan.Lookups == nil || s.Scan.MaxScanBytes == nil || s.Scan.TotalScanBytes == nil || s.Scan.MaxHops == nil || s.Scan.TotalHops == nil {
			t.Fatalf("segment %d: scan keys missing", s.BaseOffset)
		}
		// Every segment is shown closed: its last time-index entry names its last offset
		// (batch timestamps rise with the offset).
		if n := len(s.TimeIndex); n == 0 || s.TimeIndex[n-1][1] != s.LastOffset {
			t.Errorf("segment %d time index %v does not end at %d", s.BaseOffset, s.TimeIndex, s.LastOffset)
		}
	}
}

// A golden workload through `kidx sim --workload`: the JSON reproduces what Kafka wrote.
func TestSimWorkloadMatchesKafka(t *testing.T) {
	dir := "../../testdata/kafka-golden/follower3-per-append"
	out, errOut, code := runKidx(t, "sim", "--workload", filepath.Join(dir, "workload.json"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Rule     string `json:"rule"`
		Segments []struct {
			BaseOffset  int64      `json:"baseOffset"`
			SizeBytes   int64      `json:"sizeBytes"`
			OffsetIndex [][2]int64 `json:"offsetIndex"`
			TimeIndex   [][2]int64 `json:"timeIndex"`
		} `json:"segments"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kafka-output.json"))
	if err != nil {
		t.Fatal(err)
	}
	var kafka struct {
		Segments []struct {
			BaseOffset  int64      `json:"baseOffset"`
			LogSize     int64      `json:"logSize"`
			OffsetIndex [][2]int64 `json:"offsetIndex"`
			TimeIndex   [][2]int64 `json:"timeIndex"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(data, &kafka); err != nil {
		t.Fatal(err)
	}
	if got.Rule != "per-append" || len(got.Segments) != len(kafka.Segments) {
		t.Fatalf("rule %s, %d segments, Kafka %d", got.Rule, len(got.Segments), len(kafka.Segments))
	}
	for i, k := range kafka.Segments {
		g := got.Segments[i]
		if g.BaseOffset != k.BaseOffset || g.SizeBytes != k.LogSize || !slices.Equal(g.OffsetIndex, k.OffsetIndex) || !slices.Equal(g.TimeIndex, k.TimeIndex) {
			t.Fatalf("segment %d: kidx %+v, Kafka %+v", i, g, k)
		}
	}
}

// docs/contract.md §8 and the issue: invalid input exits 2 with a message naming the file, the step and
// the field.
func TestSimInvalidInputExits2(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content string
		want          []string
	}{
		{"negative.json", `{"batches": [{"records": 1, "bytes": 100}, {"records": 1, "bytes": -5}]}`, []string{"negative.json", "batches[1].bytes", "negative"}},
		{"small.json", `{"steps": [{"append": [{"records": 1, "bytes": 100}, {"records": 2, "bytes": 60}]}]}`, []string{"small.json", "steps[0].append[1].bytes", "61"}},
		{"records.json", `{"batches": [{"records": 0, "bytes": 100}]}`, []string{"records.json", "batches[0].records", "less than 1"}},
		{"key.json", `{"config": {"index.interval.byte": 1}, "batches": [{"records": 1, "bytes": 100}]}`, []string{"key.json", "config.index.interval.byte", "unknown config key"}},
		{"broken.json", `{"batches": [{"records": 1, "bytes": 100},]}`, []string{"broken.json", "byte 42"}},
		{"step.json", `{"steps": [{"restart": true}, {"append": []}]}`, []string{"step.json", "steps[1].append"}},
	}
	for _, c := range cases {
		p := writeFile(t, dir, c.name, c.content)
		_, errOut, code := runKidx(t, "sim", "--workload", p)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: message %q does not mention %q", c.name, errOut, w)
			}
		}
	}
	for _, args := range [][]string{
		{"sim", "--config", "no.such.key=1"},
		{"sim", "--config", "segment.bytes=13"},
		{"sim", "--batch-bytes", "60"},
		{"sim", "--records", "0"},
		{"sim", "--rule", "per-record"},
		{"sim", "--kafka-version", "four"},
		{"sim", "--format", "yaml"},
		{"sim", "--workload", filepath.Join(dir, "missing.json")},
		{"sim", "--nope"},
	} {
		if _, errOut, code := runKidx(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// --kafka-version picks the rule (docs/kafka.md §0.1) and warns about values that release
// rejects (docs/kafka.md §9).
func TestSimKafkaVersion(t *testing.T) {
	out, errOut, code := runKidx(t, "sim", "--kafka-version", "4.0.0", "--format", "json")
	if code != 0 || !strings.Contains(out, `"rule": "per-append"`) {
		t.Fatalf("4.0.0: exit %d, %s", code, errOut)
	}
	_, errOut, _ = runKidx(t, "sim", "--kafka-version", "4.1.0")
	if !strings.Contains(errOut, "rejects segment.bytes=65536") {
		t.Errorf("4.1.0 with 64 KiB segments: warning missing, stderr %q", errOut)
	}
}

// The text report sums up, and names the seed post's three regimes (docs/background.md): "Below the batch size,
// it's a plateau" (1 and 4096), "Between the batch size and the segment size, it thins out"
// (20000), "Above the segment size, it's a cliff" (1048576: 0 entries, a 49 KB walk).
func TestSimTextRegimes(t *testing.T) {
	for _, c := range []struct {
		interval string
		want     []string
	}{
		{"1", []string{"48 offset-index entries", "plateau"}},
		{"4096", []string{"48 offset-index entries", "plateau", "scan max 16350 B"}},
		{"20000", []string{"16 offset-index entries", "thinning"}},
		{"1048576", []string{"0 offset-index entries", "cliff", "scan max 49050 B"}},
	} {
		out, _, code := runKidx(t, "sim", "--config", "index.interval.bytes="+c.interval)
		if code != 0 {
			t.Fatalf("interval %s: exit %d", c.interval, code)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("interval %s: output lacks %q:\n%s", c.interval, w, out)
			}
		}
	}
}

// kidx write of a golden recipe reproduces Kafka's bytes; write refuses a non-empty
// directory; verify of what was written is clean (exit 0) and of a corrupted copy is not.
func TestWriteVerifyRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	golden := "../../testdata/kafka-golden/random-i4096-per-batch"
	if _, errOut, code := runKidx(t, "write", "--workload", filepath.Join(golden, "kafka-input.json"), "--dir", dir); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(golden, "files", "*"))
	for _, f := range files {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s differs from Kafka's (%v)", filepath.Base(f), err)
		}
	}
	if _, errOut, code := runKidx(t, "write", "--workload", filepath.Join(golden, "workload.json"), "--dir", dir); code != 2 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("write into a non-empty dir: exit %d %q", code, errOut)
	}
	if out, errOut, code := runKidx(t, "verify", "--deep", dir); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	// Flip one payload byte: the CRC check must catch it.
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	data, _ := os.ReadFile(logs[0])
	data[100] ^= 0xff
	if err := os.WriteFile(logs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runKidx(t, "verify", "--deep", dir); code != 1 || !strings.Contains(out, filepath.Base(logs[0])) {
		t.Fatalf("verify of a corrupted log: exit %d\n%s", code, out)
	}
}

// kidx dump prints an index the way kafka-dump-log does.
func TestDumpIndexLikeKafka(t *testing.T) {
	out, _, code := runKidx(t, "dump", "../../testdata/kafka-golden/blog-i4096/files/00000000000000004740.index")
	want := "Dumping ../../testdata/kafka-golden/blog-i4096/files/00000000000000004740.index\n" +
		"offset: 4897 position: 16350\noffset: 4976 position: 32700\noffset: 4999 position: 49050\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// `kidx sim --gen`: the generator is replayable from its printed seed, and counts take
// decimal suffixes (--records 10K).
func TestSimGenReplaysFromSeed(t *testing.T) {
	args := []string{"sim", "--gen", "lognormal:median=4000,sigma=0.5", "--records", "10K", "--seed", "42", "--format", "json"}
	a, errA, code := runKidx(t, args...)
	if code != 0 || strings.Contains(errA, "seed 42") { // a given seed is not printed back (issue 11, defect 5)
		t.Fatalf("exit %d: %s", code, errA)
	}
	b, _, _ := runKidx(t, args...)
	if a != b {
		t.Fatal("the same seed gave two different runs")
	}
	c, _, _ := runKidx(t, "sim", "--gen", "lognormal:median=4000,sigma=0.5", "--records", "10K", "--seed", "43", "--format", "json")
	if a == c {
		t.Fatal("seeds 42 and 43 gave the same run")
	}
	var doc struct {
		Segments []struct {
			Scan struct{ Lookups int64 } `json:"scan"`
		} `json:"segments"`
	}
	if err := json.Unmarshal([]byte(a), &doc); err != nil {
		t.Fatal(err)
	}
	var offsets int64
	for _, s := range doc.Segments {
		offsets += s.Scan.Lookups
	}
	if offsets != 10_000 {
		t.Fatalf("--records 10K gave %d offsets", offsets)
	}
	for _, bad := range [][]string{
		{"sim", "--gen", "lognormal:median=4000"},
		{"sim", "--gen", "lognormal:median=4000", "--records", "10Q"},
		{"sim", "--gen", "nosuch:x=1", "--records", "10"},
		{"sim", "--seed", "4"},
	} {
		if _, _, code := runKidx(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
