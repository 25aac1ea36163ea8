package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// Writing a whole partition directory at once (kidx write): the workload is validated
// first, then written into a temporary directory beside the target (same parent, so the same
// filesystem), every file fsynced, and the temporary directory renamed into place. A failure
// at any point removes the temporary directory, so the target never holds half a log
// (docs/segment.md, "Writing a directory").

// WriteTempDirPrefix starts the name of the temporary directory beside the target: hidden, and
// naming the tool and the target, so that one left by a killed process is recognisable.
const WriteTempDirPrefix = ".kidx-write-"

// interrupted stops writes in progress at their next step (Interrupt).
var interrupted atomic.Bool

// ErrInterrupted is the error of a write stopped by Interrupt: its temporary directory is
// removed as on any other error, and the target is untouched.
var ErrInterrupted = errors.New("interrupted: nothing was written")

// Interrupt makes every write in progress stop before its next step and fail with
// ErrInterrupted, removing its temporary directory: what a process told to stop (SIGINT,
// SIGTERM) calls, so that a killed `kidx write` leaves nothing behind (the target is only
// ever renamed into place whole).
func Interrupt() { interrupted.Store(true) }

// writeStepHook, when set (tests only), is called before each step is applied; an error
// from it fails the write there, as a disk error would.
var writeStepHook func(step int) error

// Validate checks everything the writer can reject, without touching the filesystem: the
// config, the start offset, and that every batch can be built at its exact size
// (planSizedBatch: the minimum for its record count, the sizes no record layout reaches).
func (w *Workload) Validate() error {
	if err := w.Config.Validate(); err != nil {
		return err
	}
	if w.StartOffset < 0 {
		return fmt.Errorf("start offset %d is negative", w.StartOffset)
	}
	for i, s := range w.Steps {
		if s.Roll {
			return fmt.Errorf("step %d: %w", i, errRollStep)
		}
		if w.Replicas == nil && (s.Fetch || s.Elect) {
			return fmt.Errorf("step %d: a fetch or an election needs \"replicas\"", i)
		}
		if w.Replicas != nil && s.Crash != nil {
			return fmt.Errorf("step %d: a crash step in a replicated workload is not modelled", i)
		}
		if w.Replicas != nil && s.Clean != nil {
			return fmt.Errorf("step %d: a clean step in a replicated workload is not modelled (the file writer cleans a single log)", i)
		}
		for j, b := range s.Append {
			if w.Replicas != nil && b.BaseOffset != 0 {
				// ReplicaSet.Fetch checks that a fetched batch starts at the follower's log end.
				return fmt.Errorf("append %d batch %d: baseOffset %d: the file writer assigns a replicated workload's offsets one after another (a follower's fetch of a gap is not written yet)", i, j, b.BaseOffset)
			}
			if err := b.checkTransactional(); err != nil {
				return fmt.Errorf("append %d batch %d: %w", i, j, err)
			}
			if b.Control != "" {
				continue
			}
			if b.Compression != CompressionNone {
				// The exact fit is searched while writing (BuildCompressedBatch); the minimum
				// is what a workload can get wrong.
				least, err := MinCompressedBatchSize(b.Records, b.Compression)
				if err == nil && b.Bytes < least {
					err = fmt.Errorf("a %s batch of %s needs at least %d bytes with the writer's records; %d requested", b.Compression, plural(b.Records, "record"), least, b.Bytes)
				}
				if err != nil {
					return fmt.Errorf("append %d batch %d: %w", i, j, err)
				}
				continue
			}
			if _, err := planSizedBatch(b.Records, b.Bytes); err != nil {
				return fmt.Errorf("append %d batch %d: %w", i, j, err)
			}
		}
	}
	return w.validateReplicas()
}

