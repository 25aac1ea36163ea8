package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kidx check --replicas (issue 23): the follower overflow is a finding under per-batch
// (exit 0), its counterexample written with --out replays with kidx sim; under fix (a)'s
// era spec the follower's property is an invariant that holds.
func TestCheckReplicasFindsFollowerOverflowAndReplays(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--replicas", "--seed", "1", "--checks", "300", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "FINDING FollowerAppendNeverOverflows") {
		t.Fatalf("%s", out.String())
	}
	path := filepath.Join(dir, "FollowerAppendNeverOverflows.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"sim", "--workload", path}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Attempt to append to a full") {
		t.Fatalf("replay: exit %d: %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	spec := fixASpec
	if code := run([]string{"check", "--replicas", "--seed", "1", "--checks", "300", "--era-spec", spec}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "FollowerAppendNeverOverflows  invariant  300") {
		t.Fatalf("fix (a): exit %d: %s %s", code, out.String(), errb.String())
	}
}

// kidx prove --replicas: the default space's per-batch searches find the follower overflow
// (a finding), the per-append ones prove it.
func TestProveReplicas(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"prove", "--replicas"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errb.String())
	}
	s := out.String()
	if strings.Count(s, "FollowerAppendNeverOverflows   finding") != 2 || strings.Count(s, "FollowerAppendNeverOverflows   proved") != 2 {
		t.Fatalf("%s", s)
	}
}
