package main

import (
	"encoding/json"
	"strings"
	"testing"

	"kidx/against"
	"kidx/corpus"
	"kidx/internal/realdata"
)

// Issue 14: "a correct adapter passes 1,000 cases". The Go reference adapter (examples/goreader,
// written from Kafka's rules with no kidx package) answers every query of 1,000 generated
// cases, damaged ones included, as kidx does.
func TestGoReaderPasses1000Cases(t *testing.T) {
	rep := runAgainst(t, 0, "--against", shellQuote(goReader(t)), "--cases", "1000", "--seed", "1400")
	if rep.Cases != 1000 || rep.DivergentCases != 0 || rep.Queries < 100000 {
		t.Fatalf("%d cases, %d queries, %d divergent", rep.Cases, rep.Queries, rep.DivergentCases)
	}
}

// Issue 14: "a planted bug in a copy of the reference adapter (e.g. >= instead of > in phase 1,
// a missed zero-tail stop) is found and shrunk". Each plant is one source line of the Go
// adapter changed (go build -overlay); each must be found as the divergence its rule predicts,
// shrunk to one query, and the shrunk case must fail the planted reader and pass the real one.
func TestPlantedGoReaderBugsAreFoundAndShrunk(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		kind, damage   string
		why            string
	}{
		{"phase 1 >= instead of >", "case k > target:", "case k >= target:", against.MismatchStart, "",
			// AbstractIndex.binarySearch moves hi below an equal key: a lookup of an offset an
			// entry names starts at the entry before it.
			"an offset an entry names starts one entry early"},
		{"no zero-tail stop", "if relativeAt(raw, i) == 0 {", "if false && relativeAt(raw, i) == 0 {", against.MismatchStart, corpus.DamageLiveZeroTail,
			// The preallocated slots (base offset, position 0) become entries; Kafka's search
			// lands on them for every target past the base.
			"a live index's zero slots read as entries at position 0"},
		{"torn tail trusted", "if pos > end-logOverhead-size {", "if false && pos > end-logOverhead-size {", against.MismatchHit, corpus.DamageLogTruncated,
			// FileLogInputStream.nextBatch ends the log at a batch that runs past the file.
			"a batch cut by the end of the file is a hit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := plantedGoReader(t, tc.old, tc.new)
			out := t.TempDir()
			rep := runAgainst(t, 1, "--against", shellQuote(bin), "--cases", "200", "--seed", "1401", "--out", out, "--shrink-budget", "150")
			var found *againstJSON
			for i, d := range rep.Divergences {
				if d.Kind == tc.kind && d.Damage == tc.damage {
					found = &againstJSON{Divergences: rep.Divergences[i : i+1]}
				}
			}
			if found == nil {
				t.Fatalf("%s: no %s divergence on damage %q in %d cases: %+v", tc.why, tc.kind, tc.damage, rep.Cases, rep.Divergences)
			}
			s := found.Divergences[0].Shrunk
			if s == nil || len(s.Queries) != 1 || s.Steps > 4 {
				t.Fatalf("not shrunk to one query and a few steps: %+v", s)
			}
			if exp, _, err := corpus.ReadCase(s.Dir); err != nil || (tc.damage != "") != (exp.Damage != nil) || (exp.Damage != nil && exp.Damage.Kind != tc.damage) {
				t.Fatalf("shrunk case %s: %v, damage %+v, want %q", s.Dir, err, exp, tc.damage)
			}
			replay := runAgainst(t, 1, "--against", shellQuote(bin), "--corpus", s.Dir)
			if len(replay.Divergences) != 1 || replay.Divergences[0].Kind != tc.kind {
				t.Fatalf("the shrunk case does not fail the planted reader again: %+v", replay)
			}
			runAgainst(t, 0, "--against", shellQuote(goReader(t)), "--corpus", s.Dir)
		})
	}
}

// The Python reference adapter, which CI runs (python3 is there): a reader written from
// Kafka's rules with the standard library only passes generated cases, damaged ones included.
func TestPythonReaderPasses(t *testing.T) {
	rep := runAgainst(t, 0, "--against", pythonReader(t), "--cases", "150", "--seed", "1402")
	if rep.Cases != 150 || rep.DivergentCases != 0 {
		t.Fatalf("%+v", rep)
	}
}

