package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"kidx/fuzz"
	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Options configure a corpus.
type Options struct {
	Seed  uint64
	Count int
	// Rule is the writer's rule for every case ("per-batch" or "per-append"); "" alternates
	// them by case (even cases per-batch, odd per-append).
	Rule string
	// KafkaVersion is recorded in expected.json when the rule was picked by a release; it also
	// names the release line whose reader the answers are (unless Release says otherwise).
	KafkaVersion string
	// Release is the release line whose LogSegment.translateOffset the answers are
	// (segment.ReadRelease's names); "" takes KafkaVersion's line, else the line of the rule
	// that wrote the case: 4.1+ for per-batch, 2.1-3.9 for per-append (docs/corpus.md).
	Release string
	// IndexView is the index view phase 1 searches: "running" ("") or "reopened".
	IndexView string
	// AnswersOnly makes WriteCase write the partition and compute the answers only: no
	// verify verdict (Expected.Verify stays empty) and no expected.json or workload.json in the
	// case directory. kidx diff --against's campaign needs no more (a shrunk case is written
	// whole, WriteWorkloadCase); the cases and answers are the same.
	AnswersOnly bool
	// DamageKinds are the damage kinds drawn (nil: every kind, DamageKinds; empty: none, every
	// case is undamaged). One case in four is damaged either way, so a seed's workloads do not
	// depend on the kinds.
	DamageKinds []string
	// Sync makes Generate fsync every file and directory it wrote, after the last case (kidx
	// corpus does, before renaming the corpus into place). Without it nothing is synced: the
	// tests, the benchmark and in-process users do not need the data on disk.
	Sync bool
	// Workers is the number of cases made at once (<= 1: one at a time).
	Workers int
	// Content is what the batches hold (docs/corpus.md, "Content"): ContentRealistic ("", the
	// default) compresses the batches of four cases in five, makes one case in four a
	// transactional producer's (COMMIT markers) and one in four compacted (offset gaps),
	// ContentPlain writes every batch
	// uncompressed, as corpora made before the option did (the same seed writes the same
	// cases as then).
	Content string
	// check is the differential check's options (nil: fuzz.Check's defaults); the tests
	// plant a broken writer there.
	check *fuzz.Options
}

// Content kinds (Options.Content, kidx corpus --content).
const (
	ContentRealistic = "realistic"
	ContentPlain     = "plain"
)

// Contents lists the content kinds, the default first.
var Contents = []string{ContentRealistic, ContentPlain}

// ParseContent checks a content kind; "" is the default, ContentRealistic.
func ParseContent(s string) (string, error) {
	switch s {
	case "":
		return ContentRealistic, nil
	case ContentRealistic, ContentPlain:
		return s, nil
	}
	return "", fmt.Errorf("content %q: want %s or %s", s, ContentRealistic, ContentPlain)
}

// Partition is the name of every case's partition directory.
const Partition = "t-0"

// Version is the expected.json schema version (docs/corpus.md).
const Version = 2

// maxAttempts bounds the workloads drawn for one case before it gives up: a draw is redrawn
// when the harness cannot compare it (fuzz.ErrSkip), the model stops at an index overflow,
// kidx write would refuse it, it writes no batch, or it is larger than maxCaseBytes.
const maxAttempts = 64

// maxCaseBytes keeps cases small: a workload with more batch bytes is redrawn. A large case
// (realistic content, one in largeShare: docs/corpus.md, "Content") draws up to largeSteps
// steps and may hold up to maxLargeCaseBytes; its offsets are sampled (chooseOffsets).
const (
	maxCaseBytes      = 1 << 20
	maxLargeCaseBytes = 24 << 20
	largeShare        = 40
	largeSteps        = 400
)

// largeCase says whether case i of seed is a large one (realistic content only): drawn per
// case, so every draw of its workload is.
func largeCase(seed uint64, i int) bool {
	return rand.New(rand.NewPCG(splitmix64(seed^0x6c61726765), splitmix64(uint64(i)))).IntN(largeShare) == 0
}

// CaseName is case i's directory name.
func CaseName(i int) string { return fmt.Sprintf("case-%05d", i) }

