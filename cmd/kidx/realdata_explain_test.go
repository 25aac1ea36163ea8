package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/internal/realdata"
	"kidx/internal/testfiles"
)

// `kidx explain` over the real brokers' log directories (../shared/realdata, restored into a
// temporary directory by internal/realdata). The engine's answers are checked against the
// README fact by fact in explain/realdata_test.go; here the command: one run over the
// whole restored tree, its exit status, its JSON keys (the issue's), and the README's restarts
// as the JSON gives them; then damaged copies.

// explainSegJSON holds the keys of a segment (and noIndexes, to tell the CodeCrafters
// logs apart).
type explainSegJSON struct {
	BaseOffset int64    `json:"baseOffset"`
	Reproduced bool     `json:"reproduced"`
	NoIndexes  bool     `json:"noIndexes"`
	Eras       []string `json:"eras"`
	Interval   *struct {
		Min int64 `json:"min"`
		Max int64 `json:"max"`
	} `json:"interval"`
	Restarts          []int64 `json:"restarts"`
	Live              bool    `json:"live"`
	History           string  `json:"history"`
	FirstDisagreement *struct {
		File string `json:"file"`
		Slot int    `json:"slot"`
		Byte int64  `json:"byte"`
	} `json:"firstDisagreement"`
}

type explainPartJSON struct {
	Dir      string           `json:"dir"`
	Segments []explainSegJSON `json:"segments"`
}

type explainDocJSON struct {
	Partitions []explainPartJSON `json:"partitions"`
}

// explainRestartsREADME: the restarts (offsets in the JSON's "restarts") the README states, by
// partition directory and segment; an empty list where it states there were none.
var explainRestartsREADME = map[string]map[int64][]int64{
	// "iechenyb `test-0921-0`: the same rule with one broker restart before batch 839 ... The
	// `00000000000000000839.snapshot` file in that directory confirms the restart."
	"iechenyb/test-0921-0": {0: {839}},
	// "donaldy `-8/-28/-33`, iechenyb `__consumer_offsets-36` `.timeindex`: one entry, the one
	// that close appended at a clean shutdown (max timestamp, last offset), then zeros after the
	// restart": a restart after the last batch, at the log end offset (the clean shutdown's
	// producer snapshot in MANIFEST.tsv: 3, 3, 3 and 16).
	"donaldy/__consumer_offsets-8":   {0: {3}},
	"donaldy/__consumer_offsets-28":  {2: {3}},
	"donaldy/__consumer_offsets-33":  {0: {3}},
	"iechenyb/__consumer_offsets-36": {0: {16}},
	// "ldi-poc `__cluster_metadata-0`, iechenyb `string-key-0`: the 2.x/3.x rule with one batch
	// per append" (one lifetime, unlike test-0921-0).
	"iechenyb/string-key-0":        {0: {}},
	"ldi-poc/__cluster_metadata-0": {0: {}},
	// "kafkalite: Kafka 0.8/0.9 per-append rule ... checked before the append when
	// bytesSinceLastIndexEntry > 4096" (one lifetime).
	"kafkalite/hamlet-gzip-0":   {0: {}},
	"kafkalite/hamlet-none-0":   {0: {}},
	"kafkalite/hamlet-snappy-0": {0: {}},
	"kafkalite/numbers-0":       {0: {}},
}

