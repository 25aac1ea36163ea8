package fuzz

import (
	"errors"
	"testing"

	"kidx/model"
)

// TestCleanStepsAgree pins issue 25's differential: generated workloads with clean steps (drops,
// rewrites, delete horizons, small and growing buffers, uncleanable offsets) give the same
// segments, indexes and events on the model and on the files.
func TestCleanStepsAgree(t *testing.T) {
	compared, cleans := agreeOnGenerated(t, 25, func(s model.Step) bool { return s.Clean != nil })
	if compared < cleanAgreeCases()/4 {
		t.Fatalf("only %d of %d cases with clean steps were compared", compared, cleanAgreeCases())
	}
	t.Logf("%d workloads with %d clean steps compared", compared, cleans)
}

func cleanAgreeCases() int {
	if testing.Short() {
		return 150
	}
	return 600
}

// agreeOnGenerated checks the generated workloads (GenOptions.Clean) of seed that hold a step
// counted by counts, model against files; it returns how many were compared and how many
// counted steps they held. A divergence fails the test with its shrunk reproduction.
func agreeOnGenerated(t *testing.T, seed uint64, counts func(model.Step) bool) (compared, steps int) {
	t.Helper()
	for i := range int64(cleanAgreeCases()) {
		w := CaseWorkload(seed, i, GenOptions{MaxSteps: 24, Clean: true})
		n := 0
		for _, s := range w.Steps {
			if counts(s) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		d, err := Check(w, inMemory)
		if errors.Is(err, ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if d != nil {
			d = Shrink(d, inMemory, 300)
			repro, _ := MarshalReproduction(d)
			t.Fatalf("case %d: model and files diverge: %s: %s\nreproduction:\n%s", i, d.Kind, d.What, repro)
		}
		compared++
		steps += n
	}
	return compared, steps
}

// cleanCrashWorkload is segment/clean_test.go's workload with a clean restart before the clean
// (so that every batch is durable when the clean starts): two rolled segments, 0 (b0 0-1, b1 2,
// b2 3) and 4 (b3 4-5, b4 6), cleaned into one (b1 dropped, b3 rebuilt at 80 bytes with a delete
// horizon) through a 120-byte buffer.
const cleanCrashWorkload = `{"config": {"segment.bytes": 1000, "index.interval.bytes": 100, "segment.index.bytes": 120, "segment.ms": 50},
 "rule": "per-batch",
 "steps": [
  {"append": [{"records": 2, "bytes": 100, "maxTimestamp": 1000}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1001}]},
  {"append": [{"records": 1, "bytes": 150, "maxTimestamp": 1002}]},
  {"append": [{"records": 2, "bytes": 120, "maxTimestamp": 1100}]},
  {"append": [{"records": 1, "bytes": 100, "maxTimestamp": 1101}]},
  {"append": [{"records": 1, "bytes": 80, "maxTimestamp": 1200}]},
  {"restart": true},
  {"clean": {"drop": [2], "rewrite": [{"baseOffset": 4, "bytes": 80, "maxTimestamp": 1099, "deleteHorizonMs": 5000}], "ioBufferSize": 120}},
  {"append": [{"records": 1, "bytes": 90, "maxTimestamp": 1201}]}
 ]}`

// TestCrashExplorationCleanSwap pins issue 25's "a crash in the middle of a swap recovered as
// LogLoader completes or discards it" through the crash explorer: every crash point of the
// workload (the clean's 37 operations among them), under eight seeds, reloads to a log the
// model agrees with given the clean whole or not at all; and the explorer reports Kafka's
// overlap hazard, which only unsynced names surviving out of order give (docs/crash.md).
func TestCrashExplorationCleanSwap(t *testing.T) {
	w, err := model.ParseWorkload([]byte(cleanCrashWorkload))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	explored := 0
	for seed := range uint64(8) {
		res, err := ExploreCrashes(w, &CrashOptions{Seed: seed, MaxPoints: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Divergences {
			wl, _ := d.Workload.MarshalJSON()
			t.Fatalf("seed %d: %s: %s\nworkload: %s", seed, d.Kind, d.What, wl)
		}
		for _, f := range res.Findings {
			kinds[f.Kind] = true
		}
		explored += res.Explored
		if res.Points < 37 {
			t.Fatalf("%d crash points: the clean's operations are not all crash points", res.Points)
		}
	}
	if !kinds[FindingSwapOverlap] {
		t.Errorf("findings %v: no %s in %d explored points", kinds, FindingSwapOverlap, explored)
	}
}

// TestCleanedIndexOverflowAgrees replays props' CleanedIndexNeverOverflows counterexample
// (props/testdata/cleaned-index-overflow.json) with time-based rolls in place of its roll steps,
// which the file writer does not take: segments 0 (b0, ts 1000) and 1 (b1, b2, ts 1100) group
// (68 + 136 <= segment.bytes 204; time indexes 12 + 12 <= 24), and the cleaned segment's
// counter runs across their boundary, so b2 needs a second time-index entry where the 24-byte
// index holds one beside its reserved slot: both sides throw at the clean step.
func TestCleanedIndexOverflowAgrees(t *testing.T) {
	w, err := model.ParseWorkload([]byte(`{"config":{"index.interval.bytes":0,"max.message.bytes":150,"segment.bytes":204,"segment.index.bytes":24,"segment.ms":50},
 "kafkaVersion":"3.9.1","startOffset":0,
 "steps":[{"append":[{"records":1,"bytes":68,"maxTimestamp":1000}]},
  {"append":[{"records":1,"bytes":68,"maxTimestamp":1100}]},
  {"append":[{"records":1,"bytes":68,"maxTimestamp":1100}]},
  {"append":[{"records":1,"bytes":68,"maxTimestamp":1200}]},
  {"clean":{"ioBufferSize":64}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	w.KafkaVersion, w.Rule = "", "per-batch" // the harness resolves rules; 3.9.1 writes per batch
	d, err := Check(w, inMemory)
	if err != nil {
		t.Fatal(err)
	}
	if d != nil {
		t.Fatalf("%s: %s", d.Kind, d.What)
	}
	r, _ := Resolve(w)
	ml, err := model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true)
	if err != nil {
		t.Fatal(err)
	}
	if ev := ml.Events(); len(ev) != 1 || ev[0].Kind != "time-index-overflow" || ev[0].Step != 4 {
		t.Fatalf("events %+v, want one time-index-overflow at step 4", ev)
	}
}

// TestRecoveryPointStepsAgree pins issue 25's other new step: a recover step with a recovery
// point (docs/contract.md §3 "recover": every segment from the one holding it is recovered, as
// LogLoader does past the recovery-point checkpoint) gives the same segments, indexes and events
// on the model (Log.RecoverFrom) and on the files (segment.Log.RecoverFrom).
func TestRecoveryPointStepsAgree(t *testing.T) {
	compared, points := agreeOnGenerated(t, 26, func(s model.Step) bool { return s.HasRecoveryPoint })
	if compared < cleanAgreeCases()/8 {
		t.Fatalf("only %d of %d cases with a recovery point were compared", compared, cleanAgreeCases())
	}
	t.Logf("%d workloads with %d recover steps from a recovery point compared", compared, points)
}
