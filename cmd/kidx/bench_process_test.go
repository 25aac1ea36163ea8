package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"kidx/internal/segmenttest"
)

// Whole-process benchmarks: kidx built once, run as an operator runs it, against cat of the
// same file (docs/logdirs.md, "Reading only what is needed"; docs/segment.md, Benchmarks).

var (
	kidxBinOnce sync.Once
	kidxBin     string
	kidxBinErr  error
)

// builtKidx is the kidx binary, built once per test process into a directory of its own
// (removed by TestMain's cleanup with the other benchmark files), or the one
// KIDX_BENCH_BINARY names (another revision's, to compare).
func builtKidx(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("KIDX_BENCH_BINARY"); p != "" {
		return p
	}
	kidxBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kidx-bin-")
		if err != nil {
			kidxBinErr = err
			return
		}
		benchCleanups = append(benchCleanups, func() { os.RemoveAll(dir) })
		kidxBin = filepath.Join(dir, "kidx")
		cmd := exec.Command("go", "build", "-o", kidxBin, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			kidxBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if kidxBinErr != nil {
		b.Fatal(kidxBinErr)
	}
	return kidxBin
}

// benchCleanups run after a -bench run (TestMain).
var benchCleanups []func()

// processRun is one finished process: its wall time, what it read from the block device
// (ru_inblock, 512-byte units: the kernel's read_bytes of the process, so 0 when the page
// cache held everything), its peak RSS and its standard output's line count.
type processRun struct {
	wall      time.Duration
	readBytes int64
	maxRSS    int64 // bytes
	lines     int
	exit      int
}

// runProcess runs name with args, stdout counted (not kept), stderr kept for a failure's
// message. wait4's rusage gives the child's own figures.
func runProcess(b *testing.B, name string, args ...string) processRun {
	b.Helper()
	cmd := exec.Command(name, args...)
	var out lineCounter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if cmd.ProcessState == nil {
		b.Fatalf("%s %v: %v", name, args, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return processRun{wall: wall, readBytes: ru.Inblock * 512, maxRSS: ru.Maxrss * 1024, lines: out.lines, exit: cmd.ProcessState.ExitCode()}
}

// lineCounter counts newlines and keeps nothing.
type lineCounter struct{ lines int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// dropCaches empties the page cache (root only), then reads the two programs back in
// (cat's and kidx's binaries, the shared libraries cat loads), so that a timed run reads
// from the disk only the data it is timed on.
func dropCaches(b *testing.B, programs ...string) {
	b.Helper()
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		b.Fatalf("drop caches: %v", err)
	}
	for _, p := range programs {
		if out, err := exec.Command("cat", p).Output(); err != nil || len(out) == 0 {
			b.Fatalf("reading %s back in: %v", p, err)
		}
	}
	if err := exec.Command("cat", "/dev/null").Run(); err != nil {
		b.Fatal(err)
	}
}

// canDropCaches says why caches cannot be dropped here ("" when they can).
func canDropCaches() string {
	if os.Geteuid() != 0 {
		return "not root: /proc/sys/vm/drop_caches needs root"
	}
	f, err := os.OpenFile("/proc/sys/vm/drop_caches", os.O_WRONLY, 0)
	if err != nil {
		return err.Error()
	}
	f.Close()
	return ""
}

var (
	uniformDirs = map[int]string{}
	uniformMu   sync.Mutex
)

// uniformPartition is a partition directory holding one segment of batches 16 KiB batches,
// written once per test process.
func uniformPartition(b *testing.B, batches int) (dir, log string) {
	b.Helper()
	uniformMu.Lock()
	defer uniformMu.Unlock()
	if d, ok := uniformDirs[batches]; ok {
		return d, filepath.Join(d, "00000000000000000000.log")
	}
	root, err := os.MkdirTemp("", "kidx-bench-proc-")
	if err != nil {
		b.Fatal(err)
	}
	benchCleanups = append(benchCleanups, func() { os.RemoveAll(root) })
	dir = filepath.Join(root, "big-0")
	if log, err = segmenttest.WriteUniformSegment(dir, batches, 16384); err != nil {
		b.Fatal(err)
	}
	uniformDirs[batches] = dir
	return dir, log
}

// BenchmarkAnalyzeCold1GiB is issue 22's cold-cache figure: `kidx analyze DIR` of a partition
// holding a 1 GiB segment of 16 KiB batches against `cat FILE > /dev/null` (a real cat
// process), each timed right after the page cache is dropped (root only: skipped otherwise).
// Targets: at most one page read per batch, and at most 1.0x cat's time.
func BenchmarkAnalyzeCold1GiB(b *testing.B) {
	if why := canDropCaches(); why != "" {
		b.Skipf("SKIPPED: the cold-cache benchmark drops the page cache, and cannot here (%s)", why)
	}
	bin := builtKidx(b)
	dir, log := uniformPartition(b, 1<<16)
	catPath, err := exec.LookPath("cat")
	if err != nil {
		b.Fatal(err)
	}
	var cats, analyzes []processRun
	for b.Loop() {
		dropCaches(b, bin, catPath)
		cats = append(cats, runProcess(b, "sh", "-c", "exec cat \"$0\" > /dev/null", log))
		dropCaches(b, bin, catPath)
		r := runProcess(b, bin, "analyze", dir)
		if r.exit != 0 {
			b.Fatalf("kidx analyze exit %d", r.exit)
		}
		analyzes = append(analyzes, r)
	}
	st, _ := os.Stat(log)
	reportPair(b, cats, analyzes, "cold")
	b.ReportMetric(float64(mean(analyzes, func(r processRun) float64 { return float64(r.readBytes) }))/float64(1<<20), "analyze-read-MiB")
	b.ReportMetric(float64(mean(cats, func(r processRun) float64 { return float64(r.readBytes) }))/float64(1<<20), "cat-read-MiB")
	b.ReportMetric(float64(mean(analyzes, func(r processRun) float64 { return float64(r.readBytes) }))/float64(st.Size()/16384), "analyze-read-B/batch")
}

// BenchmarkAnalyzeWarm256MiB is issue 22's warm figure: `kidx analyze DIR` of one
// 268,435,456-byte segment of 16,384-byte batches against `cat FILE > /dev/null`, both whole
// processes with the page cache warm, alternated so that other jobs on the machine weigh on
// both alike. Target: at most 0.4x cat's time.
func BenchmarkAnalyzeWarm256MiB(b *testing.B) {
	bin := builtKidx(b)
	dir, log := uniformPartition(b, 1<<14)
	runProcess(b, "cat", log) // page cache warm
	var cats, analyzes []processRun
	for b.Loop() {
		cats = append(cats, runProcess(b, "sh", "-c", "exec cat \"$0\" > /dev/null", log))
		r := runProcess(b, bin, "analyze", dir)
		if r.exit != 0 {
			b.Fatalf("kidx analyze exit %d", r.exit)
		}
		analyzes = append(analyzes, r)
	}
	reportPair(b, cats, analyzes, "warm")
}

// reportPair reports the two programs' mean and median times and the ratios.
func reportPair(b *testing.B, cats, kidx []processRun, kind string) {
	wall := func(r processRun) float64 { return r.wall.Seconds() }
	b.ReportMetric(mean(cats, wall), kind+"-cat-s")
	b.ReportMetric(mean(kidx, wall), kind+"-analyze-s")
	b.ReportMetric(mean(kidx, wall)/mean(cats, wall), "x-"+kind+"-cat-time")
	b.ReportMetric(median(kidx, wall)/median(cats, wall), "x-"+kind+"-cat-median")
}

// TestMain removes what the benchmarks wrote (the binary, the segments) after the run. With
// KIDX_TEST_RUN_AS_KIDX=1 the binary is kidx instead (readonly_trace_test.go).
func TestMain(m *testing.M) {
	runAsKidxIfAsked()
	code := m.Run()
	for _, f := range benchCleanups {
		f()
	}
	os.Exit(code)
}

func mean(rs []processRun, f func(processRun) float64) float64 {
	s := 0.0
	for _, r := range rs {
		s += f(r)
	}
	return s / float64(max(len(rs), 1))
}

func median(rs []processRun, f func(processRun) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	sort.Float64s(v)
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}

// BenchmarkBroker4000 is issue 22's broker at scale: `kidx verify DIR` and `kidx analyze DIR`
// as whole processes on a log directory of 4,000 partitions and 20,000 segments
// (segmenttest.Broker4000: copies of ../shared/realdata's partitions and partitions kidx's
// writer wrote; skipped without ../shared). Targets: each within 5 s and 300 MB of RSS on 2
// cores, default text at most 60 lines.
func BenchmarkBroker4000(b *testing.B) {
	bin := builtKidx(b)
	broker := segmenttest.BuildBroker(b, segmenttest.Broker4000)
	runProcess(b, bin, "verify", broker.Dir) // page cache warm
	for _, cmd := range []string{"verify", "analyze"} {
		b.Run(cmd, func(b *testing.B) {
			var runs []processRun
			for b.Loop() {
				r := runProcess(b, bin, cmd, broker.Dir)
				if r.exit > 1 {
					b.Fatalf("kidx %s exit %d", cmd, r.exit)
				}
				runs = append(runs, r)
			}
			last := runs[len(runs)-1]
			b.ReportMetric(mean(runs, func(r processRun) float64 { return r.wall.Seconds() }), "s/run")
			b.ReportMetric(mean(runs, func(r processRun) float64 { return float64(r.maxRSS) / 1e6 }), "maxRSS-MB")
			b.ReportMetric(float64(last.lines), "lines")
			b.ReportMetric(float64(last.exit), "exit")
		})
	}
}
