package fuzz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/explain"
	"kidx/fuzz/internal/parsecheck"
	"kidx/segment"
)

// FuzzExplain: explain must judge any segment files, never panic. The fuzzer mutates the
// .index, .timeindex and .log of a small segment written by the per-batch writer (interval 100,
// a clean restart before batch 10, as segment's own tests write it); explain then either
// reproduces them (every answer is replayed and compared byte for byte) or names a
// disagreement inside one of the files.
func FuzzExplain(f *testing.F) {
	dir := f.TempDir()
	seg := filepath.Join(dir, "seed-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 100
	l, err := segment.CreateLog(seg, cfg, segment.PerBatch, 0)
	if err != nil {
		f.Fatal(err)
	}
	for i := int64(0); i < 20; i++ {
		if i == 10 {
			if err := l.Restart(); err != nil {
				f.Fatal(err)
			}
		}
		b, err := segment.BuildSizedBatch(i, 1+int(i%3), 100+int(i%4)*10, 1700000000000+i)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := l.Append(b); err != nil {
			f.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		f.Fatal(err)
	}
	read := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(seg, segment.FilenamePrefixFromOffset(0)+ext))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	logb, idx, tidx := read(segment.LogSuffix), read(segment.IndexSuffix), read(segment.TimeIndexSuffix)
	f.Add(logb, idx, tidx)
	f.Add(logb, idx[:len(idx)-3], tidx)
	f.Add(logb[:len(logb)/2], idx, tidx)
	f.Add(logb, append(append([]byte{}, idx...), make([]byte, 64)...), append(append([]byte{}, tidx...), make([]byte, 48)...))
	f.Add([]byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, logb, idx, tidx []byte) {
		if len(logb) > 1<<16 || len(idx) > 1<<12 || len(tidx) > 1<<12 {
			return
		}
		// The same three files, rewritten for every input (scratch_test.go), in a directory
		// named as a partition.
		var prefix string
		for ext, b := range map[string][]byte{segment.LogSuffix: logb, segment.IndexSuffix: idx, segment.TimeIndexSuffix: tidx} {
			prefix = strings.TrimSuffix(parsecheck.WriteScratch(t, filepath.Join("explain", "t-0"), segment.FilenamePrefixFromOffset(0)+ext, b), ext)
		}
		d := filepath.Dir(prefix)
		parts, err := explain.Dirs([]string{d}, explain.Options{Interval: -1})
		if err != nil {
			return // a file that cannot be read is an error, not a panic
		}
		for _, p := range parts {
			for _, s := range p.Segments {
				if s.Reproduced == (s.FirstDisagreement != nil) && !s.NoIndexes {
					t.Fatalf("reproduced %v with disagreement %v", s.Reproduced, s.FirstDisagreement)
				}
				if dis := s.FirstDisagreement; dis != nil && dis.File != prefix+segment.LogSuffix && dis.File != prefix+segment.IndexSuffix && dis.File != prefix+segment.TimeIndexSuffix {
					t.Fatalf("disagreement names %q", dis.File)
				}
				if s.Reproduced && s.Interval.Empty() {
					t.Fatalf("reproduced with no interval")
				}
			}
		}
	})
}
