package against

import (
	"context"
	"os"
	"slices"
	"testing"

	"kidx/corpus"
	"kidx/segment"
)

// shiftedHitReader is kidx's reader with every hit one byte late: a reader's bug that shows
// on every query with a hit, whatever rule decided kidx's answer.
type shiftedHitReader struct{}

func (shiftedHitReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	as, err := KidxReader{}.Answer(ctx, partition, rules, qs)
	for i := range as {
		if as[i].Err == nil && as[i].Hit >= 0 {
			as[i].Hit++
		}
	}
	return as, err
}

// Issue 24, "--against for real storage layers": divergences are grouped by kind, damage
// kind and kidx's reason, each group listing its cases. Every case of every group is checked
// again on its own (written, asked, compared: its first mismatch's kind, kidx's reason and the
// damage kind are the group's), the lists add up to the divergent cases, and on the reopened
// view the zero-tail damage splits in two groups: kidx's plain answers and the ones its
// reopened-zero-slot rule decided (seed 5 has one such case, 178). Each group's first case is
// shrunk to a case that still shows the group's kind and reason.
func TestGroupsKeyedByKindDamageAndReason(t *testing.T) {
	o := Options{Seed: 5, Cases: 200, Workers: 2, Reader: shiftedHitReader{}, Release: "4.1+", IndexView: "reopened", Out: t.TempDir(), ShrinkBudget: 40}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	co := corpus.Options{Seed: o.Seed, Release: o.Release, IndexView: o.IndexView}
	scratch := t.TempDir()
	var listed int64
	keys := map[string]bool{}
	for _, d := range rep.Divergences {
		if keys[d.Key()] {
			t.Errorf("two groups %q", d.Key())
		}
		keys[d.Key()] = true
		if int64(len(d.CaseList)) != d.Cases || !slices.IsSorted(d.CaseList) || d.CaseList[0] != d.Case {
			t.Errorf("%s: case %d, %d cases, list %v", d.Key(), d.Case, d.Cases, d.CaseList)
		}
		listed += d.Cases
		if s := d.Shrunk; s == nil || s.Mismatch == nil || s.Kind != d.Kind || s.Mismatch.Want.Reason != d.Reason {
			t.Errorf("%s: shrunk to %+v", d.Key(), s)
		}
		for _, i := range d.CaseList {
			c, err := corpus.WriteCase(scratch, co, int(i))
			if err != nil {
				t.Fatal(err)
			}
			q := QuestionsOf(c.Expected)
			got, err := shiftedHitReader{}.Answer(context.Background(), c.Dir+"/"+corpus.Partition, q.Rules, q.Queries)
			if err != nil {
				t.Fatal(err)
			}
			ms := Compare(q, got)
			damage := ""
			if c.Expected.Damage != nil {
				damage = c.Expected.Damage.Kind
			}
			wantDamage := ""
			if d.Damage != nil {
				wantDamage = d.Damage.Kind
			}
			if len(ms) == 0 || ms[0].Kind != d.Kind || ms[0].Want.Reason != d.Reason || damage != wantDamage {
				t.Errorf("case %d in group %q: first mismatch %+v, damage %q", i, d.Key(), ms, damage)
			}
			os.RemoveAll(c.Dir)
		}
	}
	if listed != rep.Divergent {
		t.Errorf("groups list %d cases, %d diverged", listed, rep.Divergent)
	}
	plain, reasoned := "hit on live-index-zero-tail", "hit on live-index-zero-tail (kidx: "+segment.ReasonZeroSlot+")"
	if !keys[plain] || !keys[reasoned] {
		t.Errorf("groups %v: want both %q and %q", keys, plain, reasoned)
	}
}

// The group's key in words, written by hand: kind, then damage kind, then kidx's reason.
func TestDivergenceKey(t *testing.T) {
	for _, tc := range []struct {
		d    Divergence
		want string
	}{
		{Divergence{Kind: MismatchHit}, "hit"},
		{Divergence{Kind: MismatchHit, Damage: &corpus.Damage{Kind: "batch-header-byte-flip"}}, "hit on batch-header-byte-flip"},
		{Divergence{Kind: MismatchMissedError, Reason: "short-v2-header", Damage: &corpus.Damage{Kind: "hostile-length"}}, "missed-error on hostile-length (kidx: short-v2-header)"},
		{Divergence{Kind: FailHang}, "hang"},
	} {
		if got := tc.d.Key(); got != tc.want {
			t.Errorf("Key() = %q, want %q", got, tc.want)
		}
	}
}
