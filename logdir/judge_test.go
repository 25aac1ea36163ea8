package logdir

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// Valid entries (docs/segment.md): a trimmed file's slots; an untrimmed one's before the zero
// tail; an all-zero slot 0 of a preallocated file is no entry (Kafka's append rule never
// indexes position 0); a lone all-zero slot of a trimmed one-entry time index is the entry
// (timestamp 0, base offset). Bytes written by hand.
func TestValidEntries(t *testing.T) {
	entry := func(rel, pos uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, rel), pos)
	}
	cat := func(parts ...[]byte) []byte {
		var out []byte
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name        string
		data        []byte
		valid       int
		untrimmed   bool
		tailGarbage int
	}{
		{"trimmed", cat(entry(5, 100), entry(9, 200)), 2, false, -1},
		{"live with entries", cat(entry(5, 100), entry(9, 200), make([]byte, 64)), 2, true, -1},
		{"live, no entry yet", make([]byte, 80), 0, true, -1},
		{"live, stale entry in the tail", cat(entry(5, 100), make([]byte, 40), entry(7, 150), make([]byte, 16)), 1, true, 6},
		{"all-zero slot 0 then real entries", cat(make([]byte, 8), entry(9, 200)), 2, false, -1},
		{"empty", nil, 0, false, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "00000000000000000000.index")
			testfiles.MustWrite(t, path, c.data)
			x, err := segment.OpenOffsetIndex(path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if x.ValidLen() != c.valid || x.Untrimmed() != c.untrimmed || x.TailGarbage() != c.tailGarbage || x.Len() != len(c.data)/8 {
				t.Fatalf("valid %d untrimmed %v garbage %d len %d, want %d %v %d %d", x.ValidLen(), x.Untrimmed(), x.TailGarbage(), x.Len(), c.valid, c.untrimmed, c.tailGarbage, len(c.data)/8)
			}
			if c.valid == 0 {
				// A lookup with no valid entry starts at position 0, however many zero slots.
				if e, slot, _ := x.Lookup(1 << 40); slot != -1 || e.Position != 0 {
					t.Fatalf("lookup on no entries: %+v slot %d", e, slot)
				}
			}
		})
	}
	// A trimmed time index holding one entry (timestamp 0 at the base offset) is 12 zero bytes.
	path := filepath.Join(t.TempDir(), "00000000000000000007.timeindex")
	testfiles.MustWrite(t, path, make([]byte, 12))
	tx, err := segment.OpenTimeIndex(path, 7)
	if err != nil {
		t.Fatal(err)
	}
	if tx.ValidLen() != 1 || tx.Untrimmed() || tx.LastEntry() != (segment.TimeIndexEntry{Timestamp: 0, Offset: 7}) {
		t.Fatalf("one-entry time index: valid %d untrimmed %v last %+v", tx.ValidLen(), tx.Untrimmed(), tx.LastEntry())
	}
}

