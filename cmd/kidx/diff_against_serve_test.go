package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/against"
	"kidx/corpus"
	"kidx/segment"
)

// docs/against.md, "--damage": none is the empty list (every case undamaged), kinds are
// corpus's names, an unknown one is refused with the list.
func TestParseDamageKinds(t *testing.T) {
	if k, err := parseDamageKinds("none"); err != nil || k == nil || len(k) != 0 {
		t.Errorf("none: %q, %v; want an empty, non-nil list", k, err)
	}
	if k, err := parseDamageKinds("hostile-length, index-out-of-order,hostile-length"); err != nil || !slices.Equal(k, []string{"hostile-length", "index-out-of-order"}) {
		t.Errorf("two kinds: %q, %v", k, err)
	}
	for _, bad := range []string{"bogus", "hostile-length,", "none,hostile-length"} {
		if _, err := parseDamageKinds(bad); err == nil || !strings.Contains(err.Error(), "log-truncated-in-batch, index-truncated-mid-entry") {
			t.Errorf("%q: %v, want a refusal listing the kinds", bad, err)
		}
	}
}

// The long-lived mode through the CLI: a shell reader that answers "no hit" to every query of
// each request line is started once for a single worker's whole campaign (it writes its pid
// once), and --damage none leaves every case undamaged.
func TestDiffAgainstServeStartsTheReaderOnce(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	sh := readerScript(t, `echo $$ >> "`+pids+`"
while read -r line; do
  n=$(printf '%s' "$line" | tr ',' '\n' | grep -c '"offset"'); i=0
  while [ $i -lt $n ]; do echo '{"start":0,"hit":-1}'; i=$((i+1)); done
done`)
	rep := runAgainst(t, 1, "--against", sh, "--serve", "--workers", "1", "--cases", "6", "--seed", "2", "--damage", "none", "--out", t.TempDir(), "--shrink-budget", "5")
	if rep.Cases != 6 || rep.DivergentCases == 0 {
		t.Fatalf("%d cases, %d divergent", rep.Cases, rep.DivergentCases)
	}
	for _, d := range rep.Divergences {
		if d.Damage != "" || d.Kind == against.FailCrash || d.Kind == against.FailProtocol || d.Kind == against.FailHang {
			t.Errorf("divergence %s on damage %q: %s", d.Kind, d.Damage, d.Reader)
		}
	}
	data, _ := os.ReadFile(pids)
	// The shrink asks the same long-lived reader: one process in all.
	if n := len(strings.Fields(string(data))); n != 1 {
		t.Errorf("the reader was started %d times for one worker", n)
	}
}

// plantedFloorReader is kidx's reader asked protocol 2 with floorSegment's <= planted as <:
// an offset equal to a segment's base offset is answered with the segment before.
type plantedFloorReader struct{}

func (plantedFloorReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []against.Query) ([]against.Answer, error) {
	as, err := against.KidxReader{}.Answer(ctx, partition, rules, qs)
	if err != nil {
		return nil, err
	}
	for i, q := range qs {
		if q.Kind == against.KindSegment && as[i].BaseOffset == q.Offset {
			below, err := against.KidxReader{}.Answer(ctx, partition, rules, []against.Query{{Kind: against.KindSegment, Offset: q.Offset - 1}})
			if err != nil {
				return nil, err
			}
			as[i] = below[0]
		}
	}
	return as, nil
}

// plantedTimeReader is kidx's reader asked protocol 2 with FileRecords.searchForTimestamp's >=
// planted as >: the record found is the first past the timestamp (from the same start).
type plantedTimeReader struct{}

func (plantedTimeReader) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []against.Query) ([]against.Answer, error) {
	as, err := against.KidxReader{}.Answer(ctx, partition, rules, qs)
	if err != nil {
		return nil, err
	}
	for i, q := range qs {
		if q.Kind == against.KindTimestamp && as[i].Err == nil && as[i].Timestamp == q.Timestamp {
			q.Timestamp++
			past, err := against.KidxReader{}.Answer(ctx, partition, rules, []against.Query{q})
			if err != nil {
				return nil, err
			}
			past[0].Start = as[i].Start
			as[i] = past[0]
		}
	}
	return as, nil
}

// Issue 24, "a planted bug per new protocol query kind is found and shrunk", through the CLI:
// diff --against --protocol 2 --damage none finds each bug's mismatch kind and shrinks it to
// one query of its kind; --corpus replays the shrunk case with the bug.
func TestDiffAgainstProtocol2PlantedBugs(t *testing.T) {
	for _, tc := range []struct {
		reader    against.Reader
		kind      string
		queryKind string
	}{
		{plantedFloorReader{}, against.MismatchSegment, against.KindSegment},
		{plantedTimeReader{}, against.MismatchTimeOffset, against.KindTimestamp},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			diffAgainstReader = tc.reader
			defer func() { diffAgainstReader = nil }()
			out := t.TempDir()
			rep := runAgainst(t, 1, "--against", "planted", "--protocol", "2", "--damage", "none", "--cases", "30", "--seed", "3", "--workers", "2", "--out", out, "--shrink-budget", "100")
			var found bool
			for _, d := range rep.Divergences {
				if d.Damage != "" {
					t.Errorf("a %s divergence on damage %s with --damage none", d.Kind, d.Damage)
				}
				if d.Kind != tc.kind {
					continue
				}
				found = true
				if d.Shrunk == nil || len(d.Shrunk.Queries) != 1 || d.Shrunk.Queries[0].Kind != tc.queryKind {
					t.Fatalf("shrunk %+v", d.Shrunk)
				}
				if _, err := os.Stat(filepath.Join(d.Shrunk.Dir, "expected.json")); err != nil {
					t.Fatal(err)
				}
				again := runAgainst(t, 1, "--against", "planted", "--protocol", "2", "--corpus", d.Shrunk.Dir)
				if again.Queries != 1 || len(again.Divergences) != 1 || again.Divergences[0].Kind != tc.kind {
					t.Errorf("replay: %+v", again)
				}
			}
			if !found {
				t.Fatalf("no %s divergence: %+v", tc.kind, rep.Divergences)
			}
		})
	}
}

// kidx corpus --damage: the kinds drawn are the ones asked.
func TestCorpusDamageFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c")
	if _, errOut, code := runKidx(t, "corpus", "--out", out, "--count", "12", "--seed", "4", "--damage", "hostile-length"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	damaged := 0
	for i := range 12 {
		exp, _, err := corpus.ReadCase(filepath.Join(out, corpus.CaseName(i)))
		if err != nil {
			t.Fatal(err)
		}
		if exp.Damage != nil {
			damaged++
			if exp.Damage.Kind != corpus.DamageHostileLength {
				t.Errorf("case %d damaged by %s", i, exp.Damage.Kind)
			}
		}
	}
	if damaged == 0 {
		t.Error("no case damaged")
	}
}
