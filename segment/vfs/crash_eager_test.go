package vfs

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// CrashCloneEager: a name created since its directory's last sync sometimes survives, with
// its synced bytes plus a prefix of its later writes; a synced name always does; a name
// replaced by a rename since the sync shows the old file or the new one, never anything else;
// CrashClone, under the same history, never keeps the unsynced names.
func TestCrashCloneEagerKeepsSomeUnsyncedNames(t *testing.T) {
	m := NewMemFS()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.MkdirAll("/d", 0o755))
	must(m.SyncDir("/"))
	write := func(name string, data []byte, sync bool) {
		f, err := m.Create(name)
		must(err)
		_, err = f.WriteAt(data, 0)
		must(err)
		if sync {
			must(f.Sync())
		}
		must(f.Close())
	}
	write("/d/old", []byte("old-contents"), true)
	write("/d/target", []byte("first"), true)
	must(m.SyncDir("/d"))
	write("/d/new", []byte("new-contents"), true) // synced bytes, unsynced name
	write("/d/tmp", []byte("second"), true)
	must(m.Rename("/d/tmp", "/d/target")) // replaces a synced name, directory not synced

	seen := map[string]int{}
	for seed := range uint64(64) {
		c := m.CrashCloneEager(rand.New(rand.NewPCG(seed, 1)))
		if got, err := ReadFile(c, "/d/old"); err != nil || string(got) != "old-contents" {
			t.Fatalf("seed %d: synced /d/old = %q, %v", seed, got, err)
		}
		if got, err := ReadFile(c, "/d/new"); err == nil {
			if !bytes.Equal(got, []byte("new-contents")) {
				t.Fatalf("seed %d: /d/new = %q, want its synced bytes", seed, got)
			}
			seen["new"]++
		} else {
			seen["no new"]++
		}
		switch got, err := ReadFile(c, "/d/target"); {
		case err == nil && string(got) == "first":
			seen["old target"]++
		case err == nil && string(got) == "second":
			seen["new target"]++
		default:
			t.Fatalf("seed %d: /d/target = %q, %v", seed, got, err)
		}
		plain := m.CrashClone(rand.New(rand.NewPCG(seed, 1)))
		if _, err := plain.Stat("/d/new"); err == nil {
			t.Fatalf("seed %d: CrashClone kept an unsynced name", seed)
		}
	}
	for _, k := range []string{"new", "no new", "old target", "new target"} {
		if seen[k] == 0 {
			t.Errorf("over 64 seeds, never %q: %v", k, seen)
		}
	}
}
