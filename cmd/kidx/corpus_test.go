package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14 item 1: `kidx corpus --out DIR --count N --seed S` writes N case directories, each
// a partition directory with expected.json and workload.json; a given seed is not printed, a
// drawn one is (as kidx diff, issue 11 defect 5).
func TestCorpusWrites(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c")
	stdout, stderr, code := runKidx(t, "corpus", "--out", out, "--count", "3", "--seed", "8")
	if code != 0 || strings.Contains(stderr, "replay with") || !strings.Contains(stdout, "wrote 3 cases") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, c := range []string{"case-00000", "case-00001", "case-00002"} {
		for _, f := range []string{"expected.json", "workload.json", "t-0"} {
			if _, err := os.Stat(filepath.Join(out, c, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 3 {
		t.Fatalf("%d entries in --out, want the 3 cases only", len(ents))
	}
	// No temporary directory is left beside --out.
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Fatalf("%d entries beside --out", len(ents))
	}
	out2 := filepath.Join(t.TempDir(), "d")
	_, stderr, code = runKidx(t, "corpus", "--out", out2, "--count", "1")
	if code != 0 || !strings.HasPrefix(stderr, "kidx corpus: seed ") || !strings.Contains(stderr, "(replay with --seed ") {
		t.Fatalf("drawn seed: exit %d, stderr %q", code, stderr)
	}
}

// Issue 14 item 1: workload.json is "replayable with kidx write": an undamaged case's partition
// is what kidx write writes from it, byte for byte; issue 24: compressed batches ("compression")
// included.
func TestCorpusWorkloadReplays(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c")
	if _, stderr, code := runKidx(t, "corpus", "--out", out, "--count", "6", "--seed", "3"); code != 0 {
		t.Fatal(stderr)
	}
	replayed, compressed := 0, 0
	for _, c := range []string{"case-00000", "case-00001", "case-00002", "case-00003", "case-00004", "case-00005"} {
		data, err := os.ReadFile(filepath.Join(out, c, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		var exp struct {
			Damage json.RawMessage `json:"damage"`
		}
		if err := json.Unmarshal(data, &exp); err != nil {
			t.Fatal(err)
		}
		if exp.Damage != nil {
			continue
		}
		dir := filepath.Join(t.TempDir(), "w")
		if _, stderr, code := runKidx(t, "write", "--workload", filepath.Join(out, c, "workload.json"), "--dir", dir); code != 0 {
			t.Fatalf("%s: kidx write: %s", c, stderr)
		}
		ents, _ := os.ReadDir(dir)
		orig, _ := os.ReadDir(filepath.Join(out, c, "t-0"))
		if len(ents) != len(orig) || len(ents) == 0 {
			t.Fatalf("%s: kidx write made %d files, the case has %d", c, len(ents), len(orig))
		}
		for _, e := range ents {
			a, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			b, err := os.ReadFile(filepath.Join(out, c, "t-0", e.Name()))
			if err != nil || !bytes.Equal(a, b) {
				t.Fatalf("%s: %s differs from kidx write's (%v)", c, e.Name(), err)
			}
		}
		replayed++
		if w, _ := os.ReadFile(filepath.Join(out, c, "workload.json")); bytes.Contains(w, []byte(`"compression"`)) {
			compressed++
		}
	}
	if replayed == 0 || compressed == 0 {
		t.Fatalf("%d undamaged cases among 6, %d of them with compressed batches: want some of each", replayed, compressed)
	}
}

// Usage errors exit 2 and write nothing (docs/cli.md, exit codes): no --out, a non-empty --out
// (left as it was), no cases, a release whose era the writer does not write (2.0-3.6 indexes
// the append's last offset, kidx write's writerRule), a release that does not exist, an
// unknown --content.
func TestCorpusUsageErrors(t *testing.T) {
	full := t.TempDir()
	writeFile(t, full, "keep.txt", "mine")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"corpus"}, "--out"},
		{[]string{"corpus", "--out", full}, "not empty"},
		{[]string{"corpus", "--out", filepath.Join(t.TempDir(), "x"), "--count", "0"}, "--count"},
		{[]string{"corpus", "--out", filepath.Join(t.TempDir(), "x"), "--kafka-version", "2.0.0"}, "2.0-3.6"},
		{[]string{"corpus", "--out", filepath.Join(t.TempDir(), "x"), "--kafka-version", "9.9.9"}, "no Apache Kafka release"},
		{[]string{"corpus", "--out", filepath.Join(t.TempDir(), "x"), "--content", "fancy"}, `--content: content "fancy": want realistic or plain`},
	} {
		_, stderr, code := runKidx(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if ents, _ := os.ReadDir(full); len(ents) != 1 {
		t.Fatalf("the refused --out now holds %d entries", len(ents))
	}
	for _, bad := range []string{"x", "x2", "x3"} {
		if _, err := os.Stat(filepath.Join(full, bad)); err == nil {
			t.Fatal("refused run created a directory")
		}
	}
}

// --kafka-version picks the writer's rule as kidx write does: 3.9.1 writes per-batch
// (KAFKA-806's fix is in 3.9.1), 3.9.0 per-append; every case then has that rule.
func TestCorpusKafkaVersion(t *testing.T) {
	for v, rule := range map[string]string{"3.9.1": "per-batch", "3.9.0": "per-append"} {
		out := filepath.Join(t.TempDir(), "c")
		if _, stderr, code := runKidx(t, "corpus", "--out", out, "--count", "2", "--seed", "1", "--kafka-version", v); code != 0 {
			t.Fatal(stderr)
		}
		for _, c := range []string{"case-00000", "case-00001"} {
			data, _ := os.ReadFile(filepath.Join(out, c, "expected.json"))
			var exp struct{ Rule, KafkaVersion string }
			if err := json.Unmarshal(data, &exp); err != nil || exp.Rule != rule || exp.KafkaVersion != v {
				t.Fatalf("%s %s: rule %q version %q (%v), want %s", v, c, exp.Rule, exp.KafkaVersion, err, rule)
			}
		}
	}
}

// Issue 24: kidx write writes a workload's "compression" (each batch at exactly its bytes, the
// codec in the attributes) and refuses "compressed": true without a codec, an unknown codec,
// an ABORT marker (no .txnindex is written) and a marker of another size (exit 2, nothing
// written).
func TestWriteCompression(t *testing.T) {
	in := t.TempDir()
	body := `{"config": {"index.interval.bytes": 500}, "rule": "per-batch", "steps": [{"append": [
		{"records": 10, "bytes": 700, "compression": "gzip"}, {"records": 3, "bytes": 400, "compression": "snappy"},
		{"records": 5, "bytes": 900, "compression": "lz4"}, {"records": 1, "bytes": 300, "compression": "zstd"},
		{"records": 2, "bytes": 200, "compression": "none"}]}]}`
	dir := filepath.Join(t.TempDir(), "p")
	if _, stderr, code := runKidx(t, "write", "--workload", writeFile(t, in, "w.json", body), "--dir", dir); code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	pos := 0
	for i, want := range []struct{ bytes, codec int }{{700, 1}, {400, 2}, {900, 3}, {300, 4}, {200, 0}} {
		size := 12 + int(binary.BigEndian.Uint32(data[pos+8:]))
		if codec := int(binary.BigEndian.Uint16(data[pos+21:]) & 7); size != want.bytes || codec != want.codec {
			t.Fatalf("batch %d: %d bytes, codec %d; want %d and %d", i, size, codec, want.bytes, want.codec)
		}
		pos += size
	}
	if pos != len(data) {
		t.Fatalf("%d bytes after the 5 batches", len(data)-pos)
	}
	for _, tc := range []struct{ name, batch, want string }{
		{"no codec", `{"records": 1, "bytes": 300, "compressed": true}`, "compressed without a codec"},
		{"unknown codec", `{"records": 1, "bytes": 300, "compression": "brotli"}`, `"brotli" is no codec`},
		{"contradiction", `{"records": 1, "bytes": 300, "compression": "gzip", "compressed": false}`, `false contradicts compression "gzip"`},
		{"too small", `{"records": 1, "bytes": 70, "compression": "gzip"}`, "needs at least"},
		{"abort marker", `{"records": 1, "bytes": 78, "control": "abort"}`, "COMMIT markers only"},
		{"marker size", `{"records": 1, "bytes": 80, "control": "commit"}`, "a COMMIT marker is 1 record of 78 bytes"},
	} {
		parent := t.TempDir()
		_, stderr, code := runKidx(t, "write", "--workload", writeFile(t, in, "bad.json", `{"batches": [`+tc.batch+`]}`), "--dir", filepath.Join(parent, "p"))
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tc.name, code, stderr, tc.want)
		}
		if names := dirNames(t, parent); len(names) != 0 {
			t.Errorf("%s: the refused write left %v", tc.name, names)
		}
	}
}
