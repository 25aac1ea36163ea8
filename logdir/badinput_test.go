package logdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"kidx/dump"
	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// Bad .log input: each case gives a clear error or verify finding, never a
// panic (FileLogInputStream.nextBatch rules, docs/kafka.md §1.5).
func TestBadLogInput(t *testing.T) {
	good := segmenttest.ThreeBatches()
	setSize := func(v int32) []byte {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint32(b[78+8:], uint32(v))
		return b
	}
	flip := append([]byte(nil), good...)
	flip[78+70] ^= 0xff
	magic := append([]byte(nil), good...)
	magic[78+16] = 7
	// A magic byte inverted (2 -> 0xfd, -3): below 2, so nextBatch reads a legacy message, and
	// no format has a negative magic (issue 24's corpus found verify indexing by it).
	negative := append([]byte(nil), good...)
	negative[78+16] ^= 0xff
	cases := []struct {
		name    string
		data    []byte
		check   string // expected verify finding ("" = none)
		batches int
	}{
		{"empty", nil, "", 0},
		{"truncated mid-header", good[:78+30], CheckTrailingBytes, 1},
		{"truncated mid-batch", good[:78+70], CheckTrailingBytes, 1},
		{"size -1", setSize(-1), CheckLogCorrupt, 1},
		{"size 0", setSize(0), CheckLogCorrupt, 1},
		{"size 13", setSize(13), CheckLogCorrupt, 1},
		{"size 2^31-1", setSize(1<<31 - 1), CheckTrailingBytes, 1}, // a truncated tail, never trusted beyond the file
		{"crc mismatch", flip, CheckCRC, 3},
		{"wrong magic", magic, CheckMagic, 3},
		{"negative magic", negative, CheckMagic, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
			testfiles.MustWrite(t, path, c.data)
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			lf, err := segment.OpenLog(path)
			if err != nil {
				t.Fatal(err)
			}
			res := lf.Walk(0, 0, func(segment.BatchInfo) bool { return true })
			lf.Close()
			runtime.ReadMemStats(&ms1)
			if ms1.TotalAlloc-ms0.TotalAlloc > 1<<20 {
				t.Fatalf("walk allocated %d bytes", ms1.TotalAlloc-ms0.TotalAlloc)
			}
			if res.Batches != c.batches {
				t.Fatalf("%d batches, want %d (%v)", res.Batches, c.batches, res.Err)
			}
			if res.Err != nil {
				var fe *segment.FormatError
				if !asFormatErr(res.Err, &fe) || fe.File != path || fe.Pos != 78+8 {
					t.Fatalf("error %v must name the file and byte 86", res.Err)
				}
			}
			rep, err := Verify([]string{dir}, VerifyOptions{Deep: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				if f.Severity != SeverityInfo {
					got = append(got, f.Check)
				}
			}
			if c.check == "" && len(got) != 0 || c.check != "" && (len(got) == 0 || got[0] != c.check) {
				t.Fatalf("findings %v, want %q", rep.Findings, c.check)
			}
			var out bytes.Buffer
			dump.File(&out, path, dump.Options{Deep: true, Stderr: io.Discard})
			dump.File(io.Discard, path, dump.Options{JSON: true})
		})
	}
}

func asFormatErr(err error, fe **segment.FormatError) bool {
	e, ok := err.(*segment.FormatError)
	*fe = e
	return ok
}

