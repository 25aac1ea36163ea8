package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"kidx/logdir"
	"kidx/reports"
)

// The schema cases of the report and judging commands (issue 26, "Stable JSON"): analyze (a
// log directory, several, --merge), whatif (a sweep, --from-logdir), verify, explain and write
// (one log, replicas), each run on inputs that make the optional parts of its document appear:
// findings, advice of several kinds, a named change, a cleaned segment, a replayed baseline,
// events.

func init() {
	schemaCases = append(schemaCases,
		schemaCase{name: "whatif-seed-exact", want: "kidx.whatif/1",
			// The seed experiment: the exact interval sweep (intervalPieces), points on the
			// plateau, thinning and on the cliff, each with its advice.
			args: func(t *testing.T) []string { return []string{"whatif", "--format", "json"} }},
		schemaCase{name: "whatif-index-full-rolls", want: "kidx.whatif/1",
			// Index-full rolls at segment.index.bytes=4096 and none at 10485760: the verdict
			// names the change (verdictDetail.kind "change"), the rolling point advises
			// raise-segment-index-bytes.
			args: func(t *testing.T) []string { return rollsSweepArgs() }},
		schemaCase{name: "whatif-from-logdir", want: "kidx.whatif/1",
			args: func(t *testing.T) []string {
				root := goldenLogDir(t, "blog-i4096")
				return []string{"whatif", "--from-logdir", filepath.Join(root, "topic-0"), "--sweep", "index.interval.bytes=1024,65536", "--format", "json"}
			}},
		schemaCase{name: "analyze-findings-cleaned", want: "kidx.analyze/1", exits: []int{1},
			args: func(t *testing.T) []string {
				return []string{"analyze", reportsLogDir(t), "--all", "--format", "json"}
			}},
		schemaCase{name: "analyze-two-dirs", want: "kidx.analyze/1",
			args: func(t *testing.T) []string {
				a, b := goldenLogDir(t, "blog-i4096"), goldenLogDir(t, "blog-i1048576")
				return []string{"analyze", a, b, "--format", "json"}
			}},
		schemaCase{name: "analyze-merge", want: "kidx.analyze.fleet/1", exits: []int{1},
			args: func(t *testing.T) []string {
				out := t.TempDir()
				var files []string
				for i, dir := range []string{goldenLogDir(t, "blog-i4096", "smallindex-per-batch"), reportsLogDir(t)} {
					f := filepath.Join(out, []string{"b1.json", "b2.json"}[i])
					stdout, stderr, code := runKidx(t, "analyze", dir, "--broker", []string{"b1", "b2"}[i], "--format", "json")
					if code > 1 {
						t.Fatalf("analyze %s: exit %d: %s", dir, code, stderr)
					}
					if err := os.WriteFile(f, []byte(stdout), 0o644); err != nil {
						t.Fatal(err)
					}
					files = append(files, f)
				}
				return append([]string{"analyze", "--merge", "--format", "json"}, files...)
			}},
		schemaCase{name: "verify-damaged", want: "kidx.verify/1", exits: []int{1},
			args: func(t *testing.T) []string { return []string{"verify", "--deep", reportsLogDir(t), "--format", "json"} }},
		schemaCase{name: "verify-healthy-partition", want: "kidx.verify/1",
			args: func(t *testing.T) []string {
				return []string{"verify", filepath.Join(goldenLogDir(t, "blog-i4096"), "topic-0"), "--format", "json"}
			}},
		schemaCase{name: "explain-reproduced-and-not", want: "kidx.explain/1", exits: []int{1},
			args: func(t *testing.T) []string { return []string{"explain", reportsLogDir(t), "--format", "json"} }},
		schemaCase{name: "write-events", want: "kidx.write/1",
			// An append larger than segment.bytes is rejected: an event.
			args: func(t *testing.T) []string {
				w := writeFile(t, t.TempDir(), "w.json", `{"config": {"segment.bytes": 1000},
 "steps": [{"append": [{"records": 1, "bytes": 100}]}, {"append": [{"records": 1, "bytes": 2000}]}]}`)
				return []string{"write", "--workload", w, "--dir", filepath.Join(t.TempDir(), "t-0"), "--format", "json"}
			}},
		schemaCase{name: "write-replicas", want: "kidx.write.replicas/1",
			// Issue 23's reproduction under 4.1.0: the follower's fetch throws (an event, failedAt).
			args: func(t *testing.T) []string {
				w := replicatedWorkload(t, t.TempDir(), "4.1.0")
				return []string{"write", "--workload", w, "--dir", filepath.Join(t.TempDir(), "p"), "--format", "json"}
			}},
	)
}