// explainCheckKeys: the keys are in the JSON, with their types: {"partitions":
// [{"dir", "segments": [{"baseOffset", "reproduced", "eras", "interval": {"min","max"},
// "restarts": [offsets], "live", "firstDisagreement"}]}]}.
func explainCheckKeys(t *testing.T, out string) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("explain --format json: %v", err)
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(doc["partitions"], &parts); err != nil || len(parts) == 0 {
		t.Fatalf(`"partitions": %v (%d)`, err, len(parts))
	}
	want := func(obj map[string]json.RawMessage, key string, into any, where string) {
		t.Helper()
		raw, ok := obj[key]
		if !ok {
			t.Fatalf("%s: no key %q", where, key)
		}
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatalf("%s: %q: %v (%s)", where, key, err, raw)
		}
	}
	segs := 0
	for i, p := range parts {
		var dir string
		want(p, "dir", &dir, fmt.Sprintf("partitions[%d]", i))
		var ss []map[string]json.RawMessage
		want(p, "segments", &ss, dir)
		for _, s := range ss {
			segs++
			var base int64
			want(s, "baseOffset", &base, dir)
			where := fmt.Sprintf("%s segment %d", dir, base)
			var reproduced, live, noIndexes bool
			var eras []string
			var restarts []int64
			want(s, "reproduced", &reproduced, where)
			want(s, "eras", &eras, where)
			want(s, "restarts", &restarts, where)
			want(s, "live", &live, where)
			want(s, "noIndexes", &noIndexes, where)
			if eras == nil || restarts == nil {
				t.Errorf("%s: eras %v, restarts %v: want arrays", where, eras, restarts)
			}
			var iv map[string]json.RawMessage
			want(s, "interval", &iv, where)
			if reproduced && !noIndexes {
				var lo, hi int64
				want(iv, "min", &lo, where+" interval")
				want(iv, "max", &hi, where+" interval")
				if lo > hi {
					t.Errorf("%s: interval min %d > max %d", where, lo, hi)
				}
			}
			var fd json.RawMessage
			want(s, "firstDisagreement", &fd, where)
			if !noIndexes && reproduced != (string(fd) == "null") {
				t.Errorf("%s: reproduced %v with firstDisagreement %s", where, reproduced, fd)
			}
		}
	}
	if segs == 0 {
		t.Fatal("no segment in the JSON")
	}
}

