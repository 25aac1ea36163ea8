package segment_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// loggedBatch is one batch of a partition directory: its segment and its bytes.
type loggedBatch struct {
	segment int64
	base    int64
	bytes   []byte
}

// dirBatches reads every batch of every .log in dir, in offset order, by hand.
func dirBatches(t *testing.T, fsys vfs.FS, dir string) []loggedBatch {
	t.Helper()
	var out []loggedBatch
	for _, name := range dirNames(t, fsys, dir) {
		if !strings.HasSuffix(name, segment.LogSuffix) {
			continue
		}
		seg, err := segment.OffsetFromFileName(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := vfs.ReadFile(fsys, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range batchStarts(b) {
			out = append(out, loggedBatch{seg, s[1], b[s[0] : s[0]+s[2]]})
		}
	}
	return out
}

// nonActiveIndexes holds the bytes of every index file of the segments before the last one.
func nonActiveIndexes(t *testing.T, fsys vfs.FS, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	names := dirNames(t, fsys, dir)
	var last string
	for _, n := range names {
		if strings.HasSuffix(n, segment.LogSuffix) {
			last = strings.TrimSuffix(n, segment.LogSuffix)
		}
	}
	for _, n := range names {
		if (strings.HasSuffix(n, segment.IndexSuffix) || strings.HasSuffix(n, segment.TimeIndexSuffix)) && !strings.HasPrefix(n, last) {
			b, err := vfs.ReadFile(fsys, filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			out[n] = b
		}
	}
	return out
}

func sameBatches(a, b []loggedBatch) bool {
	return slices.EqualFunc(a, b, func(x, y loggedBatch) bool {
		return x.segment == y.segment && x.base == y.base && bytes.Equal(x.bytes, y.bytes)
	})
}

func sameIndexes(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// TestCleanSwapCrashAtEveryCut pins issue 25's "a crash in the middle of a swap recovered as
// LogLoader completes or discards it": the clean step is crashed before each of its creates,
// writes, truncates, syncs, renames and removes, and after it (every cut point, as the crash
// explorer numbers them), and each crashed directory is loaded by LoadAfterCrash.
//   - Where only synced names survive (CrashClone), the loaded directory is the state before
//     the clean or the state after it, every batch and every index of the closed segments byte
//     for byte: nothing of the swap is durable before replaceSegments' flushDir.
//   - Where unsynced names may survive too (CrashCloneEager, four draws per cut), the loaded
//     offsets never overlap, every batch is the one before or the one after the clean at its
//     offset, and every batch the clean kept is there in one of its two forms: nothing lost,
//     nothing duplicated. (A mix is possible: a swap completed while a replaced segment past the
//     swap's last offset was not yet renamed .deleted keeps that segment, docs/crash.md.)
//
// Either way no .cleaned, .swap or .deleted file is left.
func TestCleanSwapCrashAtEveryCut(t *testing.T) {
	for _, rule := range []string{"per-batch", "per-append"} {
		t.Run(rule, func(t *testing.T) {
			w := parseCleanWorkload(t, rule, `, "ioBufferSize": 120`)
			mem := vfs.NewMemFS()
			// The log dir's own name durable, as a broker's is.
			if err := mem.MkdirAll(filepath.Dir(cleanDir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := mem.SyncDir("/"); err != nil {
				t.Fatal(err)
			}
			type cut struct {
				n       int
				op      string
				crashed []*vfs.MemFS // [0] synced names only, then eager draws
			}
			var cuts []cut
			cleaning, n := false, 0
			take := func(op string) {
				if !cleaning {
					return
				}
				c := cut{n: n, op: op, crashed: []*vfs.MemFS{mem.CrashClone(rand.New(rand.NewPCG(1, uint64(n))))}}
				for seed := range uint64(4) {
					c.crashed = append(c.crashed, mem.CrashCloneEager(rand.New(rand.NewPCG(seed, uint64(n)))))
				}
				cuts = append(cuts, c)
				n++
			}
			ffs := vfs.NewFaultFS(mem, vfs.InjectorFunc(func(op vfs.Op) *vfs.Fault {
				switch op.Kind {
				case vfs.OpCreate, vfs.OpWrite, vfs.OpTruncate, vfs.OpSync, vfs.OpSyncDir, vfs.OpRename, vfs.OpRemove:
					take(op.Kind.String() + " " + filepath.Base(op.Path))
				}
				return nil
			}))
			l, err := segment.CreateLogFS(ffs, cleanDir, w.Config, w.Rule, w.StartOffset)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.KeepRecoveryCheckpoint(); err != nil {
				t.Fatal(err)
			}
			for i, s := range w.Steps[:6] {
				if _, err := l.Apply(s); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			// A clean shutdown and start first: the active segment's batch durable, so that what
			// a crash does to the clean is all there is to see.
			if err := l.Restart(); err != nil {
				t.Fatal(err)
			}
			before, beforeIdx := dirBatches(t, mem, cleanDir), nonActiveIndexes(t, mem, cleanDir)
			cleaning = true
			if ev, err := l.Apply(w.Steps[6]); ev != nil || err != nil {
				t.Fatalf("clean: %v %v", ev, err)
			}
			take("after the step")
			cleaning = false
			after, afterIdx := dirBatches(t, mem, cleanDir), nonActiveIndexes(t, mem, cleanDir)
			if sameBatches(before, after) {
				t.Fatal("the clean changed nothing: the test would prove nothing")
			}
			// The step's writes: 3 creates and 2 preallocations, the appends, the trims and
			// syncs, 3 renames per segment and phase (9 + 6), a dir sync, 6 removes.
			if len(cuts) < 30 {
				t.Fatalf("only %d cut points: the clean's operations did not go through the vfs", len(cuts))
			}
			byBase := func(bs []loggedBatch) map[int64][]byte {
				m := map[int64][]byte{}
				for _, b := range bs {
					m[b.base] = b.bytes
				}
				return m
			}
			beforeAt, afterAt := byBase(before), byBase(after)
			// finalRenames is the first cut after which a .swap may have its final name
			// (replaceSegments' third phase); overlaps counts the loads that met Kafka's hazard.
			finalRenames := slices.IndexFunc(cuts, func(c cut) bool {
				return strings.HasPrefix(c.op, "rename ") && strings.HasSuffix(c.op, segment.SwapSuffix)
			}) + 1
			if finalRenames == 0 {
				t.Fatal("no .swap was renamed: the swap's third phase is missing")
			}
			overlaps := 0
			sawBefore, sawAfter := false, false
			for _, c := range cuts {
				for k, crashed := range c.crashed {
					rp := segment.ReadRecoveryPoint(crashed, cleanDir)
					l2, _, err := segment.LoadAfterCrash(crashed, cleanDir, w.Config, w.Rule, rp, 7)
					if err != nil {
						t.Fatalf("cut %d (before %s), clone %d: load: %v", c.n, c.op, k, err)
					}
					if err := l2.Close(); err != nil {
						t.Fatal(err)
					}
					for _, name := range dirNames(t, crashed, cleanDir) {
						if strings.HasSuffix(name, segment.CleanedSuffix) || strings.HasSuffix(name, segment.SwapSuffix) || strings.HasSuffix(name, segment.DeletedSuffix) {
							t.Fatalf("cut %d (before %s), clone %d: %s left after the load", c.n, c.op, k, name)
						}
					}
					got := dirBatches(t, crashed, cleanDir)
					if k == 0 {
						idx := nonActiveIndexes(t, crashed, cleanDir)
						switch {
						case sameBatches(got, before) && sameIndexes(idx, beforeIdx):
							sawBefore = true
						case sameBatches(got, after) && sameIndexes(idx, afterIdx):
							sawAfter = true
						default:
							t.Fatalf("cut %d (before %s), synced names: the load is neither the state before the clean nor the state after it", c.n, c.op)
						}
						continue
					}
					seen := map[int64]bool{}
					next := int64(-1)
					for _, b := range got {
						last := b.base + int64(int32(binary.BigEndian.Uint32(b.bytes[23:])))
						if b.base < next {
							// Kafka's own hazard under unordered directory entries: a final name
							// survived while an earlier .deleted rename did not, and no .swap is
							// left to tell the loader what it replaced.
							if c.n < finalRenames {
								t.Fatalf("cut %d (before %s), clone %d: batch %d overlaps the offsets before it (a duplicate) before any .swap was renamed to its final name", c.n, c.op, k, b.base)
							}
							overlaps++
						}
						next = last + 1
						if !bytes.Equal(b.bytes, beforeAt[b.base]) && !bytes.Equal(b.bytes, afterAt[b.base]) {
							t.Fatalf("cut %d (before %s), clone %d: batch %d is neither the one before the clean nor the one after", c.n, c.op, k, b.base)
						}
						seen[b.base] = true
					}
					for base := range afterAt {
						if !seen[base] {
							t.Fatalf("cut %d (before %s), clone %d: batch %d, which the clean kept, is lost", c.n, c.op, k, base)
						}
					}
				}
			}
			if !sawBefore || !sawAfter {
				t.Fatalf("the cuts reached before %v, after %v: both states must be met", sawBefore, sawAfter)
			}
			t.Logf("%d cut points; %d eager loads met the overlap hazard (docs/crash.md)", len(cuts), overlaps)
		})
	}
}