// validateReplicas checks a replicated workload's replicas and the replica numbers of its steps,
// following the elections: what ParseWorkload checks, for a Workload built in code.
func (w *Workload) validateReplicas() error {
	r := w.Replicas
	if r == nil {
		return nil
	}
	if r.Count < MinReplicas || r.Count > MaxReplicas || len(r.StartOffsets) != r.Count {
		return fmt.Errorf("replicas: %d replicas with %d start offsets (want %d to %d, one offset each)", r.Count, len(r.StartOffsets), MinReplicas, MaxReplicas)
	}
	if r.StartOffsets[0] != w.StartOffset {
		return fmt.Errorf("replicas: replica 0 starts at %d, not at the workload's start offset %d", r.StartOffsets[0], w.StartOffset)
	}
	for i, o := range r.StartOffsets {
		if o < 0 {
			return fmt.Errorf("replicas: replica %d's start offset %d is negative", i, o)
		}
	}
	if r.FetchMaxBytes < 0 {
		return fmt.Errorf("replicas: fetch max bytes %d is negative", r.FetchMaxBytes)
	}
	leader := 0
	for i, s := range w.Steps {
		if (s.Replica != LeaderReplica || s.Fetch || s.Elect) && (s.Replica < 0 || s.Replica >= r.Count) {
			return fmt.Errorf("step %d: replica %d does not exist (replicas 0 to %d)", i, s.Replica, r.Count-1)
		}
		switch {
		case s.Fetch && s.Replica == leader:
			return fmt.Errorf("step %d: replica %d is the leader at this step: only a follower fetches", i, leader)
		case s.Elect:
			leader = s.Replica
		}
	}
	return nil
}

// Validate checks everything the writer can reject in a recipe: the config, the start
// offset, and that every batch holds at least one record (a v2 batch of none would have
// lastOffsetDelta -1, which Log.Append refuses).
func (r *Recipe) Validate() error {
	if err := r.Config.Validate(); err != nil {
		return err
	}
	if r.StartOffset < 0 {
		return fmt.Errorf("start offset %d is negative", r.StartOffset)
	}
	for i, a := range r.Appends {
		for j, b := range a {
			if b.Records < 1 {
				return fmt.Errorf("append %d batch %d: a written batch holds at least 1 record (%d given)", i, j, b.Records)
			}
		}
	}
	return nil
}

// WriteWorkloadDir writes w as the partition directory dir, atomically: see ReplaceDir. A
// replicated workload makes dir a directory of replica-0, replica-1, ... partition
// directories, written and renamed into place as one.
func WriteWorkloadDir(dir string, w *Workload, replace bool) (*WriteResult, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return ReplaceDir(dir, replace, func(tmp string) (*WriteResult, error) { return WriteWorkload(tmp, w) })
}

// WriteRecipeDir writes r as the partition directory dir, atomically: see ReplaceDir.
func WriteRecipeDir(dir string, r *Recipe, replace bool) (*WriteResult, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return ReplaceDir(dir, replace, func(tmp string) (*WriteResult, error) { return WriteRecipe(tmp, r) })
}

// A DirError is a target directory that cannot be written or replaced: the caller's input
// (a usage error), not a failure of the write.
type DirError struct{ Msg string }

func (e *DirError) Error() string { return e.Msg }

