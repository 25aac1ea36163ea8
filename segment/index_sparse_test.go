package segment

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// An index read sparsely (only its data regions kept in memory) gives every view the whole
// file read into memory gives: live 10 MiB files with a few entries, an entry straddling the
// end of the data, stale bytes far into the zero tail, a trimmed file.
func TestSparseIndexIsWholeIndex(t *testing.T) {
	const size = 10 << 20
	cases := []struct {
		name    string
		entries int   // written from slot 0
		garbage int64 // a non-zero byte at this position, 0 for none
		size    int64
	}{
		{"live, 3 entries", 3, 0, size},
		{"live, entries past the first page", 700, 0, size},
		{"live, garbage at 5 MiB", 40, 5 << 20, size},
		{"live, no entry", 0, 0, size},
		{"trimmed", 500, 0, -1},
	}
	for _, c := range cases {
		for _, time := range []bool{false, true} {
			es := OffsetIndexEntrySize
			if time {
				es = TimeIndexEntrySize
			}
			var data []byte
			for i := 1; i <= c.entries; i++ {
				if time {
					data = EncodeTimeIndexEntry(data, 100, TimeIndexEntry{Timestamp: 1700000000000 + int64(i), Offset: 100 + int64(i)})
				} else {
					data = EncodeIndexEntry(data, 100, IndexEntry{Offset: 100 + int64(i), Position: 4096 * int64(i)})
				}
			}
			path := filepath.Join(t.TempDir(), fmt.Sprintf("%020d.index", 100))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fileSize := c.size
			if fileSize < 0 {
				fileSize = int64(len(data))
			}
			fileSize -= fileSize % int64(es)
			if err := os.Truncate(path, fileSize); err != nil {
				t.Fatal(err)
			}
			if c.garbage > 0 {
				f, _ := os.OpenFile(path, os.O_WRONLY, 0)
				f.WriteAt([]byte{7}, c.garbage)
				f.Close()
			}
			whole, _ := os.ReadFile(path)
			name := fmt.Sprintf("%s, time %v", c.name, time)
			if time {
				sparse, err := OpenTimeIndex(path, 100)
				if err != nil {
					t.Fatal(err)
				}
				mem, _ := TimeIndexFromBytes(path, 100, whole)
				compareIndexViews(t, name, sparse.Len(), mem.Len(), sparse.ValidLen(), mem.ValidLen(), sparse.DumpLen(), mem.DumpLen(),
					sparse.Untrimmed(), mem.Untrimmed(), sparse.TailGarbage(), mem.TailGarbage(), sparse.SanityCheck(), mem.SanityCheck())
				if fmt.Sprint(sparse.Entries(sparse.ValidLen()+2)) != fmt.Sprint(mem.Entries(mem.ValidLen()+2)) || sparse.LastEntry() != mem.LastEntry() {
					t.Fatalf("%s: entries differ", name)
				}
				for ts := int64(1700000000000); ts < 1700000000000+int64(c.entries)+3; ts += 7 {
					a, _, _ := sparse.Lookup(ts)
					b, _, _ := mem.Lookup(ts)
					if a != b {
						t.Fatalf("%s: Lookup(%d) %v, whole %v", name, ts, a, b)
					}
				}
			} else {
				sparse, err := OpenOffsetIndex(path, 100)
				if err != nil {
					t.Fatal(err)
				}
				mem, _ := OffsetIndexFromBytes(path, 100, whole)
				compareIndexViews(t, name, sparse.Len(), mem.Len(), sparse.ValidLen(), mem.ValidLen(), sparse.DumpLen(), mem.DumpLen(),
					sparse.Untrimmed(), mem.Untrimmed(), sparse.TailGarbage(), mem.TailGarbage(), sparse.SanityCheck(), mem.SanityCheck())
				if fmt.Sprint(sparse.Entries(sparse.ValidLen()+2)) != fmt.Sprint(mem.Entries(mem.ValidLen()+2)) {
					t.Fatalf("%s: entries differ", name)
				}
				for o := int64(90); o < 110+int64(c.entries); o += 3 {
					a, _, _ := sparse.Lookup(o)
					b, _, _ := mem.Lookup(o)
					if a != b || sparse.LookupReopened(o) != mem.LookupReopened(o) {
						t.Fatalf("%s: Lookup(%d) %v, whole %v", name, o, a, b)
					}
				}
				if c.size == size && c.garbage == 0 && len(sparse.data) > 16<<10 {
					t.Errorf("%s: %d bytes kept for a live index with %d entries", name, len(sparse.data), c.entries)
				}
			}
		}
	}
}

func compareIndexViews(t *testing.T, name string, n, wn, valid, wvalid, dump, wdump int, untrimmed, wuntrimmed bool, garbage, wgarbage int, sanity, wsanity error) {
	t.Helper()
	if n != wn || valid != wvalid || dump != wdump || untrimmed != wuntrimmed || garbage != wgarbage || fmt.Sprint(sanity) != fmt.Sprint(wsanity) {
		t.Fatalf("%s: sparse Len %d ValidLen %d DumpLen %d Untrimmed %v TailGarbage %d sanity %v; whole %d %d %d %v %d %v",
			name, n, valid, dump, untrimmed, garbage, sanity, wn, wvalid, wdump, wuntrimmed, wgarbage, wsanity)
	}
}
