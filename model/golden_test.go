package model

import (
	"slices"
	"testing"

	"kidx/internal/kafkagolden"
)

// The golden vectors in ../testdata/kafka-golden were written and read back by Apache
// Kafka's own storage classes (see PROVENANCE.md there). These tests hold the model to every
// figure Kafka reported: segment bases and sizes, batch placement, offset-index and
// time-index entries, the phase-1 start and phase-2 hit of every offset, time lookups, and
// the one append at which Kafka threw.

const goldenDir = "../testdata/kafka-golden"

func goldenCases(t *testing.T) []string { return kafkagolden.Cases(t, goldenDir) }

func loadGolden(t *testing.T, name string) (Workload, kafkagolden.Output) {
	t.Helper()
	w, err := ParseWorkload(kafkagolden.ReadFile(t, goldenDir, name, "workload.json"))
	if err != nil {
		t.Fatalf("%s/workload.json: %v", name, err)
	}
	return w, kafkagolden.Load(t, goldenDir, name)
}

func simulateWorkload(t *testing.T, w Workload) *Log {
	t.Helper()
	cfg := DefaultConfig()
	if err := w.ApplyTo(&cfg); err != nil {
		t.Fatal(err)
	}
	l, err := SimulateEra(cfg, goldenEra(t, w.Rule), w.StartOffset, w.Steps, true)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// goldenEra is the era of the code the golden vectors ran (GOLDEN-README.md): trunk at
// 1eb7644349 (4.0.0-SNAPSHOT), whose LogSegment.append is the per-append rule of 3.7-4.0.0,
// or that commit with the KAFKA-806 loop; both search with searchForOffsetWithSize, so their
// header reads are the hops (3.9.1-4.0.x, not 4.1's searchForOffsetFromPosition).
func goldenEra(t *testing.T, rule string) Era {
	t.Helper()
	id := "3.7-4.0.0"
	if rule == "per-batch" {
		id = "3.9.1-4.0.x"
	}
	e, err := EraByID(id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestGoldenKafkaVectors(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			w, out := loadGolden(t, name)
			l := simulateWorkload(t, w)
			checkGoldenEvents(t, l, out)
			segs := l.Segments()
			if len(segs) != len(out.Segments) {
				t.Fatalf("segments: model %d, Kafka %d", len(segs), len(out.Segments))
			}
			for i, ks := range out.Segments {
				// Where Kafka threw, the model stops before the failing append (docs/contract.md §4), while
				// Kafka's files also hold that append's bytes: the last segment is compared up
				// to the model's last offset.
				partial := out.Error != nil && i == len(out.Segments)-1
				checkGoldenSegment(t, segs[i], ks, partial)
			}
		})
	}
}

func checkGoldenEvents(t *testing.T, l *Log, out kafkagolden.Output) {
	t.Helper()
	ev := l.Events()
	if out.Error == nil {
		if len(ev) != 0 {
			t.Fatalf("Kafka appended everything, the model reports events %+v", ev)
		}
		return
	}
	if len(ev) != 1 || ev[0].Step != out.FailedAppend {
		t.Fatalf("Kafka threw %q at append %d; model events %+v", *out.Error, out.FailedAppend, ev)
	}
	want := "java.lang.IllegalArgumentException: " + ev[0].Message
	if want != *out.Error {
		t.Errorf("exception text: model %q, Kafka %q", want, *out.Error)
	}
	if !l.Stopped() {
		t.Errorf("the log should stop at Kafka's exception")
	}
}