// TestRealDataExplainCLI runs `kidx explain` once over the whole restored tree (its 12 origins,
// each a log.dirs entry): every segment with index files reproduced but the known gaps
// (realdata.GapExplain: today exit 1, and "NOT reproduced" for exactly their segments), every
// one of the 289 partition directories reported, and in the JSON the keys, 4096 inside
// every reproduced segment's interval, the CodeCrafters logs (no broker, no indexes) and the
// partitions whose index files were never fetched with nothing to reproduce, and the README's
// restarts.
func TestRealDataExplainCLI(t *testing.T) {
	root := realdata.Restore(t)
	origins := realdata.Origins(root)
	if len(origins) != realdata.OriginCount {
		t.Fatalf("%d origins, want %d (README): %v", len(origins), realdata.OriginCount, origins)
	}
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}

	// The segments explain does not reproduce today (realdata.Gaps, GapExplain), by partition:
	// none since issue 25 (the cleaned and recovered histories).
	notReproduced := map[string][]int64{}
	// Reproduced, but by an interval set without 4096 today: none since issue 25 (a time-index
	// mark pinned to one batch is an anchor of its own: -45's segment 507).
	noDefaultInterval := map[string]int64{}
	for name := range notReproduced {
		if _, ok := realdata.KnownGap(name, realdata.GapExplain); !ok {
			t.Fatalf("%s: no explain gap in realdata.Gaps", name)
		}
	}
	// The histories the README states (issue 25): "the log cleaner's output" (segment 0 of
	// __consumer_offsets-25 and -45) and "A recovered segment" (cart-product-request-0's 12).
	wantHistory := map[string]map[int64]string{
		realdata.K40 + "/__consumer_offsets-25": {0: "cleaned", 63: "appends", 474: "appends"},
		realdata.K40 + "/__consumer_offsets-45": {0: "cleaned", 36: "appends", 507: "appends"},
		realdata.RecoveredDir:                   {realdata.RecoveredBase: "recovered"},
	}
	wantCode := map[bool]int{true: 1, false: 0}[len(notReproduced) > 0]

	text, errOut, code := runKidx(t, append([]string{"explain"}, origins...)...)
	if code != wantCode {
		t.Errorf("explain %s: exit %d, want %d (known gaps: %v): %s", strings.Join(origins, " "), code, wantCode, notReproduced, errOut)
	}
	if n := strings.Count(text, "\npartition ") + map[bool]int{true: 1}[strings.HasPrefix(text, "partition ")]; n != realdata.PartitionCount {
		t.Errorf("explain (text): %d partitions, want %d", n, realdata.PartitionCount)
	}
	if n, want := strings.Count(text, "NOT reproduced"), 2*len(notReproduced); n != want {
		// One line for the partition, one for its segment.
		t.Errorf("explain (text) says NOT reproduced %d times, want %d (the known gaps %v)", n, want, notReproduced)
	}

	// The text names the histories (issue 25): the README's two cleaned segments and its
	// recovered one, recovered after its last batch (offset 26, the .log's 969 bytes).
	if n := strings.Count(text, "    history: written by the log cleaner in one pass"); n < len(realdata.CleanedBesideSource) {
		t.Errorf("explain (text) names the cleaned history %d times, want at least %d", n, len(realdata.CleanedBesideSource))
	}
	if !strings.Contains(text, "    history: indexes rebuilt by recover() at the restart before offset 26 (byte 969)") {
		t.Errorf("explain (text) does not name cart-product-request-0's recovery after its last batch")
	}

	out, errOut, code := runKidx(t, append([]string{"explain", "--format", "json"}, origins...)...)
	if code != wantCode {
		t.Errorf("explain --format json: exit %d, want %d: %s", code, wantCode, errOut)
	}
	explainCheckKeys(t, out)
	var doc explainDocJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("explain --format json: %v\n%s", err, out)
	}
	got := map[string]explainPartJSON{}
	for _, p := range doc.Partitions {
		got[realdata.Name(root, p.Dir)] = p
	}
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		p, ok := got[name]
		if !ok {
			t.Errorf("%s: not in the JSON (partitions: %d)", name, len(doc.Partitions))
			continue
		}
		if len(p.Segments) != len(realdata.LogFiles(dir)) {
			t.Errorf("%s: %d segments, want %d (.log files)", name, len(p.Segments), len(realdata.LogFiles(dir)))
		}
		// "the CodeCrafters "build your own Kafka" tester (not a broker)": "no indexes"; and the
		// index files that could not be fetched.
		noIndexes := strings.HasPrefix(name, "codecrafters-") || realdata.IndexNotFetched(name)
		for _, s := range p.Segments {
			where := fmt.Sprintf("%s segment %d", name, s.BaseOffset)
			if s.NoIndexes != noIndexes {
				t.Errorf("%s: noIndexes %v, want %v", where, s.NoIndexes, noIndexes)
			}
			if noIndexes {
				continue
			}
			if gapped := slices.Contains(notReproduced[name], s.BaseOffset); s.Reproduced == gapped {
				t.Errorf("%s: reproduced %v, want %v (known gaps: %v): %+v", where, s.Reproduced, !gapped, notReproduced, s.FirstDisagreement)
			}
			if !s.Reproduced {
				continue
			}
			holds := s.Interval != nil && s.Interval.Min <= 4096 && 4096 <= s.Interval.Max
			if base, gapped := noDefaultInterval[name]; gapped && base == s.BaseOffset {
				holds = !holds // known: without 4096 today
			}
			if !holds {
				t.Errorf("%s: interval %+v does not hold 4096 (the default every broker here ran; known gaps: %v)", where, s.Interval, noDefaultInterval)
			}
			if len(s.Eras) == 0 {
				t.Errorf("%s: reproduced by no era", where)
			}
			if want, ok := wantHistory[name][s.BaseOffset]; ok && s.History != want {
				t.Errorf("%s: history %q, want %q (README)", where, s.History, want)
			}
			if want, ok := explainRestartsREADME[name][s.BaseOffset]; ok && !slices.Equal(s.Restarts, want) {
				t.Errorf("%s: restarts %v, want %v (README)", where, s.Restarts, want)
			}
		}
	}
	for name, segs := range explainRestartsREADME {
		for base := range segs {
			found := false
			for _, s := range got[name].Segments {
				found = found || s.BaseOffset == base
			}
			if !found {
				t.Errorf("%s: no segment %d in the JSON", name, base)
			}
		}
	}
}

