package reports

import (
	"encoding/binary"
	"strings"

	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"kidx/logdir"
	"kidx/segment"
)

const goldenDir = "../testdata/kafka-golden"

// copyCase copies a golden case's files into dst as the partition directory "name".
func copyCase(t *testing.T, caseDir, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(caseDir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(caseDir, "files", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kafkaCosts reads every lookup row Kafka itself produced (kafka-output.json): scanBytes =
// hitPosition - indexPosition, hops = batchesScanned (docs/contract.md §5).
func kafkaCosts(t *testing.T, caseDir string) (scans, hops []int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(caseDir, "kafka-output.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Columns  map[string][]string `json:"columns"`
		Segments []struct {
			Lookups [][]int64 `json:"lookups"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range out.Columns["lookups"] {
		col[c] = i
	}
	for _, s := range out.Segments {
		for _, r := range s.Lookups {
			scans = append(scans, r[col["hitPosition"]]-r[col["indexPosition"]])
			hops = append(hops, r[col["batchesScanned"]])
		}
	}
	return scans, hops
}

func summarize(v []int64) (n, maxV, total int64, q map[Quantile]int64) {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q = map[Quantile]int64{}
	for _, x := range s {
		total += x
		maxV = max(maxV, x)
	}
	n = int64(len(s))
	for _, qq := range ReportedQuantiles {
		if n > 0 {
			q[qq] = s[rankOf(qq, n)-1]
		}
	}
	return
}

// Every golden case, copied into one log directory as "<case>-0", analyzes to the per-offset
// statistics that Kafka's own lookups (kafka-output.json) imply.
func TestAnalyzeGoldenKafkaFiles(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(goldenDir, "*", "kafka-output.json"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	root := t.TempDir()
	want := map[string][2][]int64{}
	for _, c := range cases {
		dir := filepath.Dir(c)
		name := filepath.Base(dir) + "-0"
		copyCase(t, dir, filepath.Join(root, name))
		s, h := kafkaCosts(t, dir)
		want[name] = [2][]int64{s, h}
	}
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Analyzed != len(cases) {
		t.Fatalf("%d partitions analyzed, %d cases", a.Analyzed, len(cases))
	}
	for _, p := range a.Partitions {
		w := want[filepath.Base(p.Path)]
		n, mx, tot, q := summarize(w[0])
		_, hmx, htot, hq := summarize(w[1])
		if p.Scan.Lookups != n || p.Scan.MaxScanBytes != mx || p.Scan.TotalScanBytes != tot || p.Scan.MaxHops != hmx || p.Scan.TotalHops != htot {
			t.Errorf("%s: scan %+v; Kafka: lookups %d max %d total %d maxHops %d totalHops %d", p.Path, p.Scan, n, mx, tot, hmx, htot)
		}
		for _, qq := range ReportedQuantiles {
			if p.ScanQ[qq] != q[qq] || p.HopsQ[qq] != hq[qq] {
				t.Errorf("%s q%d: scan %d hops %d; Kafka %d %d", p.Path, qq, p.ScanQ[qq], p.HopsQ[qq], q[qq], hq[qq])
			}
		}
	}
}

type fileState struct {
	size  int64
	mtime time.Time
	data  string
}

func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		fsx := fileState{size: st.Size(), mtime: st.ModTime()}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fsx.data = string(data)
		}
		out[p] = fsx
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// analyze writes nothing: contents, sizes, mtimes and the listing are unchanged.
func TestAnalyzeIsReadOnly(t *testing.T) {
	root := t.TempDir()
	copyCase(t, filepath.Join(goldenDir, "blog-i4096"), filepath.Join(root, "blog-0"))
	copyCase(t, filepath.Join(goldenDir, "random-i512-per-append"), filepath.Join(root, "rnd-1"))
	before := snapshot(t, root)
	if _, err := AnalyzeDir(root, AnalyzeOptions{}); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, root)
	if len(before) != len(after) {
		t.Fatalf("listing changed: %d → %d entries", len(before), len(after))
	}
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Errorf("%s changed", p)
		}
	}
}

// A segment corrupted in the middle of a partition is reported, and every other segment is
// still analyzed.
func TestAnalyzeCorruptSegmentInTheMiddle(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "blog-0")
	copyCase(t, filepath.Join(goldenDir, "blog-i4096"), part)
	bad := filepath.Join(part, "00000000000000002528.log")
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	// The second batch's size field (at byte 16350+8) becomes 3: below the 14-byte minimum.
	data[16350+8], data[16350+9], data[16350+10], data[16350+11] = 0, 0, 0, 3
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := a.Partitions[0]
	if a.Problems == 0 || p.Problems == 0 {
		t.Fatal("corruption not reported")
	}
	found := false
	for _, f := range p.Findings {
		if f.File == bad && f.Check == "log-corrupt" {
			found = true
		}
	}
	if !found {
		t.Errorf("no log-corrupt finding for %s: %v", bad, p.Findings)
	}
	// 16 segments; the corrupt one keeps its first batch (79 offsets): 5000 - 3*79 offsets,
	// and the entries past the corruption are still counted (the index file is intact).
	if p.Segments != 16 || p.Batches != 61 || p.Scan.Lookups != 5000-3*79 {
		t.Errorf("segments %d batches %d lookups %d", p.Segments, p.Batches, p.Scan.Lookups)
	}
}

func TestAnalyzeMissingDir(t *testing.T) {
	if _, err := AnalyzeDir(filepath.Join(t.TempDir(), "nope"), AnalyzeOptions{}); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

// A byte-counter restart costs the lookups after it: with index.interval.bytes=100 and 20
// one-record 100-byte batches, a clean restart before batch 10 leaves batches 10 and 11
// without an entry of their own lifetime (docs/kafka.md §2.2: entries at 200, 400, 600, 800, then
// 1200, ...). Offsets 10 and 11 start at the entry of batch 8 (byte 800): scans of 200 and
// 300 bytes, by hand. With index.interval.bytes=0 every batch but 0 and 10 is indexed: the
// densest index the rule allows across a restart, and offset 10 scans 100 bytes from the
// entry of batch 9. Analyze reports the restart, its cost, and says which batches lack an
// entry.
func TestAnalyzeRestartCost(t *testing.T) {
	cases := []struct {
		interval                int64
		offsets, maxScan, total int64
		dense                   bool
	}{{100, 2, 300, 500, false}, {0, 1, 100, 100, true}}
	for _, c := range cases {
		dir := filepath.Join(t.TempDir(), "topic-0")
		cfg := segment.DefaultConfig()
		cfg.IndexIntervalBytes = c.interval
		l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < 20; i++ {
			if i == 10 {
				if err := l.Restart(); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := segment.BuildSizedBatch(i, 1, 100, 1700000000000+i)
			if _, err := l.Append(b); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		perBatch := logdir.EraForRule(segment.PerBatch)
		a, err := AnalyzeDir(dir, AnalyzeOptions{Judge: logdir.VerifyOptions{Era: &perBatch}})
		if err != nil {
			t.Fatal(err)
		}
		p := a.Partitions[0]
		if len(p.Restarts) != 1 || a.Restarts != 1 {
			t.Fatalf("I=%d: restarts %+v", c.interval, p.Restarts)
		}
		r := p.Restarts[0]
		if r.Offset != 10 || r.Offsets != c.offsets || r.MaxScanBytes != c.maxScan || r.TotalScanBytes != c.total {
			t.Fatalf("I=%d: restart cost %+v, want %d offsets, max %d, total %d", c.interval, r, c.offsets, c.maxScan, c.total)
		}
		dense := false
		for _, rec := range p.Recommendations {
			if strings.Contains(rec, "after each segment's first is indexed") {
				t.Fatalf("I=%d: claims every batch after the first is indexed: %q", c.interval, rec)
			}
			dense = dense || strings.Contains(rec, "Every batch except each segment's first and the first after the byte-counter restart is indexed")
		}
		if dense != c.dense {
			t.Fatalf("I=%d: densest-index claim %v, want %v: %q", c.interval, dense, c.dense, p.Recommendations)
		}
	}
}

// An index whose entries are out of order is searched by Kafka's own search on the file as it
// is (docs/kafka.md §5): analyze then looks every offset up, and its costs equal
// segment.Segment.Lookup's, offset by offset, on every kind of start (a batch start, and one
// inside a batch). 20 000 one-record batches keep it quick only if the lookups do not each walk
// from byte 0 (it took minutes when they did).
func TestAnalyzeUnsortedIndexEveryOffset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 1000
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	for i := int64(0); i < n; i++ {
		b, _ := segment.BuildSizedBatch(i, 1, 100, 1700000000000+i)
		if _, err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	idx := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	// Swap entries 10 and 11; point entry 500 inside a batch (position + 7).
	copy(data[80:88], append(append([]byte(nil), data[88:96]...), data[80:88]...))
	binary.BigEndian.PutUint32(data[500*8+4:], binary.BigEndian.Uint32(data[500*8+4:])+7)
	if err := os.WriteFile(idx, data, 0o644); err != nil {
		t.Fatal(err)
	}
	seg, err := segment.OpenSegment(filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix))
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	// The offsets Kafka's lookup finds (not those whose walk starts inside a batch, at the
	// damaged entry) and their costs, from Segment.Lookup.
	type cost struct{ scan, hops int64 }
	want := map[int64]cost{}
	for o := int64(0); o < n; o++ {
		if r, err := seg.Lookup(o); err == nil && r.Found {
			want[o] = cost{r.ScanBytes(), int64(r.Hops)}
		}
	}
	if len(want) == n || len(want) < n-100 {
		t.Fatalf("%d of %d offsets found: the damage should lose a few", len(want), n)
	}
	got := map[int64]cost{}
	err = OffsetCosts(segment.SegmentFiles{BaseOffset: 0, Log: seg.Log.Path, Index: idx}, func(first, last, scanBytes, hops int64) {
		for o := first; o <= last; o++ {
			got[o] = cost{scanBytes, hops}
		}
	})
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d offsets costed, want %d (err %v)", len(got), len(want), err)
	}
	for o, c := range want {
		if got[o] != c {
			t.Fatalf("offset %d: costs %+v, Lookup says %+v", o, got[o], c)
		}
	}
}

// TestAnalyzeSetAsideFilesCountedOnce pins issue 11, defect 4: with a dangling symlink, a
// directory and a FIFO named like segment files (and, when not root, a file open refuses),
// analyze's header, its problems column and verify count one problem per such file, and each
// finding names the file that failed.
func TestAnalyzeSetAsideFilesCountedOnce(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "blog-0")
	copyCase(t, filepath.Join(goldenDir, "blog-i4096"), part)
	at := func(name string) string { return filepath.Join(part, name) }
	mustRemove := func(name string) {
		if err := os.Remove(at(name)); err != nil {
			t.Fatal(err)
		}
	}
	mustRemove("00000000000000001264.index")
	if err := os.Symlink(filepath.Join(root, "gone"), at("00000000000000001264.index")); err != nil {
		t.Fatal(err)
	}
	mustRemove("00000000000000002528.log")
	if err := os.Mkdir(at("00000000000000002528.log"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustRemove("00000000000000003160.timeindex")
	if err := syscall.Mkfifo(at("00000000000000003160.timeindex"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"00000000000000001264.index", "00000000000000002528.log", "00000000000000003160.timeindex"}
	if os.Geteuid() != 0 {
		// As root, mode 000 does not stop a read; otherwise it must be named, once.
		if err := os.Chmod(at("00000000000000003792.index"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(at("00000000000000003792.index"), 0o644) })
		want = append(want, "00000000000000003792.index")
	}
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range a.allFindings(true) {
		got = append(got, filepath.Base(f.File))
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("problem findings name %v, want each of %v once", got, want)
	}
	if a.Problems != len(want) || len(a.Partitions) != 1 || a.Partitions[0].Problems != len(want) {
		t.Errorf("header counts %d problems, the partition's column %d; want %d", a.Problems, a.Partitions[0].Problems, len(want))
	}
	var text strings.Builder
	if err := a.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if wantHead := "; " + plural(int64(len(want)), "problem") + "\n"; !strings.Contains(text.String(), wantHead) {
		t.Errorf("text header lacks %q:\n%s", wantHead, text.String())
	}
	v, err := logdir.Verify([]string{root}, logdir.VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Problems() != len(want) {
		t.Errorf("verify counts %d problems, want %d: %v", v.Problems(), len(want), v.Findings)
	}
}

// TestAnalyzeCountsLogDirFilesAsVerifyDoes pins issue 11, defect 4 (analyze's count against
// verify's): a broken checkpoint of the log directory itself is one problem to both.
func TestAnalyzeCountsLogDirFilesAsVerifyDoes(t *testing.T) {
	root := t.TempDir()
	copyCase(t, filepath.Join(goldenDir, "blog-i4096"), filepath.Join(root, "blog-0"))
	if err := os.WriteFile(filepath.Join(root, "recovery-point-offset-checkpoint"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := logdir.Verify([]string{root}, logdir.VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Problems() != 1 || a.Problems != 1 {
		t.Errorf("verify counts %d problems, analyze %d; want 1 each: %v", v.Problems(), a.Problems, v.Findings)
	}
}
