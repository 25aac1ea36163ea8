package smt

import (
	"context"
	"encoding/json"
	"testing"
)

func TestScratch(t *testing.T) {
	z := needZ3(t)
	rep, err := Prove(context.Background(), Options{Solver: z})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Properties {
		t.Logf("%s: %s k=%d %.2fs %s", r.Name, r.Result, r.K, r.Seconds, r.Note)
		if r.Counterexample != nil {
			b, _ := json.Marshal(r.Counterexample)
			t.Logf("  %s", b)
		}
	}
}
