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