// Issue 14, item 3: what kidx diff --against finds in the seed post's reader (docs/background.md;
// docs/against.md, "The seed post's reader"). By the post's code (docs/background.md): on files written whole it follows Kafka (its
// zero-position stop ends a live index where the valid entries end, since Kafka never indexes
// position 0: the check runs before the increment), so undamaged cases and live zero tails
// agree; it trusts a torn batch's header (a hit where Kafka's reader ends the log) and never
// reports corrupt data (a hostile length: a position, an exception on a negative seek, or, for
// -12, a walk that stands still: pos += 12 + length).
func TestSeedPostReaderFindings(t *testing.T) {
	rep := runAgainst(t, 1, "--against", pythonReader(t, "--seed-post"), "--cases", "110", "--seed", "3", "--out", t.TempDir(),
		"--shrink-budget", "10", "--timeout", "3s")
	got := map[string]bool{}
	for _, d := range rep.Divergences {
		got[d.Kind+" on "+d.Damage] = true
		if d.Damage == "" || d.Damage == corpus.DamageLiveZeroTail {
			t.Errorf("divergence %s on damage %q: the post's reader follows Kafka there: %+v", d.Kind, d.Damage, d)
		}
		if d.Shrunk == nil || len(d.Shrunk.Queries) != 1 {
			t.Errorf("%s on %s: not shrunk to one query: %+v", d.Kind, d.Damage, d.Shrunk)
		}
	}
	if !got[against.MismatchHit+" on "+corpus.DamageLogTruncated] {
		t.Errorf("no hit on a torn .log: %v", got)
	}
	for _, k := range []string{against.MismatchMissedError, against.FailCrash, against.FailHang} {
		if !got[k+" on "+corpus.DamageHostileLength] {
			t.Errorf("no %s on a hostile length: %v", k, got)
		}
	}
}

// The adapters on the real brokers' directories (../shared/realdata, Kafka 0.8 to 4.2, read
// after restoring into a temporary directory): the Go and Python readers agree with kidx on
// every one. The seed post's reader (docs/background.md) diverges exactly where its code meets
// what it does not know (docs/against.md): the magic-0 logs of kafkalite (Kafka 0.8/0.9, README of the data:
// it reads a v2 field, the last offset delta, out of a v0 message's key and value), and the
// segments without a .index (codecrafters' two logs, donaldy's myTopic-0, and the six
// partitions whose index files were never fetched, realdata.IndexFilesNotFetched: it opens the
// index unconditionally and dies; Kafka and kidx read no entry). The Python readers get 120 s
// a partition: without an index, k42's 16,464-batch metadata log walks from byte 0 for each of
// its 1,831 queries (11 s here for the correct reader, a slow answer and not a hang). Of the
// second collection's 236 partitions that hold only an empty segment (one shape, which the
// first collection has too), the Python readers (a process each, started per partition) are
// asked about the first of each origin; the Go reader about every one.
func TestAdaptersOnRealDirectories(t *testing.T) {
	root := realdata.Restore(t)
	goBin := shellQuote(goReader(t))
	py, seed := pythonReader(t), pythonReader(t, "--seed-post")
	wantSeedPost := map[string]string{
		"kafkalite/hamlet-gzip-0": against.MismatchHit, "kafkalite/hamlet-none-0": against.MismatchHit,
		"kafkalite/hamlet-snappy-0": against.MismatchHit, "kafkalite/numbers-0": against.MismatchHit,
		"codecrafters-go/__cluster_metadata-0": against.FailCrash, "codecrafters-gleam/__cluster_metadata-0": against.FailCrash,
		"donaldy/myTopic-0": against.FailCrash,
	}
	for _, name := range realdata.IndexFilesNotFetched {
		wantSeedPost[name] = against.FailCrash
	}
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	emptyAsked := map[string]bool{} // origin -> its first empty partition was asked
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		readers := []string{goBin, py}
		if origin, _, _ := strings.Cut(name, "/"); realdata.SecondCollectionEmpty(name) {
			if emptyAsked[origin] {
				readers = readers[:1]
			}
			emptyAsked[origin] = true
		}
		for _, r := range readers {
			if rep := runAgainst(t, 0, "--against", r, "--timeout", "120s", "--dir", dir); rep.Queries == 0 {
				t.Errorf("%s: no query asked", name)
			}
		}
		if len(readers) == 1 {
			continue
		}
		want, diverges := wantSeedPost[name]
		out, errOut, code := runKidx(t, "diff", "--format", "json", "--against", seed, "--timeout", "120s", "--dir", dir)
		var rep againstJSON
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: the --seed-post reader: exit %d, %v\n%s", name, code, err, errOut)
		}
		switch {
		case !diverges && code != 0:
			t.Errorf("%s: the --seed-post reader diverges (exit %d: %+v), want agreement", name, code, rep.Divergences)
		case diverges && (code != 1 || len(rep.Divergences) == 0):
			t.Errorf("%s: the --seed-post reader: exit %d, %+v; want exit 1, %s divergences", name, code, rep.Divergences, want)
		case diverges:
			// One kind; groups split it by kidx's reason (a legacy batch's hit is one).
			for _, d := range rep.Divergences {
				if d.Kind != want {
					t.Errorf("%s: the --seed-post reader: a %s divergence, want %s only", name, d.Kind, want)
				}
			}
		}
	}
}