// rollsSweepArgs is a whatif whose base point rolls 5 segments because an index is full
// (docs/kafka-hazards.md; TestWhatIfIndexFullRollsRemedy's workload) and whose sweep holds
// a segment.index.bytes that rolls none.
func rollsSweepArgs() []string {
	return []string{"whatif", "--gen", "lognormal:median=5070,sigma=0", "--batches", "2000", "--seed", "1",
		"--config", "segment.index.bytes=4096,segment.bytes=1073741824", "--sweep", "segment.index.bytes=4096,10485760", "--format", "json"}
}

// cleanStepWorkload is TestWriteAppliesCleanStep's workload: two segments cleaned into one.
const cleanStepWorkload = `{"config": {"segment.bytes": 1000, "index.interval.bytes": 100, "segment.index.bytes": 120, "segment.ms": 50},
 "steps": [
  {"append": [{"records": 2, "bytes": 100, "maxTimestamp": 1000}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1001}]},
  {"append": [{"records": 1, "bytes": 150, "maxTimestamp": 1002}]},
  {"append": [{"records": 2, "bytes": 120, "maxTimestamp": 1100}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1101}]},
  {"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1200}]},
  {"clean": {"drop": [2], "rewrite": [{"baseOffset": 4, "bytes": 80, "deleteHorizonMs": 5000}]}}]}`

