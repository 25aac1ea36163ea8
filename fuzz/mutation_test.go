package fuzz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// copyLog is a copy of the file-backed per-batch rule (segment/writer.go's LogSegment.append
// loop, maybeRoll by size, close), written for the mutation test, with one planted bug
// behind mutate: after an index entry the byte counter restarts at 1 instead of 0 (an
// off-by-one in the counter reset of docs/kafka.md §2.2). It covers the domain mutationWorkload
// draws from: per-batch rule, appends only, indexes too large to fill.
type copyLog struct {
	fs         vfs.FS
	dir        string
	cfg        segment.Config
	mutate     bool
	step       int
	next       int64
	events     []segment.Event
	base       int64
	log        []byte
	idx, tidx  []byte
	bytesSince int64
	maxTs      int64
	maxTsOff   int64
	tLastTs    int64
}

func newCopyLog(mutate bool) NewFileLog {
	return func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (FileLog, error) {
		if rule != segment.PerBatch {
			return nil, errors.New("copyLog implements the per-batch rule only")
		}
		if err := fsys.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		c := &copyLog{fs: fsys, dir: dir, cfg: cfg, mutate: mutate, next: start}
		c.open(start)
		return c, nil
	}
}

func (c *copyLog) open(base int64) {
	c.base, c.log, c.idx, c.tidx, c.bytesSince = base, c.log[:0], c.idx[:0], c.tidx[:0], 0
	c.maxTs, c.maxTsOff, c.tLastTs = -1, base, -1
}

func (c *copyLog) timeAppend(ts, off int64) {
	if ts > c.tLastTs {
		c.tidx = binary.BigEndian.AppendUint64(c.tidx, uint64(ts))
		c.tidx = binary.BigEndian.AppendUint32(c.tidx, uint32(off-c.base))
		c.tLastTs = ts
	}
}

// flush is onBecomeInactiveSegment/close: the final time-index entry, then the trimmed files.
func (c *copyLog) flush() error {
	c.timeAppend(c.maxTs, c.maxTsOff)
	stem := filepath.Join(c.dir, segment.FilenamePrefixFromOffset(c.base))
	return errors.Join(writeFile(c.fs, stem+segment.LogSuffix, c.log),
		writeFile(c.fs, stem+segment.IndexSuffix, c.idx),
		writeFile(c.fs, stem+segment.TimeIndexSuffix, c.tidx))
}

