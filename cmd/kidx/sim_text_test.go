package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"kidx/model"
	"kidx/sim"
)

// Issue 11, defect 9: sim's text output held every batch (--records 100G reached 3.4 GB).
// It now streams through sim.Run; each row and the summary must still be what the
// materialized model (model.SimulateEra keeping every segment, an independent path through
// model.Log's segments) shows, on every golden workload (Kafka-written, with rolls, index-full
// rolls, overflows and restarts) in several eras.
func TestSimTextStreamMatchesMaterialized(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/kafka-golden/*/workload.json")
	if len(paths) < 10 {
		t.Fatalf("only %d golden workloads", len(paths))
	}
	for _, p := range paths {
		w, err := readWorkload(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, version := range []string{"4.1.0", "3.7.0", "2.0.0", "0.10.2.1"} {
			era, err := model.EraForKafkaVersion(version)
			if err != nil {
				t.Fatal(err)
			}
			cfg := model.DefaultConfig()
			if err := w.ApplyTo(&cfg); err != nil {
				t.Fatal(err)
			}
			l, err := model.SimulateEra(cfg, era, w.StartOffset, w.Steps, true)
			if err != nil {
				continue // e.g. a v2 batch under 0.10: the era refuses the workload
			}
			var out bytes.Buffer
			if err := writeSimTextStream(&out, &sim.WorkloadSource{Name: p, Workload: w}, cfg, era, w.StartOffset, "x", version, false); err != nil {
				t.Fatalf("%s %s: %v", p, version, err)
			}
			var want strings.Builder
			var entries, timeEntries int64
			for _, s := range l.Segments() {
				st := s.Scan()
				roll := string(s.RollReason())
				if roll == "" {
					roll = "-"
				}
				entries += int64(s.OffsetIndex().Entries())
				timeEntries += int64(s.TimeIndex().Entries())
				fmt.Fprintf(&want, "%d %d %d %d %d %d %.1f %d %d %s\n", s.BaseOffset(), s.Size(), len(s.Batches()),
					s.OffsetIndex().Entries(), s.TimeIndex().Entries(), st.MaxScanBytes, st.MeanScanBytes(), st.MaxHops, st.MaxHeaderReads, roll)
			}
			total := l.Scan()
			fmt.Fprintf(&want, "summary: %s, %s, %s, %s; scan max %d B, mean %.1f B; hops max %d, mean %.2f; header reads max %d, mean %.2f\n",
				plural(len(l.Segments()), "segment"), plural(int(total.Lookups), "offset"), plural(int(entries), "offset-index entry"),
				plural(int(timeEntries), "time-index entry"), total.MaxScanBytes, total.MeanScanBytes(), total.MaxHops, total.MeanHops(),
				total.MaxHeaderReads, total.MeanHeaderReads())
			for _, e := range l.Events() {
				fmt.Fprintf(&want, "  step %d: %s: %s\n", e.Step, e.Kind, e.Message)
			}
			if got := simTextFigures(out.String()); got != want.String() {
				t.Errorf("%s under %s:\nstreamed:\n%s\nmaterialized:\n%s", p, version, got, want.String())
			}
		}
	}
}

// simTextFigures keeps a sim text report's rows (fields joined by one space), its summary
// line and its event lines.
func simTextFigures(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 10 && f[0] != "base":
			b.WriteString(strings.Join(f, " ") + "\n")
		case strings.HasPrefix(line, "summary: "), strings.HasPrefix(line, "  step "):
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// The built-in generator, streamed (builtinSource) and materialized (generatedWorkload), gives
// the batches its help describes.
func TestBuiltinSourceMatchesGeneratedWorkload(t *testing.T) {
	// By hand (docs: a last partial batch of r records shrinks its bytes in proportion,
	// batchBytes*r/batchRecords, at least the smallest batch of r records; max timestamp
	// 1700000000000 + the batch's base offset): 7 records in batches of 2 x 300 B are three
	// full batches and one of 1 record and 150 B; 5000 in 79 x 16350 B are 63 full batches and
	// one of 23 records and 16350*23/79 = 4760 B.
	type b struct{ records, bytes, ts int64 }
	want := map[[3]int64][]b{
		{300, 2, 7}: {{2, 300, 1_700_000_000_000}, {2, 300, 1_700_000_000_002}, {2, 300, 1_700_000_000_004}, {1, 150, 1_700_000_000_006}},
	}
	full := []b{}
	for k := range 63 {
		full = append(full, b{79, 16350, 1_700_000_000_000 + int64(79*k)})
	}
	want[[3]int64{16350, 79, 5000}] = append(full, b{23, 4760, 1_700_000_000_000 + 79*63})
	for c, w := range want {
		st, _ := (&builtinSource{c[0], c[1], c[2]}).Open()
		buf := make([]model.Step, 3)
		var got []b
		for {
			n, err := st.Next(buf)
			for _, s := range buf[:n] {
				for _, x := range s.Append {
					got = append(got, b{x.Records, x.Bytes, x.MaxTimestamp})
				}
			}
			if err != nil {
				break
			}
		}
		var materialized []b
		for _, s := range generatedWorkload(c[0], c[1], c[2]).Steps {
			for _, x := range s.Append {
				materialized = append(materialized, b{x.Records, x.Bytes, x.MaxTimestamp})
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(w) || fmt.Sprint(materialized) != fmt.Sprint(w) {
			t.Errorf("%v:\nstream       %v\nmaterialized %v\nwant         %v", c, got, materialized, w)
		}
	}
}

// The streamed output's memory does not grow with the workload: 2M one-record batches in
// 200k segments (the materialized writer held about 200 MB of batches; the first streamed
// version still kept a summary per segment, 24 MB here) peak as 100k batches do.
func TestSimTextMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the 2M-batch memory comparison")
	}
	if n := os.Getenv("KIDX_SIM_MEMORY_CHILD"); n != "" {
		records, _ := strconv.ParseInt(n, 10, 64)
		fmt.Println(simTextPeakLiveHeap(t, records))
		os.Exit(0)
	}
	// Each measurement in a child process of this test binary: nothing else of the test run
	// is on its heap.
	peakOf := func(records int64) uint64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSimTextMemoryBounded$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("KIDX_SIM_MEMORY_CHILD=%d", records))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		v, err := strconv.ParseUint(strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]), 10, 64)
		if err != nil {
			t.Fatalf("child printed %q", out)
		}
		return v
	}
	small, big := peakOf(100_000), peakOf(2_000_000)
	t.Logf("peak live heap above the start: %d KiB for 100k batches, %d KiB for 2M", small>>10, big>>10)
	if big > small+8<<20 {
		t.Errorf("peak heap %d MiB for 2M batches, %d MiB for 100k: it grows with the workload", big>>20, small>>20)
	}
}

// simTextPeakLiveHeap runs sim's text output over records one-record 100-byte batches in
// 1000-byte segments and returns the peak live heap above the start (runtime/metrics'
// /gc/heap/live, sampled while the run goes: garbage does not count, what the run holds does).
func simTextPeakLiveHeap(t *testing.T, records int64) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := live()
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var top uint64
		for {
			select {
			case <-stop:
				peak <- top
				return
			case <-time.After(2 * time.Millisecond):
				top = max(top, live())
			}
		}
	}()
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 1000 // 10 batches a segment: many segments, each of which must be forgotten
	src := &builtinSource{batchBytes: 100, batchRecords: 1, records: records}
	if err := writeSimTextStream(io.Discard, src, cfg, model.EraForRule(model.PerBatch), 0, "x", "", false); err != nil {
		t.Fatal(err)
	}
	close(stop)
	if top := <-peak; top > base {
		return top - base
	}
	return 0
}
