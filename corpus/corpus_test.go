package corpus

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"kidx/fuzz"
	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// shared is one 200-case corpus the tests below read (issue 14: "each damage kind appears
// over 200 cases"); generating it once keeps the package's tests to a few seconds.
var shared struct {
	once sync.Once
	dir  string
	res  *Result
	err  error
}

const sharedSeed, sharedCount = 14, 200

func sharedCorpus(t *testing.T) (string, *Result) {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp(fuzz.TempRoot(), "kidx-corpus-test-")
		if shared.err == nil {
			shared.res, shared.err = Generate(shared.dir, Options{Seed: sharedSeed, Count: sharedCount, Workers: runtime.NumCPU()})
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir, shared.res
}

// ReadCase refuses an expected.json of an unknown version or with keys version 2 does not have.
func TestReadCaseStrict(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteCase(dir, Options{Seed: 2}, 0); err != nil {
		t.Fatal(err)
	}
	caseDir := filepath.Join(dir, CaseName(0))
	path := filepath.Join(caseDir, "expected.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadCase(caseDir); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{
		bytes.Replace(data, []byte(`"version": 2`), []byte(`"version": 3`), 1),
		bytes.Replace(data, []byte(`"version": 2`), []byte(`"version": 2, "extra": 0`), 1),
	} {
		if bytes.Equal(bad, data) {
			t.Fatal("edit did not apply")
		}
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadCase(caseDir); err == nil {
			t.Fatalf("accepted %.60s", bad)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// readTree maps every file under root (path relative to root) to its bytes.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Issue 14: "Deterministic from the seed": the same seed and count give byte-identical trees,
// and case i does not depend on the others (a shorter corpus is a prefix of a longer one).
func TestDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	// One worker, then four: the bytes depend on neither.
	for k, d := range []string{a, b} {
		if _, err := Generate(d, Options{Seed: 99, Count: 16, Workers: 1 + 3*k}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Generate(c, Options{Seed: 99, Count: 6}); err != nil {
		t.Fatal(err)
	}
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(ta) == 0 || len(ta) != len(tb) {
		t.Fatalf("%d files, then %d", len(ta), len(tb))
	}
	for name, data := range ta {
		if !bytes.Equal(data, tb[name]) {
			t.Fatalf("%s differs between two runs of seed 99", name)
		}
	}
	for name, data := range tc {
		if !bytes.Equal(data, ta[name]) {
			t.Fatalf("%s of the 6-case corpus differs from the 16-case corpus's", name)
		}
	}
	d := t.TempDir()
	if _, err := Generate(d, Options{Seed: 100, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(readTree(t, d)["case-00000/workload.json"], ta["case-00000/workload.json"]) {
		t.Fatal("seeds 99 and 100 drew the same first workload")
	}
}

func readCase(t *testing.T, dir string) (*Expected, model.Workload) {
	t.Helper()
	exp, w, err := ReadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	return exp, w
}

// modelOf replays a case's workload.json through the model (not through the files).
func modelOf(t *testing.T, w model.Workload) []*model.Segment {
	t.Helper()
	r, err := fuzz.Resolve(w)
	if err != nil {
		t.Fatal(err)
	}
	ml, err := model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true)
	if err != nil {
		t.Fatal(err)
	}
	return ml.Segments()
}

// Issue 14 item 1: expected.json's answers for an undamaged case (and for a live index's zero
// tail, which Kafka's reader does not see: OffsetIndex's entries end at the first zero slot,
// docs/kafka.md §4) are the model's: the entries, LogSegment.translateOffset's phase-1 entry,
// hit batch and hops (docs/contract.md §5), findOffsetByTimestamp's entry, start and found
// record (docs/kafka.md §7.4), and a healthy verdict. The model never reads the files.
func TestAnswersAreTheModels(t *testing.T) {
	dir, _ := sharedCorpus(t)
	checked := 0
	for i := range sharedCount {
		exp, w := readCase(t, filepath.Join(dir, CaseName(i)))
		if exp.Damage != nil && exp.Damage.Kind != DamageLiveZeroTail {
			continue
		}
		checked++
		where := fmt.Sprintf("case %d", i)
		if !exp.Verify.Healthy {
			t.Errorf("%s: verify unhealthy: %+v", where, exp.Verify.Findings)
		}
		if exp.Rule != w.Rule || exp.Rule != []string{"per-batch", "per-append"}[i%2] {
			t.Errorf("%s: rule %q, workload %q: want the rules alternating by case", where, exp.Rule, w.Rule)
		}
		segs := modelOf(t, w)
		if len(segs) != len(exp.Segments) {
			t.Fatalf("%s: model %d segments, expected.json %d", where, len(segs), len(exp.Segments))
		}
		var offsets int64
		for _, ms := range segs {
			offsets += ms.LastOffset() - ms.BaseOffset() + 2
		}
		for j, ms := range segs {
			sa := exp.Segments[j]
			where := fmt.Sprintf("case %d segment %d", i, ms.BaseOffset())
			if sa.BaseOffset != ms.BaseOffset() || sa.OpenError != nil {
				t.Fatalf("%s: base %d, open error %v", where, sa.BaseOffset, sa.OpenError)
			}
			var ie []IndexEntry
			for _, e := range ms.OffsetIndex().All() {
				ie = append(ie, IndexEntry{e.Offset, e.Position})
			}
			var te []TimeEntry
			for _, e := range ms.TimeIndex().All() {
				te = append(te, TimeEntry{e.Timestamp, e.Offset})
			}
			if !slices.Equal(ie, sa.IndexEntries) || !slices.Equal(te, sa.TimeIndexEntries) {
				t.Fatalf("%s: entries %v %v, model %v %v", where, sa.IndexEntries, sa.TimeIndexEntries, ie, te)
			}
			// "all offsets of the segment plus one past its end for small cases".
			if offsets <= smallCase && int64(len(sa.Lookups)) != ms.LastOffset()-ms.BaseOffset()+2 {
				t.Fatalf("%s: %d lookups in a small case, want every offset", where, len(sa.Lookups))
			}
			for _, a := range sa.Lookups {
				m, ok := ms.Lookup(a.Offset)
				want := OffsetLookup{Offset: a.Offset, IndexOffset: m.Index.Offset, IndexPosition: m.Index.Position, Found: ok, Hops: int(m.Hops)}
				// 4.1's walk (FileRecords.searchForOffsetFromPosition, KAFKA-18989) stops at the
				// first batch whose base offset is at or past the target (the target, or one in a
				// gap before it), else reads the batch after the hit (when there is one) before
				// it answers: one header more than the model's hops.
				if exp.Release == "4.1+" && ok && a.Offset > m.Hit.BaseOffset && m.Hit.Position+m.Hit.Size < ms.Size() {
					want.Hops++
				}
				if ok {
					want.Hit = &Batch{m.Hit.Position, m.Hit.BaseOffset, m.Hit.LastOffset, m.Hit.Size}
				}
				got := a
				got.Hit = nil
				wantHit := want.Hit
				want.Hit = nil
				if want != got || (wantHit == nil) != (a.Hit == nil) || (ok && *wantHit != *a.Hit) {
					t.Fatalf("%s: lookup %+v (hit %+v), model %+v (hit %+v)", where, got, a.Hit, want, wantHit)
				}
			}
			if len(sa.TimeLookups) < 3 {
				t.Fatalf("%s: %d time lookups", where, len(sa.TimeLookups))
			}
			for _, a := range sa.TimeLookups {
				m, ok := ms.LookupTimestamp(a.Timestamp)
				if a.Error != nil || a.IndexTimestamp != m.TimeEntry.Timestamp || a.IndexOffset != m.TimeEntry.Offset ||
					a.StartPosition != m.Index.Position || a.Found != ok ||
					(ok && (a.FoundOffset < m.Hit.BaseOffset || a.FoundOffset > m.Hit.LastOffset || a.FoundTimestamp < a.Timestamp)) ||
					(!ok && (a.FoundOffset != -1 || a.FoundTimestamp != -1)) {
					t.Fatalf("%s: time lookup %+v, model entry %+v start %d found %v in %d..%d", where, a, m.TimeEntry, m.Index.Position, ok, m.Hit.BaseOffset, m.Hit.LastOffset)
				}
			}
		}
	}
	if checked < sharedCount/2 {
		t.Fatalf("only %d undamaged cases of %d", checked, sharedCount)
	}
}

// Issue 14 item 1: damaged cases, "each damage kind appears over 200 cases and its expected
// error names the right file and a byte inside the file". What was damaged is re-derived
// here by writing workload.json again (segment.WriteWorkloadFS, what kidx write runs) and
// comparing the files byte by byte, not read from the generator.
func TestDamage(t *testing.T) {
	dir, res := sharedCorpus(t)
	seen := map[string]int{}
	for i := range sharedCount {
		caseDir := filepath.Join(dir, CaseName(i))
		exp, w := readCase(t, caseDir)
		r, err := fuzz.Resolve(w)
		if err != nil {
			t.Fatal(err)
		}
		mem := vfs.NewMemFS()
		if _, err := segment.WriteWorkloadFS(mem, "/"+Partition, r.File); err != nil {
			t.Fatal(err)
		}
		want, got := map[string][]byte{}, readTree(t, caseDir)
		ents, err := mem.ReadDir("/" + Partition)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			data, err := mem.ReadFileShared("/" + Partition + "/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			want[filepath.Join(Partition, e.Name())] = data
		}
		if len(got) != len(want)+2 { // expected.json, workload.json
			t.Fatalf("case %d: %d files, a fresh write %d", i, len(got)-2, len(want))
		}
		var differ []string
		for name, data := range want {
			if !bytes.Equal(data, got[name]) {
				differ = append(differ, name)
			}
		}
		slices.Sort(differ)
		d := exp.Damage
		if d == nil {
			if len(differ) > 0 {
				t.Fatalf("case %d: undamaged, but %v differ from a fresh write of workload.json", i, differ)
			}
			continue
		}
		seen[d.Kind]++
		where := fmt.Sprintf("case %d (%+v)", i, *d)
		stem := d.File[:len(d.File)-len(filepath.Ext(d.File))]
		wantDiffer := []string{d.File}
		if d.Kind == DamageLiveZeroTail {
			wantDiffer = []string{stem + segment.IndexSuffix, stem + segment.TimeIndexSuffix}
		}
		if !slices.Equal(differ, wantDiffer) {
			t.Fatalf("%s: files changed %v, want %v", where, differ, wantDiffer)
		}
		before, after := want[d.File], got[d.File]
		segs := modelOf(t, w)
		var ms *model.Segment
		for _, s := range segs {
			if filepath.Join(Partition, segment.FilenamePrefixFromOffset(s.BaseOffset())) == stem {
				ms = s
			}
		}
		batchAt := func(pos int64) (model.BatchInfo, bool) { // the batch holding byte pos
			for _, b := range ms.Batches() {
				if pos >= b.Position && pos < b.Position+b.Size {
					return b, true
				}
			}
			return model.BatchInfo{}, false
		}
		unreported := false // a change Kafka's reader has no way to see
		switch d.Kind {
		case DamageLogTruncated, DamageIndexTruncated:
			if int64(len(after)) != d.Byte || !bytes.HasPrefix(before, after) {
				t.Fatalf("%s: %d bytes of %d, want a prefix of %d", where, len(after), len(before), d.Byte)
			}
			if d.Kind == DamageIndexTruncated && d.Byte%8 == 0 {
				t.Fatalf("%s: cut at an entry boundary", where)
			}
			if b, ok := batchAt(d.Byte); d.Kind == DamageLogTruncated && (!ok || d.Byte == b.Position) {
				t.Fatalf("%s: cut not inside a batch", where)
			}
		case DamageLiveZeroTail:
			if ms != segs[len(segs)-1] {
				t.Fatalf("%s: not the active segment", where)
			}
			for _, name := range wantDiffer {
				b, a := want[name], got[name]
				if !bytes.HasPrefix(a, b) || len(a) == len(b) || !allZero(a[len(b):]) {
					t.Fatalf("%s: %s is not the trimmed file plus zeros", where, name)
				}
			}
			if int64(len(before)) != d.Byte {
				t.Fatalf("%s: byte %d, trimmed index %d bytes", where, d.Byte, len(before))
			}
			unreported = true // a live index: healthy (TestAnswersAreTheModels checks its answers)
		case DamageHeaderByteFlip:
			diff := diffBytes(before, after)
			b, ok := batchAt(d.Byte)
			if len(before) != len(after) || !slices.Equal(diff, []int64{d.Byte}) || before[d.Byte]^after[d.Byte] != 0xff || !ok || d.Byte-b.Position >= 61 {
				t.Fatalf("%s: changed bytes %v, want the header byte %d inverted", where, diff, d.Byte)
			}
			// The batch CRC covers the header from its attributes (byte 21) on (docs/kafka.md
			// §1); the base offset, length, leader epoch and magic are checked otherwise or not
			// at all, so a flip there may leave a log Kafka reads without complaint.
			unreported = d.Byte-b.Position < 21
		case DamageHostileLength:
			b, ok := batchAt(d.Byte)
			v := int32(binary.BigEndian.Uint32(after[d.Byte:]))
			if !ok || d.Byte != b.Position+8 || !slices.Contains(hostileLengths, v) || !bytes.Equal(before[:d.Byte], after[:d.Byte]) ||
				!bytes.Equal(before[d.Byte+4:], after[d.Byte+4:]) {
				t.Fatalf("%s: length field %d at %d", where, v, d.Byte)
			}
		case DamageIndexOutOfOrder:
			j := d.Byte
			if j%8 != 0 || !bytes.Equal(before[j:j+8], after[j+8:j+16]) || !bytes.Equal(before[j+8:j+16], after[j:j+8]) ||
				!bytes.Equal(before[:j], after[:j]) || !bytes.Equal(before[j+16:], after[j+16:]) {
				t.Fatalf("%s: not two adjacent entries swapped at %d", where, j)
			}
		default:
			t.Fatalf("%s: unknown kind", where)
		}
		if reported(exp, d.File, int64(len(after))) {
			continue
		}
		if !unreported {
			t.Fatalf("%s: no error or finding names %s at a byte inside it: %+v", where, d.File, exp.Verify.Findings)
		}
	}
	for _, k := range DamageKinds {
		if seen[k] == 0 {
			t.Errorf("damage %s never drawn in %d cases (%v)", k, sharedCount, seen)
		}
	}
	if res.Damaged < sharedCount/8 || res.Damaged > sharedCount/2 {
		t.Errorf("%d damaged of %d, want about one in four", res.Damaged, sharedCount)
	}
}

// reported says whether a query error or a verify problem names file at a byte in [0, size).
func reported(exp *Expected, file string, size int64) bool {
	in := func(f string, b int64) bool { return f == file && b >= 0 && b < size }
	for _, f := range exp.Verify.Findings {
		if f.Severity != string(logdir.SeverityInfo) && in(f.File, f.Byte) {
			return true
		}
	}
	for _, s := range exp.Segments {
		if s.OpenError != nil && in(s.OpenError.File, s.OpenError.Byte) {
			return true
		}
		for _, a := range s.Lookups {
			if a.Error != nil && in(a.Error.File, a.Error.Byte) {
				return true
			}
		}
		for _, a := range s.TimeLookups {
			if a.Error != nil && in(a.Error.File, a.Error.Byte) {
				return true
			}
		}
	}
	return false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func diffBytes(a, b []byte) []int64 {
	var out []int64
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			out = append(out, int64(i))
		}
	}
	return out
}

// BenchmarkGenerate measures corpus generation (draw, differential check, write, damage,
// answers, verify) in cases/s, on real files under fuzz.TempRoot (/dev/shm when it exists,
// as the harness measures: the code, not a disk), without Options.Sync.
func BenchmarkGenerate(b *testing.B) {
	dir, err := os.MkdirTemp(fuzz.TempRoot(), "kidx-corpus-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := WriteCase(dir, Options{Seed: 1}, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// Issue 14 item 1 (brief): a case of more than 2,000 offsets gets "a seeded sample of 500 plus
// the first/last of every segment". The generator's cases stay below that, so the sampling is
// checked here on a model log of 3,000 offsets in segments of 4 KiB.
func TestLargeCaseSample(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 4096
	var steps []model.Step
	for range 60 {
		steps = append(steps, model.AppendStep(model.Batch{Records: 50, Bytes: 400, MaxTimestamp: -1}))
	}
	ml, err := model.Simulate(cfg, model.PerBatch, 0, steps, true)
	if err != nil {
		t.Fatal(err)
	}
	segs := ml.Segments()
	if len(segs) < 3 {
		t.Fatalf("%d segments", len(segs))
	}
	a, b := chooseOffsets(segs, caseRand(5, 1)), chooseOffsets(segs, caseRand(5, 1))
	total := 0
	for i, s := range segs {
		asked := a[i]
		if !slices.Equal(asked, b[i]) {
			t.Fatal("the same seed chose other offsets")
		}
		if !slices.IsSorted(asked) || len(slices.Compact(slices.Clone(asked))) != len(asked) {
			t.Fatalf("segment %d: offsets not sorted and distinct", i)
		}
		for _, want := range []int64{s.BaseOffset(), s.LastOffset(), s.LastOffset() + 1} {
			if !slices.Contains(asked, want) {
				t.Fatalf("segment %d (%d..%d): %d not asked", i, s.BaseOffset(), s.LastOffset(), want)
			}
		}
		if asked[0] < s.BaseOffset() || asked[len(asked)-1] > s.LastOffset()+1 {
			t.Fatalf("segment %d: offsets %d..%d outside %d..%d", i, asked[0], asked[len(asked)-1], s.BaseOffset(), s.LastOffset()+1)
		}
		total += len(asked)
	}
	// 500 draws over 3,000 offsets: a few repeat, and the ends are added.
	if total < 400 || total > sampleOffsets+3*len(segs) {
		t.Fatalf("%d offsets asked in %d segments", total, len(segs))
	}
	if c := chooseOffsets(segs, caseRand(6, 1)); slices.Equal(c[0], a[0]) {
		t.Fatal("another seed chose the same offsets")
	}
}

// brokenLog is the file side with index.interval.bytes doubled: its .index differs from the
// model's whenever an entry is written.
func brokenLog(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (fuzz.FileLog, error) {
	cfg.IndexIntervalBytes *= 2
	return segment.CreateLogFS(fsys, dir, cfg, rule, start)
}

// The brief: "run the differential harness's Check on the workload first and refuse/skip a case
// that diverges". With a planted writer bug the diverging draws are skipped and reported, and
// every case kept is one the real writer and the model agree on.
func TestDivergingDrawsSkipped(t *testing.T) {
	dir := t.TempDir()
	res, err := Generate(dir, Options{Seed: 21, Count: 12, check: &fuzz.Options{NewLog: brokenLog}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Divergences) == 0 {
		t.Fatal("a writer with the interval doubled diverged on no draw")
	}
	for _, d := range res.Divergences {
		if d.Kind != "index-bytes" && d.Kind != "timeindex-bytes" && d.Kind != "events" && d.Kind != "segments" {
			t.Errorf("divergence %s: %s", d.Kind, d.What)
		}
	}
	for i := range 12 {
		_, w := readCase(t, filepath.Join(dir, CaseName(i)))
		if d, err := fuzz.Check(w, nil); err != nil || d != nil {
			t.Fatalf("case %d kept: %v %v", i, d, err)
		}
		if d, err := fuzz.Check(w, &fuzz.Options{NewLog: brokenLog}); err != nil || d != nil {
			t.Fatalf("case %d kept although the planted writer diverges on it: %v %v", i, d, err)
		}
	}
}
