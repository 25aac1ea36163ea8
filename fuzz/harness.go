package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"kidx/model"
	"kidx/segment"
	"kidx/segment/vfs"
)

// ErrSkip marks a workload the harness does not compare: the model refuses it, or the file
// side cannot encode it (a batch size the builder cannot produce), or it depends on
// behaviour only one side implements (time-based rolling). A skipped case is not a divergence.
var ErrSkip = errors.New("not comparable")

// A Divergence is a disagreement between the model and the files for one workload.
type Divergence struct {
	// Kind classifies what differed (segments, log, index-bytes, timeindex-bytes, lookup,
	// time-lookup, events, overflow-prefix); shrinking keeps it.
	Kind string `json:"kind"`
	// What says where and how, with both sides' values.
	What string `json:"what"`
	// Workload is the complete docs/contract.md §3 workload (config and rule included).
	Workload model.Workload `json:"workload"`
}

func (d *Divergence) Error() string { return d.Kind + ": " + d.What }

// FileLog is the file-backed writer the harness drives: *segment.Log satisfies it. It is an
// interface so that the mutation test can substitute a deliberately broken writer.
type FileLog interface {
	Apply(segment.Step) (*segment.Event, error)
	Close() error
	Failed() bool
	Events() []segment.Event
}

// NewFileLog creates the file side's writer in dir on fsys (the filesystem Options chose):
// segment.CreateLogFS by default.
type NewFileLog func(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, startOffset int64) (FileLog, error)

// DefaultFileLog is segment.CreateLogFS.
func DefaultFileLog(fsys vfs.FS, dir string, cfg segment.Config, rule segment.Rule, start int64) (FileLog, error) {
	return segment.CreateLogFS(fsys, dir, cfg, rule, start)
}

// Options tune Check. The zero value is ready to use: in memory, the real writer.
type Options struct {
	// RealFiles writes each case to real files (vfs.OS) in a new directory under TempRoot and
	// reads them back with the OS readers (mapped .log, ScanDir), as kidx reads a user's
	// directory. False, the default, writes each case to an empty in-memory filesystem
	// (vfs.MemFS, reset and reused between cases) and reads it back from there: the same bytes
	// compared, without a system call per file operation (docs/fuzz.md, "In memory or on real
	// files").
	RealFiles bool
	// TempRoot is where real-file case directories are created; "" means TempRoot().
	TempRoot string
	// NewLog creates the file side; nil means DefaultFileLog.
	NewLog NewFileLog
	// Era, when set, is a candidate era (model.ParseEraSpec, docs/model.md "Candidate
	// eras") both sides run: the model simulates it, the files are written with its knobs
	// (segment.Candidate). Its rule must be the workload's; nil means the rule's own era.
	Era *model.Era
}

// TempRoot is /dev/shm when it is a directory this process can create files in (tmpfs: the
// harness measures the code, not a disk), else os.TempDir(). The answer is worked out on the
// first call only, by creating and removing a probe file: so only a run that is about to write
// scratch files (a real-file case, a --against campaign) ever touches /dev/shm, never a
// read-only command that merely links this package (issue 27 item 5, docs/fuzz.md "Scratch
// filesystem").
func TempRoot() string { return tempRoot() }

var tempRoot = sync.OnceValue(func() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "kidx-probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return os.TempDir()
})

// idleMemFS holds in-memory filesystems between cases, empty: Reset keeps their files'
// arrays, so that the next case writes into memory already allocated. (A sync.Pool would drop
// them at every garbage collection, which a case's megabytes trigger often.) At most one per
// concurrent Check is ever made.
var idleMemFS struct {
	sync.Mutex
	fs []*vfs.MemFS
}

func takeMemFS() *vfs.MemFS {
	idleMemFS.Lock()
	defer idleMemFS.Unlock()
	if n := len(idleMemFS.fs); n > 0 {
		m := idleMemFS.fs[n-1]
		idleMemFS.fs = idleMemFS.fs[:n-1]
		return m
	}
	return vfs.NewMemFS()
}