// reportsLogDir is a log directory with the parts the report schemas make optional:
// topic-0 (Kafka's blog-i4096: on the plateau), topic-1 (blog-i1048576: an empty index
// index.interval.bytes could fill), topic-2 (random-i512-per-batch damaged: 8 bytes after
// the last batch of segment 601, and the second entry of segment 1144's .index pointing
// at offset 888, before the entry ahead of it), compacted-0 (written by the log cleaner).
func reportsLogDir(t *testing.T) string {
	t.Helper()
	root := goldenLogDir(t, "blog-i4096", "blog-i1048576", "random-i512-per-batch")
	damaged := filepath.Join(root, "topic-2")
	f, err := os.OpenFile(filepath.Join(damaged, "00000000000000000601.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("garbage!"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = os.OpenFile(filepath.Join(damaged, "00000000000000001144.index"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Entry 1's relative offset (bytes 8-11) becomes 0xffffff00: read as Kafka reads it, a
	// signed int32 (OffsetIndex.relativeOffset), -256, so the entry names offset
	// 1144 - 256 = 888, behind entry 0.
	if _, err := f.WriteAt([]byte{0xff, 0xff, 0xff, 0x00}, 8); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w := writeFile(t, t.TempDir(), "clean.json", cleanStepWorkload)
	if _, stderr, code := runKidx(t, "write", "--workload", w, "--dir", filepath.Join(root, "compacted-0")); code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	return root
}

// The machine-readable fields beside the text (issue 26: "Recommendations and verdicts get
// machine-readable fields (kind, the config key and value they recommend, the figure that
// justifies them) beside their text"). Every expected value is worked by hand below.

type adviceJSON struct {
	Kind   string `json:"kind"`
	Config string `json:"config"`
	Value  string `json:"value"`
	Figure *struct {
		Name  string  `json:"name"`
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	} `json:"figure"`
	Text string `json:"text"`
}

// findAdvice is the advice of kind in as (fails when there is none).
func findAdvice(t *testing.T, as []adviceJSON, kind string) adviceJSON {
	t.Helper()
	for _, a := range as {
		if a.Kind == kind {
			return a
		}
	}
	t.Fatalf("no %s advice in %+v", kind, as)
	return adviceJSON{}
}

func checkAdvice(t *testing.T, where string, a adviceJSON, config, value, figure string, figValue float64, unit string) {
	t.Helper()
	if a.Config != config || a.Value != value || a.Figure == nil || a.Figure.Name != figure || a.Figure.Value != figValue || a.Figure.Unit != unit {
		t.Errorf("%s: %s advice %+v (figure %+v); want config %q value %q figure %s = %v %s", where, a.Kind, a, a.Figure, config, value, figure, figValue, unit)
	}
}

// sameTexts: "advice" is the "recommendations", one for one.
func sameTexts(t *testing.T, where string, recs []string, as []adviceJSON) {
	t.Helper()
	if len(recs) != len(as) {
		t.Fatalf("%s: %d recommendations, %d advice", where, len(recs), len(as))
	}
	for i := range recs {
		if recs[i] != as[i].Text {
			t.Errorf("%s: recommendation %d %q, advice text %q", where, i, recs[i], as[i].Text)
		}
	}
}

type whatIfMachineJSON struct {
	Verdict       string `json:"verdict"`
	VerdictDetail struct {
		Kind    string `json:"kind"`
		Point   *int   `json:"point"`
		Changes []struct {
			Config string `json:"config"`
			Value  string `json:"value"`
		} `json:"changes"`
		Figures []struct {
			Name string  `json:"name"`
			From float64 `json:"from"`
			To   float64 `json:"to"`
			Unit string  `json:"unit"`
		} `json:"figures"`
	} `json:"verdictDetail"`
	Points []struct {
		Config          map[string]int64 `json:"config"`
		Recommendations []string         `json:"recommendations"`
		Advice          []adviceJSON     `json:"advice"`
	} `json:"points"`
}

func whatIfMachine(t *testing.T, args ...string) whatIfMachineJSON {
	t.Helper()
	out, stderr, code := runKidx(t, args...)
	if code != 0 {
		t.Fatalf("kidx %v: exit %d: %s", args, code, stderr)
	}
	var d whatIfMachineJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Points {
		sameTexts(t, fmt.Sprint(p.Config), p.Recommendations, p.Advice)
	}
	// The decision is the paragraph's: a change is named in both or in neither.
	if named := strings.Contains(d.Verdict, "The one change worth making"); named != (d.VerdictDetail.Kind == "change") {
		t.Errorf("verdictDetail.kind %q, but the verdict names a change: %v\n%s", d.VerdictDetail.Kind, named, d.Verdict)
	}
	return d
}

// The seed experiment (docs/background.md): 5000 records, 79 per 16350-byte batch, 4 batches
// per 64 KiB segment. An entry is added when more than index.interval.bytes were appended
// since the last one (LogSegment.append), so every interval up to 16349 indexes every batch
// (but a segment's first): at interval 1 the advice raises it to 16349 with the index
// unchanged (16 segments x 3 entries = 48). At 20000 a segment gets one entry (after two
// batches, 32700 > 20000): a lookup walks up to the two batches before its own, 2 x 16350 =
// 32700 bytes, and the advice lowers the interval to 16349 (the exact sweep finds the piece
// [0, 16349]).
func TestWhatIfAdviceKindsSeedExperiment(t *testing.T) {
	d := whatIfMachine(t, "whatif", "--sweep", "index.interval.bytes=exact,1,20000", "--format", "json")
	at := map[int64][]adviceJSON{}
	for _, p := range d.Points {
		at[p.Config["index.interval.bytes"]] = p.Advice
	}
	checkAdvice(t, "interval 1", findAdvice(t, at[1], "plateau"), "", "", "offsetIndexEntries", 48, "entries")
	checkAdvice(t, "interval 1", findAdvice(t, at[1], "raise-index-interval"), "index.interval.bytes", "16349", "offsetIndexEntries", 48, "entries")
	checkAdvice(t, "interval 20000", findAdvice(t, at[20000], "thinning"), "", "", "scan.maxScanBytes", 32700, "bytes")
	checkAdvice(t, "interval 20000", findAdvice(t, at[20000], "lower-index-interval"), "index.interval.bytes", "16349", "scan.maxScanBytes", 32700, "bytes")
}

// Index-full rolls (docs/kafka-hazards.md): 2000 batches of 5070 bytes, every one but a
// segment's first indexed at index.interval.bytes 4096; segment.index.bytes 4096 gives the
// time index 4096/12 - 1 = 340 entries, so a segment holds 341 batches and 5 segments roll
// full (1705 batches; the 6th holds 295). The never-full size: entries at least 4097 bytes
// apart, (1073741824 - 68) / 4097 = 262079 fit, a capacity of 262080 entries cannot be
// reached: (262080 + 1) x 12 = 3144972 bytes, rounded up to a multiple of 24: 3144984.
// At segment.index.bytes 10485760 no segment rolls: the verdict names that change, cutting
// the rolls from 5 to 0 and the maps from 6 x 2 = 12 to 2.
func TestWhatIfAdviceAndVerdictIndexFullRolls(t *testing.T) {
	d := whatIfMachine(t, rollsSweepArgs()...)
	var rolling []adviceJSON
	for _, p := range d.Points {
		if p.Config["segment.index.bytes"] == 4096 {
			rolling = p.Advice
		}
	}
	checkAdvice(t, "segment.index.bytes 4096", findAdvice(t, rolling, "raise-segment-index-bytes"), "segment.index.bytes", "3144984", "indexFullRolls", 5, "segments")
	v := d.VerdictDetail
	if v.Kind != "change" || v.Point == nil || d.Points[*v.Point].Config["segment.index.bytes"] != 10485760 {
		t.Fatalf("verdictDetail %+v: want the change to segment.index.bytes=10485760", v)
	}
	if len(v.Changes) != 1 || v.Changes[0].Config != "segment.index.bytes" || v.Changes[0].Value != "10485760" {
		t.Errorf("changes %+v, want segment.index.bytes=10485760 alone", v.Changes)
	}
	figs := map[string][2]float64{}
	for _, f := range v.Figures {
		figs[f.Name+" "+f.Unit] = [2]float64{f.From, f.To}
	}
	if figs["indexFullRolls segments"] != [2]float64{5, 0} || figs["maps.maps maps"] != [2]float64{12, 2} || len(figs) != 2 {
		t.Errorf("figures %+v: want indexFullRolls 5 -> 0 and maps.maps 12 -> 2", v.Figures)
	}
}

type analyzeMachineJSON struct {
	Verdict struct {
		State         string   `json:"state"`
		Reasons       []string `json:"reasons"`
		ReasonDetails []struct {
			Kind   string `json:"kind"`
			Config string `json:"config"`
			Figure struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
				Unit  string  `json:"unit"`
			} `json:"figure"`
			Text string `json:"text"`
		} `json:"reasonDetails"`
	} `json:"verdict"`
	Partitions []struct {
		Path            string       `json:"path"`
		Recommendations []string     `json:"recommendations"`
		Advice          []adviceJSON `json:"advice"`
	} `json:"partitions"`
}

func analyzeMachine(t *testing.T, wantCode int, args ...string) analyzeMachineJSON {
	t.Helper()
	out, stderr, code := runKidx(t, args...)
	if code != wantCode {
		t.Fatalf("kidx %v: exit %d, want %d: %s", args, code, wantCode, stderr)
	}
	var d analyzeMachineJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Partitions {
		sameTexts(t, p.Path, p.Recommendations, p.Advice)
	}
	if len(d.Verdict.Reasons) != len(d.Verdict.ReasonDetails) {
		t.Fatalf("%d reasons, %d details", len(d.Verdict.Reasons), len(d.Verdict.ReasonDetails))
	}
	for i, r := range d.Verdict.ReasonDetails {
		if r.Text != d.Verdict.Reasons[i] {
			t.Errorf("reason %d %q, detail text %q", i, d.Verdict.Reasons[i], r.Text)
		}
	}
	return d
}

// analyze's broker verdict and partition advice on reportsLogDir: "damaged" (the 3 errors
// its damage makes: the 8 trailing bytes of segment 601, and the swapped entry of segment
// 1144, which breaks both the strictly increasing order and DumpLogSegments' offset match),
// one partition (topic-1, blog-i1048576) whose empty index index.interval.bytes could fill.
// topic-1's 4-batch segments of 16350-byte batches put the last batch at 3 x 16350 = 49050,
// the longest walk from byte 0; topic-0 (blog-i4096) is on the plateau with 16 x 3 = 48
// entries. Alone, topic-1 makes the broker "needs attention".
func TestAnalyzeAdviceAndVerdictReasons(t *testing.T) {
	root := reportsLogDir(t)
	d := analyzeMachine(t, 1, "analyze", root, "--all", "--format", "json")
	if d.Verdict.State != "damaged" {
		t.Errorf("state %q, want damaged", d.Verdict.State)
	}
	kinds := map[string]float64{}
	for _, r := range d.Verdict.ReasonDetails {
		kinds[r.Kind] = r.Figure.Value
	}
	if kinds["errors"] != 3 || kinds["empty-indexes"] != 1 {
		t.Errorf("reasons %+v: want errors 3 and empty-indexes 1", d.Verdict.ReasonDetails)
	}
	advice := map[string][]adviceJSON{}
	for _, p := range d.Partitions {
		advice[filepath.Base(p.Path)] = p.Advice
	}
	checkAdvice(t, "topic-1", findAdvice(t, advice["topic-1"], "lower-index-interval"), "index.interval.bytes", "", "scan.maxScanBytes", 49050, "bytes")
	checkAdvice(t, "topic-0", findAdvice(t, advice["topic-0"], "plateau"), "", "", "offsetIndexEntries", 48, "entries")
	checkAdvice(t, "topic-2", findAdvice(t, advice["topic-2"], "verify-problems"), "", "", "problems", 3, "findings")

	d = analyzeMachine(t, 0, "analyze", goldenLogDir(t, "blog-i1048576"), "--format", "json")
	if d.Verdict.State != "needs attention" || len(d.Verdict.ReasonDetails) == 0 || d.Verdict.ReasonDetails[0].Kind != "empty-indexes" ||
		d.Verdict.ReasonDetails[0].Config != "index.interval.bytes" || d.Verdict.ReasonDetails[0].Figure.Value != 1 {
		t.Errorf("blog-i1048576 alone: verdict %+v; want needs attention for 1 empty index", d.Verdict)
	}
}

// verify's verdict object: on reportsLogDir "damaged" with 3 errors in 1 partition; its
// first reason is the trailing bytes, at the byte where the original segment 601 ended (its
// size before the 8 bytes were added); the index-order reason is at byte 8 of segment
// 1144's .index, the entry the damage wrote. A healthy partition: state healthy, no reason.
func TestVerifyVerdictReasons(t *testing.T) {
	root := reportsLogDir(t)
	st, err := os.Stat(filepath.Join("../../testdata/kafka-golden/random-i512-per-batch/files", "00000000000000000601.log"))
	if err != nil {
		t.Fatal(err)
	}
	type reason struct {
		Kind     string `json:"kind"`
		Severity string `json:"severity"`
		Count    int    `json:"count"`
		File     string `json:"file"`
		Pos      int64  `json:"pos"`
	}
	var d struct {
		Verdict struct {
			State      string   `json:"state"`
			Errors     int      `json:"errors"`
			Warnings   int      `json:"warnings"`
			Partitions int      `json:"partitions"`
			Reasons    []reason `json:"reasons"`
		} `json:"verdict"`
	}
	out, stderr, code := runKidx(t, "verify", root, "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	v := d.Verdict
	if v.State != "damaged" || v.Errors != 3 || v.Warnings != 0 || v.Partitions != 1 {
		t.Errorf("verdict %+v: want damaged, 3 errors, 0 warnings, 1 partition", v)
	}
	at := map[string]reason{}
	for _, r := range v.Reasons {
		at[r.Kind] = r
	}
	if r := at["trailing-bytes"]; r.Severity != "error" || r.Count != 1 || filepath.Base(r.File) != "00000000000000000601.log" || r.Pos != st.Size() {
		t.Errorf("trailing-bytes reason %+v: want 1 error in 00000000000000000601.log at byte %d", r, st.Size())
	}
	if r := at["index-order"]; r.Severity != "error" || filepath.Base(r.File) != "00000000000000001144.index" || r.Pos != 8 {
		t.Errorf("index-order reason %+v: want an error at byte 8 of 00000000000000001144.index", r)
	}

	out, _, code = runKidx(t, "verify", filepath.Join(goldenLogDir(t, "blog-i4096"), "topic-0"), "--format", "json")
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
		t.Fatalf("healthy partition: exit %d, %v", code, err)
	}
	if v := d.Verdict; v.State != "healthy" || v.Errors+v.Warnings+v.Partitions != 0 || len(v.Reasons) != 0 {
		t.Errorf("healthy partition: verdict %+v", v)
	}
}

// The report schemas have teeth: a document each case accepts is refused once a required
// key goes, an enum takes a value outside its list, or a type changes.
func TestReportSchemasRefuseBrokenDocuments(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc := func(args ...string) map[string]any {
		out, stderr, code := runKidx(t, args...)
		if code > 1 {
			t.Fatalf("kidx %v: exit %d: %s", args, code, stderr)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		return v.(map[string]any)
	}
	whatif := func() map[string]any { return doc(rollsSweepArgs()...) }
	point0 := func(d map[string]any) map[string]any { return d["points"].([]any)[0].(map[string]any) }
	root := reportsLogDir(t)
	analyze := func() map[string]any { return doc("analyze", root, "--all", "--format", "json") }
	verify := func() map[string]any { return doc("verify", root, "--format", "json") }
	for _, c2 := range []struct {
		name   string
		schema string
		doc    func() map[string]any
		break_ func(d map[string]any)
	}{
		{"whatif without verdictDetail", "kidx.whatif/1", whatif, func(d map[string]any) { delete(d, "verdictDetail") }},
		{"whatif verdict kind unknown", "kidx.whatif/1", whatif, func(d map[string]any) { d["verdictDetail"].(map[string]any)["kind"] = "maybe" }},
		{"whatif advice kind unknown", "kidx.whatif/1", whatif, func(d map[string]any) {
			point0(d)["advice"].([]any)[0].(map[string]any)["kind"] = "tune-it"
		}},
		{"whatif advice value not a number", "kidx.whatif/1", whatif, func(d map[string]any) {
			for _, a := range point0(d)["advice"].([]any) {
				if a.(map[string]any)["value"] != nil {
					a.(map[string]any)["value"] = "lots"
				}
			}
		}},
		{"whatif regime unknown", "kidx.whatif/1", whatif, func(d map[string]any) { point0(d)["regime"] = "valley" }},
		{"analyze verdict state unknown", "kidx.analyze/1", analyze, func(d map[string]any) { d["verdict"].(map[string]any)["state"] = "fine" }},
		{"analyze reason without kind", "kidx.analyze/1", analyze, func(d map[string]any) {
			delete(d["verdict"].(map[string]any)["reasonDetails"].([]any)[0].(map[string]any), "kind")
		}},
		{"analyze partition advice a string", "kidx.analyze/1", analyze, func(d map[string]any) {
			d["partitions"].([]any)[0].(map[string]any)["advice"] = "lower it"
		}},
		{"verify severity unknown", "kidx.verify/1", verify, func(d map[string]any) {
			d["findings"].([]any)[0].(map[string]any)["severity"] = "fatal"
		}},
		{"verify without verdict", "kidx.verify/1", verify, func(d map[string]any) { delete(d, "verdict") }},
		{"verify schema of another command", "kidx.verify/1", verify, func(d map[string]any) { d["schema"] = "kidx.analyze/1" }},
	} {
		t.Run(c2.name, func(t *testing.T) {
			d := c2.doc()
			s := compileSchema(t, c, c2.schema)
			if err := s.Validate(d); err != nil {
				t.Fatalf("the document before the change does not match: %v", err)
			}
			c2.break_(d)
			if err := s.Validate(d); err == nil {
				t.Errorf("%s: the broken document matches %s", c2.name, c2.schema)
			}
		})
	}
}

// enumOf reads the enum at path (keys through the schema's JSON) of docs/schema/file.
func enumOf(t *testing.T, file string, path ...string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", file))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: no %v", file, path)
		}
		v = m[k]
	}
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	slices.Sort(out)
	return out
}

