package sim

import (
	"testing"

	"kidx/model"
)

// Run takes the fast path for single-batch sources and the reference Log otherwise; both
// give the figures of model.Simulate on the same workload.
func TestRunMatchesSimulate(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.SegmentBytes = 65536
	fixed := &FixedSource{Count: 64, Bytes: 16350, Records: 79, TimestampBase: 1_700_000_000_000}
	var steps []model.Step
	st, _ := fixed.Open()
	buf := make([]model.Step, 100)
	n, _ := st.Next(buf)
	steps = append(steps, buf[:n]...)
	multi := append([]model.Step{model.AppendStep(steps[0].Append[0], steps[1].Append[0])}, steps[2:]...)
	multi = append(multi, model.Step{Restart: true}, steps[3])
	for _, c := range []struct {
		src  Source
		fast bool
	}{
		{fixed, true},
		{&WorkloadSource{Name: "single", Workload: model.BatchesWorkload(batchesOf(steps))}, true},
		{&WorkloadSource{Name: "multi", Workload: model.Workload{Steps: multi}}, false},
	} {
		res, err := Run(c.src, cfg, model.PerBatch, RunOptions{Timestamps: true, KeepSummaries: true})
		if err != nil {
			t.Fatal(err)
		}
		o, _ := c.src.Open()
		var all []model.Step
		for {
			n, err := o.Next(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				break
			}
		}
		l, err := model.Simulate(cfg, model.PerBatch, 0, all, false)
		if err != nil {
			t.Fatal(err)
		}
		want := l.Summaries()
		if res.FastPath != c.fast || res.Scan != l.Scan() || len(res.Summaries) != len(want) {
			t.Fatalf("%s: fast %v, scan %+v vs %+v, %d vs %d segments", c.src.Describe(), res.FastPath, res.Scan, l.Scan(), len(res.Summaries), len(want))
		}
		for i := range want {
			if res.Summaries[i] != want[i] {
				t.Fatalf("%s segment %d: %+v vs %+v", c.src.Describe(), i, res.Summaries[i], want[i])
			}
		}
	}
}

func batchesOf(steps []model.Step) []model.Batch {
	var out []model.Batch
	for _, s := range steps {
		out = append(out, s.Append...)
	}
	return out
}

// RunOptions.Era selects the era: five 82-byte appends of 3 offsets (the smallest batch of 3
// records; testdata/scenarios/eras-offset-entry.txt's 78 bytes is arithmetic no file holds,
// and either size crosses 100 at the same batches) at interval 100 index B2 and B4, naming their first offsets up to 1.1 and their last from 2.0, which costs 21 and 29
// hops over the 15 offsets (testdata/scenarios/eras-offset-entry.txt). StatStream runs the
// eras from 0.10.2 on; before, Run takes model.Log.
func TestRunEra(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.IndexIntervalBytes = 100
	src := &FixedSource{Count: 5, Bytes: 82, Records: 3, TimestampBase: -1}
	for _, c := range []struct {
		version string
		hops    int64
		fast    bool
	}{{"1.1.1", 21, true}, {"0.9.0", 21, false}, {"2.0.0", 29, true}, {"", 29, true}} {
		var era model.Era
		if c.version != "" {
			var err error
			if era, err = model.EraForKafkaVersion(c.version); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Run(src, cfg, model.PerBatch, RunOptions{Era: era})
		if err != nil {
			t.Fatal(err)
		}
		if res.Scan.TotalHops != c.hops || res.FastPath != c.fast || res.OffsetIndexEntries != 2 {
			t.Errorf("Kafka %q: hops %d, fast %v, %d entries; want %d, %v, 2", c.version, res.Scan.TotalHops, res.FastPath, res.OffsetIndexEntries, c.hops, c.fast)
		}
	}
}

// A workload's single-batch steps take the fast path only when StatStream reads them as they
// are: a follower's append (the eras differ by origin) or a batch with a base offset of its
// own goes through model.Log.
func TestWorkloadSourceFastPathOnlyForPlainBatches(t *testing.T) {
	cfg := model.DefaultConfig()
	b := model.Batch{Records: 3, Bytes: 78, MaxTimestamp: model.NoTimestamp}
	gap := b
	gap.BaseOffset = 10
	for _, c := range []struct {
		name  string
		steps []model.Step
		fast  bool
	}{
		{"leader", []model.Step{model.AppendStep(b), model.AppendStep(b)}, true},
		{"replication", []model.Step{model.AppendStep(b), {Append: []model.Batch{b}, Origin: model.OriginReplication}}, false},
		{"base offset", []model.Step{model.AppendStep(b), model.AppendStep(gap)}, false},
	} {
		res, err := Run(&WorkloadSource{Name: c.name, Workload: model.Workload{Steps: c.steps}}, cfg, model.PerBatch, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.FastPath != c.fast {
			t.Errorf("%s: fast path %v, want %v", c.name, res.FastPath, c.fast)
		}
	}
}