func putMemFS(m *vfs.MemFS) {
	m.Reset()
	idleMemFS.Lock()
	defer idleMemFS.Unlock()
	if len(idleMemFS.fs) < maxIdleMemFS {
		idleMemFS.fs = append(idleMemFS.fs, m)
	}
}

// maxIdleMemFS bounds the memory kept between cases (vfs.MemFS keeps up to 64 MiB each).
const maxIdleMemFS = 16

// caseFS is the filesystem and directory of one case: an empty MemFS, or a new directory
// under the temp root. done removes what the case made; nothing read from the case's files
// may be used after it.
func (o *Options) caseFS() (fsys vfs.FS, dir string, done func(), err error) {
	if !o.RealFiles {
		m := takeMemFS()
		return m, "/case", func() { putMemFS(m) }, nil
	}
	root := o.TempRoot
	if root == "" {
		root = TempRoot()
	}
	dir, err = os.MkdirTemp(root, "kidx-diff-*")
	if err != nil {
		return nil, "", nil, err
	}
	return vfs.OS, dir, func() { os.RemoveAll(dir) }, nil
}

// Check runs w through the model and through the files and compares them. It returns
// (nil, nil) when they agree, (d, nil) on a divergence, an error wrapping ErrSkip when w is not
// comparable, and any other error when the harness itself failed (I/O).
//
// What is compared (docs/contract.md §4, §5, §7): the segments' base offsets and sizes; every batch's
// position, offsets, size and max timestamp (.log walk); the .index and .timeindex bytes
// against the model's entries encoded as Kafka stores them; for every offset of every segment
// the lookup (phase-1 entry, hit batch, hops); time lookups at every batch's max timestamp
// and its neighbours; and the events. When the model stops at an index overflow (docs/contract.md §4: it
// shows the state before that step, where Kafka keeps the failing append's bytes), the state is
// compared with the files of the steps before the overflow, and the files of the whole run must
// extend them.
func Check(w model.Workload, o *Options) (*Divergence, error) {
	if o == nil {
		o = &Options{}
	}
	r, err := Resolve(w)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSkip, err)
	}
	var ml *model.Log
	if e := o.Era; e != nil {
		if e.Rule() != r.Rule {
			return nil, fmt.Errorf("workload rule %s under the candidate era %s, whose rule is %s", r.Rule, e.ID, e.Rule())
		}
		r.File.Config.Candidate = FileCandidate(*e)
		ml, err = model.SimulateEra(r.Model, *e, w.StartOffset, w.Steps, true)
	} else {
		ml, err = model.Simulate(r.Model, r.Rule, w.StartOffset, w.Steps, true)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: model: %v", ErrSkip, err)
	}
	fsys, dir, done, err := o.caseFS()
	if err != nil {
		return nil, err
	}
	defer done()
	newLog := o.NewLog
	if newLog == nil {
		newLog = DefaultFileLog
	}
	full := filepath.Join(dir, "full")
	fev, err := runFiles(newLog, fsys, full, r.File, len(r.File.Steps))
	if err != nil {
		return nil, err
	}
	div := func(kind, format string, args ...any) (*Divergence, error) {
		return &Divergence{Kind: kind, What: fmt.Sprintf(format, args...), Workload: w}, nil
	}
	if what := compareEvents(ml.Events(), fev); what != "" {
		return div("events", "%s", what)
	}
	stateDir := full
	segs := ml.Segments()
	if ml.Stopped() {
		// The model shows the state before the overflowing step; the files of the steps
		// before it are that state.
		ev := ml.Events()
		stop := ev[len(ev)-1].Step
		stateDir = filepath.Join(dir, "prefix")
		if _, err := runFiles(newLog, fsys, stateDir, r.File, stop); err != nil {
			return nil, err
		}
		// A roll done by the overflowing append leaves an empty active segment in the model.
		if n := len(segs); n > 1 && len(segs[n-1].Batches()) == 0 {
			segs = segs[:n-1]
		}
		// A clean that threw has already swapped the groups before the failing one (Kafka's
		// cleanSegments ends each group with replaceSegments), so its files do not extend the
		// prefix's; the model, stopped, shows the log before the step as for any exception.
		if r.File.Steps[stop].Clean == nil {
			if what := comparePrefix(fsys, stateDir, full); what != "" {
				return div("overflow-prefix", "%s", what)
			}
		}
	}
	kind, what, err := compareDir(fsys, segs, stateDir)
	if err != nil {
		return nil, err
	}
	if what != "" {
		return div(kind, "%s", what)
	}
	return nil, nil
}

