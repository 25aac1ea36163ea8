package fuzz

import (
	"encoding/json"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"kidx/model"
	"kidx/props"
)

// Issue 23: "The differential fuzzer covers it". The model's replicas (model.ReplicaSet) and
// the file-backed ones (segment.ReplicaSet, which parses the workload itself and serves each
// fetch by reading the leader's files) agree on props' replicated workloads at the edges
// (tiny indexes, restarts and recovers of any replica, elections, followers starting inside a
// leader segment), under per-batch (where followers throw), per-append and both candidate
// fixes: every replica's events, log end offset and files byte for byte.
func TestReplicatedModelAgreesWithFiles(t *testing.T) {
	defer capRapidChecks(t, 1000)()
	fixA, fixB := model.EraForRule(model.PerBatch), model.EraForRule(model.PerBatch)
	fixA.ID, fixA.Candidate, fixA.RollWhenAppendLacksIndexRoom = "fix-a", fixA.ID, true
	fixB.ID, fixB.Candidate, fixB.SkipEntryWhenIndexFull = "fix-b", fixB.ID, true
	eras := []model.Era{model.EraForRule(model.PerBatch), model.EraForRule(model.PerAppend), fixA, fixB}
	compared, threw := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		era := rapid.SampledFrom(eras).Draw(t, "era")
		c := props.ReplicaCaseGen(props.ReplicaGenOptions{Era: era, MaxOps: 25, Recovers: true}).Draw(t, "case")
		var cand *model.Era
		if era.Candidate != "" {
			cand = &era
		}
		d, err := CheckReplicated(c.Workload, cand)
		if errors.Is(err, ErrSkip) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			js, _ := json.Marshal(c.Workload)
			t.Fatalf("%s: %s\n%s", d.Kind, d.What, js)
		}
		compared++
		rs, _ := c.Run()
		for _, e := range rs.Events() {
			if e.Kind == model.EventTimeIndexFull || e.Kind == model.EventOffsetIndexFull {
				threw++
				break
			}
		}
	})
	// A differential test that skipped every case, or never met a throw, would pass vacuously.
	if compared == 0 || threw == 0 {
		t.Fatalf("%d cases compared, %d with an index overflow: want some of each", compared, threw)
	}
	t.Logf("%d cases compared, %d with an index overflow", compared, threw)
}
