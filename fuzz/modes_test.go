package fuzz

import (
	"errors"
	"testing"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// verdict is what Check said, in the terms the two modes must share: agreement, a skip, a
// divergence of some kind, or a harness failure. (A divergence's text may name the case's
// files, whose directory differs between the modes.)
func verdict(d *Divergence, err error) string {
	switch {
	case errors.Is(err, ErrSkip):
		return "skip"
	case err != nil:
		return "harness error"
	case d != nil:
		return "divergence " + d.Kind
	}
	return "agree"
}

// requireSameVerdictOnRealFiles checks w on real files with newLog and fails t unless the
// verdict is the one the in-memory run gave (memD, memErr).
func requireSameVerdictOnRealFiles(t *testing.T, w model.Workload, newLog NewFileLog, memD *Divergence, memErr error) {
	t.Helper()
	realD, realErr := Check(w, &Options{NewLog: newLog, RealFiles: true})
	if m, r := verdict(memD, memErr), verdict(realD, realErr); m != r {
		t.Fatalf("in memory: %s (%v %v)\non real files: %s (%v %v)\nworkload %+v", m, memD, memErr, r, realD, realErr, w)
	}
}

// Issue 13, item 2: the in-memory filesystem is the default and real files stay in CI, so
// both must judge alike. On the same workloads (the campaign generator's, with restarts,
// recoveries, multi-batch appends and overflows) and the same writers (the real one and the
// mutation tests' broken ones), Check in memory and on real files gives the same verdict:
// both agree, both skip, or both report a divergence of the same kind.
func TestModesAgree(t *testing.T) {
	strictMutant := func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (FileLog, error) {
		if cfg.IndexIntervalBytes > 0 {
			cfg.IndexIntervalBytes-- // '>' turned into '>=' (docs/kafka.md §2.2)
		}
		return segment.CreateLogFS(fsys, dir, cfg, rule, start)
	}
	configMutant := func(change func(*segment.Config)) NewFileLog {
		return func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (FileLog, error) {
			change(&cfg)
			return segment.CreateLogFS(fsys, dir, cfg, rule, start)
		}
	}
	gen := func(seed uint64) func(int64) model.Workload {
		return func(i int64) model.Workload { return CaseWorkload(seed, i, GenOptions{}) }
	}
	writers := []struct {
		name    string
		newLog  NewFileLog
		work    func(i int64) model.Workload
		diverge bool // the writer is broken: some case must diverge
	}{
		{"segment.CreateLogFS", nil, gen(13), false},
		{"strict-comparison mutant", strictMutant, gen(78), true},
		// Rolls one byte early (segments and lookups differ) and overflows one entry early
		// (events differ): divergences of other kinds than the index bytes.
		{"segment.bytes - 1 mutant", configMutant(func(c *segment.Config) { c.SegmentBytes = max(c.SegmentBytes-1, 14) }), gen(79), true},
		{"segment.index.bytes - 24 mutant", configMutant(func(c *segment.Config) { c.SegmentIndexBytes = max(c.SegmentIndexBytes-24, 12) }), gen(80), true},
		{"copyLog", newCopyLog(false), mutationWorkload, false},
		{"copyLog, counter reset off by one", newCopyLog(true), mutationWorkload, true},
	}
	cases := int64(50)
	if testing.Short() {
		cases = 25
	}
	for _, wr := range writers {
		seen := map[string]int{}
		for i := range cases {
			w := wr.work(i)
			d, err := Check(w, &Options{NewLog: wr.newLog})
			requireSameVerdictOnRealFiles(t, w, wr.newLog, d, err)
			switch {
			case d != nil:
				seen["divergence"]++
				seen[d.Kind]++
			case err == nil:
				seen["agree"]++
			}
		}
		// Not vacuous: the real writer's cases are compared, a broken writer's diverge.
		if seen["agree"] == 0 || wr.diverge != (seen["divergence"] > 0) {
			t.Errorf("%s: %v over %d cases", wr.name, seen, cases)
		}
		t.Logf("%s: %v", wr.name, seen)
	}
}