// ReplaceDir runs write on a new temporary directory beside dir and, when it succeeds,
// fsyncs every file and renames the temporary directory to dir.
//
// Without replace, dir must not exist or be an empty directory (rename(2) replaces an empty
// directory atomically). With replace, an existing dir may hold only files kidx write
// writes (segment files: .log, .index, .timeindex, .txnindex): it is renamed aside, the new
// directory renamed in, and the old one removed. POSIX has no atomic exchange of two
// directories, so between the two renames dir does not exist; it never holds a mix of old
// and new files, and if the second rename fails the old directory is renamed back.
//
// On any error the temporary directory is removed.
func ReplaceDir(dir string, replace bool, write func(tmp string) (*WriteResult, error)) (res *WriteResult, err error) {
	target, err := resolveTarget(dir)
	if err != nil {
		return nil, err
	}
	exists, err := checkTarget(target, replace)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, WriteTempDirPrefix+filepath.Base(target)+"-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	// MkdirTemp makes the directory 0700; a partition directory is 0755, as CreateLog makes it.
	if err = os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if res, err = write(tmp); err != nil {
		return nil, err
	}
	if err = syncTree(tmp); err != nil {
		return nil, err
	}
	if !exists {
		if err = os.Rename(tmp, target); err != nil {
			return nil, err
		}
		return res, syncDir(parent)
	}
	// An existing directory: empty ones are replaced by the rename itself.
	if empty, _ := isEmptyDir(target); empty {
		if err = os.Rename(tmp, target); err == nil {
			return res, syncDir(parent)
		}
	}
	// The old directory goes into a fresh directory of its own (a name nothing else holds).
	asideDir, err := os.MkdirTemp(parent, WriteTempDirPrefix+filepath.Base(target)+"-old-")
	if err != nil {
		return nil, err
	}
	aside := filepath.Join(asideDir, "old")
	if err = os.Rename(target, aside); err != nil {
		os.Remove(asideDir)
		return nil, err
	}
	if err = os.Rename(tmp, target); err != nil {
		if back := os.Rename(aside, target); back != nil {
			return nil, fmt.Errorf("%w; and renaming the old directory back from %s failed: %v", err, aside, back)
		}
		os.Remove(asideDir)
		return nil, err
	}
	// The new directory is in place: whatever fails now, the old one goes.
	return res, errors.Join(syncDir(parent), os.RemoveAll(asideDir))
}

// resolveTarget follows a symlink to the directory it names, so that the directory, not the
// link, is replaced.
func resolveTarget(dir string) (string, error) {
	if dir == "" {
		return "", &DirError{"no directory given"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Lstat(abs); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", &DirError{fmt.Sprintf("%s: %v", dir, err)}
		}
		return resolved, nil
	}
	return abs, nil
}

// checkTarget says whether target exists, and refuses what the write must not replace.
func checkTarget(target string, replace bool) (bool, error) {
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, &DirError{err.Error()}
	case !st.IsDir():
		return false, &DirError{fmt.Sprintf("%s exists and is not a directory", target)}
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return false, &DirError{err.Error()}
	}
	if len(entries) == 0 {
		return true, nil
	}
	if !replace {
		return false, &DirError{fmt.Sprintf("%s is not empty (%s): refusing to write there without --force", target, plural(len(entries), "entry"))}
	}
	// --force replaces the whole directory: only one that holds nothing but segment files (what
	// an earlier kidx write made) may go, never a broker's partition with its checkpoints and
	// snapshots, nor a directory of anything else.
	// A replicated write left replica-N directories of segment files instead.
	replicated := len(entries) > 0 && entries[0].IsDir()
	for _, e := range entries {
		if replicated {
			if e.IsDir() && isReplicaDirName(e.Name()) && segmentFilesOnly(filepath.Join(target, e.Name())) {
				continue
			}
			return false, &DirError{fmt.Sprintf("%s holds %s, which kidx write does not write: --force replaces only what kidx write writes (replica-N directories of segment files, for a replicated workload)", target, e.Name())}
		}
		if !e.Type().IsRegular() || !isSegmentFileName(e.Name()) {
			return false, &DirError{fmt.Sprintf("%s holds %s, which kidx write does not write: --force replaces only a directory of segment files (.log, .index, .timeindex, .txnindex)", target, e.Name())}
		}
	}
	return true, nil
}

// isReplicaDirName reports a name ReplicaDirName gives.
func isReplicaDirName(name string) bool {
	for r := range MaxReplicas {
		if name == ReplicaDirName(r) {
			return true
		}
	}
	return false
}

// segmentFilesOnly reports a directory holding regular segment files and nothing else.
func segmentFilesOnly(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isSegmentFileName(e.Name()) {
			return false
		}
	}
	return true
}

func isSegmentFileName(name string) bool {
	for _, suf := range []string{LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix} {
		if stem, ok := strings.CutSuffix(name, suf); ok && len(stem) == 20 && strings.Trim(stem, "0123456789") == "" {
			return true
		}
	}
	return false
}

func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 0, err
}

// syncTree fsyncs every regular file in dir, then dir itself: the data is on disk before
// the rename makes it visible under the target's name.
func syncTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			// A replicated write's replica-N partition directories.
			if err := syncTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory, making a rename or a new entry in it durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