// TestRealDataExplainCLIDamage: `kidx explain --format json` on a copy of iechenyb/test-0921-0
// with one planted damage exits 1, and its firstDisagreement names the damaged file and slot
// (chosen by hand); the undamaged copy exits 0.
func TestRealDataExplainCLIDamage(t *testing.T) {
	root := realdata.Restore(t)
	src := filepath.Join(root, "iechenyb", "test-0921-0")
	stem := fmt.Sprintf("%020d", 0)
	explainOf := func(t *testing.T, dir string) (explainSegJSON, int) {
		t.Helper()
		out, errOut, code := runKidx(t, "explain", "--format", "json", dir)
		var doc explainDocJSON
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Partitions) != 1 || len(doc.Partitions[0].Segments) != 1 {
			t.Fatalf("explain %s: exit %d, %v: %s\n%s", dir, code, err, errOut, out)
		}
		return doc.Partitions[0].Segments[0], code
	}
	check := func(t *testing.T, dir, file string, slot int, entrySize int64) {
		t.Helper()
		s, code := explainOf(t, dir)
		if code != 1 || s.Reproduced {
			t.Errorf("damaged %s: exit %d, reproduced %v; want exit 1, not reproduced", filepath.Base(file), code, s.Reproduced)
		}
		d := s.FirstDisagreement
		if d == nil {
			t.Fatalf("damaged %s: no firstDisagreement", filepath.Base(file))
		}
		lo := int64(slot) * entrySize
		if !sameFile(d.File, file) || d.Slot != slot || d.Byte < lo || d.Byte >= lo+entrySize {
			t.Errorf("damaged slot %d of %s (bytes %d-%d): firstDisagreement %+v", slot, filepath.Base(file), lo, lo+entrySize-1, *d)
		}
	}

	t.Run("undamaged-copy", func(t *testing.T) {
		s, code := explainOf(t, realdata.CopyDir(t, src))
		if code != 0 || !s.Reproduced || !slices.Equal(s.Restarts, []int64{839}) {
			t.Errorf("undamaged copy: exit %d, reproduced %v, restarts %v; want 0, true, [839]", code, s.Reproduced, s.Restarts)
		}
	})

	// Slot 5 of the .index: its position moved 9 bytes into the batch it names.
	t.Run("index-position-inside-a-batch", func(t *testing.T) {
		const slot = 5
		dir := realdata.CopyDir(t, src)
		idx := filepath.Join(dir, stem+".index")
		pos := int64(binary.BigEndian.Uint32(testfiles.ReadAt(t, idx, slot*8+4, 4)))
		// The batch there spans 12 + its length field (at +8) bytes.
		size := 12 + int64(binary.BigEndian.Uint32(testfiles.ReadAt(t, filepath.Join(dir, stem+".log"), pos+8, 4)))
		if pos == 0 || size <= 9 {
			t.Fatalf("slot %d of %s: position %d, batch of %d bytes: not a place to damage", slot, idx, pos, size)
		}
		testfiles.WriteAt(t, idx, slot*8+4, binary.BigEndian.AppendUint32(nil, uint32(pos+9)))
		check(t, dir, idx, slot, 8)
	})

	// Slot 15 of the .timeindex: its timestamp made 2 ms larger (still below slot 16's).
	t.Run("timeindex-timestamp", func(t *testing.T) {
		const slot = 15
		dir := realdata.CopyDir(t, src)
		tix := filepath.Join(dir, stem+".timeindex")
		b := testfiles.ReadAt(t, tix, slot*12, 24)
		ts, next := int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[12:]))
		if ts <= 0 || next <= ts+2 {
			t.Fatalf("slots %d, %d of %s: timestamps %d, %d", slot, slot+1, tix, ts, next)
		}
		testfiles.WriteAt(t, tix, slot*12, binary.BigEndian.AppendUint64(nil, uint64(ts+2)))
		check(t, dir, tix, slot, 12)
	})
}
