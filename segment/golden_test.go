package segment

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kidx/internal/kafkagolden"
	"kidx/internal/testfiles"
)

// TestGoldenRecipeByteIdentical: writing kafka-input.json reproduces every
// .log/.index/.timeindex file Kafka wrote, byte for byte, same names.
func TestGoldenRecipeByteIdentical(t *testing.T) {
	for _, name := range testfiles.GoldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(testfiles.GoldenDir, name, "kafka-input.json"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseRecipe(data)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			res, err := WriteRecipe(dir, r)
			if err != nil {
				t.Fatal(err)
			}
			want := testfiles.ListFiles(t, filepath.Join(testfiles.GoldenDir, name, "files"))
			got := testfiles.ListFiles(t, dir)
			if !slices.Equal(got, want) {
				t.Fatalf("file names differ:\n got %v\nwant %v", got, want)
			}
			for _, f := range want {
				g, _ := os.ReadFile(filepath.Join(dir, f))
				w, _ := os.ReadFile(filepath.Join(testfiles.GoldenDir, name, "files", f))
				if !bytes.Equal(g, w) {
					t.Errorf("%s differs: got %d bytes, want %d (first diff at %d)", f, len(g), len(w), testfiles.FirstDiff(g, w))
				}
			}
			checkEvents(t, name, res.Events)
		})
	}
}

// checkEvents: Kafka's "error"/"failedAppend" must come out as one overflow
// event at that step, and no event otherwise.
func checkEvents(t *testing.T, name string, ev []Event) {
	t.Helper()
	o := testfiles.ReadGoldenOutput(t, name)
	if o.Error == nil {
		if len(ev) != 0 {
			t.Fatalf("unexpected events %+v", ev)
		}
		return
	}
	if len(ev) != 1 || ev[0].Step != o.FailedAppend || "java.lang.IllegalArgumentException: "+ev[0].Message != *o.Error {
		t.Fatalf("events %+v, want Kafka's %q at append %d", ev, *o.Error, o.FailedAppend)
	}
}

// TestGoldenWorkloadSizeTargeting: workload.json (batch level only) through
// the size-targeting builder gives Kafka's .index and .timeindex bytes and
// the same batch positions and sizes in every .log.
func TestGoldenWorkloadSizeTargeting(t *testing.T) {
	for _, name := range testfiles.GoldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(testfiles.GoldenDir, name, "workload.json"))
			if err != nil {
				t.Fatal(err)
			}
			w, err := ParseWorkload(data)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			res, err := WriteWorkload(dir, w)
			if err != nil {
				t.Fatal(err)
			}
			checkEvents(t, name, res.Events)
			want := testfiles.ListFiles(t, filepath.Join(testfiles.GoldenDir, name, "files"))
			if got := testfiles.ListFiles(t, dir); !slices.Equal(got, want) {
				t.Fatalf("file names differ:\n got %v\nwant %v", got, want)
			}
			o := testfiles.ReadGoldenOutput(t, name)
			for _, f := range want {
				if filepath.Ext(f) == LogSuffix {
					continue
				}
				g, _ := os.ReadFile(filepath.Join(dir, f))
				wb, _ := os.ReadFile(filepath.Join(testfiles.GoldenDir, name, "files", f))
				if !bytes.Equal(g, wb) {
					t.Errorf("%s differs at byte %d", f, testfiles.FirstDiff(g, wb))
				}
			}
			for _, gs := range o.Segments {
				lf, err := OpenLog(filepath.Join(dir, gs.LogFile))
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				res := lf.Walk(0, 0, func(b BatchInfo) bool {
					if err := lf.CheckBatch(b); err != nil {
						t.Errorf("batch %d: %v", i, err)
					}
					if i < len(gs.Batches) {
						k := gs.Batches[i]
						if b.BaseOffset() != k[0] || b.LastOffset() != k[1] || b.Position != k[2] || b.Size != k[3] || b.MaxTimestamp() != k[4] || int64(b.Header.RecordCount) != k[5] {
							t.Errorf("%s batch %d = %v, Kafka %v", gs.LogFile, i, b, k)
						}
					}
					i++
					return true
				})
				lf.Close()
				if res.Err != nil || i != len(gs.Batches) || res.ValidBytes != gs.LogSize {
					t.Errorf("%s: %d batches, %d bytes, err %v; Kafka %d batches, %d bytes", gs.LogFile, i, res.ValidBytes, res.Err, len(gs.Batches), gs.LogSize)
				}
			}
		})
	}
}

// TestGoldenReadBack: the readers read Kafka's own files back to exactly the
// batches, index entries, per-offset lookups and time lookups Kafka's
// classes reported (kafka-output.json).
func TestGoldenReadBack(t *testing.T) {
	for _, name := range testfiles.GoldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := testfiles.ReadGoldenOutput(t, name)
			for _, gs := range o.Segments {
				seg, err := OpenSegment(filepath.Join(testfiles.GoldenDir, name, "files", gs.LogFile))
				if err != nil {
					t.Fatal(err)
				}
				checkGoldenSegment(t, seg, gs)
				seg.Close()
			}
		})
	}
}

func checkGoldenSegment(t *testing.T, seg *Segment, gs kafkagolden.Segment) {
	t.Helper()
	var got [][]int64
	seg.Log.SetReadAhead(1 << 20)
	res := seg.Log.Walk(0, 0, func(b BatchInfo) bool {
		valid := int64(1)
		if seg.Log.CheckBatch(b) != nil {
			valid = 0
		}
		got = append(got, []int64{b.BaseOffset(), b.LastOffset(), b.Position, b.Size, b.MaxTimestamp(), int64(b.Header.RecordCount), valid})
		return true
	})
	seg.Log.SetReadAhead(0)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !equalRows(got, gs.Batches) {
		t.Errorf("%s batches differ:\n got %v\nwant %v", gs.LogFile, got, gs.Batches)
	}
	var idx [][]int64
	for _, e := range seg.Index.Entries(seg.Index.Len()) {
		idx = append(idx, []int64{e.Offset, e.Position})
	}
	if !equalRows(idx, gs.OffsetIndex) {
		t.Errorf("%s offset index %v, want %v", gs.LogFile, idx, gs.OffsetIndex)
	}
	var tidx [][]int64
	for _, e := range seg.TimeIndex.Entries(seg.TimeIndex.Len()) {
		tidx = append(tidx, []int64{e.Timestamp, e.Offset})
	}
	if !equalRows(tidx, gs.TimeIndex) {
		t.Errorf("%s time index %v, want %v", gs.LogFile, tidx, gs.TimeIndex)
	}
	for _, row := range gs.Lookups {
		r, err := seg.Lookup(row[0])
		if err != nil {
			t.Fatal(err)
		}
		g := []int64{r.Target, r.IndexOffset, r.IndexPosition, r.HitPosition, r.HitLastOffset, r.HitSize, int64(r.Hops)}
		if !r.Found || !equalRows([][]int64{g}, [][]int64{row}) {
			t.Fatalf("%s lookup %d = %v (found %v), Kafka %v", gs.LogFile, row[0], g, r.Found, row)
		}
	}
	for _, row := range gs.TimeLookups {
		r, err := seg.LookupTimestamp(row[0])
		if err != nil {
			t.Fatal(err)
		}
		g := []int64{r.Target, r.IndexTimestamp, r.IndexOffset, r.StartPosition, r.FoundTimestamp, r.FoundOffset}
		if !equalRows([][]int64{g}, [][]int64{row}) {
			t.Fatalf("%s time lookup %d = %v, Kafka %v", gs.LogFile, row[0], g, row)
		}
	}
}

func equalRows(a, b [][]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}
