package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kidx/fuzz"
	"kidx/model"
	"kidx/segment"
)

// Issue 24, "realistic corpus content": --content realistic compresses batches, adds
// transactions and offset gaps, and changes nothing else. Cases drawn with plain and with
// realistic content from the same seed have the same batch sizes (so the same offsets,
// positions, .index and .timeindex bytes, and .log sizes) where the same workload was drawn and
// no marker or gap was added; plain content never compresses nor adds a transaction or a gap;
// over 40 cases every codec, some COMMIT markers and some gaps are used; and kidx's reader decodes every record of every batch of every
// undamaged realistic case (control records included) and finds every marker's COMMIT.
func TestRealisticContent(t *testing.T) {
	const seed, count = 24, 40
	plainDir, realDir := t.TempDir(), t.TempDir()
	codecs := map[string]int{}
	same, markers, decodedMarkers, gaps := 0, 0, 0, 0
	for i := range count {
		p, err := WriteCase(plainDir, Options{Seed: seed, Content: ContentPlain}, i)
		if err != nil {
			t.Fatal(err)
		}
		r, err := WriteCase(realDir, Options{Seed: seed}, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Workload.Steps {
			for _, b := range s.Append {
				if b.Compressed || b.Compression != "" || b.Transactional || b.Control != "" || b.BaseOffset != 0 {
					t.Fatalf("case %d: plain content compressed a batch: %+v", i, b)
				}
			}
		}
		for _, s := range r.Workload.Steps {
			for _, b := range s.Append {
				if b.Compression != "" {
					codecs[b.Compression]++
				}
				if b.Control != "" {
					markers++
				}
				if b.BaseOffset != 0 {
					gaps++
				}
			}
		}
		decodedMarkers += checkEveryRecordDecodes(t, r)
		if !sameSizes(p.Workload, r.Workload) {
			continue // a draw the builder refused was redrawn: another workload
		}
		same++
		pf, rf := readTree(t, p.Dir), readTree(t, r.Dir)
		for name, data := range pf {
			switch filepath.Ext(name) {
			case ".index", ".timeindex":
				if !bytes.Equal(data, rf[name]) {
					t.Errorf("case %d: %s differs between plain and realistic content", i, name)
				}
			case ".log":
				if len(data) != len(rf[name]) {
					t.Errorf("case %d: %s is %d bytes plain, %d realistic", i, name, len(data), len(rf[name]))
				}
			}
		}
		if p.Expected.Damage == nil {
			// The lookups of an undamaged case are the same (the answers depend on sizes and
			// offsets only).
			pj, _ := json.Marshal(p.Expected.Segments)
			rj, _ := json.Marshal(r.Expected.Segments)
			if !bytes.Equal(pj, rj) {
				t.Errorf("case %d: the answers differ between plain and realistic content", i)
			}
		}
	}
	t.Logf("%d same, codecs %v, %d markers (%d decoded in undamaged cases), %d gaps", same, codecs, markers, decodedMarkers, gaps)
	if gaps == 0 {
		t.Errorf("no offset gap in %d realistic cases", count)
	}
	if markers == 0 || decodedMarkers == 0 {
		t.Errorf("%d COMMIT markers drawn, %d decoded, in %d realistic cases", markers, decodedMarkers, count)
	}
	if same < count/3 { // deterministic (one seed); a third leaves the generator room to change
		t.Errorf("only %d of %d cases drew the same workload with both contents", same, count)
	}
	for _, c := range segment.Compressions {
		if codecs[c.String()] == 0 {
			t.Errorf("no %s batch in %d realistic cases (%v)", c, count, codecs)
		}
	}
}

func sameSizes(a, b model.Workload) bool {
	if len(a.Steps) != len(b.Steps) || a.StartOffset != b.StartOffset {
		return false
	}
	for i := range a.Steps {
		if !slices.EqualFunc(a.Steps[i].Append, b.Steps[i].Append, func(x, y model.Batch) bool {
			return x.Records == y.Records && x.Bytes == y.Bytes && x.MaxTimestamp == y.MaxTimestamp && x.BaseOffset == y.BaseOffset
		}) {
			return false
		}
	}
	return true
}

// checkEveryRecordDecodes reads every batch of the case's partition with kidx's reader (what
// kidx dump --deep-iteration prints), counts its records against its header, and returns the
// COMMIT markers it read.
func checkEveryRecordDecodes(t *testing.T, c *Case) int {
	t.Helper()
	if c.Expected.Damage != nil {
		return 0
	}
	commits := 0
	ents, err := os.ReadDir(filepath.Join(c.Dir, Partition))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".log" {
			continue
		}
		l, err := segment.OpenLog(filepath.Join(c.Dir, Partition, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		l.Walk(0, -1, func(bi segment.BatchInfo) bool {
			n := 0
			if err := l.Records(bi, segment.RecordLimits{}, func(r segment.DecodedRecord) bool {
				n++
				if bi.Header.IsControl() && r.Control == "endTxnMarker: COMMIT coordinatorEpoch: 0" {
					commits++
				}
				return true
			}); err != nil {
				t.Errorf("%s batch at %d (%s): %v", e.Name(), bi.Position, bi.Header.Compression(), err)
			}
			if int32(n) != bi.Header.RecordCount {
				t.Errorf("%s batch at %d: %d records decoded, header says %d", e.Name(), bi.Position, n, bi.Header.RecordCount)
			}
			return true
		})
		l.Close()
	}
	return commits
}

// BenchmarkGenerateContent is BenchmarkGenerate per content kind: what realistic content
// (compression, transactions) costs a case.
func BenchmarkGenerateContent(b *testing.B) {
	for _, content := range Contents {
		b.Run(content, func(b *testing.B) {
			dir, err := os.MkdirTemp(fuzz.TempRoot(), "kidx-corpus-bench-")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(dir)
			i := 0
			for b.Loop() {
				if _, err := WriteCase(dir, Options{Seed: 1, Content: content}, i); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// Issue 24, "a share of large segments (sampled queries)": one realistic case in largeShare
// draws up to largeSteps steps and up to maxLargeCaseBytes of batches, and its lookups are a
// sample (docs/corpus.md, "The offsets asked"). Case 141 of seed 2 is one (largeCase); the
// plain case of the same number stays within maxCaseBytes.
func TestLargeCasesAreSampled(t *testing.T) {
	if !largeCase(2, 141) || largeCase(2, 142) {
		t.Fatal("case 141 of seed 2 must be large and 142 not (the draw changed)")
	}
	logBytes := func(c *Case) (total int64) {
		for _, sa := range c.Expected.Segments {
			fi, err := os.Stat(filepath.Join(c.Dir, sa.Log))
			if err != nil {
				t.Fatal(err)
			}
			total += fi.Size()
		}
		return total
	}
	large, err := WriteCase(t.TempDir(), Options{Seed: 2}, 141)
	if err != nil {
		t.Fatal(err)
	}
	if n := logBytes(large); n <= maxCaseBytes {
		t.Fatalf("large case: %d bytes of .log, want more than %d", n, maxCaseBytes)
	}
	// Each segment is asked its last offset and one past it, so its last lookup bounds its offsets.
	lookups, offsets := 0, int64(0)
	for _, sa := range large.Expected.Segments {
		lookups += len(sa.Lookups)
		offsets += sa.Lookups[len(sa.Lookups)-1].Offset - sa.BaseOffset + 1
	}
	if int64(lookups) >= offsets || lookups > sampleOffsets+3*len(large.Expected.Segments) {
		t.Fatalf("large case: %d lookups for %d offsets in %d segments: not a sample", lookups, offsets, len(large.Expected.Segments))
	}
	plain, err := WriteCase(t.TempDir(), Options{Seed: 2, Content: ContentPlain}, 141)
	if err != nil {
		t.Fatal(err)
	}
	if n := logBytes(plain); n > maxCaseBytes {
		t.Fatalf("plain case: %d bytes of .log, over %d", n, maxCaseBytes)
	}
}
