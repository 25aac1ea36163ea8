package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// parametricOutDoc is the part of kidx prove --parametric --format json the --out test reads.
type parametricOutDoc struct {
	Properties []struct {
		Name, Kind, Result, Appends string
		WorkloadFile                string
		Counterexample              *struct {
			Workload  json.RawMessage
			Compare   map[string][2]int64
			Confirmed bool
		}
	}
}

// simOutDoc is the part of kidx sim --format json the replays read.
type simOutDoc struct {
	Segments []struct {
		BaseOffset  int64
		OffsetIndex [][2]int64
		Scan        struct{ MaxScanBytes int64 }
	}
	Events []struct {
		Kind    string
		Step    int
		Message string
	}
}

// simParametricWorkload runs kidx sim --format json on a workload file, with extra flags.
func simParametricWorkload(t *testing.T, path string, extra ...string) simOutDoc {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"sim", "--format", "json", "--workload", path}, extra...)...)
	if code != 0 {
		t.Fatalf("kidx sim --workload %s %v: exit %d: %s", path, extra, code, errOut)
	}
	var d simOutDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// Issue 26, "kidx prove --parametric --out DIR": every refuted claim's counterexample is
// written (into a directory created for it) as a workload kidx sim replays, atomically (no
// temporary file left), with its sidecar; and the replays show the violations, checked
// against figures derived by hand or recomputed from the workload by the test itself.
func TestProveParametricOutWritesReplayableWorkloads(t *testing.T) {
	needZ3Binary(t)
	dir := filepath.Join(t.TempDir(), "not", "yet")
	out, errOut, code := runKidx(t, "prove", "--parametric", "--format", "json", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc parametricOutDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	files := map[string]string{} // property (and its appends) -> workload file
	for _, p := range doc.Properties {
		if p.Counterexample == nil {
			if p.WorkloadFile != "" {
				t.Errorf("%s: a workload file %s without a counterexample", p.Name, p.WorkloadFile)
			}
			continue
		}
		if !p.Counterexample.Confirmed {
			t.Errorf("%s: the counterexample is not confirmed by the model", p.Name)
		}
		if filepath.Dir(p.WorkloadFile) != dir || !strings.HasPrefix(filepath.Base(p.WorkloadFile), p.Name+".") || !strings.HasSuffix(p.WorkloadFile, ".parametric.json") {
			t.Errorf("%s: workload file %q, want %s/%s[.VARIANT].parametric.json", p.Name, p.WorkloadFile, dir, p.Name)
			continue
		}
		// The file is the counterexample's workload, byte for byte as the JSON shows it.
		got, err := os.ReadFile(p.WorkloadFile)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, p.Counterexample.Workload) {
			t.Errorf("%s: the file differs from the report's workload:\n%s\n%s", p.Name, got, p.Counterexample.Workload)
		}
		side := strings.TrimSuffix(p.WorkloadFile, ".json") + ".counterexample.json"
		want = append(want, filepath.Base(p.WorkloadFile), filepath.Base(side))
		files[p.Name+" "+p.Appends] = p.WorkloadFile
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(names, want) {
		t.Fatalf("--out holds %v, want %v (the workloads and their sidecars, nothing else)", names, want)
	}

	// NoIndexOverflowMidAppend (per-batch, appends of two batches). By hand: with
	// segment.index.bytes X in [12, 24) the time index has X/12 = 1 slot, and TimeIndex.isFull
	// (entries >= maxEntries - 1, one slot kept for the closing entry) is true from the start;
	// with index.interval.bytes 0 the first batch of a segment takes no entry
	// (bytesSinceLastIndexEntry is 0) and the second does, inside the same append under
	// KAFKA-806's per-batch loop: TimeIndex.maybeAppend throws "Attempt to append to a full
	// time index (size = 0)." at step 0.
	f := files["NoIndexOverflowMidAppend one or two batches"]
	var wl struct {
		Config map[string]int64
		Rule   string
		Steps  []struct {
			Append []struct{ Records, Bytes int64 }
		}
	}
	readParametricJSON(t, f, &wl)
	if x := wl.Config["segment.index.bytes"]; wl.Rule != "per-batch" || wl.Config["index.interval.bytes"] != 0 || x < 12 || x >= 24 || len(wl.Steps) == 0 || len(wl.Steps[0].Append) < 2 {
		t.Fatalf("z3 chose a counterexample outside the hand-derived case (per-batch, index.interval.bytes 0, segment.index.bytes in [12, 24), a first append of two batches): re-derive the expectation for %s", readParametricFile(t, f))
	}
	sim := simParametricWorkload(t, f)
	if len(sim.Events) != 1 || sim.Events[0].Kind != "time-index-overflow" || sim.Events[0].Step != 0 || sim.Events[0].Message != "Attempt to append to a full time index (size = 0)." {
		t.Errorf("NoIndexOverflowMidAppend's replay: events %+v, want one time-index-overflow at step 0, \"Attempt to append to a full time index (size = 0).\"", sim.Events)
	}

	// EntriesAtBatchBoundaries (per-append, two-batch appends): some entry (o, p) points at a
	// batch whose last offset is not o. The batches' positions and last offsets are
	// recomputed here from the workload (one segment: positions add up the batches' bytes).
	f = files["EntriesAtBatchBoundaries one or two batches"]
	var ewl struct {
		StartOffset int64
		Steps       []struct {
			Append []struct{ Records, Bytes, BaseOffset int64 }
		}
	}
	readParametricJSON(t, f, &ewl)
	lastAt := map[int64]int64{} // batch position -> last offset
	pos, next := int64(0), ewl.StartOffset
	for _, st := range ewl.Steps {
		for _, b := range st.Append {
			if b.BaseOffset != 0 || b.Records < 1 {
				t.Fatalf("a batch with a base offset or no records: outside the recomputed case: %s", readParametricFile(t, f))
			}
			next += b.Records
			lastAt[pos] = next - 1
			pos += b.Bytes
		}
	}
	sim = simParametricWorkload(t, f)
	if len(sim.Segments) != 1 {
		t.Fatalf("EntriesAtBatchBoundaries' replay: %d segments, the recomputation assumes one", len(sim.Segments))
	}
	off := 0
	for _, e := range sim.Segments[0].OffsetIndex {
		if last, ok := lastAt[e[1]]; !ok || last != e[0] {
			off++
		}
	}
	if off == 0 {
		t.Errorf("EntriesAtBatchBoundaries' replay: every entry of %v is at a batch ending at its offset (%v)", sim.Segments[0].OffsetIndex, lastAt)
	}

	// MaxScanMonotoneInInterval (a claim over two copies): replayed at both intervals, the
	// larger interval gives the smaller maximum scan.
	f = files["MaxScanMonotoneInInterval one batch"]
	var cmp [2]int64
	for _, p := range doc.Properties {
		if p.Name == "MaxScanMonotoneInInterval" && p.Counterexample != nil {
			cmp = p.Counterexample.Compare["index.interval.bytes"]
		}
	}
	maxScan := func(d simOutDoc) int64 {
		m := int64(0)
		for _, s := range d.Segments {
			m = max(m, s.Scan.MaxScanBytes)
		}
		return m
	}
	lo := simParametricWorkload(t, f)
	hi := simParametricWorkload(t, f, "--config", "index.interval.bytes="+strconv.FormatInt(cmp[1], 10))
	if !(cmp[0] < cmp[1] && maxScan(lo) > maxScan(hi)) {
		t.Errorf("MaxScanMonotoneInInterval's replay: index.interval.bytes %d -> max scan %d B, %d -> %d B: not a counterexample", cmp[0], maxScan(lo), cmp[1], maxScan(hi))
	}

	// The text names each written workload with its replay.
	text, errOut, code := runKidx(t, "prove", "--parametric", "--out", t.TempDir())
	if code != 0 || !strings.Contains(text, "counterexamples written as workloads") || !strings.Contains(text, "--config index.interval.bytes=") {
		t.Errorf("text with --out: exit %d %s\n%s", code, errOut, text)
	}
}

func readParametricJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readParametricFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readParametricFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
