package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replicatedWorkload is issue 23's reproduction as a workload file (docs/contract.md
// §3.1): 547 produces of one 5070-byte batch, the follower's 1 MiB fetches with a clean
// restart after the first, under segment.index.bytes 4096 and the given release.
func replicatedWorkload(t *testing.T, dir, version string) string {
	t.Helper()
	var steps []string
	for o := range 547 {
		steps = append(steps, fmt.Sprintf(`{"append": [{"records": 1, "bytes": 5070, "maxTimestamp": %d}]}`, 1700000000000+o))
	}
	steps = append(steps, `{"fetch": 1}`, `{"restart": true, "replica": 1}`, `{"fetch": 1}`, `{"fetch": 1}`)
	return writeFile(t, dir, "replicated-"+version+".json", `{"config": {"segment.bytes": 1073741824, "index.interval.bytes": 4096, "segment.index.bytes": 4096},
		"kafkaVersion": "`+version+`", "replicas": {"count": 2, "fetchMaxBytes": 1048576}, "steps": [`+strings.Join(steps, ", ")+`]}`)
}

// Issue 23: kidx write of a replicated workload writes DIR/replica-0 and DIR/replica-1; under
// Kafka 4.1.0 the follower's third fetch throws at step 550 (547 produces, fetch, restart,
// fetch, fetch) with the time index at 340 entries (worked by hand in
// testdata/scenarios/follower-overflow.txt); under 4.0.0 (per-append) nothing throws.
func TestWriteReplicatedFollowerOverflow(t *testing.T) {
	in := t.TempDir()
	dir := filepath.Join(t.TempDir(), "p")
	out, errOut, code := runKidx(t, "write", "--workload", replicatedWorkload(t, in, "4.1.0"), "--dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"wrote 2 replicas to " + dir + " (leader at the end: replica 0)",
		"replica-0: 2 segments, next offset 547\n  00000000000000000000.log\n  00000000000000000341.log\n",
		"replica-1: 1 segment, next offset 341, failed at step 550\n", // UnifiedLog never advanced the log end offset past the append that threw
		"  event at step 550: time-index-overflow: Attempt to append to a full time index (size = 340).\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "replica-0 replica-1" {
		t.Fatalf("%s holds %v", dir, names)
	}

	dir400 := filepath.Join(t.TempDir(), "p")
	out, errOut, code = runKidx(t, "write", "--workload", replicatedWorkload(t, in, "4.0.0"), "--dir", dir400, "--format", "json")
	if code != 0 {
		t.Fatalf("4.0.0: exit %d: %s", code, errOut)
	}
	var res struct {
		Leader   int `json:"leader"`
		Replicas []struct {
			Dir        string            `json:"dir"`
			Segments   []int64           `json:"segments"`
			NextOffset int64             `json:"nextOffset"`
			FailedAt   int               `json:"failedAt"`
			Events     []json.RawMessage `json:"events"`
		} `json:"replicas"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Replicas) != 2 || res.Replicas[1].Dir != "replica-1" || res.Replicas[1].FailedAt != -1 || len(res.Replicas[1].Events) != 0 || res.Replicas[1].NextOffset != 547 {
		t.Fatalf("4.0.0 result: %s", out)
	}
	// One offset-index entry in the follower's one segment (546 at 341*5070): 8 bytes.
	if st, err := os.Stat(filepath.Join(dir400, "replica-1", "00000000000000000000.index")); err != nil || st.Size() != 8 {
		t.Fatalf("4.0.0 follower index: %v, %v", st, err)
	}
}

// The refusals kidx write makes for a single log hold in a replicated workload (exit 2, nothing
// written): a roll step, a legacy batch, a compressed one, an offset gap, and the replicated form's own (a
// lagging election, found while the steps run, and the "batches" form).
func TestWriteReplicatedRefusals(t *testing.T) {
	in := t.TempDir()
	const head = `{"replicas": {"count": 2}, "steps": [{"append": [{"records": 1, "bytes": 100}]}, `
	for _, tc := range []struct{ name, steps, want string }{
		{"roll", `{"roll": true, "replica": 1}]}`, "step 1: a roll step"},
		{"legacy", `{"append": [{"records": 1, "bytes": 100, "magic": 1}]}]}`, "magic 1: the file writer writes v2 batches only"},
		{"compressed", `{"append": [{"records": 1, "bytes": 100, "compressed": true}]}]}`, "compressed: name the codec the file writer is to compress with"},
		{"offset gap", `{"append": [{"records": 1, "bytes": 100, "baseOffset": 5}]}]}`, "baseOffset 5: the file writer assigns a replicated workload's offsets one after another"},
		{"lagging election", `{"elect": 1}]}`, "elect: replica 1 is not caught up: its log ends at offset 0, the leader's (replica 0) at 1"},
		{"batches form", ``, `a replicated workload ("replicas") is written as "steps"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := head + tc.steps
			if tc.steps == "" {
				body = `{"replicas": {"count": 2}, "batches": [{"records": 1, "bytes": 100}]}`
			}
			parent := t.TempDir()
			_, errOut, code := runKidx(t, "write", "--workload", writeFile(t, in, tc.name+".json", body), "--dir", filepath.Join(parent, "p"))
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d (want 2), %q; want it to contain %q", code, errOut, tc.want)
			}
			if names := dirNames(t, parent); len(names) != 0 {
				t.Fatalf("the refused write left %v", names)
			}
		})
	}
}