// A Case is one generated case, as written.
type Case struct {
	Dir      string // the case directory
	Workload model.Workload
	Expected *Expected
	// Divergences are the workloads drawn for this case that the model and the files disagree
	// on (a kidx bug): they were skipped.
	Divergences []*fuzz.Divergence
	// Plan is how the case was made from its workload: WriteWorkloadCase with it writes the
	// case again, or the same kind of case from a smaller workload.
	Plan Plan
}

// Plan is what, besides its workload, makes a case: the writer's rule and the damage.
type Plan struct {
	Rule         string
	KafkaVersion string
	Rules        segment.ReadRules // whose answers expected.json holds
	Damage       *DamagePlan       // nil: undamaged
}

// Result is what Generate made.
type Result struct {
	Cases       int
	Damaged     int
	Divergences []*fuzz.Divergence
}

// Generate writes o.Count cases into dir (which must exist): dir/case-00000 ... on
// o.Workers goroutines. Atomic placement of dir is the caller's (kidx corpus writes into a
// temporary directory). Cases are independent, so the bytes do not depend on the workers;
// on an error the cases written so far stay, and the error of the lowest case is returned.
func Generate(dir string, o Options) (*Result, error) {
	workers := min(max(o.Workers, 1), max(o.Count, 1))
	cases := make([]*Case, o.Count)
	errs := make([]error, o.Count)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= o.Count {
					return
				}
				if cases[i], errs[i] = WriteCase(dir, o, i); errs[i] != nil {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	res := &Result{}
	for i, c := range cases {
		if errs[i] != nil {
			return res, errs[i]
		}
		if c == nil {
			continue
		}
		res.Cases++
		if c.Expected.Damage != nil {
			res.Damaged++
		}
		res.Divergences = append(res.Divergences, c.Divergences...)
	}
	if o.Sync {
		return res, syncTree(dir)
	}
	return res, nil
}

// syncTree fsyncs every file and directory under dir, directories after their entries. One
// pass after everything is written lets the kernel write the data back together, where a
// sync per file as it is written waits for the disk once per file.
func syncTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, p)
			return nil
		}
		return syncPath(p)
	})
	if err != nil {
		return err
	}
	for _, d := range slices.Backward(dirs) {
		if err := syncPath(d); err != nil {
			return err
		}
	}
	return nil
}

// RuleOf is the rule case i is written by.
func (o Options) RuleOf(i int) string {
	if o.Rule != "" {
		return o.Rule
	}
	return []string{model.PerBatch.String(), model.PerAppend.String()}[i%2]
}

// ReadRulesOf is whose answers case i's expected.json holds: o.Release's line, else
// o.KafkaVersion's, else the line of the rule that writes case i (per-batch: 4.1+, the newest;
// per-append: 2.1-3.9, the line with most releases of that rule), searched in o.IndexView.
func (o Options) ReadRulesOf(i int) (segment.ReadRules, error) {
	var rr segment.ReadRules
	var err error
	if rr.View, err = segment.ParseIndexView(o.IndexView); err != nil {
		return rr, err
	}
	switch {
	case o.Release != "":
		rr.Release, err = segment.ParseReadRelease(o.Release)
	case o.KafkaVersion != "":
		var v model.KafkaVersion
		if v, err = model.ParseKafkaVersion(o.KafkaVersion); err == nil {
			rr.Release = segment.ReadReleaseFor(v.Major, v.Minor, v.Patch)
		}
	case o.RuleOf(i) == model.PerAppend.String():
		rr.Release = segment.Release21
	default:
		rr.Release = segment.Release41
	}
	return rr, err
}