// The era table (docs/kafka.md §13.2), release by release, written by hand from the table's rows.
func TestEraForRelease(t *testing.T) {
	cases := map[string]string{
		"0.8.0": "0.8.0", "0.8.2.2": "0.8.1-0.8.2", "0.9.0.1": "0.9.0-0.10.0", "0.10.0.1": "0.9.0-0.10.0",
		"0.10.1": "0.10.1-0.10.2", "0.10.2.2": "0.10.1-0.10.2", "0.11.0.3": "0.11-1.1", "1.0": "0.11-1.1", "1.1.1": "0.11-1.1",
		"2.0.0": "2.0-2.2", "2.2.2": "2.0-2.2", "2.3": "2.3-3.6", "2.8.2": "2.3-3.6", "3.6.1": "2.3-3.6",
		"3.7.0": "3.7-4.0.0", "3.8.1": "3.7-4.0.0", "3.9.0": "3.7-4.0.0", "4.0.0": "3.7-4.0.0", "4": "3.7-4.0.0",
		"3.9.1": "per-batch", "4.0.1": "per-batch", "4.1.0": "per-batch", "4.3.1": "per-batch", "3.8.2": "per-batch",
		"3.7.0-SNAPSHOT": "3.7-4.0.0",
		// 4.5 is trunk; later lines are no release kidx knows (refused below).
		"4.5.0-SNAPSHOT": "per-batch", "4.5": "per-batch",
	}
	for v, want := range cases {
		r, err := ParseRelease(v)
		if err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		if got := EraFor(r).ID; got != want {
			t.Errorf("%s: era %s, want %s", v, got, want)
		}
	}
	for _, bad := range []string{"2.9", "0.12", "1.2", "3.10.0", "x.y", "", "0.7.2", "0", "4.1.0.1"} {
		if _, err := ParseRelease(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"9.9.9", "5.0", "5", "4.6.0"} {
		_, err := ParseRelease(bad)
		if err == nil || !strings.Contains(err.Error(), "the release lines are 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9 and 4.0-4.5 (4.5 is trunk, unreleased)") {
			t.Errorf("%q: %v, want the release lines", bad, err)
		}
	}
	if EraForRule(segment.PerAppend).OffsetEntry != EntryAppendLast || !EraForRule(segment.PerBatch).PerBatch() {
		t.Fatal("rule names map to the wrong eras")
	}
}

// The scan bound holds per process lifetime (docs/findings.md): verify places the restart
// where the files show one. Log.Restart closes the segment, and LogSegment.close appends the
// max timestamp so far to the time index (offset 9, no offset-index entry beside it): that mark
// places the restart in every era, before batch 10 (byte 1000) until the entry at 1200, and a
// producer snapshot there corroborates it. Without the mark (the entry dropped from a copy of
// the .timeindex), only the entries show it: exactly when the interval is given, with the
// largest interval the entries allow when it is not, and only under the per-batch rule (under
// the per-append releases a gap is just as well an append of several batches). None of this
// is a problem.
func TestRestartPlacedFromEntries(t *testing.T) {
	dir := segmenttest.WriteRestartedSegment(t)
	perBatch := EraForRule(segment.PerBatch)
	restarts := func(t *testing.T, opts VerifyOptions) []Restart {
		t.Helper()
		r, err := Verify([]string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		rs := r.Partitions[0].Segments[0].Restarts
		// Only an unmarked restart under a claimed release and interval is a problem (a
		// follower's truncation, or not these files' writer).
		unmarked := len(rs) == 1 && rs[0].Unmarked && opts.Era != nil && opts.HaveInterval
		if r.Problems() != map[bool]int{true: 1}[unmarked] {
			t.Fatalf("%+v: problems %v", opts, r.Findings)
		}
		return rs
	}
	at1000 := func(rs []Restart) bool {
		return len(rs) == 1 && rs[0].Position == 1000 && rs[0].Offset == 10 && rs[0].UntilPosition == 1200
	}
	for _, opts := range []VerifyOptions{{}, {HaveInterval: true, IndexIntervalBytes: 100, Era: &perBatch}, {Era: &perBatch}} {
		if rs := restarts(t, opts); !at1000(rs) || rs[0].TimeIndexMark != 9 || rs[0].Snapshot != "" {
			t.Fatalf("%+v: restarts %+v, want one before batch 10 (byte 1000) until the entry at 1200, marked by the time-index entry at offset 9", opts, rs)
		}
	}
	snap := filepath.Join(dir, segment.FilenamePrefixFromOffset(10)+segment.SnapshotSuffix)
	testfiles.MustWrite(t, snap, segmenttest.EmptyProducerSnapshot)
	if rs := restarts(t, VerifyOptions{}); !at1000(rs) || rs[0].Snapshot != snap || rs[0].TimeIndexMark != 9 {
		t.Fatalf("restart with a snapshot: %+v", rs)
	}
	if err := os.Remove(snap); err != nil {
		t.Fatal(err)
	}

	// The .timeindex without the close's entry: slot 4 of (2, 4, 6, 8, 9, 12, ...), 12 bytes each.
	tix := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.TimeIndexSuffix)
	data := testfiles.MustRead(t, tix)
	if e := binary.BigEndian.Uint32(data[4*12+8:]); e != 9 {
		t.Fatalf("slot 4 of the time index names relative offset %d, want 9", e)
	}
	testfiles.MustWrite(t, tix, append(append([]byte(nil), data[:4*12]...), data[5*12:]...))
	for _, given := range []bool{true, false} {
		if rs := restarts(t, VerifyOptions{HaveInterval: given, IndexIntervalBytes: 100, Era: &perBatch}); !at1000(rs) || rs[0].TimeIndexMark >= 0 || !rs[0].Unmarked {
			t.Fatalf("given=%v, no mark: restarts %+v, want the one the entries require before batch 10, unmarked", given, rs)
		}
	}
	if rs := restarts(t, VerifyOptions{}); len(rs) != 0 {
		t.Fatalf("no mark, no era: restart placed from a gap: %+v", rs)
	}
}

// Restarts only delay entries: an entry closer to the previous one than index.interval.bytes
// allows is explained by no restart, and is an error (LogSegment.append: an entry only when
// bytesSinceLastIndexEntry > indexIntervalBytes).
func TestIntervalRuleTooClose(t *testing.T) {
	dir := segmenttest.WriteRestartedSegment(t) // entries 200 bytes apart
	r, err := Verify([]string{dir}, VerifyOptions{HaveInterval: true, IndexIntervalBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range r.Findings {
		if f.Check == CheckIntervalRule {
			n++
			if f.Severity != SeverityError || !strings.HasSuffix(f.File, segment.IndexSuffix) {
				t.Fatalf("finding %v", f)
			}
		}
	}
	// Entries at 200, 400, 600, 800 (each 200 after the last), 1200 (400 after 800: fine),
	// 1400, 1600, 1800 (200 each): 7 too close.
	if n != 7 {
		t.Fatalf("%d interval-rule findings, want 7: %v", n, r.Findings)
	}
}

// A live segment (indexes preallocated, not yet trimmed) is healthy. What Kafka 2.0-2.2 would
// do with it at a start after an unclean shutdown is its sanityCheck on the reopened files:
// the time index's zero tail makes its last timestamp 0 (docs/kafka.md §6, §13.2), and the broker
// logs LogLoader's "Found a corrupted index file ..." and recovers the segment.
func TestLiveSegmentUncleanStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "topic-0")
	cfg := segment.DefaultConfig()
	cfg.IndexIntervalBytes = 100
	cfg.SegmentIndexBytes = 4096
	l, err := segment.CreateLog(dir, cfg, segment.PerBatch, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := int64(0); i < 5; i++ {
		b, _ := segment.BuildSizedBatch(i, 1, 150, 1700000000000+i)
		if _, err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	era, _ := EraByID("2.0-2.2")
	r, err := Verify([]string{dir}, VerifyOptions{Era: &era})
	if err != nil {
		t.Fatal(err)
	}
	if r.Problems() != 0 {
		t.Fatalf("a live segment judged broken: %v", r.Findings)
	}
	live := r.Partitions[0].Segments[0].Live
	if live == nil || live.IndexSlots != 512 || live.IndexValid != 4 || !live.Newest {
		t.Fatalf("live state %+v", live)
	}
	for _, want := range []string{"Found a corrupted index file corresponding to log file", "last timestamp is 0 which is less than the first timestamp", "recovering segment and rebuilding index files..."} {
		if !strings.Contains(live.UncleanNote, want) {
			t.Errorf("unclean-start note lacks %q: %s", want, live.UncleanNote)
		}
	}
	// Teeth: a bogus entry in the zero tail is a warning at its slot.
	idx := filepath.Join(dir, segment.FilenamePrefixFromOffset(0)+segment.IndexSuffix)
	f, err := os.OpenFile(idx, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0, 0, 0, 9, 0, 0, 1, 0}, 40*8)
	f.Close()
	r, _ = Verify([]string{dir}, VerifyOptions{})
	found := false
	for _, f := range r.Findings {
		found = found || (f.Check == CheckZeroTailGarbage && f.File == idx && f.Pos == 40*8 && f.Severity == SeverityWarning)
	}
	if !found {
		t.Fatalf("bogus tail entry not reported: %v", r.Findings)
	}
}

// Every kind of file a healthy log directory holds (docs/kafka.md §13.4) is recognized and never
// counted as a segment; stray indexes and .swap files are warnings.
func TestScanRoles(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "orders-3")
	os.Mkdir(part, 0o755)
	logData := segmenttest.ThreeBatches()
	files := map[string][]byte{
		"00000000000000000000.log": logData, "00000000000000000000.index": nil, "00000000000000000000.timeindex": nil,
		"00000000000000000002.snapshot": segmenttest.EmptyProducerSnapshot, "00000000000000000000.txnindex": nil, "leader-epoch-checkpoint": []byte("0\n0\n"),
		"partition.metadata": []byte("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"), "00000000000000000001.log.deleted": nil,
		"00000000000000000005.log.swap": nil, "00000000000000000009.index": nil, "leader-epoch-checkpoint.tmp": nil,
	}
	for name, data := range files {
		testfiles.MustWrite(t, filepath.Join(part, name), data)
	}
	for _, name := range []string{"meta.properties", "recovery-point-offset-checkpoint", ".kafka_cleanshutdown", ".lock", "cleaner-offset-checkpoint"} {
		testfiles.MustWrite(t, filepath.Join(root, name), nil)
	}
	os.Mkdir(filepath.Join(root, "orders-1.0123456789abcdef0123456789abcdef-delete"), 0o755)
	os.Mkdir(filepath.Join(root, "orders-2.0123456789abcdef0123456789abcdef-future"), 0o755)
	ds, err := ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Partitions) != 2 {
		t.Fatalf("partitions %+v", ds.Partitions)
	}
	var p, fut *PartitionDir
	for i := range ds.Partitions {
		if ds.Partitions[i].State == "future" {
			fut = &ds.Partitions[i]
		} else {
			p = &ds.Partitions[i]
		}
	}
	if fut == nil || fut.Topic != "orders" || fut.Partition != 2 || p.Topic != "orders" || p.Partition != 3 {
		t.Fatalf("partitions %+v", ds.Partitions)
	}
	if len(p.LogSegments()) != 1 || len(p.Segments) != 2 {
		t.Fatalf("segments %+v (want one with a .log and the stray 9.index)", p.Segments)
	}
	roles := map[Role]int{}
	for _, f := range p.Files {
		roles[f.Role]++
	}
	want := map[Role]int{RoleProducerSnapshot: 1, RoleLeaderEpochCheckpoint: 1, RolePartitionMetadata: 1, RoleDeleted: 1, RoleSwap: 1, RoleTempFile: 1}
	for k, v := range want {
		if roles[k] != v {
			t.Errorf("role %s: %d, want %d (%v)", k, roles[k], v, roles)
		}
	}
	if got := p.SnapshotOffsets(); len(got) != 1 || got[0] != 2 {
		t.Errorf("snapshot offsets %v", got)
	}
	for _, f := range ds.RootFiles {
		if f.Role == RoleUnknown {
			t.Errorf("root file %s not recognized", f.Path)
		}
	}
	r, err := Verify([]string{root}, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, f := range r.Findings {
		if f.Severity != SeverityInfo {
			problems = append(problems, filepath.Base(f.File)+" "+f.Check)
		}
	}
	if r.Segments != 1 || len(problems) != 2 || !containsPrefix(problems, "00000000000000000005.log.swap transitional") || !containsPrefix(problems, "00000000000000000009.index missing-log") {
		t.Fatalf("segments %d, problems %v", r.Segments, problems)
	}
	// A producer snapshot that does not read is a warning (Kafka deletes it and rebuilds the
	// producer state from the log), and no witness of a clean shutdown.
	testfiles.MustWrite(t, filepath.Join(part, "00000000000000000002.snapshot"), []byte{0, 1, 0, 0})
	r, err = Verify([]string{root}, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		found = found || (f.Check == CheckStateFile && f.Severity == SeverityWarning && strings.HasSuffix(f.File, "00000000000000000002.snapshot"))
	}
	if !found {
		t.Fatalf("corrupt snapshot not reported: %v", r.Findings)
	}
}

func containsPrefix(l []string, s string) bool {
	for _, x := range l {
		if strings.HasPrefix(x, s) {
			return true
		}
	}
	return false
}

// A clean restart leaves its mark in the time index: LogSegment.close appends (max timestamp,
// its offset) when the max timestamp grew since the last entry, and the offset index gets no
// entry there. With index.interval.bytes=4096 and 1000-byte one-record batches, entries fall
// on every fifth batch (5, 10, ..., 50: each starts 5000 bytes after the last); a restart
// before batch 52 moves the next entry to batch 57 (57000 - 52000 > 4096), where batch 55
// would have had it. The gap is first noticed at batch 55; the close's entry at offset 51
// places the restart before batch 52, corroborated, and under the release and interval
// claimed it is no problem. All figures by hand from docs/kafka.md §2.2 and §6.
func TestRestartPlacedAtTimeIndexMark(t *testing.T) {
	dir := segmenttest.WriteWithRestart(t, 4096, 70, 1000, 52)
	perBatch := EraForRule(segment.PerBatch)
	r, err := Verify([]string{dir}, VerifyOptions{Era: &perBatch, HaveInterval: true, IndexIntervalBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if r.Problems() != 0 {
		t.Fatalf("problems: %v", r.Findings)
	}
	rs := r.Partitions[0].Segments[0].Restarts
	if len(rs) != 1 || rs[0].Position != 52000 || rs[0].Offset != 52 || rs[0].TimeIndexMark != 51 || rs[0].Unmarked || rs[0].UntilPosition != 57000 {
		t.Fatalf("restarts %+v, want one before batch 52 marked by the time-index entry at 51, until the entry at 57000", rs)
	}
}

// --kafka-version names the release that wrote the files: what it cannot have written is an
// error, even where DumpLogSegments finds nothing wrong. Kafka's per-batch golden files hold v2
// batches and time indexes; 0.9.0 wrote neither (magic 2 came with 0.11, the time index with
// 0.10.1), and 1.1 named entries by the append's first offset (KAFKA-6530 changed it in 2.0).
func TestGivenReleaseCheckedAgainstTheFiles(t *testing.T) {
	files := filepath.Join(testfiles.GoldenDir, "random-i512-per-batch", "files")
	for _, c := range []struct {
		version string
		want    []string
	}{
		{"0.9.0", []string{"v2 record batches", "time-index entries"}},
		{"1.1.0", []string{"naming the last offset of a batch of several offsets"}},
		{"4.1.0", nil},
	} {
		r, _ := ParseRelease(c.version)
		era := EraFor(r)
		rep, err := Verify([]string{files}, VerifyOptions{Era: &era})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range rep.Findings {
			if f.Check == CheckEras && f.Severity == SeverityError {
				msgs = append(msgs, f.Message)
			}
		}
		all := strings.Join(msgs, "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no error about %q: %q", c.version, w, msgs)
			}
		}
		if c.want == nil && (len(msgs) != 0 || rep.Problems() != 0) {
			t.Errorf("%s: %v", c.version, rep.Findings)
		}
		if !strings.Contains(rep.Partitions[0].summary(), "judged by "+era.String()) {
			t.Errorf("%s: summary %q", c.version, rep.Partitions[0].summary())
		}
	}
}

// WalkSplit is Walk, whatever the split: at a batch start the second reader's batches are
// handed over in order; inside a batch (a damaged index) the read ahead is dropped. On a
// mapped file with prefetch on, a walk that stops at once returns what Walk returns. The file
// is 16 MiB of 16 KiB batches, past the sizes below which neither reader nor prefetch start.
func TestWalkSplitEqualsWalk(t *testing.T) {
	path := filepath.Join(t.TempDir(), segment.FilenamePrefixFromOffset(0)+segment.LogSuffix)
	var data []byte
	for i := int64(0); i < 1024; i++ {
		b, err := segment.BuildSizedBatch(i*4, 4, 16384, 1700000000000+i)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	testfiles.MustWrite(t, path, data)
	walk := func(lf *segment.LogFile, split int64, stopAfter int) ([]int64, segment.WalkResult) {
		var pos []int64
		fn := func(b segment.BatchInfo) bool {
			pos = append(pos, b.Position)
			return stopAfter <= 0 || len(pos) < stopAfter
		}
		if split < 0 {
			return pos, lf.Walk(0, 0, fn)
		}
		return pos, lf.WalkSplit(0, 0, split, fn)
	}
	lf, err := segment.OpenLogWith(path, segment.AccessPread)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	want, wantRes := walk(lf, -1, 0)
	if len(want) != 1024 || wantRes.ValidBytes != int64(len(data)) {
		t.Fatalf("walk: %d batches, %+v", len(want), wantRes)
	}
	for _, split := range []int64{512 * 16384, 512*16384 + 7, 1, int64(len(data)) - 16384} {
		for _, stop := range []int{0, 3, 600} {
			got, res := walk(lf, split, stop)
			w := want
			if stop > 0 {
				w = want[:stop]
			}
			if !slices.Equal(got, w) || res.Batches != len(w) || res.ValidBytes != w[len(w)-1]+16384 || res.Err != nil {
				t.Fatalf("split %d, stop %d: %d batches (%+v), want %d", split, stop, len(got), res, len(w))
			}
		}
	}
	m, err := segment.OpenLogWith(path, segment.AccessMmap)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.SetPrefetch(true)
	got, res := walk(m, -1, 1)
	if len(got) != 1 || res.ValidBytes != 16384 {
		t.Fatalf("prefetched walk stopped at once: %v %+v", got, res)
	}
	// --deep checks the CRCs on every core: two flipped payload bytes, in batches 100 and 1000,
	// are reported at those batches' CRC fields (position + 17), in batch order.
	for _, b := range []int{100, 1000} {
		data[b*16384+500] ^= 1
	}
	testfiles.MustWrite(t, path, data)
	r, err := Verify([]string{path}, VerifyOptions{Deep: true})
	if err != nil {
		t.Fatal(err)
	}
	var crcs []int64
	for _, f := range r.Findings {
		if f.Check == CheckCRC {
			crcs = append(crcs, f.Pos)
		}
	}
	if !slices.Equal(crcs, []int64{100*16384 + 17, 1000*16384 + 17}) {
		t.Fatalf("CRC findings at %v: %v", crcs, r.Findings)
	}
}