// runFiles applies the first n steps of sw to a new file log in dir on fsys, then closes it.
func runFiles(newLog NewFileLog, fsys vfs.FS, dir string, sw *segment.Workload, n int) ([]segment.Event, error) {
	l, err := newLog(fsys, dir, sw.Config, sw.Rule, sw.StartOffset)
	if err != nil {
		return nil, fmt.Errorf("file side: %w", err)
	}
	for i, s := range sw.Steps[:n] {
		if _, err := l.Apply(s); err != nil {
			l.Close()
			if isBuilderRefusal(err) {
				return nil, fmt.Errorf("%w: step %d: %v", ErrSkip, i, err)
			}
			return nil, fmt.Errorf("file side: step %d: %w", i, err)
		}
		if l.Failed() {
			break
		}
	}
	if err := l.Close(); err != nil {
		return nil, fmt.Errorf("file side: close: %w", err)
	}
	return l.Events(), nil
}

// isBuilderRefusal recognizes segment.BuildSizedBatch's refusals (docs/segment.md: some exact
// sizes cannot be built).
func isBuilderRefusal(err error) bool {
	s := err.Error()
	return strings.Contains(s, "no record layout") || strings.Contains(s, "needs at least")
}

func compareEvents(m []model.Event, f []segment.Event) string {
	for i := 0; i < max(len(m), len(f)); i++ {
		switch {
		case i >= len(m):
			return fmt.Sprintf("event %d: files %s at step %d (%q), model none", i, f[i].Kind, f[i].Step, f[i].Message)
		case i >= len(f):
			return fmt.Sprintf("event %d: model %s at step %d (%q), files none", i, m[i].Kind, m[i].Step, m[i].Message)
		}
		a, b := m[i], f[i]
		if a.Kind != b.Kind || a.Step != b.Step || a.Bytes != b.Bytes || a.Message != b.Message {
			return fmt.Sprintf("event %d: model {%s step %d bytes %d %q}, files {%s step %d bytes %d %q}",
				i, a.Kind, a.Step, a.Bytes, a.Message, b.Kind, b.Step, b.Bytes, b.Message)
		}
	}
	return ""
}

// comparePrefix checks that the whole run's files extend the files of the steps before the
// overflow: every .log of the prefix is a prefix of the same segment's .log in the full run
// (Kafka writes the failing append's bytes before its index throws, docs/kafka.md §2.4).
func comparePrefix(fsys vfs.FS, prefix, full string) string {
	ents, err := fsys.ReadDir(prefix)
	if err != nil {
		return err.Error()
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), segment.LogSuffix) {
			continue
		}
		a, err1 := segment.ReadFileShared(fsys, filepath.Join(prefix, e.Name()))
		b, err2 := segment.ReadFileShared(fsys, filepath.Join(full, e.Name()))
		if err := errors.Join(err1, err2); err != nil {
			return err.Error()
		}
		if !bytes.HasPrefix(b, a) {
			return fmt.Sprintf("%s: the full run's %d bytes do not extend the %d bytes written before the overflow", e.Name(), len(b), len(a))
		}
	}
	return ""
}
