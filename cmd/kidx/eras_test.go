package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/model"
)

// fiveAppends is five single-batch appends of 82 bytes (the smallest batch of 3 records, so
// that kidx write can write it; testdata/scenarios/eras-offset-entry.txt has 78, arithmetic
// no file holds) with 3 offsets each at index.interval.bytes=100: B0 0-2@0, B1 3-5@82,
// B2 6-8@164, B3 9-11@246, B4 12-14@328. The counter passes 100 before B2 (164) and again
// before B4 (164): those two appends are indexed. Up to 1.1 an entry names the append's
// first offset, from 2.0 its last.
const fiveAppends = `{"config": {"index.interval.bytes": 100}%s, "batches": [
  {"records": 3, "bytes": 82}, {"records": 3, "bytes": 82}, {"records": 3, "bytes": 82},
  {"records": 3, "bytes": 82}, {"records": 3, "bytes": 82}]}`

var (
	entriesUpTo11 = [][2]int64{{6, 164}, {12, 328}}
	entriesFrom20 = [][2]int64{{8, 164}, {14, 328}}
)

type simEraDoc struct {
	Rule         string `json:"rule"`
	Era          string `json:"era"`
	KafkaVersion string `json:"kafkaVersion"`
	Segments     []struct {
		OffsetIndex [][2]int64 `json:"offsetIndex"`
		Scan        struct {
			TotalHops        int64  `json:"totalHops"`
			MaxHeaderReads   *int64 `json:"maxHeaderReads"`
			TotalHeaderReads *int64 `json:"totalHeaderReads"`
		} `json:"scan"`
	} `json:"segments"`
}

func simJSONOf(t *testing.T, args ...string) (simEraDoc, string) {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"sim", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("kidx sim %v: exit %d: %s", args, code, errOut)
	}
	var d simEraDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Segments) != 1 {
		t.Fatalf("kidx sim %v: %d segments, want 1", args, len(d.Segments))
	}
	return d, errOut
}

func workloadFile(t *testing.T, extra string) string {
	return writeFile(t, t.TempDir(), "w.json", strings.Replace(fiveAppends, "%s", extra, 1))
}

// --kafka-version picks the release's exact era: 1.1.1 and 2.0.0 index the same appends at
// different offsets, and the lookups cost what the scenario's hand count says (hops 21 and 29).
func TestSimKafkaVersionEras(t *testing.T) {
	w := workloadFile(t, "")
	for _, c := range []struct {
		version, era, rule string
		entries            [][2]int64
		hops               int64
	}{
		{"1.1.1", "0.11-1.1", "per-append", entriesUpTo11, 21},
		{"0.9.0", "0.8.2-0.9.0", "per-append", entriesUpTo11, 21},
		{"2.0.0", "2.0-3.6", "per-append", entriesFrom20, 29},
		{"4.1.0", "4.1-4.4", "per-batch", entriesFrom20, 29},
	} {
		d, _ := simJSONOf(t, "--workload", w, "--kafka-version", c.version)
		s := d.Segments[0]
		if !slices.Equal(s.OffsetIndex, c.entries) || s.Scan.TotalHops != c.hops {
			t.Errorf("Kafka %s: entries %v, hops %d; want %v, %d", c.version, s.OffsetIndex, s.Scan.TotalHops, c.entries, c.hops)
		}
		if d.Era != c.era || d.KafkaVersion != c.version || d.Rule != c.rule {
			t.Errorf("Kafka %s: era %q, kafkaVersion %q, rule %q; want %q, %q, %q", c.version, d.Era, d.KafkaVersion, d.Rule, c.era, c.version, c.rule)
		}
		if s.Scan.MaxHeaderReads == nil || s.Scan.TotalHeaderReads == nil {
			t.Errorf("Kafka %s: scan has no header reads", c.version)
		}
	}
	// Before 4.1 Kafka reads exactly the hops.
	d, _ := simJSONOf(t, "--workload", w, "--kafka-version", "2.0.0")
	if r := d.Segments[0].Scan.TotalHeaderReads; r == nil || *r != 29 {
		t.Errorf("Kafka 2.0.0: total header reads %v, want the 29 hops", r)
	}
	// The rule names are the two current eras; the era key says which.
	for rule, era := range map[string]string{"per-batch": "4.1-4.4", "per-append": "3.7-4.0.0"} {
		d, _ := simJSONOf(t, "--workload", w, "--rule", rule)
		if d.Era != era || d.KafkaVersion != "" || !slices.Equal(d.Segments[0].OffsetIndex, entriesFrom20) {
			t.Errorf("--rule %s: era %q, kafkaVersion %q, entries %v; want %s, none, %v", rule, d.Era, d.KafkaVersion, d.Segments[0].OffsetIndex, era, entriesFrom20)
		}
	}
}

