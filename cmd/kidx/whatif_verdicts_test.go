package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 22, item 8: verdicts and labels that misled. Each test runs the command line the defect
// was reproduced with.

// verdictJSON runs kidx whatif --format json and decodes the verdict and the points' figures.
func verdictJSON(t *testing.T, args ...string) verdictDoc {
	t.Helper()
	out, errOut, code := runKidx(t, append(append([]string{"whatif"}, args...), "--format", "json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var doc verdictDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

type verdictDoc struct {
	Verdict string
	Points  []struct {
		Config             map[string]int64
		Era                string
		Regime             string
		Segments           int
		OffsetIndexEntries int64
		DensestEntries     int64
		IndexFullRolls     int
		Recommendations    []string
		Scan               struct{ MaxScanBytes, P99ScanBytes int64 }
	}
}

// oneLine folds a wrapped text report into single spaces, so that a sentence is found
// wherever the 120-column layout broke it.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Defect: "a row with 0.00 entries per segment is labelled 'plateau' though the legend defines
// an empty index as a cliff". Reproduced with
//
//	kidx whatif --gen 'fixed:bytes=600000' --batches 20 --seed 1 --sweep segment.bytes=1048576,4194304
//
// By hand: a 600000-byte batch and a second one do not fit in 1048576 bytes, so every segment
// holds one batch (20 segments) and index.interval.bytes=0 gives no entry either: the index is
// as dense as the batching allows, the plateau, and no interval could index anything, so it
// is not the cliff (the cliff is an empty index where index.interval.bytes=0 gives entries).
// The label stays; the legend now says so. With 4194304, 4 segments of 5 batches: 4 entries
// each. A mean that rounds to 0.00 over a non-empty index is written <0.01 (57 entries in
// 19943 segments of about one 600000-byte batch each), so that "0.00" means empty.
func TestWhatIfRegimeEmptyPlateau(t *testing.T) {
	args := []string{"--gen", "fixed:bytes=600000", "--batches", "20", "--seed", "1", "--sweep", "segment.bytes=1048576,4194304"}
	doc := verdictJSON(t, args...)
	if len(doc.Points) != 2 {
		t.Fatalf("points: %+v", doc.Points)
	}
	p := doc.Points[0]
	if p.Regime != "plateau" || p.Segments != 20 || p.OffsetIndexEntries != 0 || p.DensestEntries != 0 || p.Scan.MaxScanBytes != 0 {
		t.Errorf("segment.bytes=1048576: %+v, want plateau, 20 segments, 0 entries of 0 possible, no walk", p)
	}
	if got, want := strings.Join(p.Recommendations, "\n"), "On the plateau with an empty index: 0 entries over 20 batches, "+
		"as many as index.interval.bytes=0 gives (one batch in every segment, so no entry is possible)."; !strings.HasPrefix(got, want) {
		t.Errorf("notes %q, want the prefix %q", got, want)
	}
	out, errOut, code := runKidx(t, append([]string{"whatif"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text := oneLine(out)
	for _, want := range []string{
		"1048576 plateau 20 0.00 0 0.0 0",
		"4194304 plateau 4 4.00 600000",
		"plateau (as many entries as index.interval.bytes=0 gives; none when no segment holds a second batch)",
		"cliff (the offset index is empty though index.interval.bytes=0 gives entries)",
		"segment.bytes=1048576 (plateau): - On the plateau with an empty index",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(text, "cliff (the offset index is empty)") {
		t.Errorf("the legend still calls every empty index a cliff:\n%s", out)
	}

	// The verdict of the same workload at its own segment.bytes says it in the same words.
	doc = verdictJSON(t, "--gen", "fixed:bytes=600000", "--batches", "20", "--seed", "1", "--config", "segment.bytes=1048576")
	if want := "This configuration, index.interval.bytes=4096, sits on the plateau with an empty index (one batch in every " +
		"segment, so no entry is possible): 0 entries in 20 segments"; !strings.HasPrefix(doc.Verdict, want) {
		t.Errorf("verdict %q, want the prefix %q", doc.Verdict, want)
	}

	out, errOut, code = runKidx(t, "whatif", "--gen", "lognormal:median=600000,sigma=0.07", "--batches", "20000", "--seed", "1",
		"--config", "segment.bytes=1048576", "--sweep", "index.interval.bytes=4096,1048576")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text = oneLine(out)
	for _, want := range []string{"4096 plateau 19943 <0.01 582151", "1048576 cliff 19943 0.00 582151",
		"offset-index entries per segment (mean); <0.01: some, fewer than 1 per 100 segments"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// Defect: "with --compare-rules on a lognormal workload it calls index.interval.bytes=1024 'the
// one change worth making' because it 'cuts the longest walk to 231.5 KiB' while both max
// scans are 237,090 B and p99 moves by 12 B". Reproduced with
//
//	kidx whatif --gen 'lognormal:median=16384,sigma=0.6' --records 10M --seed 1 --compare-rules \
//	  --sweep index.interval.bytes=1024,4096,16384
//
// No batch of this workload is 1024 bytes or less, so 1024 indexes every batch (106389
// entries) and 4096 skips 1081 of them; the longest walk is one huge batch either way
// (237090 B), p99 is 66147 B against 66159 B. The margin is 10 % and one mean batch (log bytes
// over 106391 batches: 19.2 KiB), so no change is named, and the walk is not said to be cut. The seed workload's 20000 still gets 4096 named, with the margin in its words.
func TestWhatIfVerdictMargin(t *testing.T) {
	doc := verdictJSON(t, "--gen", "lognormal:median=16384,sigma=0.6", "--records", "10M", "--seed", "1", "--compare-rules",
		"--sweep", "index.interval.bytes=1024,4096,16384")
	figures := map[int64][2]int64{}
	for _, p := range doc.Points {
		if p.Era == "4.1-4.4" {
			figures[p.Config["index.interval.bytes"]] = [2]int64{p.Scan.MaxScanBytes, p.Scan.P99ScanBytes}
		}
	}
	if figures[1024] != [2]int64{237090, 66147} || figures[4096] != [2]int64{237090, 66159} {
		t.Fatalf("figures (max, p99) %v: not the reproduced case", figures)
	}
	want := "No change is worth making: the densest index this sweep gives (index.interval.bytes=1024, 106389 entries) " +
		"leaves the longest walk at 231.5 KiB and moves the p99 walk by only 12 B, to 64.6 KiB, short of the margin a change " +
		"needs (at least 10 % and at least one mean batch of 19.2 KiB)."
	if !strings.HasSuffix(doc.Verdict, want) {
		t.Errorf("verdict %q\nwant it to end %q", doc.Verdict, want)
	}
	for _, wrong := range []string{"worth making: index.interval.bytes", "cuts"} {
		if strings.Contains(doc.Verdict, wrong) {
			t.Errorf("verdict %q says %q", doc.Verdict, wrong)
		}
	}

	doc = verdictJSON(t, "--config", "index.interval.bytes=20000")
	want = "The one change worth making: index.interval.bytes=4096 (Kafka's default; any value in [0, 16349] gives the same index) " +
		"indexes every batch after each segment's first (48 entries) and cuts the longest walk from 31.9 KiB to 16.0 KiB and " +
		"the p99 walk from 31.9 KiB to 16.0 KiB, for 256 B more of .index (a change is named only when a figure falls by at " +
		"least 10 % and at least one mean batch of 15.8 KiB)."
	if !strings.HasSuffix(doc.Verdict, want) {
		t.Errorf("verdict %q\nwant it to end %q", doc.Verdict, want)
	}
}

// Defect: "a segment.index.bytes sweep gets a verdict about the interval only and never
// mentions the index-full rolls it causes". Reproduced with
//
//	kidx whatif --gen 'lognormal:median=16384,sigma=0.6' --records 10M --seed 1 \
//	  --sweep segment.index.bytes=4096,65536,10485760
//
// which named segment.index.bytes=4096 as the point that "walks least" (p99 12 B shorter) and
// never said it rolls 308 segments because their 512-slot index filled (65536: 19; the
// default 10485760: none). The verdict now names the configuration by its swept key, names no
// change short of the margin, gives that point's costs, and lists every point's rolls (once
// when the eras agree). From segment.index.bytes=4096 the rolls alone clear the margin.
func TestWhatIfVerdictIndexFullRolls(t *testing.T) {
	args := []string{"--gen", "lognormal:median=16384,sigma=0.6", "--records", "10M", "--seed", "1",
		"--sweep", "segment.index.bytes=4096,65536,10485760"}
	doc := verdictJSON(t, args...)
	rolls := map[int64]int{}
	for _, p := range doc.Points {
		rolls[p.Config["segment.index.bytes"]] = p.IndexFullRolls
	}
	if rolls[4096] != 308 || rolls[65536] != 19 || rolls[10485760] != 0 {
		t.Fatalf("index-full rolls %v: not the reproduced case", rolls)
	}
	const list = " Index-full rolls (segments closed before segment.bytes because an index filled): 308 at segment.index.bytes=4096, " +
		"19 at segment.index.bytes=65536; none at segment.index.bytes=10485760 (this configuration)."
	for _, want := range []string{
		"This configuration, segment.index.bytes=10485760, index.interval.bytes=4096, thins the index",
		" No point of this sweep walks measurably less: the least walking point, segment.index.bytes=4096, leaves the longest walk " +
			"at 231.5 KiB and moves the p99 walk by only 12 B, to 64.6 KiB, short of the margin a change needs (at least 10 % " +
			"and at least one mean batch of 19.2 KiB); it raises index-full rolls from 0 to 308 and memory maps from 4 to 618." + list,
	} {
		if !strings.Contains(doc.Verdict, want) {
			t.Errorf("verdict %q\nlacks %q", doc.Verdict, want)
		}
	}
	if strings.Contains(doc.Verdict, "walks least:") || strings.Contains(doc.Verdict, "worth making:") {
		t.Errorf("verdict %q names a change", doc.Verdict)
	}

	// Both eras roll alike here: the list is said once, not once per era.
	doc = verdictJSON(t, append(args, "--compare-rules")...)
	if !strings.HasSuffix(doc.Verdict, list) || strings.Count(doc.Verdict, "Index-full rolls") != 1 {
		t.Errorf("--compare-rules: verdict %q\nwant it to end %q", doc.Verdict, list)
	}

	// Without the configuration in the sweep: 4096 walks least by 12 B of p99, within the
	// margin of 65536, which rolls 19 segments, not 308.
	doc = verdictJSON(t, "--gen", "lognormal:median=16384,sigma=0.6", "--records", "10M", "--seed", "1",
		"--sweep", "segment.index.bytes=4096,65536")
	if want := "The sweep does not include the configuration it starts from (segment.index.bytes=10485760, index.interval.bytes=4096). " +
		"Of its points, segment.index.bytes=65536 walks as little as any within the margin (at least 10 % and at least one mean " +
		"batch of 19.2 KiB) and rolls or maps least: up to 231.5 KiB (p99 64.6 KiB), 105290 entries in 20 segments (thinning). " +
		"Index-full rolls (segments closed before segment.bytes because an index filled): 308 at segment.index.bytes=4096, 19 at " +
		"segment.index.bytes=65536."; doc.Verdict != want {
		t.Errorf("without the configuration: verdict %q\nwant %q", doc.Verdict, want)
	}

	doc = verdictJSON(t, append(args, "--config", "segment.index.bytes=4096")...)
	want := " The one change worth making: segment.index.bytes=10485760 (105308 entries) cuts index-full rolls from 308 to 0 " +
		"and memory maps from 618 to 4, leaves the longest walk at 231.5 KiB, and lengthens the p99 walk by 12 B, to 64.6 KiB, " +
		"for 2432 B more of .index (a change is named only when a figure falls by at least 10 % and at least one roll or one " +
		"segment's two maps). Index-full rolls (segments closed before segment.bytes because an index filled): 308 at " +
		"segment.index.bytes=4096 (this configuration), 19 at segment.index.bytes=65536; none at segment.index.bytes=10485760."
	if !strings.HasSuffix(doc.Verdict, want) {
		t.Errorf("from 4096: verdict %q\nwant it to end %q", doc.Verdict, want)
	}
}
