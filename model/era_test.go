package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// docs/kafka.md §13.2 and §13.5, written out by hand: the era each release line's first and last
// releases fall in, with the boundaries where a rule moved.
func TestEraForVersion(t *testing.T) {
	cases := map[string]string{
		"0.8.0": "0.8.0-0.8.1", "0.8.1.1": "0.8.0-0.8.1",
		"0.8.2.0": "0.8.2-0.9.0", "0.8.2.2": "0.8.2-0.9.0", "0.9.0.1": "0.8.2-0.9.0",
		"0.10.0.0": "0.10.0", "0.10.0.1": "0.10.0",
		"0.10.1.0": "0.10.1", "0.10.1.1": "0.10.1",
		"0.10.2.0": "0.10.2", "0.10.2.2": "0.10.2",
		"0.11.0.3": "0.11-1.1", "1.0.2": "0.11-1.1", "1.1.1": "0.11-1.1",
		"2.0.0": "2.0-3.6", "2.2.2": "2.0-3.6", "2.3.0": "2.0-3.6", "2.8.2": "2.0-3.6", "3.6.2": "2.0-3.6",
		"3.7.0": "3.7-4.0.0", "3.7.2": "3.7-4.0.0", "3.8.0": "3.7-4.0.0", "3.8.1": "3.7-4.0.0", "3.9.0": "3.7-4.0.0", "4.0.0": "3.7-4.0.0",
		"3.8.2": "3.9.1-4.0.x", "3.9.1": "3.9.1-4.0.x", "3.9.2": "3.9.1-4.0.x", "4.0.1": "3.9.1-4.0.x", "4.0.2": "3.9.1-4.0.x",
		"4.1.0": "4.1-4.4", "4.1": "4.1-4.4", "4.3.1": "4.1-4.4", "4.4.0": "4.1-4.4",
		"4.5.0-SNAPSHOT": "4.5-trunk", "4.5": "4.5-trunk", "4": "3.7-4.0.0",
	}
	for ver, want := range cases {
		e, err := EraForKafkaVersion(ver)
		if err != nil || e.ID != want {
			t.Errorf("%s: era %q (%v), want %q", ver, e.ID, err, want)
		}
	}
}

