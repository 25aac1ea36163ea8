package reports

import (
	"regexp"
	"strings"
	"testing"

	"kidx/model"
	"kidx/sim"
)

// Tests of the report sentences issue 11, defect 5 found wrong. Each expected sentence is
// written by hand.

func whatIfText(t *testing.T, opts WhatIfOptions) (*WhatIf, string) {
	t.Helper()
	rep, err := RunWhatIf(opts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return rep, b.String()
}

func pointAt(t *testing.T, rep *WhatIf, interval int64) *Point {
	t.Helper()
	for _, p := range rep.Points {
		if p.Config.IndexIntervalBytes == interval {
			return p
		}
	}
	t.Fatalf("no point at index.interval.bytes=%d", interval)
	return nil
}

// "index.interval.bytes=1048576 is within 2x of segment.bytes=65536": it is 16 times above.
func TestIntervalAboveSegmentBytesSaysSo(t *testing.T) {
	rep, text := whatIfText(t, seedOptions())
	want := "index.interval.bytes=1048576 is 16x segment.bytes=65536: an entry needs a batch that starts more than " +
		"index.interval.bytes into its segment, and no batch starts past segment.bytes, so no segment can get an entry."
	if !strings.Contains(strings.Join(pointAt(t, rep, 1048576).Recommendations, "\n"), want) {
		t.Errorf("I=1048576 notes lack %q:\n%v", want, pointAt(t, rep, 1048576).Recommendations)
	}
	if strings.Contains(text, "within 2x") {
		t.Errorf("the report still says \"within 2x\":\n%s", text)
	}
	// Half of segment.bytes and more, but below it: at most one entry per segment.
	opts := seedOptions()
	opts.Sweeps = []Sweep{{Key: "index.interval.bytes", Values: []int64{40000}}}
	rep, _ = whatIfText(t, opts)
	want = "index.interval.bytes=40000 is at least half of segment.bytes=65536: a segment's second entry would need a batch " +
		"starting more than 2 x 40000 = 80000 bytes in, past segment.bytes, so no segment can get more than one entry. " +
		"Keep the interval well below the segment size."
	if got := strings.Join(pointAt(t, rep, 40000).Recommendations, "\n"); !strings.Contains(got, want) {
		t.Errorf("I=40000 notes lack %q:\n%s", want, got)
	}
}

// The per-append plateau said "every batch after each segment's first" of a workload whose
// appends hold three batches each: per append, it is every append.
func TestPerAppendPlateauSaysEveryAppend(t *testing.T) {
	var steps []model.Step
	for i := 0; i < 12; i++ {
		b := model.Batch{Records: 10, Bytes: 1000, MaxTimestamp: model.NoTimestamp}
		steps = append(steps, model.AppendStep(b, b, b))
	}
	base := model.DefaultConfig()
	base.SegmentBytes = 10000
	rep, _ := whatIfText(t, WhatIfOptions{
		Source: &sim.WorkloadSource{Name: "three-batch appends", Workload: model.Workload{Steps: steps}},
		Base:   base, Eras: []model.Era{model.EraForRule(model.PerAppend)},
		Sweeps: []Sweep{{Key: "index.interval.bytes", Values: []int64{1}}},
		Scale:  Scale{Partitions: 1, MaxMapCount: DefaultMaxMapCount},
	})
	p := pointAt(t, rep, 1)
	if p.Regime != Plateau {
		t.Fatalf("I=1 per-append: regime %s, want plateau", p.Regime)
	}
	want := "as many as index.interval.bytes=0 gives (every append after each segment's first: one entry per append, however many batches it holds)."
	if got := strings.Join(p.Recommendations, "\n"); !strings.Contains(got, want) || strings.Contains(got, "every batch after") {
		t.Errorf("per-append plateau notes:\n%s\nwant %q", got, want)
	}
}

// A producer grid's header showed the first point's source and the last point's batch count.
func TestProducerGridHeaderNamesEveryWorkload(t *testing.T) {
	spec := "producer:rate=500/s,record=fixed:bytes=200"
	rep, text := whatIfText(t, WhatIfOptions{
		Factory: func(over map[string]string) (sim.Source, error) {
			return sim.NewGenerator(spec, sim.Limits{Records: 3000}, 1, over)
		},
		Base:   model.DefaultConfig(),
		Sweeps: []Sweep{{Key: "batch.size", Values: []int64{1024, 8192}}, {Key: "linger.ms", Values: []int64{0, 50}}},
		Scale:  Scale{Partitions: 1, MaxMapCount: DefaultMaxMapCount},
	})
	if !strings.Contains(text, "source: 4 workloads, one per producer setting:\n") {
		t.Fatalf("header:\n%s", text)
	}
	for _, p := range rep.Points {
		setting := "batch.size=" + itoa(p.Producer[0].Value) + ",linger.ms=" + itoa(p.Producer[1].Value)
		line := regexp.MustCompile(`(?m)^  gen [^\n]*` + regexp.QuoteMeta(setting) + ` [^\n]*: ` + regexp.QuoteMeta(plural(p.Batches, "batch")) + ` per pass$`)
		if !line.MatchString(text) {
			t.Errorf("no header line for %s with its own %s:\n%s", setting, plural(p.Batches, "batch"), text)
		}
	}
	if strings.Contains(text, "batches per pass, ") {
		t.Errorf("the rule line still gives one batch count for four workloads:\n%s", text)
	}
}

// Version warnings were repeated under every point, with a doubled prefix ("Kafka 4.1.0:
// Kafka 4.1.0 rejects ..."): each is now said once, at the top.
func TestVersionWarningsOnceAtTheTop(t *testing.T) {
	_, text := whatIfText(t, seedOptions())
	want := "\nwarning: Kafka 4.1.0 rejects segment.bytes=65536: the minimum is 1048576 since 4.1 (KAFKA-19080)\n"
	if strings.Count(text, want) != 1 {
		t.Errorf("want %q once:\n%s", want, text)
	}
	if strings.Count(text, "rejects segment.bytes=65536") != 1 || strings.Contains(text, "Kafka 4.1.0: Kafka") {
		t.Errorf("the warning is repeated or its prefix doubled:\n%s", text)
	}
	if i, j := strings.Index(text, want), strings.Index(text, "point "); i < 0 || j < 0 || i > j {
		t.Errorf("the warning is not above the table:\n%s", text)
	}
}

// "1 pages", "1 partitions", "1 entries".
func TestWhatIfTextSingulars(t *testing.T) {
	_, text := whatIfText(t, seedOptions())
	if bad := regexp.MustCompile(`\b1 (pages|partitions|entries|segments|batches|passes|restarts|hops|maps)\b`).FindAllString(text, -1); len(bad) > 0 {
		t.Errorf("plural after 1: %v\n%s", bad, text)
	}
	// Notes are wrapped at 120 columns: read them with the line breaks undone.
	unwrapped := regexp.MustCompile(`\n +`).ReplaceAllString(text, " ")
	for _, want := range []string{"scale: 1 partition, vm.max_map_count", "64 batches per pass, 1 pass\n",
		"The whole index of the fullest segment (1 entry) fits the warm section: every lookup in the active segment stays on warm index pages (1 page for a tail lookup)."} {
		if !strings.Contains(unwrapped, want) {
			t.Errorf("missing %q:\n%s", want, text)
		}
	}
}

// The verdict opens the report and speaks for the starting configuration: that point's notes
// add to it and do not repeat its regime, its figures or the change it names.
func TestBasePointNotesDoNotRepeatTheVerdict(t *testing.T) {
	rep, _ := whatIfText(t, seedOptions())
	base := pointAt(t, rep, 4096) // seedOptions' Base: the default 4096
	if v := rep.Verdict(); !strings.HasPrefix(v, "This configuration, index.interval.bytes=4096, sits on the plateau (every batch after each segment's first carries an entry): 48 entries in 16 segments") {
		t.Fatalf("verdict: %q", v)
	}
	for _, n := range base.Recommendations {
		for _, said := range []string{"On the plateau", "Thinning:", "Cliff:", "reaches the plateau", "stays identical up to"} {
			if strings.Contains(n, said) {
				t.Errorf("base point note repeats the verdict (%q): %s", said, n)
			}
		}
	}
	// The other points keep their own regime line.
	if got := strings.Join(pointAt(t, rep, 20000).Recommendations, "\n"); !strings.HasPrefix(got, "Thinning: 32 of the 48 entries the batching allows are skipped (67%)") {
		t.Errorf("I=20000 notes: %s", got)
	}
}
