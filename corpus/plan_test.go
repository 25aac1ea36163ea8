package corpus

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"kidx/model"
)

// kidx diff --against shrinks a case by writing it again from a smaller workload with the same
// plan (docs/against.md, "Shrinking"). The plan of a case must write the case itself again:
// the same partition bytes, damage and answers (the offsets asked are all of them in a small
// case, so the answers do not depend on the sample seed).
func TestWriteWorkloadCaseRewritesTheCase(t *testing.T) {
	dir, res := sharedCorpus(t)
	if res.Cases != sharedCount {
		t.Fatalf("%d cases", res.Cases)
	}
	again := t.TempDir()
	damaged := 0
	for i := range 40 {
		exp, w := readCase(t, filepath.Join(dir, CaseName(i)))
		c, err := WriteCase(t.TempDir(), Options{Seed: sharedSeed}, i) // for its Plan
		if err != nil {
			t.Fatal(err)
		}
		re, err := WriteWorkloadCase(again, CaseName(i), w, c.Plan, 99)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		orig, copy := readTree(t, filepath.Join(dir, CaseName(i), Partition)), readTree(t, filepath.Join(re.Dir, Partition))
		if len(orig) != len(copy) {
			t.Fatalf("case %d: %d files, rewritten %d", i, len(orig), len(copy))
		}
		for name, data := range orig {
			if !bytes.Equal(copy[name], data) {
				t.Errorf("case %d: %s differs when rewritten from its plan", i, name)
			}
		}
		if (exp.Damage == nil) != (re.Expected.Damage == nil) || (exp.Damage != nil && *exp.Damage != *re.Expected.Damage) {
			t.Errorf("case %d: damage %+v, rewritten %+v", i, exp.Damage, re.Expected.Damage)
		}
		if exp.Damage != nil {
			damaged++
		}
		if len(exp.Segments) != len(re.Expected.Segments) {
			t.Fatalf("case %d: segments differ", i)
		}
		for s := range exp.Segments {
			a, b := exp.Segments[s], re.Expected.Segments[s]
			if len(a.Lookups) != len(b.Lookups) || (len(a.Lookups) > 0 && a.Lookups[len(a.Lookups)-1] != b.Lookups[len(b.Lookups)-1]) {
				t.Errorf("case %d segment %d: lookups differ", i, s)
			}
		}
	}
	if damaged == 0 {
		t.Fatal("no damaged case among the first 40: the test checks nothing of the damage plan")
	}
}

// A plan's damage on a workload that cannot take it (a swap of index entries needs two in one
// segment) is ErrDamageDoesNotFit; a workload that writes no batch is ErrUnusable.
func TestWriteWorkloadCaseRefusals(t *testing.T) {
	one := model.Workload{Rule: "per-batch", Config: map[string]int64{},
		Steps: []model.Step{{Append: []model.Batch{{Records: 1, Bytes: 100, MaxTimestamp: model.NoTimestamp}}}}}
	swap := Plan{Rule: "per-batch", Damage: &DamagePlan{Kind: DamageIndexOutOfOrder}}
	if _, err := WriteWorkloadCase(t.TempDir(), "c", one, swap, 1); !errors.Is(err, ErrDamageDoesNotFit) {
		t.Errorf("one batch, no index entry, swap damage: %v, want ErrDamageDoesNotFit", err)
	}
	empty := model.Workload{Rule: "per-batch", Config: map[string]int64{}, Steps: []model.Step{{Restart: true}}}
	if _, err := WriteWorkloadCase(t.TempDir(), "c", empty, Plan{Rule: "per-batch"}, 1); !errors.Is(err, ErrUnusable) {
		t.Errorf("a workload of no batch: %v, want ErrUnusable", err)
	}
	// The one batch takes a torn .log; the damage names the .log at a byte inside the batch.
	torn := Plan{Rule: "per-batch", Damage: &DamagePlan{Kind: DamageLogTruncated, Pick: 5 << 8}}
	c, err := WriteWorkloadCase(t.TempDir(), "c", one, torn, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Expected.Damage; d == nil || d.File != filepath.Join(Partition, "00000000000000000000.log") || d.Byte != 6 {
		// cut = position 0 + 1 + (pick>>8) % (size-1) = 1 + 5 = 6 (damage.go apply)
		t.Errorf("damage %+v, want the .log cut at byte 6", d)
	}
}