// The facts of docs/kafka.md §13.2 that pick each era's rules, one per transition the issue
// names: 1.1 -> 2.0 (the entry's offset, recover's offset, the roll's base), 3.6 -> 3.7 (the
// time index), 4.0.0 -> 4.0.1 (per batch), 4.0.x -> 4.1 (header reads), 4.4 -> trunk
// (KAFKA-17375), and the older ones of §13.5.
func TestEraRulesAtTransitions(t *testing.T) {
	era := func(ver string) Era {
		e, err := EraForKafkaVersion(ver)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	checks := []struct {
		name     string
		old, new bool
	}{
		{"1.1 -> 2.0: entry names the append's first offset", era("1.1.1").Entry == EntryAppendFirst, era("2.0.0").Entry == EntryAppendFirst},
		{"1.1 -> 2.0: recover names the batch's first offset", era("1.1.1").RecoverNamesBase, era("2.0.0").RecoverNamesBase},
		{"1.1 -> 2.0: roll to the append's first offset", era("1.1.1").RollToFirstOffset, era("2.0.0").RollToFirstOffset},
		{"3.6 -> 3.7: time index names the exact record", era("3.6.2").Time == TimeExactRecord, era("3.7.0").Time == TimeExactRecord},
		{"4.0.0 -> 4.0.1: per batch", era("4.0.0").Entry == EntryBatchLast, era("4.0.1").Entry == EntryBatchLast},
		{"3.9.0 -> 3.9.1: per batch", era("3.9.0").Entry == EntryBatchLast, era("3.9.1").Entry == EntryBatchLast},
		{"4.0.1 -> 4.1: header reads past the hit", era("4.0.1").HeaderReadsPastHit, era("4.1.0").HeaderReadsPastHit},
		{"4.4 -> 4.5: follower appends over segment.bytes", era("4.4.0").ReplicationAcceptsOversize, era("4.5.0").ReplicationAcceptsOversize},
		{"0.8.1 -> 0.8.2: the roll counts the append", era("0.8.1").SizeRollCountsAppend, era("0.8.2").SizeRollCountsAppend},
		{"0.9.0 -> 0.10.0: follower wrapper offset", era("0.9.0").FollowerWrapperOffset, era("0.10.0").FollowerWrapperOffset},
		{"0.10.0 -> 0.10.1: time index", era("0.10.0").HasTimeIndex(), era("0.10.1").HasTimeIndex()},
		{"0.10.0 -> 0.10.1: time rolls on timestamps", era("0.10.0").TimeRollOnTimestamps, era("0.10.1").TimeRollOnTimestamps},
		{"0.10.1 -> 0.10.2: overflow roll", era("0.10.1").OverflowRoll, era("0.10.2").OverflowRoll},
	}
	for _, c := range checks {
		if c.old == c.new {
			t.Errorf("%s: the rule does not change (%v, %v)", c.name, c.old, c.new)
		}
	}
	// The two rule names are the two current eras (issue: "--rule per-batch|per-append stay
	// as names of the two current eras").
	if EraForRule(PerAppend).ID != "3.7-4.0.0" || EraForRule(PerBatch).ID != "4.1-4.4" {
		t.Errorf("rule eras: %s, %s", EraForRule(PerAppend).ID, EraForRule(PerBatch).ID)
	}
	for i, e := range Eras {
		if got := EraForVersion(e.First); got.ID != e.ID {
			t.Errorf("era %s: its first release %s maps to %s", e.ID, e.First, got.ID)
		}
		if i > 0 && !Eras[i-1].First.less(e.First) {
			t.Errorf("eras out of order at %s", e.ID)
		}
	}
}

// randomEraSteps draws workloads with what real logs need besides randomSteps' paths:
// explicit base offsets with gaps, follower appends, legacy wrappers, exact max-timestamp
// records, compressed batches and forced rolls.
func randomEraSteps(r *rand.Rand, start int64) (Config, []Step) {
	cfg, steps := randomSteps(r)
	out := make([]Step, 0, len(steps))
	next := start
	for _, st := range steps {
		if r.IntN(25) == 0 {
			roll := Step{Roll: true}
			if r.IntN(2) == 0 {
				roll.RollBaseOffset = next + int64(r.IntN(5))
				next = roll.RollBaseOffset
			}
			out = append(out, roll)
		}
		if st.Append != nil {
			if r.IntN(4) == 0 {
				st.Origin = OriginReplication
			}
			bs := slices.Clone(st.Append)
			for i := range bs {
				if r.IntN(6) == 0 {
					next += int64(1 + r.IntN(10))
					bs[i].BaseOffset = next
				}
				if r.IntN(8) == 0 && bs[i].Bytes >= MinLegacyV1Bytes {
					bs[i].Legacy = Magic1
				}
				if r.IntN(3) == 0 {
					bs[i].MaxTimestampDelta, bs[i].HasMaxTimestampDelta = int32(r.Int64N(bs[i].Records)), true
				}
				bs[i].Compressed = r.IntN(5) == 0
				next += bs[i].Records
			}
			st.Append = bs
		}
		out = append(out, st)
	}
	return cfg, out
}

// docs/contract.md §5 in every era: the one-pass statistics, header reads included, equal a lookup of
// every offset (Kafka's search, the header walk, and the era's own phase-2 loop).
func TestEveryEraScanStatsMatchBruteForce(t *testing.T) {
	for _, era := range Eras {
		for seed := uint64(1); seed <= 400; seed++ {
			r := rand.New(rand.NewPCG(seed, 41))
			start := int64(r.IntN(100))
			cfg, steps := randomEraSteps(r, start)
			l, err := SimulateEra(cfg, era, start, steps, true)
			if err != nil {
				t.Fatalf("era %s seed %d: %v", era.ID, seed, err)
			}
			var total ScanStats
			for _, s := range l.Segments() {
				bf := BruteForceScan(s)
				if s.Scan() != bf {
					t.Fatalf("era %s seed %d segment %d: one-pass %+v, brute force %+v", era.ID, seed, s.BaseOffset(), s.Scan(), bf)
				}
				if !era.HasTimeIndex() && len(s.TimeIndex().All()) != 0 {
					t.Fatalf("era %s seed %d: a time index before 0.10.1", era.ID, seed)
				}
				total.Merge(bf)
			}
			if l.Scan() != total {
				t.Fatalf("era %s seed %d: log total %+v, sum of segments %+v", era.ID, seed, l.Scan(), total)
			}
		}
	}
}

// StatStream agrees with Log in every era it runs (single-batch appends).
func TestStatStreamMatchesLogEveryEra(t *testing.T) {
	for _, era := range Eras {
		if !StreamSupports(era) {
			continue
		}
		for seed := uint64(1); seed <= 600; seed++ {
			r := rand.New(rand.NewPCG(seed, 43))
			cfg, steps := randomSteps(r)
			if r.IntN(5) == 0 {
				cfg.SegmentMs = int64(1 + r.IntN(20))
			}
			var batches []Batch
			for _, s := range steps {
				batches = append(batches, s.Append...)
			}
			ref, err := SimulateEra(cfg, era, 7, BatchesWorkload(batches).Steps, false)
			if err != nil {
				t.Fatal(err)
			}
			st, err := NewStatStream(cfg, 7, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.SetEra(era); err != nil {
				t.Fatal(err)
			}
			for _, b := range batches {
				st.Add(b.Bytes, b.Records, b.MaxTimestamp)
			}
			total := st.Close()
			if want := ref.Summaries(); !slices.Equal(st.Summaries(), want) {
				t.Fatalf("era %s seed %d (cfg %+v):\nstream %+v\nlog    %+v", era.ID, seed, cfg, st.Summaries(), want)
			}
			if total != ref.Scan() {
				t.Fatalf("era %s seed %d: totals %+v vs %+v", era.ID, seed, total, ref.Scan())
			}
		}
	}
}