// A workload's "kafkaVersion" picks its era; --kafka-version and --rule override it.
func TestSimWorkloadKafkaVersion(t *testing.T) {
	w := workloadFile(t, `, "kafkaVersion": "1.1.1"`)
	d, _ := simJSONOf(t, "--workload", w)
	if d.Era != "0.11-1.1" || d.KafkaVersion != "1.1.1" || !slices.Equal(d.Segments[0].OffsetIndex, entriesUpTo11) {
		t.Errorf("file 1.1.1: era %q, kafkaVersion %q, entries %v; want 0.11-1.1, 1.1.1, %v", d.Era, d.KafkaVersion, d.Segments[0].OffsetIndex, entriesUpTo11)
	}
	d, _ = simJSONOf(t, "--workload", w, "--kafka-version", "2.0.0")
	if d.Era != "2.0-3.6" || d.KafkaVersion != "2.0.0" || !slices.Equal(d.Segments[0].OffsetIndex, entriesFrom20) {
		t.Errorf("file 1.1.1, flag 2.0.0: era %q, kafkaVersion %q, entries %v; want 2.0-3.6, 2.0.0, %v", d.Era, d.KafkaVersion, d.Segments[0].OffsetIndex, entriesFrom20)
	}
	d, _ = simJSONOf(t, "--workload", w, "--rule", "per-batch")
	if d.Era != "4.1-4.4" || d.KafkaVersion != "" || !slices.Equal(d.Segments[0].OffsetIndex, entriesFrom20) {
		t.Errorf("file 1.1.1, --rule per-batch: era %q, kafkaVersion %q, entries %v; want 4.1-4.4, none, %v", d.Era, d.KafkaVersion, d.Segments[0].OffsetIndex, entriesFrom20)
	}
	// The text form names the era too, and shows header reads beside the hops.
	out, errOut, code := runKidx(t, "sim", "--workload", w)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Kafka 1.1.1 (era 0.11-1.1, rule per-append)") || !strings.Contains(out, "max reads") ||
		!strings.Contains(out, "hops max 2, mean 1.40; header reads max 2, mean 1.40") {
		t.Errorf("text output lacks the era or the header reads (hops 21 over 15 offsets):\n%s", out)
	}
}

