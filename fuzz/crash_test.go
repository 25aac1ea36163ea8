package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

func goldenWorkload(tb testing.TB, name string) model.Workload {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "kafka-golden", name, "workload.json"))
	if err != nil {
		tb.Fatal(err)
	}
	w, err := model.ParseWorkload(data)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// BenchmarkExploreCrashes: one golden workload's crash exploration (64 sampled points), in
// crash points per second.
func BenchmarkExploreCrashes(b *testing.B) {
	w := goldenWorkload(b, "blog-i4096")
	points := 0
	for b.Loop() {
		res, err := ExploreCrashes(w, &CrashOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		points += res.Explored
	}
	b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
}

// Issue 13: "crash exploration on the golden cases finds the recover-overflow hazard by
// itself". smallindex-per-append (golden, written by Kafka's own classes) appends several
// batches per append under the per-append rule into 96-byte indexes (12 offset slots, 8 time
// slots): the per-batch rebuild of a crashed segment needs more entries than that. Every
// golden workload's exploration must also agree with the model (no divergence).
func TestCrashExplorationGoldenFindsRecoverOverflow(t *testing.T) {
	names, err := os.ReadDir(filepath.Join("..", "testdata", "kafka-golden"))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	explored := 0
	for _, e := range names {
		if !e.IsDir() {
			continue
		}
		res, err := ExploreCrashes(goldenWorkload(t, e.Name()), &CrashOptions{Seed: 13, MaxPoints: 24})
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		explored += res.Explored
		for _, d := range res.Divergences {
			t.Errorf("%s: divergence %s: %s", e.Name(), d.Kind, d.What)
		}
		for _, f := range res.Findings {
			found[f.Kind] = append(found[f.Kind], e.Name())
		}
	}
	t.Logf("%d crash points explored; findings: %v", explored, found)
	if !slices.Contains(found[FindingRecoverOverflow], "smallindex-per-append") {
		t.Errorf("recover-overflow not found on smallindex-per-append; findings %v", found)
	}
	// The other two hazards of the issue come out too: a rolled segment's untrimmed index (its
	// trim not durable while the next segment's names are) and an entry past the truncated log.
	for _, k := range []string{FindingZeroTailSanity, FindingEntryPastLog} {
		if len(found[k]) == 0 {
			t.Errorf("no %s finding on any golden workload", k)
		}
	}
}

// Issue 13: "a planted bug in the file-side recovery (e.g. truncating one batch too many) is
// caught". The planted reload cuts the first torn segment back one more batch before
// recovering it; across a few golden workloads some crash point tears a batch, and the
// exploration must report a divergence there.
func TestCrashExplorationCatchesPlantedRecoveryBug(t *testing.T) {
	oneBatchTooMany := func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, rp int64, step int) (*segment.Log, *segment.CrashLoad, error) {
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), segment.LogSuffix) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			data, err := vfs.ReadFile(fsys, p)
			if err != nil {
				return nil, nil, err
			}
			lf := segment.LogFileFromBytes(p, data)
			var last segment.BatchInfo
			walk := lf.Walk(0, 0, func(b segment.BatchInfo) bool { last = b; return true })
			if walk.TrailingBytes() > 0 && walk.ValidBytes > 0 {
				f, err := fsys.OpenReadWrite(p)
				if err != nil {
					return nil, nil, err
				}
				f.Truncate(last.Position) // the bug: the last valid batch goes with the torn tail
				f.Close()
				break
			}
		}
		return segment.LoadAfterCrash(fsys, dir, cfg, rule, rp, step)
	}
	caught := 0
	for _, name := range []string{"blog-i4096", "random-i512-per-batch", "follower3-per-append"} {
		res, err := ExploreCrashes(goldenWorkload(t, name), &CrashOptions{Seed: 7, MaxPoints: 32, Reopen: oneBatchTooMany})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Divergences {
			caught++
			t.Logf("%s: %s: %.200s", name, d.Kind, d.What)
			break
		}
	}
	if caught == 0 {
		t.Error("the reload that truncates one batch too many was not caught")
	}
}

// A reload that leaves the torn tail in place breaks "nothing after the first invalid byte
// survives": the file-only durability check reports it, before any comparison with the model.
func TestCrashExplorationCatchesSurvivingTornTail(t *testing.T) {
	keepTail := func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, rp int64, step int) (*segment.Log, *segment.CrashLoad, error) {
		before := map[string][]byte{}
		ents, _ := fsys.ReadDir(dir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), segment.LogSuffix) {
				before[e.Name()], _ = vfs.ReadFile(fsys, filepath.Join(dir, e.Name()))
			}
		}
		l, load, err := segment.LoadAfterCrash(fsys, dir, cfg, rule, rp, step)
		for name, data := range before {
			p := filepath.Join(dir, name)
			if after, err := vfs.ReadFile(fsys, p); err == nil && len(after) < len(data) {
				f, _ := fsys.OpenReadWrite(p)
				f.WriteAt(data[len(after):], int64(len(after)))
				f.Close()
			}
		}
		return l, load, err
	}
	res, err := ExploreCrashes(goldenWorkload(t, "blog-i4096"), &CrashOptions{Seed: 7, MaxPoints: 32, Reopen: keepTail})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Divergences) == 0 || res.Divergences[0].Kind != "crash-durability" {
		t.Fatalf("divergences %v, want crash-durability first", res.Divergences)
	}
}

