package main

import (
	"os"
	"os/exec"
	"testing"
)

// Issue 26, "Stable JSON": the checking commands' documents (check, prove, diff, sim, each
// mode) validated against docs/schema/kidx.<command>[.<mode>].1.json, with small settings so
// that all of them take a few seconds.
func init() {
	fixed := func(args ...string) func(*testing.T) []string {
		return func(*testing.T) []string { return args }
	}
	schemaCases = append(schemaCases,
		schemaCase{name: "check", want: checkSchema, args: fixed("check", "--checks", "20", "--seed", "3", "--format", "json")},
		schemaCase{name: "check-exhaustive", want: checkSchema, args: fixed("check", "--exhaustive", "--max-len", "2", "--format", "json")},
		schemaCase{name: "check-era-spec", want: checkSchema, exits: []int{1},
			args: fixed("check", "--era-spec", "../../examples/eras/fix-b-skip-entry-when-full.json", "--checks", "20", "--seed", "3", "--format", "json")},
		schemaCase{name: "check-clean", want: checkCleanSchema, args: fixed("check", "--clean", "--checks", "20", "--seed", "3", "--format", "json")},
		schemaCase{name: "check-replicas", want: checkReplicasSchema, args: fixed("check", "--replicas", "--checks", "20", "--seed", "3", "--format", "json")},
		// --rule both: one document per rule, one per line.
		schemaCase{name: "prove", want: proveSchema, lines: true,
			args: fixed("prove", "--alphabet", "68,100", "--segments", "600", "--intervals", "0,100", "--index-bytes", "24", "--max-append", "1", "--format", "json")},
		schemaCase{name: "prove-parametric", want: proveParametricSchema, args: func(t *testing.T) []string {
			needZ3Binary(t)
			return []string{"prove", "--parametric", "--format", "json", "--out", t.TempDir()}
		}},
		schemaCase{name: "prove-replicas", want: proveReplicasSchema, lines: true,
			args: fixed("prove", "--replicas", "--rule", "per-batch", "--alphabet", "68", "--index-bytes", "24,36", "--format", "json")},
		schemaCase{name: "diff", want: diffSchema, args: fixed("diff", "--cases", "20", "--seed", "7", "--format", "json")},
		schemaCase{name: "diff-crash", want: diffCrashSchema, args: fixed("diff", "--crash", "--cases", "1", "--seed", "7", "--format", "json")},
		// A reader one byte late on every hit: divergences with their shrunk cases.
		schemaCase{name: "diff-against", want: diffAgainstSchema, exits: []int{1}, args: func(t *testing.T) []string {
			diffAgainstReader = lateHitReader{}
			t.Cleanup(func() { diffAgainstReader = nil })
			return []string{"diff", "--against", "in-process", "--cases", "20", "--seed", "5", "--shrink-budget", "5", "--out", t.TempDir(), "--format", "json"}
		}},
		schemaCase{name: "sim", want: simSchema, args: fixed("sim", "--records", "50", "--batch-records", "5", "--batch-bytes", "300", "--format", "json")},
		// A follower's fetch of two batches meets a full time index (the replicated
		// counterexample of docs/props.md, "Replicas"): an event, a failed replica.
		schemaCase{name: "sim-replicas", want: simReplicasSchema, args: func(t *testing.T) []string {
			w := writeFile(t, t.TempDir(), "w.json", `{"config":{"index.interval.bytes":67,"segment.bytes":2040,"segment.index.bytes":24},
"rule":"per-batch","startOffset":0,"replicas":{"count":2,"fetchMaxBytes":136,"startOffsets":[0,1]},
"steps":[{"append":[{"records":1,"bytes":68,"maxTimestamp":1000}]},{"elect":1},{"append":[{"records":1,"bytes":68,"maxTimestamp":1001}]},
{"append":[{"records":1,"bytes":68,"maxTimestamp":1002}]},{"fetch":0}]}`)
			return []string{"sim", "--workload", w, "--format", "json"}
		}},
	)
}

// needZ3Binary skips the test without z3 outside CI, and fails it under CI (`make test`
// installs z3), as props/smt's tests do.
func needZ3Binary(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("z3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("z3 is not installed and CI is set: run `make z3` (apt-get install z3)")
		}
		t.Skip("SKIPPED: z3 is not installed (make z3, or apt-get install z3): kidx prove --parametric's JSON is not checked")
	}
}