func sortedStrings[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	slices.Sort(out)
	return out
}

// The closed lists of the schemas are the code's: the advice kinds, the broker verdict's
// reasons, the verdict states, and every check a finding can carry (each Check constant of
// package logdir, and the checks its scan and analyze name inline). A new kind or check fails
// here until the schema lists it (docs/schema/README.md: a reader switching on the list may
// then need N bumped).
func TestReportSchemaEnumsAreTheCodes(t *testing.T) {
	advice := sortedStrings(reports.AdviceKinds)
	for _, f := range []string{"kidx.whatif.1.json", "kidx.analyze.1.json"} {
		if got := enumOf(t, f, "$defs", "advice", "properties", "kind", "enum"); !slices.Equal(got, advice) {
			t.Errorf("%s: advice kinds %v, the code's %v", f, got, advice)
		}
	}
	if got, want := enumOf(t, "kidx.analyze.1.json", "$defs", "reason", "properties", "kind", "enum"), sortedStrings(reports.ReasonKinds); !slices.Equal(got, want) {
		t.Errorf("reason kinds %v, the code's %v", got, want)
	}
	states := sortedStrings([]string{logdir.VerdictHealthy, logdir.VerdictAttention, logdir.VerdictDamaged})
	if got := enumOf(t, "kidx.verify.1.json", "$defs", "verifyVerdict", "properties", "state", "enum"); !slices.Equal(got, states) {
		t.Errorf("verify states %v, want %v", got, states)
	}
	if got := enumOf(t, "kidx.analyze.1.json", "$defs", "brokerVerdict", "properties", "state", "enum"); !slices.Equal(got, states) {
		t.Errorf("analyze states %v, want %v", got, states)
	}
	// The checks, read from the sources: `CheckX = "name"` constants, and the names scan
	// and analyze write inline (ds.note(..., "name", ...), Check: "name").
	checks := map[string]bool{}
	constant := regexp.MustCompile(`\bCheck[A-Za-z]+\s+=\s+"([a-z0-9-]+)"`)
	inline := regexp.MustCompile(`(?:ds\.note\([^,]+, [^,]+, |Check: )"([a-z0-9-]+)"`)
	for _, dir := range []string{"logdir", "reports"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, re := range []*regexp.Regexp{constant, inline} {
				for _, m := range re.FindAllSubmatch(b, -1) {
					checks[string(m[1])] = true
				}
			}
		}
	}
	var want []string
	for c := range checks {
		want = append(want, c)
	}
	slices.Sort(want)
	if len(want) < 40 {
		t.Fatalf("read only %d checks from the sources: %v", len(want), want)
	}
	for _, f := range []string{"kidx.verify.1.json", "kidx.analyze.1.json", "kidx.explain.1.json"} {
		if got := enumOf(t, f, "$defs", "finding", "properties", "check", "enum"); !slices.Equal(got, want) {
			t.Errorf("%s: checks %v\nthe code's %v", f, got, want)
		}
	}
	if got := enumOf(t, "kidx.verify.1.json", "$defs", "verifyReason", "properties", "kind", "enum"); !slices.Equal(got, want) {
		t.Errorf("verify reasons' kinds %v\nthe code's %v", got, want)
	}
}