// Bad index input: zero tail, length not a multiple of 8/12, non-monotonic
// entries, an entry past the log, empty index.
func TestBadIndexInput(t *testing.T) {
	logData := segmenttest.ThreeBatches()
	idx := segment.EncodeIndexEntry(segment.EncodeIndexEntry(nil, 0, segment.IndexEntry{Offset: 1, Position: 78}), 0, segment.IndexEntry{Offset: 2, Position: 156})
	tidx := segment.EncodeTimeIndexEntry(segment.EncodeTimeIndexEntry(nil, 0, segment.TimeIndexEntry{Timestamp: 1, Offset: 1}), 0, segment.TimeIndexEntry{Timestamp: 2, Offset: 2})
	swapped := append(append([]byte(nil), idx[8:]...), idx[:8]...)
	cases := []struct {
		name      string
		idx, tidx []byte
		check     string
	}{
		{"clean", idx, tidx, ""},
		{"zero-filled tail", append(append([]byte(nil), idx...), make([]byte, 80)...), append(append([]byte(nil), tidx...), make([]byte, 60)...), ""},
		// ^ a live segment's preallocated indexes: healthy. Kafka's sanityCheck on the
		// reopened files is only what a start after an unclean shutdown would say: the
		// offset index's zero tail passes OffsetIndex.sanityCheck (last offset == base)
		// but the time index's fails TimeIndex.sanityCheck (last timestamp 0 < first
		// timestamp 1), as in Kafka (docs/kafka.md §4, §6); TestLiveSegmentUncleanStart.
		{"index length not multiple of 8", append(append([]byte(nil), idx...), 0, 0, 1), tidx, CheckIndexSanity},
		{"timeindex length not multiple of 12", idx, append(append([]byte(nil), tidx...), 0, 0, 0, 0, 1), CheckIndexSanity},
		{"non-monotonic entries", swapped, tidx, CheckIndexOrder},
		{"entry past the log", segment.EncodeIndexEntry(append([]byte(nil), idx...), 0, segment.IndexEntry{Offset: 3, Position: 1 << 20}), tidx, CheckIndexPastLog},
		{"empty index", nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			stem := filepath.Join(dir, segment.FilenamePrefixFromOffset(0))
			testfiles.MustWrite(t, stem+segment.LogSuffix, logData)
			testfiles.MustWrite(t, stem+segment.IndexSuffix, c.idx)
			testfiles.MustWrite(t, stem+segment.TimeIndexSuffix, c.tidx)
			rep, err := Verify([]string{stem + segment.IndexSuffix}, VerifyOptions{Deep: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				if f.Severity != SeverityInfo {
					got = append(got, f.Check)
					if f.File == "" || f.Pos < 0 {
						t.Errorf("finding without file/position: %v", f)
					}
				}
			}
			if c.check == "" && len(got) != 0 || c.check != "" && !contains(got, c.check) {
				t.Fatalf("findings %v, want %q", rep.Findings, c.check)
			}
			for _, f := range []string{stem + segment.IndexSuffix, stem + segment.TimeIndexSuffix} {
				var out bytes.Buffer
				dump.File(&out, f, dump.Options{Stderr: io.Discard})
				if len(c.idx) == 0 && strings.HasSuffix(f, segment.IndexSuffix) && !strings.Contains(out.String(), f+" is empty.\n") {
					t.Errorf("empty index dump: %q", out.String())
				}
			}
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// A directory with stray and unreadable files: reported, not fatal. Tests
// often run as root, where mode 000 does not stop reads: then the file is
// (truthfully) read like any other, and the test says so.
func TestStrayAndUnreadableFiles(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "topic-0")
	os.Mkdir(part, 0o755)
	stem := filepath.Join(part, segment.FilenamePrefixFromOffset(0))
	testfiles.MustWrite(t, stem+segment.LogSuffix, segmenttest.ThreeBatches())
	testfiles.MustWrite(t, filepath.Join(part, "notes.txt"), []byte("hi"))
	testfiles.MustWrite(t, stem+segment.LogSuffix+segment.DeletedSuffix, []byte("old"))
	locked := filepath.Join(part, segment.FilenamePrefixFromOffset(500)+segment.LogSuffix)
	testfiles.MustWrite(t, locked, segmenttest.ThreeBatches())
	os.Chmod(locked, 0)
	defer os.Chmod(locked, 0o644)
	testfiles.MustWrite(t, filepath.Join(root, "stray-at-top"), nil)
	ds, err := ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]int{}
	for _, f := range ds.Findings {
		checks[f.Check]++
	}
	deleted := 0
	for _, f := range ds.Partitions[0].Files {
		if f.Role == RoleDeleted {
			deleted++
		}
	}
	if checks["stray-file"] != 2 || checks["transitional"] != 1 || len(ds.Partitions) != 1 || deleted != 1 {
		t.Fatalf("scan %+v", ds)
	}
	f, openErr := os.Open(locked)
	if openErr == nil {
		f.Close()
		t.Log("running with privileges that ignore mode 000: the file is readable and is scanned normally")
		if checks[CheckUnreadable] != 0 || len(ds.Partitions[0].Segments) != 2 {
			t.Fatalf("readable file reported unreadable: %+v", ds)
		}
	} else if checks[CheckUnreadable] != 1 || len(ds.Partitions[0].Segments) != 1 {
		t.Fatalf("unreadable file not reported: %+v", ds)
	}
	if _, err := Verify([]string{root}, VerifyOptions{Deep: true}); err != nil {
		t.Fatal(err)
	}
}

type fileState struct {
	size  int64
	mtime time.Time
	mode  os.FileMode
	sum   [32]byte
}

func snapshotDir(t *testing.T, dir string) map[string]fileState {
	m := map[string]fileState{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		st := fileState{size: info.Size(), mtime: info.ModTime(), mode: info.Mode()}
		if info.Mode().IsRegular() {
			st.sum = sha256.Sum256(testfiles.MustRead(t, p))
		}
		m[p] = st
		return nil
	})
	return m
}

// Read-only: dump, verify, scan and the readers on a copy of a golden
// directory change nothing: same listing, contents, sizes, mtimes, modes,
// and no lock is left on any file.
func TestReadersAreReadOnly(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(testfiles.GoldenDir, "random-i512-per-append", "files")
	for _, f := range testfiles.ListFiles(t, src) {
		testfiles.MustWrite(t, filepath.Join(dir, f), testfiles.MustRead(t, filepath.Join(src, f)))
	}
	// An untrimmed active-style index too.
	testfiles.MustWrite(t, filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix), append(testfiles.MustRead(t, filepath.Join(src, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)), make([]byte, 64)...))
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, f := range testfiles.ListFiles(t, dir) {
		os.Chtimes(filepath.Join(dir, f), old, old)
	}
	before := snapshotDir(t, dir)
	for _, f := range testfiles.ListFiles(t, dir) {
		p := filepath.Join(dir, f)
		dump.File(io.Discard, p, dump.Options{Deep: true, Stderr: io.Discard})
		dump.File(io.Discard, p, dump.Options{JSON: true})
		dump.File(io.Discard, p, dump.Options{IndexSanityCheck: true})
		if filepath.Ext(f) == segment.LogSuffix {
			seg, err := segment.OpenSegment(p)
			if err != nil {
				t.Fatal(err)
			}
			seg.Lookup(seg.BaseOffset + 3)
			seg.LookupTimestamp(1700000000500)
			seg.Close()
			seg, _ = segment.OpenSegmentWith(p, segment.AccessMmap)
			seg.Lookup(seg.BaseOffset + 3)
			seg.Close()
		}
	}
	if _, err := Verify([]string{dir}, VerifyOptions{Deep: true, HaveInterval: true, IndexIntervalBytes: 512}); err != nil {
		t.Fatal(err)
	}
	ScanDir(dir)
	after := snapshotDir(t, dir)
	if len(before) != len(after) {
		t.Fatalf("listing changed: %d -> %d entries", len(before), len(after))
	}
	for p, b := range before {
		a, ok := after[p]
		if !ok || a.size != b.size || a.sum != b.sum || a.mode != b.mode || (p != dir && !a.mtime.Equal(b.mtime)) {
			t.Fatalf("%s changed: %+v -> %+v", p, b, a)
		}
		if p == dir {
			continue
		}
		// No lock left behind: an exclusive non-blocking flock succeeds.
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatalf("%s is locked: %v", p, err)
		}
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