// Every random run replays from its seed: the same seed explores the same points with the
// same crashes and reports the same result.
func TestCrashExplorationDeterministic(t *testing.T) {
	w := goldenWorkload(t, "random-i512-per-append")
	var out [2][]byte
	for i := range out {
		res, err := ExploreCrashes(w, &CrashOptions{Seed: 99, MaxPoints: 16})
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("two runs with seed 99 differ:\n%s\n%s", out[0], out[1])
	}
}

// A finding's shrunk workload replays: the crash step runs through the plain harness (the
// file side's Log.Crash) and both sides agree, the overflow event at the crash step included.
func TestRecoverOverflowFindingShrinksAndReplays(t *testing.T) {
	base := goldenWorkload(t, "smallindex-per-append")
	res, err := ExploreCrashes(base, &CrashOptions{Seed: 13, MaxPoints: 24})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Findings, func(f CrashFinding) bool { return f.Kind == FindingRecoverOverflow })
	if i < 0 {
		t.Fatal("no recover-overflow finding")
	}
	f := ShrinkFinding(base, res.Findings[i], &CrashOptions{Seed: 13, MaxPoints: 24}, 100)
	if n, m := len(f.Workload.Steps), len(base.Steps)+1; n >= m {
		t.Errorf("shrunk workload has %d steps, the unshrunk %d", n, m)
	}
	d, err := Check(f.Workload, nil)
	if err != nil || d != nil {
		t.Fatalf("replay of the shrunk finding: divergence %v, error %v", d, err)
	}
	r, _ := Resolve(f.Workload)
	ml, err := model.Simulate(r.Model, r.Rule, f.Workload.StartOffset, f.Workload.Steps, true)
	if err != nil {
		t.Fatal(err)
	}
	crashAt := slices.IndexFunc(f.Workload.Steps, func(s model.Step) bool { return s.Crash != nil })
	ev := ml.Events()
	if len(ev) == 0 || ev[len(ev)-1].Step != crashAt || !strings.Contains(ev[len(ev)-1].Message, "full") {
		t.Errorf("events %+v, want the overflow at the crash step %d", ev, crashAt)
	}
	t.Logf("shrunk to %d steps", len(f.Workload.Steps))
}

// FuzzCrash: crash exploration of generated workloads (issue 13: "and a fuzz target"): no
// divergence at any sampled crash point. A failure's input replays with go test.
func FuzzCrash(f *testing.F) {
	for i := range 8 {
		seed := make([]byte, 48)
		for j := range seed {
			seed[j] = byte(i*37 + j*11)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := FromGoFuzz(data, GenOptions{MaxSteps: 12, Clean: true})
		res, err := ExploreCrashes(w, &CrashOptions{Seed: uint64(len(data)), MaxPoints: 8})
		if errors.Is(err, ErrSkip) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Divergences {
			wl, _ := d.Workload.MarshalJSON()
			t.Fatalf("%s: %s\nworkload: %s", d.Kind, d.What, wl)
		}
	})
}

// The hazard FuzzCrash met first (its input is kept in testdata/fuzz/FuzzCrash): a clean restart
// checkpoints the log end (34); an unclean restart (the recover step) rebuilds segment 0's
// indexes in place and flushes nothing, keeping the recovery point (LogLoader); the next append
// rolls at 34, exactly the recovery point, so nothing is flushed (UnifiedLog.flush); a crash
// inside that roll that keeps the new segment's names has the same effect. Segment 0 is then
// below the recovery point with an index whose rewrite was never synced, and a crash keeps a
// mix: the unsynced-index-rewrite finding, while the comparison with the model stays clean
// (without checkBelowRecoveryPoint it is an index-bytes divergence). Every crash point is
// explored, with a fixed seed.
func TestCrashExplorationFindsUnsyncedRewrite(t *testing.T) {
	w, err := model.ParseWorkload([]byte(`{"config":{"index.interval.bytes":335,"segment.bytes":546,"segment.ms":1},"rule":"per-batch","steps":[
		{"append":[{"records":2,"bytes":121}]},{"restart":true},{"restart":true},
		{"append":[{"records":8,"bytes":121,"maxTimestamp":3}]},{"append":[{"records":8,"bytes":117,"maxTimestamp":0}]},
		{"append":[{"records":16,"bytes":174}]},{"restart":true},{"recover":true},
		{"append":[{"records":57,"bytes":460,"maxTimestamp":0}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ExploreCrashes(w, &CrashOptions{Seed: 1, MaxPoints: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Divergences {
		t.Errorf("divergence %s: %s", d.Kind, d.What)
	}
	kinds := map[string]bool{}
	for _, f := range res.Findings {
		kinds[f.Kind] = true
	}
	if !kinds[FindingUnsyncedRewrite] {
		t.Errorf("%d points explored, findings %v: no %s", res.Explored, kinds, FindingUnsyncedRewrite)
	}
}