// caseRand is case i's own randomness for its damage and samples (the workload has its own,
// fuzz.CaseWorkload's). PCG's two seed words are its state, not a stream selector, so the
// seed and case number are mixed first (splitmix64): neighbouring cases would otherwise draw
// nearly the same numbers.
func caseRand(seed uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(seed^0x636f72707573), splitmix64(seed+uint64(i)*0x9e3779b97f4a7c15)))
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// WriteCase writes case i of o into dir/CaseName(i): the partition directory, expected.json
// and workload.json.
func WriteCase(dir string, o Options, i int) (*Case, error) {
	c := &Case{Dir: filepath.Join(dir, CaseName(i))}
	rule := o.RuleOf(i)
	// Whether the case is damaged, and how, is drawn before its workload: workloads are drawn
	// until one can take the damage (two index entries to swap are rare in small segments),
	// so that every kind is about as frequent; only when none of maxAttempts can does the kind
	// fall back to one the case can take.
	rules, err := o.ReadRulesOf(i)
	if err != nil {
		return nil, err
	}
	rng := caseRand(o.Seed, i)
	damaged := rng.IntN(4) == 0
	kinds := o.DamageKinds
	if kinds == nil {
		kinds = DamageKinds
	}
	kind := ""
	if len(kinds) == 0 {
		damaged = false
	} else {
		kind = kinds[rng.IntN(len(kinds))]
	}
	fits := func(segs []*model.Segment) bool {
		return !damaged || len(targets(kind, segs)) > 0
	}
	r, ml, err := c.draw(o, i, 0, fits)
	if err != nil {
		return nil, err
	}
	if r == nil {
		if r, ml, err = c.draw(o, i, 1, func([]*model.Segment) bool { return true }); err != nil {
			return nil, err
		}
		if r == nil {
			return nil, fmt.Errorf("case %d: no usable workload in %d draws of seed %d", i, 2*maxAttempts, o.Seed)
		}
	}
	if err := os.Mkdir(c.Dir, 0o755); err != nil {
		return nil, err
	}
	part := filepath.Join(c.Dir, Partition)
	if err := writePartition(part, r.File); err != nil {
		return nil, fmt.Errorf("case %d: write: %w", i, err)
	}
	var dmg *Damage
	c.Plan = Plan{Rule: rule, KafkaVersion: o.KafkaVersion, Rules: rules}
	if damaged {
		if dmg, c.Plan.Damage, err = damage(rng, kind, kinds, part, ml.Segments()); err != nil {
			return nil, fmt.Errorf("case %d: damage: %w", i, err)
		}
	}
	exp, err := answers(c.Dir, ml.Segments(), rng, rules, !o.AnswersOnly)
	if err != nil {
		return nil, fmt.Errorf("case %d: %w", i, err)
	}
	exp.Case, exp.Seed, exp.Rule, exp.KafkaVersion, exp.Damage = i, o.Seed, rule, o.KafkaVersion, dmg
	if o.AnswersOnly {
		c.Expected = exp
		return c, nil
	}
	return c, c.finish(exp)
}

// finish writes the case's expected.json and workload.json.
func (c *Case) finish(exp *Expected) error {
	c.Expected = exp
	if err := writeJSON(filepath.Join(c.Dir, "expected.json"), exp); err != nil {
		return err
	}
	return writeJSON(filepath.Join(c.Dir, "workload.json"), c.Workload)
}

// ErrUnusable is WriteWorkloadCase's error for a workload no case is made of: one the
// harness cannot resolve, that kidx write refuses, that stops at an index overflow, writes no
// batch or is too large (docs/corpus.md, "How a case is made"), or that the model and the
// files disagree on.
var ErrUnusable = errors.New("no case is made of this workload")

// WriteWorkloadCase writes a case from w by plan p into dir/name, as WriteCase writes case i
// from its drawn workload: the differential check first, then the partition, the damage, and
// the answers read from the files (the offsets of a large case sampled from sampleSeed).
// The case's number and seed in expected.json are 0. A damage that no segment of w can take
// is ErrDamageDoesNotFit; a workload no case is made of, ErrUnusable.
func WriteWorkloadCase(dir, name string, w model.Workload, p Plan, sampleSeed uint64) (*Case, error) {
	c := &Case{Dir: filepath.Join(dir, name), Workload: w, Plan: p}
	r, ml, err := usable(w, maxLargeCaseBytes) // a large case's workload is replayed too
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, ErrUnusable
	}
	if d, err := fuzz.Check(w, nil); err != nil || d != nil {
		return nil, ErrUnusable
	}
	if err := os.Mkdir(c.Dir, 0o755); err != nil {
		return nil, err
	}
	part := filepath.Join(c.Dir, Partition)
	if err := writePartition(part, r.File); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	var dmg *Damage
	if p.Damage != nil {
		if dmg, err = p.Damage.apply(part, ml.Segments()); err != nil {
			return nil, err
		}
	}
	exp, err := answers(c.Dir, ml.Segments(), caseRand(sampleSeed, 0), p.Rules, true)
	if err != nil {
		return nil, err
	}
	exp.Rule, exp.KafkaVersion, exp.Damage = p.Rule, p.KafkaVersion, dmg
	return c, c.finish(exp)
}