func checkGoldenSegment(t *testing.T, s *Segment, ks kafkagolden.Segment, partial bool) {
	t.Helper()
	if s.BaseOffset() != ks.BaseOffset {
		t.Fatalf("segment base: model %d, Kafka %d", s.BaseOffset(), ks.BaseOffset)
	}
	last := s.LastOffset()
	if !partial && s.Size() != ks.LogSize {
		t.Errorf("segment %d size: model %d, Kafka %d", ks.BaseOffset, s.Size(), ks.LogSize)
	}
	// Batches: placement and offsets.
	var kb [][]int64
	for _, b := range ks.Batches {
		if b[1] <= last {
			kb = append(kb, b)
		}
	}
	if len(kb) != len(s.Batches()) {
		t.Fatalf("segment %d: model %d batches, Kafka %d", ks.BaseOffset, len(s.Batches()), len(kb))
	}
	for i, b := range s.Batches() {
		k := kb[i]
		if b.BaseOffset != k[0] || b.LastOffset != k[1] || b.Position != k[2] || b.Size != k[3] || b.MaxTimestamp != k[4] {
			t.Fatalf("segment %d batch %d: model %+v, Kafka %v", ks.BaseOffset, i, b, k)
		}
	}
	// Offset index.
	var koi []OffsetPosition
	for _, e := range ks.OffsetIndex {
		if e[0] <= last {
			koi = append(koi, OffsetPosition{e[0], e[1]})
		}
	}
	moi := s.OffsetIndex().All()
	if !slices.Equal(moi, koi) {
		t.Errorf("segment %d offset index:\nmodel %v\nKafka %v", ks.BaseOffset, moi, koi)
	}
	// Time index. A partial segment's closing entry is the model's own (Kafka closed the
	// segment after its failed append), so it is left out of the comparison.
	var kti []TimestampOffset
	for _, e := range ks.TimeIndex {
		if e[1] <= last {
			kti = append(kti, TimestampOffset{e[0], e[1]})
		}
	}
	mti := s.TimeIndex().All()
	if partial && len(mti) > len(kti) && len(mti) > 0 && mti[len(mti)-1].Timestamp == s.MaxTimestamp() {
		mti = mti[:len(mti)-1]
	}
	if !slices.Equal(mti, kti) {
		t.Errorf("segment %d time index:\nmodel %v\nKafka %v", ks.BaseOffset, mti, kti)
	}
	// Every offset's lookup.
	n := 0
	for _, row := range ks.Lookups {
		if row[0] > last {
			continue
		}
		n++
		r, ok := s.Lookup(row[0])
		if !ok {
			t.Fatalf("segment %d lookup %d: model finds nothing, Kafka %v", ks.BaseOffset, row[0], row)
		}
		got := []int64{row[0], r.Index.Offset, r.Index.Position, r.Hit.Position, r.Hit.LastOffset, r.Hit.Size, r.Hops}
		if !slices.Equal(got, row) {
			t.Fatalf("segment %d lookup %d:\nmodel %v\nKafka %v", ks.BaseOffset, row[0], got, row)
		}
	}
	if want := last - ks.BaseOffset + 1; int64(n) != want {
		t.Errorf("segment %d: Kafka's vector covers %d offsets, want %d", ks.BaseOffset, n, want)
	}
	// Time lookups: phase 1 exactly; phase 2 must stop at the batch holding the record Kafka
	// found (records themselves are not modelled).
	for _, row := range ks.TimeLookups {
		if partial {
			break
		}
		r, ok := s.LookupTimestamp(row[0])
		got := []int64{row[0], r.TimeEntry.Timestamp, r.TimeEntry.Offset, r.Index.Position}
		if !slices.Equal(got, row[:4]) {
			t.Fatalf("segment %d time lookup %d:\nmodel %v\nKafka %v", ks.BaseOffset, row[0], got, row[:4])
		}
		foundOffset := row[5]
		switch {
		case foundOffset < 0 && ok:
			t.Fatalf("segment %d time lookup %d: Kafka found nothing, model hit %+v", ks.BaseOffset, row[0], r.Hit)
		case foundOffset >= 0 && (!ok || foundOffset < r.Hit.BaseOffset || foundOffset > r.Hit.LastOffset):
			t.Fatalf("segment %d time lookup %d: Kafka found offset %d, model hit %+v (ok=%v)",
				ks.BaseOffset, row[0], foundOffset, r.Hit, ok)
		}
	}
	// The one-pass statistics agree with Kafka's per-offset figures.
	// batchesScanned counts the headers searchForOffsetWithSize read: the header reads too.
	var want ScanStats
	for _, row := range ks.Lookups {
		if row[0] <= last {
			want.Add(1, row[3]-row[2], row[6])
			want.TotalHeaderReads += row[6]
			want.MaxHeaderReads = max(want.MaxHeaderReads, row[6])
		}
	}
	if s.Scan() != want {
		t.Errorf("segment %d scan stats: model %+v, from Kafka's lookups %+v", ks.BaseOffset, s.Scan(), want)
	}
}

// Every mutant (a deliberately broken rule) must disagree with Kafka on some golden case:
// the mutants are wired in, and the golden vectors alone already reject each of them.
func TestMutantsDisagreeWithKafka(t *testing.T) {
	names := goldenCases(t)
	for _, m := range Mutants {
		caught := false
		for _, name := range names {
			w, out := loadGolden(t, name)
			cfg := DefaultConfig()
			if err := w.ApplyTo(&cfg); err != nil {
				t.Fatal(err)
			}
			rule, _ := ParseRule(w.Rule)
			l, err := NewLog(cfg, rule, LogOptions{KeepSegments: true, Mutant: m, Era: goldenEra(t, w.Rule)})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range w.Steps {
				if l.Stopped() || l.Apply(s) != nil {
					break
				}
			}
			_ = l.Close()
			segs := l.Segments()
			if len(segs) != len(out.Segments) {
				caught = true
				break
			}
			for i, ks := range out.Segments {
				var koi []OffsetPosition
				for _, e := range ks.OffsetIndex {
					koi = append(koi, OffsetPosition{e[0], e[1]})
				}
				var kti []TimestampOffset
				for _, e := range ks.TimeIndex {
					kti = append(kti, TimestampOffset{e[0], e[1]})
				}
				if segs[i].Size() != ks.LogSize || !slices.Equal(segs[i].OffsetIndex().All(), koi) || !slices.Equal(segs[i].TimeIndex().All(), kti) {
					caught = true
				}
			}
			if caught {
				break
			}
		}
		if !caught {
			t.Errorf("mutant %q agrees with Kafka on every golden case", m)
		}
	}
}
