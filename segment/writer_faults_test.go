package segment_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/segment"
	"kidx/segment/vfs"
)

// Issue 13: "each injected fault kind is reported as an error naming file and operation, with
// nothing lost that was synced". The seed workload with a clean restart and the recovery-point
// checkpoint, on a MemFS under FaultFS: for every kind of operation that changes files, the
// n-th one (n = 1, 2, 5, 11, 23, 40) fails with EIO, a short write or ENOSPC. The writer must return
// that error (from the step or from Close) naming the operation and a file of the log dir;
// afterwards every file's durable bytes as of the fault are still durable (the writer never
// truncates, removes or rewrites synced data to recover from an error), and the durable state
// reloads (LoadAfterCrash from the checkpoint's recovery point) with every synced batch.
func TestWriterFaultsNameFileAndKeepSynced(t *testing.T) {
	w := segmenttest.SeedWorkload(10)
	w.Steps = append(w.Steps[:6], append([]segment.Step{{Restart: true}}, w.Steps[6:]...)...)
	faults := map[string]func() vfs.Fault{"eio": vfs.EIO, "short": func() vfs.Fault { return vfs.ShortWrite(3) }, "nospace": func() vfs.Fault { return vfs.NoSpace(5) }}
	kinds := []vfs.OpKind{vfs.OpCreate, vfs.OpWrite, vfs.OpTruncate, vfs.OpSync, vfs.OpSyncDir, vfs.OpRename, vfs.OpOpenReadWrite}
	fired, compared := 0, 0
	for _, kind := range kinds {
		for name, fault := range faults {
			if name != "eio" && kind != vfs.OpWrite {
				continue // short writes and ENOSPC are write faults
			}
			for _, n := range []int{1, 2, 5, 11, 23, 40} {
				t.Run(fmt.Sprintf("%s/%s/%d", kind, name, n), func(t *testing.T) {
					mem := vfs.NewMemFS()
					// The log dir exists and is durable, as a broker's is.
					if err := errors.Join(mem.MkdirAll("/logs", 0o755), mem.SyncDir("/")); err != nil {
						t.Fatal(err)
					}
					var atFault *vfs.MemFS
					nth := vfs.Nth(kind, n, fault())
					inj := vfs.InjectorFunc(func(op vfs.Op) *vfs.Fault {
						f := nth.Inject(op)
						if f != nil && atFault == nil {
							atFault = mem.CrashCloneFunc(func(string, []vfs.Change) vfs.CrashPoint { return vfs.CrashPoint{} })
						}
						return f
					})
					ffs := vfs.NewFaultFS(mem, inj)
					err := runWithFaults(ffs, w)
					if atFault == nil {
						if err != nil {
							t.Fatalf("no fault fired, but: %v", err)
						}
						return // fewer than n operations of this kind
					}
					fired++
					if err == nil {
						t.Fatal("the fault fired and the writer reported nothing")
					}
					var pe *os.PathError
					var le *os.LinkError
					switch {
					case errors.As(err, &pe):
						if pe.Op != kind.String() || !strings.HasPrefix(pe.Path, "/logs") {
							t.Errorf("error %v: op %q path %q, want %s on the log dir or one of its files", err, pe.Op, pe.Path, kind)
						}
					case errors.As(err, &le):
						if le.Op != kind.String() || !strings.HasPrefix(le.Old, "/logs") {
							t.Errorf("error %v: want %s on a file of /logs", err, kind)
						}
					default:
						t.Errorf("error %v (%T) names no file and operation", err, err)
					}
					after := mem.CrashCloneFunc(func(string, []vfs.Change) vfs.CrashPoint { return vfs.CrashPoint{} })
					durable := durableFiles(t, atFault, "/logs/t-0")
					for _, b := range durable {
						if len(b) > 0 {
							compared++
							break
						}
					}
					for path, want := range durable {
						got, err := vfs.ReadFile(after, path)
						if err != nil || !bytes.HasPrefix(got, want) {
							t.Errorf("%s: %d bytes durable at the fault, %d after (%v)", path, len(want), len(got), err)
						}
					}
					if _, err := after.Stat("/logs/t-0"); errors.Is(err, fs.ErrNotExist) {
						return // the fault came before the partition directory was durable
					}
					rp := segment.ReadRecoveryPoint(after, "/logs/t-0")
					l, load, err := segment.LoadAfterCrash(after, "/logs/t-0", w.Config, w.Rule, rp, 0)
					if err != nil && !strings.Contains(err.Error(), "no segment survived") {
						t.Fatalf("reload of the durable state: %v", err)
					}
					if err == nil {
						if load.Overflow != nil {
							t.Fatalf("reload overflowed: %+v", load.Overflow)
						}
						l.Close()
					}
				})
			}
		}
	}
	if fired < 20 || compared < 10 {
		t.Errorf("only %d faults fired, %d with durable bytes to keep: the test would not bite", fired, compared)
	}
}

func runWithFaults(fsys vfs.FS, w *segment.Workload) error {
	l, err := segment.CreateLogFS(fsys, "/logs/t-0", w.Config, w.Rule, 0)
	if err != nil {
		return err
	}
	if err := l.KeepRecoveryCheckpoint(); err != nil {
		l.Close()
		return err
	}
	for _, s := range w.Steps {
		if _, err := l.Apply(s); err != nil {
			return errors.Join(err, l.Close())
		}
	}
	return l.Close()
}

// durableFiles reads every file under dir of a durable-only clone.
func durableFiles(t *testing.T, m *vfs.MemFS, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, err := m.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		b, err := vfs.ReadFile(m, p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}