// draw draws case i's workloads (round 0: the first maxAttempts of its draws, round 1: the
// next) until one is usable, fits, and passes the differential check; (nil, nil, nil) when
// none does.
func (c *Case) draw(o Options, i, round int, fits func([]*model.Segment) bool) (*fuzz.Resolved, *model.Log, error) {
	for a := range maxAttempts {
		n := (int64(i)*2+int64(round))*maxAttempts + int64(a)
		g, maxBytes := fuzz.GenOptions{Rule: o.RuleOf(i)}, int64(maxCaseBytes)
		if o.Content != ContentPlain && largeCase(o.Seed, i) {
			g.MaxSteps, maxBytes = largeSteps, maxLargeCaseBytes
		}
		w := fuzz.CaseWorkload(o.Seed, n, g)
		if o.Content != ContentPlain {
			rng := contentRand(o.Seed, n)
			compressBatches(w, rng)
			transact(&w, rng)
			compact(w, rng)
		}
		r, ml, err := usable(w, maxBytes)
		if err != nil {
			return nil, nil, err
		}
		if r == nil || !fits(ml.Segments()) {
			continue
		}
		// The answers come from the files; the files must first agree with the model.
		d, err := fuzz.Check(w, o.check)
		if errors.Is(err, fuzz.ErrSkip) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("case %d: differential check: %w", i, err)
		}
		if d != nil {
			c.Divergences = append(c.Divergences, d)
			continue
		}
		c.Workload = w
		return r, ml, nil
	}
	return nil, nil, nil
}

// contentRand is draw n's own randomness for its content, apart from the workload's and the
// case's (caseRand), so that plain content draws exactly what it drew before content existed.
func contentRand(seed uint64, n int64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix64(seed^0x636f6e74656e74), splitmix64(seed+uint64(n)*0x9e3779b97f4a7c15)))
}

// compressSlack is how far above segment.MinCompressedBatchSize a batch must be to be
// compressed: the few sizes the builder cannot hit lie mostly just above its minimum
// (docs/corpus.md, "Content"); a draw that meets another is redrawn (the harness skips it).
const compressSlack = 16

// maxCompressedRecords bounds the record count of a batch compressBatches compresses: finding
// the builder's minimum compresses the batch's records once, and the larger batches of the
// generator (up to 1 MiB) would make that most of a case's time.
const maxCompressedRecords = 4096

// compressBatches makes w's content realistic in place: one case in five stays uncompressed;
// the others get one codec (a producer compresses with one), drawn uniformly from the four,
// for three batches in four, each large enough for it. The batch sizes, and so every offset,
// position and index entry, are the drawn workload's: only the bytes inside the batches
// change (the writer builds each compressed batch at the exact size, segment.BuildCompressedBatch).
func compressBatches(w model.Workload, rng *rand.Rand) {
	k := rng.IntN(len(segment.Compressions) + 1)
	if k == len(segment.Compressions) {
		return
	}
	c := segment.Compressions[k]
	for _, s := range w.Steps {
		for j := range s.Append {
			b := &s.Append[j]
			if rng.IntN(4) == 0 || b.Legacy != model.NotLegacy || b.Records > maxCompressedRecords {
				continue
			}
			least, err := segment.MinCompressedBatchSize(int(b.Records), c)
			if err != nil || b.Bytes < int64(least)+compressSlack {
				continue
			}
			b.Compression, b.Compressed = c.String(), true
		}
	}
}