// writeFile is os.WriteFile on fsys.
func writeFile(fsys vfs.FS, name string, data []byte) error {
	f, err := fsys.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

func (c *copyLog) Apply(s segment.Step) (*segment.Event, error) {
	step := c.step
	c.step++
	if len(s.Append) == 0 {
		return nil, errors.New("copyLog supports appends only")
	}
	var total int64
	for _, b := range s.Append {
		total += int64(b.Bytes)
	}
	if total > c.cfg.SegmentBytes {
		c.events = append(c.events, segment.Event{Kind: segment.EventRejected, Step: step, Bytes: total,
			Message: fmt.Sprintf("Message batch size is %d bytes, which exceeds the maximum configured segment size of %d: Kafka rejects the append (RecordBatchTooLargeException), nothing is written.", total, c.cfg.SegmentBytes)})
		return &c.events[len(c.events)-1], nil
	}
	if int64(len(c.log)) > c.cfg.SegmentBytes-total { // LogSegment.shouldRoll, size
		if err := c.flush(); err != nil {
			return nil, err
		}
		c.open(c.next)
	}
	for _, b := range s.Append {
		raw, err := segment.BuildSizedBatch(c.next, b.Records, b.Bytes, b.MaxTimestamp)
		if err != nil {
			return nil, err
		}
		last := c.next + int64(b.Records) - 1
		if b.MaxTimestamp > c.maxTs {
			c.maxTs, c.maxTsOff = b.MaxTimestamp, last
		}
		if c.bytesSince > c.cfg.IndexIntervalBytes {
			c.idx = binary.BigEndian.AppendUint32(c.idx, uint32(last-c.base))
			c.idx = binary.BigEndian.AppendUint32(c.idx, uint32(len(c.log)))
			c.timeAppend(c.maxTs, c.maxTsOff)
			c.bytesSince = 0
			if c.mutate {
				c.bytesSince = 1 // the planted bug
			}
		}
		c.bytesSince += int64(len(raw))
		c.log = append(c.log, raw...)
		c.next = last + 1
	}
	return nil, nil
}

func (c *copyLog) Close() error            { return c.flush() }
func (c *copyLog) Failed() bool            { return false }
func (c *copyLog) Events() []segment.Event { return c.events }

// mutationWorkload is case i of the campaign generator, restricted to copyLog's domain.
func mutationWorkload(i int64) model.Workload {
	w := CaseWorkload(77, i, GenOptions{Rule: "per-batch", MaxSteps: 30})
	w.Config["segment.index.bytes"] = model.DefaultSegmentIndexBytes
	w.Config["segment.ms"] = math.MaxInt64 // copyLog does not roll on time
	steps := w.Steps[:0]
	for _, s := range w.Steps {
		if len(s.Append) > 0 {
			steps = append(steps, s)
		}
	}
	w.Steps = steps
	return w
}

// findDivergence runs up to n mutation-domain cases against the writer in memory and returns
// the first divergence and its case number. Every realFilesShare-th case, and the divergent
// one, runs on real files too, which must give the same verdict: the mutant is caught on both
// filesystems.
func findDivergence(t *testing.T, newLog NewFileLog, n int64) (*Divergence, int64) {
	t.Helper()
	for i := range n {
		w := mutationWorkload(i)
		d, err := Check(w, &Options{NewLog: newLog})
		if i%realFilesShare == 0 || d != nil {
			requireSameVerdictOnRealFiles(t, w, newLog, d, err)
		}
		if errors.Is(err, ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if d != nil {
			return d, i
		}
	}
	return nil, -1
}

// Mutation check (issue 5): a copy of the file-backed rule agrees with the model on its whole
// domain, and the same copy with the counter reset off by one (docs/kafka.md §2.2: "counter =
// 0" after an entry) is caught within 10 000 generated cases.
func TestMutationCounterResetOffByOne(t *testing.T) {
	control := int64(1500)
	if testing.Short() {
		control = 300
	}
	if d, i := findDivergence(t, newCopyLog(false), control); d != nil {
		t.Fatalf("the unmutated copy diverges at case %d (%s: %s): the mutation test would prove nothing", i, d.Kind, d.What)
	}
	d, i := findDivergence(t, newCopyLog(true), 10000)
	if d == nil {
		t.Fatal("the harness missed an off-by-one in the counter reset in 10 000 cases")
	}
	t.Logf("mutant caught at case %d: %s: %s", i, d.Kind, d.What)
}

// A second mutant through the real writer: index.interval.bytes shifted by one turns Kafka's
// strict "bytesSinceLastIndexEntry > indexIntervalBytes" (docs/kafka.md §2.1 step 7, §2.2) into
// ">=". Caught within 10 000 cases.
func TestMutationStrictComparison(t *testing.T) {
	mutant := func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (FileLog, error) {
		if cfg.IndexIntervalBytes > 0 {
			cfg.IndexIntervalBytes--
		}
		return segment.CreateLogFS(fsys, dir, cfg, rule, start)
	}
	for i := range int64(10000) {
		w := CaseWorkload(78, i, GenOptions{})
		d, err := Check(w, &Options{NewLog: mutant})
		if i%realFilesShare == 0 || d != nil {
			requireSameVerdictOnRealFiles(t, w, mutant, d, err)
		}
		if errors.Is(err, ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			t.Logf("mutant caught at case %d: %s", i, d.Kind)
			return
		}
	}
	t.Fatal("the harness missed '>' turned into '>=' in 10 000 cases")
}

// A reproduction written by WriteReproduction and read back by Replay reproduces its
// divergence (same kind) against the same writer, and the shrunk workload is small; against
// the real writer the same file shows no divergence.
func TestReproductionReplays(t *testing.T) {
	bad := &Options{NewLog: newCopyLog(true)}
	d, _ := findDivergence(t, bad.NewLog, 10000)
	if d == nil {
		t.Fatal("no divergence to replay")
	}
	before := countBatches(d.Workload)
	d = Shrink(d, bad, 500)
	if after := countBatches(d.Workload); after > before || after > 12 {
		t.Fatalf("shrinking left %d batches (from %d)", after, before)
	}
	path, err := WriteReproduction(t.TempDir(), d)
	if err != nil {
		t.Fatal(err)
	}
	for _, onReal := range []bool{false, true} {
		again, err := Replay(path, &Options{NewLog: bad.NewLog, RealFiles: onReal})
		if err != nil || again == nil || again.Kind != d.Kind {
			t.Fatalf("replaying %s (real files %v): %v, %+v; want a %s divergence", path, onReal, err, again, d.Kind)
		}
		if clean, err := Replay(path, &Options{RealFiles: onReal}); err != nil || clean != nil {
			t.Fatalf("the real writer on %s (real files %v): %v %+v", path, onReal, err, clean)
		}
	}
	data, _ := os.ReadFile(path)
	t.Logf("shrunk reproduction (%s): %s", d.What, data)
}

func countBatches(w model.Workload) int {
	n := 0
	for _, s := range w.Steps {
		n += len(s.Append)
	}
	return n
}