// analyze --merge reads kidx.analyze/1 reports (and those written before reports named their
// schema); a document of another schema, a fleet report merged again say, is refused by name,
// exit 2, not misread as a broker with no partitions.
func TestMergeRefusesAnotherSchema(t *testing.T) {
	dir := t.TempDir()
	broker, stderr, code := runKidx(t, "analyze", goldenLogDir(t, "blog-i4096"), "--broker", "b1", "--format", "json")
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	b1 := writeFile(t, dir, "b1.json", broker)
	// The same report without its "schema" key, as kidx wrote it before issue 26.
	old := writeFile(t, dir, "old.json", strings.Replace(broker, `"schema": "kidx.analyze/1",`, "", 1))
	fleet, stderr, code := runKidx(t, "analyze", "--merge", "--format", "json", b1, old)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	f := writeFile(t, dir, "fleet.json", fleet)
	_, stderr, code = runKidx(t, "analyze", "--merge", b1, f)
	if code != 2 || !strings.Contains(stderr, "fleet.json: a kidx.analyze.fleet/1 document, not a kidx analyze report (kidx.analyze/1)") {
		t.Errorf("merging a fleet report: exit %d, stderr %q; want 2 naming its schema", code, stderr)
	}
}

// A sweep that leaves out the configuration it starts from (the seed's 4096): the verdict
// names the point that walks least. Of 1 (every batch indexed but a segment's first: the
// longest walk is the one batch before a lookup's own, 16350 B) and 20000 (one entry per
// segment: 32700 B), that is 1, and verdictDetail says so with its swept setting.
func TestWhatIfVerdictLeastWalking(t *testing.T) {
	d := whatIfMachine(t, "whatif", "--sweep", "index.interval.bytes=1,20000", "--format", "json")
	v := d.VerdictDetail
	if !strings.Contains(d.Verdict, "The sweep does not include the configuration it starts from") {
		t.Fatalf("verdict %q: want the sweep-without-its-configuration verdict", d.Verdict)
	}
	if v.Kind != "least-walking" || v.Point == nil || d.Points[*v.Point].Config["index.interval.bytes"] != 1 ||
		len(v.Changes) != 1 || v.Changes[0].Config != "index.interval.bytes" || v.Changes[0].Value != "1" || len(v.Figures) != 0 {
		t.Errorf("verdictDetail %+v: want least-walking at index.interval.bytes=1", v)
	}
}