// transact makes one case in four a transactional producer's (in place): each append step
// is, with probability 3/4, part of a transaction of producer 1, 2 or 3 (drawn per transaction),
// and a transaction ends after 1 to 4 appends with a COMMIT marker, an append of its own
// (segment.ControlBatchSize bytes, one record, stamped with the last timestamp before it), as
// the transaction coordinator writes it. Only commits: the writer writes no ABORT marker yet
// (docs/corpus.md, "Content").
func transact(w *model.Workload, rng *rand.Rand) {
	if rng.IntN(4) != 0 {
		return
	}
	steps := make([]model.Step, 0, len(w.Steps)+len(w.Steps)/2)
	open, left := int64(0), 0 // the producer of the open transaction (0: none), appends left in it
	lastTs := int64(0)
	commit := func() {
		steps = append(steps, model.Step{Append: []model.Batch{{Records: 1, Bytes: segment.ControlBatchSize,
			MaxTimestamp: lastTs, Transactional: true, Control: segment.ControlCommit, ProducerID: open}}})
		open = 0
	}
	for _, st := range w.Steps {
		if len(st.Append) == 0 {
			steps = append(steps, st)
			continue
		}
		if open == 0 && rng.IntN(4) != 0 {
			open, left = 1+rng.Int64N(3), 1+rng.IntN(4)
		}
		if open != 0 {
			for j := range st.Append {
				st.Append[j].Transactional, st.Append[j].ProducerID = true, open
			}
		}
		for _, b := range st.Append {
			lastTs = max(lastTs, b.MaxTimestamp)
		}
		steps = append(steps, st)
		if open != 0 {
			if left--; left == 0 {
				commit()
			}
		}
	}
	if open != 0 {
		commit()
	}
	w.Steps = steps
}

// compact gives one case in four the offset gaps of a compacted log (in place): each batch
// after the log's first starts, with probability 1/3, 1 to 20 offsets past the one before it
// ("baseOffset", docs/contract.md §3), the offsets the cleaner removed. Drawn after the markers
// are in place, so every base offset is past the log end at its batch. A real cleaner also
// removes records inside a batch (offset deltas with holes); a lookup never reads them.
func compact(w model.Workload, rng *rand.Rand) {
	if rng.IntN(4) != 0 {
		return
	}
	next, first := w.StartOffset, true
	for _, st := range w.Steps {
		for j := range st.Append {
			b := &st.Append[j]
			if !first && rng.IntN(3) == 0 {
				b.BaseOffset = next + 1 + rng.Int64N(20)
			}
			if b.BaseOffset > next {
				next = b.BaseOffset
			}
			next += b.Records
			first = false
		}
	}
}

// usable resolves w and runs the model; (nil, nil, nil) when the case is to be redrawn.
func usable(w model.Workload, maxBytes int64) (*fuzz.Resolved, *model.Log, error) {
	r, err := fuzz.Resolve(w)
	if err != nil {
		return nil, nil, nil
	}
	var total int64
	for _, s := range w.Steps {
		// kidx write refuses rolls and crashes (cmd/kidx/write.go writableWorkload); the
		// generator draws neither, but a corpus case must replay, so check.
		if s.Roll || s.Crash != nil {
			return nil, nil, nil
		}
		total += s.AppendBytes()
	}
	if total > maxBytes {
		return nil, nil, nil
	}
	ml, err := model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true)
	if err != nil || ml.Stopped() {
		// An overflow leaves the files past the model's state (docs/contract.md §4): the
		// answers could not be checked against the model.
		return nil, nil, nil
	}
	batches := 0
	for _, s := range ml.Segments() {
		batches += len(s.Batches())
	}
	if batches == 0 {
		// Every batch rejected (oversize) or none appended: an empty log asks a reader
		// nothing the first case of that kind does not.
		return nil, nil, nil
	}
	return r, ml, nil
}

// writePartition writes sw's files with kidx write's writer (segment.WriteWorkloadFS) in
// memory, then copies them into dir: the same bytes as segment.WriteWorkload
// on dir, without its system calls per append, reopen and roll (a case is small; its many
// segments made the writer's opens most of a case's time on real files).
func writePartition(dir string, sw *segment.Workload) error {
	mem := vfs.NewMemFS()
	const memDir = "/" + Partition
	if _, err := segment.WriteWorkloadFS(mem, memDir, sw); err != nil {
		return err
	}
	ents, err := mem.ReadDir(memDir)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		data, err := mem.ReadFileShared(filepath.Join(memDir, e.Name()))
		if err != nil {
			return err
		}
		if err := writeNew(filepath.Join(dir, e.Name()), data); err != nil {
			return err
		}
	}
	return nil
}

// writeNew writes a new file (never over an existing one).
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	return errors.Join(err, f.Close())
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeNew(path, append(data, '\n'))
}
