package vfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"
)

// Issue 13, item 2 lets the differential harness reuse one in-memory filesystem, "cleared
// cheaply", across cases. Reset must leave nothing of the old files visible: 300 rounds of
// random writes (at the end, past it leaving a gap, inside), truncates (shrinking, growing)
// and syncs on three files, on one MemFS reset between rounds, must each leave exactly the
// bytes a plain slice model of the same operations holds (a gap and a grown tail read as
// zeros, POSIX pwrite/ftruncate), although the reused arrays hold the previous rounds' bytes.
// And the bytes ReadFileShared returned must not change when the file is written afterwards
// (copy on write), including writes over synced bytes.
func TestMemFSResetReusesNothingVisible(t *testing.T) {
	m := NewMemFS()
	rng := rand.New(rand.NewPCG(13, 2))
	names := []string{"/p/a", "/p/b", "/p/c"}
	for round := range 300 {
		if round > 0 {
			m.Reset()
			if ents, err := m.ReadDir("/"); err != nil || len(ents) != 0 {
				t.Fatalf("round %d: after Reset the root lists %v (%v)", round, ents, err)
			}
			if _, err := m.Stat("/p/a"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("round %d: a file of the last round is still there: %v", round, err)
			}
		}
		if err := m.MkdirAll("/p", 0o755); err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{}
		files := map[string]File{}
		for _, n := range names {
			f, err := m.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			files[n], want[n] = f, []byte{}
		}
		type snapshot struct {
			name       string
			got, bytes []byte
		}
		var snaps []snapshot
		for op := range 40 {
			n := names[rng.IntN(len(names))]
			f, w := files[n], want[n]
			switch k := rng.IntN(10); {
			case k < 6:
				var off int
				switch rng.IntN(3) {
				case 0:
					off = len(w) // append
				case 1:
					off = len(w) + 1 + rng.IntN(300) // past the end: a gap of zeros
				default:
					off = rng.IntN(len(w) + 1) // over existing bytes
				}
				p := make([]byte, 1+rng.IntN(2000))
				for i := range p {
					p[i] = byte(1 + rng.IntN(255)) // never 0, so a stale or missing zero shows
				}
				if _, err := f.WriteAt(p, int64(off)); err != nil {
					t.Fatal(err)
				}
				if need := off + len(p); need > len(w) {
					w = append(w, make([]byte, need-len(w))...)
				}
				copy(w[off:], p)
			case k < 8:
				size := rng.IntN(len(w) + 500)
				if err := f.Truncate(int64(size)); err != nil {
					t.Fatal(err)
				}
				if size <= len(w) {
					w = w[:size:size]
				} else {
					w = append(w, make([]byte, size-len(w))...)
				}
			case k < 9:
				if err := f.Sync(); err != nil {
					t.Fatal(err)
				}
			default:
				b, err := m.ReadFileShared(n)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, w) {
					t.Fatalf("round %d op %d: ReadFileShared(%s) %d bytes, want %d (first difference at %d)", round, op, n, len(b), len(w), firstDifference(b, w))
				}
				snaps = append(snaps, snapshot{n, b, bytes.Clone(w)})
			}
			want[n] = w
		}
		for _, n := range names {
			got, err := ReadFile(m, n)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[n]) {
				t.Fatalf("round %d: %s holds %d bytes, want %d (first difference at %d)", round, n, len(got), len(want[n]), firstDifference(got, want[n]))
			}
			files[n].Close()
		}
		for i, s := range snaps {
			if !bytes.Equal(s.got, s.bytes) {
				t.Fatalf("round %d: snapshot %d of %s changed after later writes (first difference at %d)", round, i, s.name, firstDifference(s.got, s.bytes))
			}
		}
	}
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// SyncDir updates a directory's synced entries by the names changed since the last one
// instead of copying them all (the writer syncs the partition directory at every roll). The
// rule it must keep (docs/vfs.md, Pebble's and POSIX's): after a crash, a directory holds
// exactly the names it held at its last SyncDir. 300 random runs of creates, renames (within
// the directory, onto existing names too), removes and syncs, with a crash clone after every
// operation, against a model that copies the whole name set at each sync.
func TestMemFSSyncDirKeepsExactlyTheSyncedNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 3))
	for run := range 300 {
		m := NewMemFS()
		if err := m.MkdirAll("/d", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := m.SyncDir("/"); err != nil {
			t.Fatal(err)
		}
		current, synced := map[string]bool{}, map[string]bool{}
		name := func() string { return string(rune('a' + rng.IntN(6))) }
		for op := range 30 {
			switch k := rng.IntN(10); {
			case k < 4:
				n := name()
				f, err := m.Create("/d/" + n)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
				current[n] = true
			case k < 6:
				from, to := name(), name()
				err := m.Rename("/d/"+from, "/d/"+to)
				if current[from] != (err == nil) {
					t.Fatalf("run %d op %d: rename %s -> %s: %v (exists %v)", run, op, from, to, err, current[from])
				}
				if err == nil && from != to {
					delete(current, from)
					current[to] = true
				}
			case k < 8:
				n := name()
				err := m.Remove("/d/" + n)
				if current[n] != (err == nil) {
					t.Fatalf("run %d op %d: remove %s: %v (exists %v)", run, op, n, err, current[n])
				}
				delete(current, n)
			default:
				if err := m.SyncDir("/d"); err != nil {
					t.Fatal(err)
				}
				synced = map[string]bool{}
				for n := range current {
					synced[n] = true
				}
			}
			ents, err := m.CrashClone(rand.New(rand.NewPCG(uint64(run), uint64(op)))).ReadDir("/d")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, e := range ents {
				got[e.Name()] = true
			}
			if fmt.Sprint(got) != fmt.Sprint(synced) {
				t.Fatalf("run %d op %d: after a crash /d holds %v, synced were %v", run, op, got, synced)
			}
		}
	}
}