func TestEraUsageErrors(t *testing.T) {
	w := workloadFile(t, "")
	for _, args := range [][]string{
		{"sim", "--workload", w, "--rule", "per-batch", "--kafka-version", "3.6.1"},
		{"whatif", "--workload", w, "--rule", "per-append", "--kafka-version", "3.6.1"},
		{"write", "--workload", w, "--dir", t.TempDir(), "--rule", "per-append", "--kafka-version", "3.6.1"},
		{"sim", "--workload", w, "--kafka-version", "2.9.0"},
	} {
		_, errOut, code := runKidx(t, args...)
		if code != 2 || !strings.Contains(errOut, "kidx: ") {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
	_, errOut, _ := runKidx(t, "sim", "--workload", w, "--rule", "per-batch", "--kafka-version", "3.6.1")
	if !strings.Contains(errOut, "--rule and --kafka-version") {
		t.Errorf("the message does not name the flags: %s", errOut)
	}
}

// Trunk's era is unreleased and the eras before 3.7 are read from Kafka's code, not run
// (docs/kafka.md §13): a note says so; a release past trunk is no release kidx knows: refused,
// naming the release lines.
func TestEraWarnings(t *testing.T) {
	w := workloadFile(t, "")
	_, errOut := simJSONOf(t, "--workload", w, "--kafka-version", "4.5.0")
	if !strings.Contains(errOut, "kidx: note: Kafka 4.5 (trunk, unreleased): unreleased: trunk as of 2026-08") {
		t.Errorf("4.5.0: no derived-era warning: %q", errOut)
	}
	if _, errOut, code := runKidx(t, "sim", "--workload", w, "--kafka-version", "5.0.0"); code != 2 ||
		!strings.Contains(errOut, "kidx: --kafka-version: kafka version \"5.0.0\" is no Apache Kafka release; the release lines are 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)") {
		t.Errorf("5.0.0: exit %d, stderr %q", code, errOut)
	}
	if _, errOut := simJSONOf(t, "--workload", w, "--kafka-version", "3.6.1"); strings.Contains(errOut, "warning") || !strings.Contains(errOut, "kidx: note: Kafka 2.0-3.6: read from Kafka's code") {
		t.Errorf("3.6.1: %q", errOut)
	}
	if _, errOut := simJSONOf(t, "--workload", w, "--kafka-version", "4.0.0"); strings.Contains(errOut, "kidx: ") {
		t.Errorf("4.0.0 (run: Kafka's golden vectors) says %q", errOut)
	}
}

type whatIfEraDoc struct {
	Rule         string   `json:"rule"`
	Era          string   `json:"era"`
	Eras         []string `json:"eras"`
	KafkaVersion string   `json:"kafkaVersion"`
	Points       []struct {
		Rule               string           `json:"rule"`
		Era                string           `json:"era"`
		Config             map[string]int64 `json:"config"`
		OffsetIndexEntries int64            `json:"offsetIndexEntries"`
		Scan               map[string]any   `json:"scan"`
	} `json:"points"`
}

func whatIfJSONOf(t *testing.T, args ...string) whatIfEraDoc {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"whatif", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("kidx whatif %v: exit %d: %s", args, code, errOut)
	}
	var d whatIfEraDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// The era reaches every what-if point, on the fast path (StatStream, 0.10.2+) and through
// model.Log (0.9.0, before the overflow roll).
func TestWhatIfEras(t *testing.T) {
	w := workloadFile(t, "")
	for _, c := range []struct {
		version, era string
		hops         float64
	}{{"1.1.1", "0.11-1.1", 21}, {"0.9.0", "0.8.2-0.9.0", 21}, {"2.0.0", "2.0-3.6", 29}} {
		d := whatIfJSONOf(t, "--workload", w, "--kafka-version", c.version, "--sweep", "index.interval.bytes=100,150")
		if d.Era != c.era || !slices.Equal(d.Eras, []string{c.era}) || d.Rule != "per-append" || d.KafkaVersion != c.version || len(d.Points) != 2 {
			t.Fatalf("Kafka %s: era %q %v, rule %q, kafkaVersion %q, %d points", c.version, d.Era, d.Eras, d.Rule, d.KafkaVersion, len(d.Points))
		}
		p := d.Points[0]
		if p.Era != c.era || p.Config["index.interval.bytes"] != 100 || p.OffsetIndexEntries != 2 || p.Scan["totalHops"] != c.hops {
			t.Errorf("Kafka %s: point era %q, I=%d, %d entries, hops %v; want %s, 100, 2, %v", c.version, p.Era, p.Config["index.interval.bytes"], p.OffsetIndexEntries, p.Scan["totalHops"], c.era, c.hops)
		}
	}
	// A workload's kafkaVersion is honoured by whatif too.
	d := whatIfJSONOf(t, "--workload", workloadFile(t, `, "kafkaVersion": "1.1.1"`), "--sweep", "index.interval.bytes=100")
	if d.Era != "0.11-1.1" || d.KafkaVersion != "1.1.1" || d.Points[0].Scan["totalHops"] != 21.0 {
		t.Errorf("file 1.1.1: era %q, kafkaVersion %q, hops %v", d.Era, d.KafkaVersion, d.Points[0].Scan["totalHops"])
	}
	d = whatIfJSONOf(t, "--compare-rules")
	if !slices.Equal(d.Eras, []string{"4.1-4.4", "3.7-4.0.0"}) || d.Points[0].Era != "4.1-4.4" || d.Points[1].Era != "3.7-4.0.0" {
		t.Errorf("--compare-rules: eras %v, points %q %q", d.Eras, d.Points[0].Era, d.Points[1].Era)
	}
}

// Every what-if point's scan object carries the header reads next to the hops. Seed
// experiment at index.interval.bytes=4096: 16 segments of 4 batches of 79 offsets (the last
// batch of the last segment 23). Per full segment B0's offsets cost 1 hop, and in B1-B3 every
// offset but the batch's last (its own entry, 1 hop) 2 from the previous batch: 79 + 3 x 157
// = 550; the last segment 79 + 2 x 157 + 45 = 438; 15 x 550 + 438 = 8688 hops over 5000
// offsets, at most 2. Before 4.1 (per-append: 3.7-4.0.0) Kafka reads exactly the hops. From
// 4.1 it reads the header after the hit for B1's offsets but its first, so at most 3.
func TestWhatIfHeaderReads(t *testing.T) {
	for _, c := range []struct {
		rule     string
		maxReads float64
	}{{"per-append", 2}, {"per-batch", 3}} {
		d := whatIfJSONOf(t, "--rule", c.rule, "--sweep", "index.interval.bytes=4096")
		s := d.Points[0].Scan
		for _, k := range []string{"maxHeaderReads", "meanHeaderReads", "totalHeaderReads", "maxHops", "meanHops"} {
			if _, ok := s[k]; !ok {
				t.Fatalf("--rule %s: scan has no %q: %v", c.rule, k, s)
			}
		}
		if s["totalHops"] != 8688.0 || s["maxHops"] != 2.0 || s["maxHeaderReads"] != c.maxReads {
			t.Errorf("--rule %s: hops %v max %v, max header reads %v; want 8688, 2, %v", c.rule, s["totalHops"], s["maxHops"], s["maxHeaderReads"], c.maxReads)
		}
		if c.rule == "per-append" && (s["totalHeaderReads"] != 8688.0 || s["meanHeaderReads"] != 1.74) {
			t.Errorf("--rule per-append: header reads %v mean %v, want the hops: 8688, 1.74", s["totalHeaderReads"], s["meanHeaderReads"])
		}
	}
	out, errOut, code := runKidx(t, "whatif", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "| reads max/mean |") {
		t.Errorf("markdown table has no header-read column (exit %d, %s):\n%s", code, errOut, out)
	}
}

// `kidx help versions` prints the era table: every era, the rule names' eras, the Derived note.
func TestHelpVersions(t *testing.T) {
	for _, args := range [][]string{{"help", "versions"}, {"versions"}} {
		out, errOut, code := runKidx(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		for _, e := range model.Eras {
			if !strings.Contains(out, "\n"+e.ID+": Kafka "+e.Releases) {
				t.Errorf("%v: no block for era %s", args, e.ID)
			}
		}
		for _, s := range []string{"--rule per-batch is Kafka 4.1-4.4", "--rule per-append is 3.7-4.0.0",
			"4.1-4.4: Kafka 4.1-4.4 (--rule per-batch)", "3.7-4.0.0: Kafka 3.7.x, 3.8.0-3.8.1, 3.9.0, 4.0.0 (--rule per-append)",
			"DERIVED                unreleased: trunk as of 2026-08", "KAFKA-17375", "recover()'s entry", "header reads past hit"} {
			if !strings.Contains(out, s) {
				t.Errorf("%v: no %q", args, s)
			}
		}
		for i, l := range strings.Split(out, "\n") {
			if len([]rune(l)) > 100 {
				t.Errorf("%v: line %d is %d columns: %q", args, i+1, len([]rune(l)), l)
			}
		}
	}
	if out, _, _ := runKidx(t, "help"); !strings.Contains(out, "kidx versions") {
		t.Errorf("kidx help does not list the versions topic:\n%s", out)
	}
}

// kidx write writes the two current eras and those that write files as they do; it refuses
// the others with a usage error naming the rule to use.
func TestWriteEras(t *testing.T) {
	// 100-byte batches of 3 records (the writer needs 82 bytes for 3 minimal records).
	wl := `{"config": {"index.interval.bytes": 150}%s, "batches": [{"records": 3, "bytes": 100},
	  {"records": 3, "bytes": 100}, {"records": 3, "bytes": 100}, {"records": 3, "bytes": 100}]}`
	plain := writeFile(t, t.TempDir(), "w.json", strings.Replace(wl, "%s", "", 1))
	for _, c := range []struct {
		args []string
		rule string
	}{
		{[]string{"--kafka-version", "1.1.1"}, "per-append"},
		{[]string{"--kafka-version", "2.6.0"}, "per-append"},
		{[]string{"--kafka-version", "0.10.2.1"}, "per-append"},
	} {
		_, errOut, code := runKidx(t, append([]string{"write", "--workload", plain, "--dir", filepath.Join(t.TempDir(), "t-0")}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, "kidx write writes the two current eras") || !strings.Contains(errOut, "use --rule "+c.rule) {
			t.Errorf("%v: exit %d, %q; want 2 naming --rule %s", c.args, code, errOut, c.rule)
		}
	}
	old := writeFile(t, t.TempDir(), "w.json", strings.Replace(wl, "%s", `, "kafkaVersion": "2.0.0"`, 1))
	if _, errOut, code := runKidx(t, "write", "--workload", old, "--dir", filepath.Join(t.TempDir(), "t-0")); code != 2 || !strings.Contains(errOut, "Kafka 2.0.0 (era 2.0-3.6)") {
		t.Errorf("file kafkaVersion 2.0.0: exit %d, %q; want 2", code, errOut)
	}
	// --rule overrides the file's release.
	if _, errOut, code := runKidx(t, "write", "--workload", old, "--dir", filepath.Join(t.TempDir(), "t-0"), "--rule", "per-append"); code != 0 {
		t.Errorf("file 2.0.0 with --rule per-append: exit %d, %s", code, errOut)
	}
	// 3.9.1 and 4.0.1 write what 4.1 writes, 3.7.0 what 4.0.0 writes: byte for byte.
	read := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
		return out
	}
	write := func(args ...string) map[string][]byte {
		dir := filepath.Join(t.TempDir(), "t-0")
		if _, errOut, code := runKidx(t, append([]string{"write", "--workload", plain, "--dir", dir}, args...)...); code != 0 {
			t.Fatalf("write %v: exit %d: %s", args, code, errOut)
		}
		return read(dir)
	}
	same := func(a, b map[string][]byte) bool {
		if len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !bytes.Equal(v, b[k]) {
				return false
			}
		}
		return true
	}
	perBatch, perAppend := write("--rule", "per-batch"), write("--rule", "per-append")
	for v, want := range map[string]map[string][]byte{"3.9.1": perBatch, "4.0.1": perBatch, "4.1.0": perBatch, "3.7.0": perAppend, "4.0.0": perAppend} {
		if got := write("--kafka-version", v); !same(got, want) {
			t.Errorf("--kafka-version %s does not write the files of its rule's current era", v)
		}
	}
}

// analyze reports Kafka's own phase-2 header reads: for the release --kafka-version names, or
// both figures without one. blog-i4096 (Kafka's own files: 16 segments of 4 batches of 79
// offsets, the last batch 23) costs 8688 hops, at most 2 (see TestWhatIfHeaderReads): Kafka
// before 4.1 reads exactly those. 4.1's loop returns at a batch whose base offset is the
// target and otherwise reads the next header too, unless the hit is the segment's last batch:
// per full segment 550 hops + 79 x 3 offsets of B0-B2 - their 3 base offsets = 784, the last
// segment 438 + 237 - 3 = 672; 15 x 784 + 672 = 12432, at most 3 (B1's offsets after its first).
func TestAnalyzeHeaderReads(t *testing.T) {
	root := goldenLogDir(t, "blog-i4096")
	for _, c := range []struct {
		args         []string
		total, max   float64
		forWhat      string
		both         bool
		column, note string
	}{
		{nil, 12432, 3, "4.1+", true, "4.1+ reads max/mean", "no --kafka-version: both"},
		{[]string{"--rule", "per-batch"}, 12432, 3, "4.1+", true, "4.1+ reads max/mean", "no --kafka-version: both"},
		{[]string{"--kafka-version", "4.1.0"}, 12432, 3, "4.1+", false, "reads max/mean", "Kafka 4.1+'s phase-2 loop"},
		{[]string{"--kafka-version", "3.6.1"}, 8688, 2, "before 4.1", false, "reads max/mean", "before 4.1, exactly the hops"},
		{[]string{"--rule", "per-append"}, 8688, 2, "before 4.1", false, "reads max/mean", "before 4.1, exactly the hops"},
	} {
		out, errOut, code := runKidx(t, append([]string{"analyze", root, "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var doc struct {
			For        string `json:"headerReadsFor"`
			Both       bool   `json:"headerReadsBoth"`
			Partitions []struct {
				Scan map[string]float64 `json:"scan"`
			} `json:"partitions"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		s := doc.Partitions[0].Scan
		if s["totalHops"] != 8688 || s["maxHops"] != 2 || s["totalHeaderReads"] != c.total || s["maxHeaderReads"] != c.max ||
			doc.For != c.forWhat || doc.Both != c.both {
			t.Errorf("%v: hops %v/%v, header reads %v/%v for %q (both %v); want 8688/2, %v/%v for %q (%v)", c.args, s["totalHops"], s["maxHops"],
				s["totalHeaderReads"], s["maxHeaderReads"], doc.For, doc.Both, c.total, c.max, c.forWhat, c.both)
		}
		text, _, _ := runKidx(t, append([]string{"analyze", root}, c.args...)...)
		if !strings.Contains(text, c.column) || !strings.Contains(text, c.note) {
			t.Errorf("%v: the text report lacks %q or %q:\n%s", c.args, c.column, c.note, text)
		}
	}
}
