package logdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/segment"
)

// brokerDir is a log directory holding partition t-0 written by the seed workload: 6 batches
// of 16350 bytes and 79 records under segment.bytes=65536, so segment 0 holds batches 0-3
// (offsets 0-315, 65400 bytes) and segment 316 batches 4-5 (offsets 316-473, 32700 bytes): log
// end offset 474. files are written at the log directory's root ("name": "content").
func brokerDir(t *testing.T, start int64, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "kafka-logs")
	w := segmenttest.SeedWorkload(6)
	w.StartOffset = start
	if _, err := segment.WriteWorkload(filepath.Join(root, "t-0"), w); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		testfiles.MustWrite(t, filepath.Join(root, name), []byte(content))
	}
	return root
}

// checkpointText is an OffsetCheckpointFile: version 0, the count, "topic partition offset".
func checkpointText(lines ...string) string {
	s := fmt.Sprintf("0\n%d\n", len(lines))
	for _, l := range lines {
		s += l + "\n"
	}
	return s
}

func verifyDirs(t *testing.T, dirs ...string) *VerifyReport {
	t.Helper()
	r, err := Verify(dirs, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func findingsOf(r *VerifyReport, check string) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// LogLoader.recoverLog: "Collection<LogSegment> unflushed = segments.values(recoveryPointCheckpoint,
// Long.MAX_VALUE)", and LogSegments.values(from, to) starts at the segment holding from (its
// floor): recovery begins at the segment the recovery point falls in, and a recovery point at
// the log end still recovers the active segment. LogManager.loadLog takes 0 for a partition
// the checkpoint does not name.
func TestNextStartRecoversFromTheSegmentHoldingTheRecoveryPoint(t *testing.T) {
	for _, c := range []struct {
		rp       string // the checkpoint's line for t-0 ("" = not named)
		segments int
		bytes    int64
	}{
		{"", 2, 98100},
		{"t 0 0", 2, 98100},
		{"t 0 315", 2, 98100},
		{"t 0 316", 1, 32700},
		{"t 0 400", 1, 32700},
		{"t 0 474", 1, 32700}, // the log end: the active segment all the same
	} {
		files := map[string]string{segment.RecoveryPointCheckpointName: checkpointText()}
		if c.rp != "" {
			files[segment.RecoveryPointCheckpointName] = checkpointText(c.rp)
		}
		root := brokerDir(t, 0, files)
		r := verifyDirs(t, root)
		if len(r.LogDirs) != 1 {
			t.Fatalf("%q: log dirs %+v", c.rp, r.LogDirs)
		}
		ns := r.LogDirs[0].NextStart
		if !ns.Recovers || ns.Partitions != 1 || ns.Segments != c.segments || ns.Bytes != c.bytes {
			t.Errorf("recovery point %q: next start %+v, want %d segments, %d bytes", c.rp, ns, c.segments, c.bytes)
		}
		got := findingsOf(r, CheckCleanShutdown)
		want := fmt.Sprintf("Recovering 1 logs from %s since no clean shutdown file was found", root)
		if len(got) != 1 || !strings.Contains(got[0].Message, want) || got[0].Kafka != KafkaRepairs || got[0].Severity != SeverityInfo {
			t.Errorf("recovery point %q: clean-shutdown findings %+v", c.rp, got)
		}
		noRP := findingsOf(r, CheckCheckpoint)
		if (c.rp == "") != (len(noRP) == 1 && strings.Contains(noRP[0].Message, "names no recovery point for 1 partition (t-0)")) {
			t.Errorf("recovery point %q: checkpoint findings %+v", c.rp, noRP)
		}
		if r.Problems() != 0 {
			t.Errorf("recovery point %q: problems in %+v", c.rp, r.Findings)
		}
	}
}

// LogManager.loadLogs: with .kafka_cleanshutdown there, "Skipping recovery of N logs from DIR
// since clean shutdown file was found"; Kafka 3.7+ writes the broker epoch in it (KIP-966).
func TestNextStartSkipsRecoveryAfterACleanShutdown(t *testing.T) {
	root := brokerDir(t, 0, map[string]string{segment.CleanShutdownName: `{"version":0,"brokerEpoch":42}`})
	r := verifyDirs(t, root)
	ns := r.LogDirs[0].NextStart
	if ns.Recovers || ns.Segments != 0 || r.LogDirs[0].Clean == nil || *r.LogDirs[0].Clean.BrokerEpoch != 42 {
		t.Fatalf("log dir %+v", r.LogDirs[0])
	}
	got := findingsOf(r, CheckCleanShutdown)
	if len(got) != 1 || got[0].File != filepath.Join(root, segment.CleanShutdownName) || got[0].Kafka != "" ||
		!strings.Contains(got[0].Message, "clean (broker epoch 42)") ||
		!strings.Contains(got[0].Message, fmt.Sprintf("Skipping recovery of 1 logs from %s since clean shutdown file was found", root)) {
		t.Fatalf("findings %+v", got)
	}
}

// A segment with no .index is rebuilt at every start (LogLoader.loadSegmentFiles:
// NoSuchFileException from sanityCheck, then recoverSegment), clean or not.
func TestNextStartRebuildsMissingIndexesAfterACleanShutdown(t *testing.T) {
	root := brokerDir(t, 0, map[string]string{segment.CleanShutdownName: ""})
	if err := os.Remove(filepath.Join(root, "t-0", "00000000000000000000.index")); err != nil {
		t.Fatal(err)
	}
	ns := verifyDirs(t, root).LogDirs[0].NextStart
	if ns.Rebuilds != 1 || ns.RebuildBytes != 65400 || !strings.Contains(ns.Summary, "rebuilds the indexes of 1 segment without a .index") {
		t.Fatalf("next start %+v", ns)
	}
}

// Each checkpoint entry against the partition's segments (first base 100, log end 574 when
// the workload starts at offset 100), in Kafka's words where Kafka logs one, at the byte of
// the entry's line ("0\n1\n" is 4 bytes).
func TestCheckpointEntriesAgainstTheLog(t *testing.T) {
	for _, c := range []struct {
		file, line string
		sev        Severity
		kafka      KafkaAction
		says       string
	}{
		// LogLoader.recoverLog returns min(recoveryPointCheckpoint, logEndOffset).
		{segment.RecoveryPointCheckpointName, "t 0 600", SeverityWarning, KafkaRepairs, "recovery point 600 is past the log end offset 574: offsets 574 to 599 were flushed"},
		// LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd.
		{segment.LogStartOffsetCheckpointName, "t 0 700", SeverityError, KafkaRepairs, "Deleting all segments because logEndOffset (574) is smaller than logStartOffset 700. This could happen if segment files were deleted from the file system."},
		// LogLoader.load: Math.max(logStartOffsetCheckpoint, first segment's base offset).
		{segment.LogStartOffsetCheckpointName, "t 0 50", SeverityInfo, KafkaRepairs, "log start offset 50 is below the first segment's base offset 100: Kafka starts the log at 100"},
		// LogCleanerManager.cleanableOffsets, both resets.
		{segment.CleanerOffsetCheckpointName, "t 0 20", SeverityInfo, KafkaRepairs, "Resetting first dirty offset of t-0 to log start offset 100 since the checkpointed offset 20 is invalid."},
		{segment.CleanerOffsetCheckpointName, "t 0 900", SeverityInfo, KafkaRepairs, "The last checkpoint dirty offset for partition t-0 is 900, which is larger than the log end offset 574. Resetting to the log start offset 100."},
	} {
		root := brokerDir(t, 100, map[string]string{c.file: checkpointText(c.line)})
		r := verifyDirs(t, root)
		var got []Finding
		for _, f := range findingsOf(r, CheckCheckpoint) {
			if f.File == filepath.Join(root, c.file) {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Pos != 4 || got[0].Severity != c.sev || got[0].Kafka != c.kafka || !strings.Contains(got[0].Message, c.says) {
			t.Errorf("%s %q: findings %+v", c.file, c.line, got)
		}
	}
	// Entries that agree with the log say nothing.
	root := brokerDir(t, 100, map[string]string{
		segment.RecoveryPointCheckpointName:  checkpointText("t 0 574"),
		segment.LogStartOffsetCheckpointName: checkpointText("t 0 200"),
		segment.CleanerOffsetCheckpointName:  checkpointText("t 0 316"),
	})
	if got := findingsOf(verifyDirs(t, root), CheckCheckpoint); len(got) != 0 {
		t.Errorf("findings of agreeing entries: %+v", got)
	}
}

// LogManager loads the directories it lists and looks each up in the checkpoints: an entry no
// directory answers is never read (Kafka ignores it), reported once per file.
func TestCheckpointEntriesWithoutADirectory(t *testing.T) {
	root := brokerDir(t, 0, map[string]string{segment.ReplicationCheckpointName: checkpointText("t 0 474", "gone 3 0", "gone 10 7", "gone 2 0")})
	got := findingsOf(verifyDirs(t, root), CheckCheckpointNoDir)
	if len(got) != 1 || got[0].Kafka != KafkaIgnores || got[0].Severity != SeverityInfo || got[0].Pos != 12 ||
		!strings.Contains(got[0].Message, "names 3 partitions with no directory here (gone-2, gone-3, gone-10); 1 of them at an offset above 0") {
		t.Fatalf("findings %+v", got)
	}
}

// MetaPropertiesEnsemble.verify, over the log directories of one broker (named together):
// one cluster.id, one node.id, no directory.id twice; KafkaRaftServer: a KRaft broker's
// directory without meta.properties is refused. Each in Kafka's words.
func TestMetaPropertiesAcrossOneBrokersLogDirs(t *testing.T) {
	const kraft = "version=1\ncluster.id=%s\nnode.id=%d\ndirectory.id=%s\n"
	a, b := "MvDxzVmcRsaTz33bUuRU6A", "9Tdy3-UxTaa9rY5Ya2ZXvQ"
	for _, c := range []struct {
		name, second string // the second directory's meta.properties ("" = none)
		says         string
	}{
		{"cluster", fmt.Sprintf(kraft, "other-cluster", 1, b), "Invalid cluster.id in: %s. Expected one-cluster, but read other-cluster"},
		{"node", fmt.Sprintf(kraft, "one-cluster", 2, b), "Stored node id 2 doesn't match previous node id 1 in %s. If you moved your data"},
		{"directory", fmt.Sprintf(kraft, "one-cluster", 1, a), "Duplicate directory ID Optional[" + a + "] found."},
		{"unformatted", "", "No `meta.properties` found in %s (have you run `kafka-storage.sh` to format the directory?)"},
	} {
		one := brokerDir(t, 0, map[string]string{segment.MetaPropertiesName: fmt.Sprintf(kraft, "one-cluster", 1, a)})
		two := brokerDir(t, 0, nil)
		// Named as a shell completes them: with a trailing slash, still the log directories.
		one += string(filepath.Separator)
		where := two
		if c.second != "" {
			testfiles.MustWrite(t, filepath.Join(two, segment.MetaPropertiesName), []byte(c.second))
			where = filepath.Join(two, segment.MetaPropertiesName)
		}
		r := verifyDirs(t, one, two)
		if len(r.LogDirs) != 2 || r.LogDirs[0].Path != filepath.Clean(one) {
			t.Fatalf("%s: log dirs %+v", c.name, r.LogDirs)
		}
		got := findingsOf(r, CheckMetaProperties)
		says := c.says
		if strings.Contains(says, "%s") {
			says = fmt.Sprintf(says, where)
		}
		if len(got) != 1 || got[0].Severity != SeverityError || got[0].Kafka != KafkaRefuses || !strings.Contains(got[0].Message, says) {
			t.Errorf("%s: findings %+v", c.name, got)
		}
	}
	// The same directories one by one: nothing to compare, and a directory of unknown mode
	// without meta.properties is a note (a ZooKeeper-mode broker writes one at start).
	two := brokerDir(t, 0, nil)
	got := findingsOf(verifyDirs(t, two), CheckMetaProperties)
	if len(got) != 1 || got[0].Severity != SeverityInfo || !strings.Contains(got[0].Message, "a ZooKeeper-mode broker writes one at start") {
		t.Errorf("alone: findings %+v", got)
	}
}

// The broker's identity reads from meta.properties: KRaft's node.id, ZooKeeper's broker.id.
func TestLogDirIdentity(t *testing.T) {
	root := brokerDir(t, 0, map[string]string{segment.MetaPropertiesName: "version=0\nbroker.id=7\ncluster.id=c1\n"})
	st := verifyDirs(t, root).LogDirs[0]
	if st.Mode != "zookeeper" || st.NodeID == nil || *st.NodeID != 7 || st.ClusterID != "c1" || st.Partitions != 1 {
		t.Fatalf("state %+v", st)
	}
}
