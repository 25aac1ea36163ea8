package explain_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kidx/explain"
	"kidx/internal/rawlog"
	"kidx/internal/realdata"
	"kidx/internal/testfiles"
	"kidx/logdir"
)

// The real-data acceptance test of the explain engine: explain.Dirs on every partition
// directory of ../shared/realdata (restored into a temporary directory by internal/realdata).
// What it must find is written down below by hand from ../shared/realdata/README.md and
// MANIFEST.tsv (which Kafka release wrote each directory, the index.interval.bytes its
// reconstruction used, the restarts it states), never from running kidx.

// Segment eras of the releases the README names (logdir/era.go; docs/kafka.md
// §13.2). A reproduced segment's era set must hold at least one of its release's eras.
var (
	// "Apache Kafka 0.8/0.9": 0.8.0, 0.8.1-0.8.2 and 0.9.0 (the 0.9.0-0.10.0 era).
	rxEras08to09 = []string{"0.8.0", "0.8.1-0.8.2", "0.9.0-0.10.0"}
	// "Apache Kafka 0.11–2.x": 0.11-1.1, 2.0-2.2 and 2.3-2.8 (the 2.3-3.6 era).
	rxEras011to2x = []string{"0.11-1.1", "2.0-2.2", "2.3-3.6"}
	// "Apache Kafka 2.7.1".
	rxEras271 = []string{"2.3-3.6"}
	// "confluentinc/cp-kafka:7.6.0 (= Apache Kafka 3.6.0)".
	rxEras360 = []string{"2.3-3.6"}
	// "bitnamilegacy/kafka:3.7.0".
	rxEras370 = []string{"3.7-4.0.0"}
	// "Apache Kafka ≥ 3.7": 3.7-3.9.0/4.0.0, or 3.9.1+/4.0.1+/4.1+ (per-batch).
	rxEras37up = []string{"3.7-4.0.0", "per-batch"}
	// The second collection. k37-itumeleng-txn: "3.7 (compose confluentinc/cp-kafka:latest in
	// Oct 2024 = CP 7.7, MV 19".
	rxEras37 = []string{"3.7-4.0.0"}
	// k40-lestfeed-compacted: "4.0.x (compose bitnami/kafka untagged, MV 25": 4.0.0, or 4.0.1+
	// (per-batch).
	rxEras40x = []string{"3.7-4.0.0", "per-batch"}
	// k42-malayka-gzip: "4.2.0, KRaft combined mode".
	rxEras420 = []string{"per-batch"}
	// zk11-hermag-lz4: "1.1.0 (compose confluentinc/cp-kafka:4.1.0, ZooKeeper)".
	rxEras110 = []string{"0.11-1.1"}
)

// rxInterval is the index.interval.bytes of every broker here: the default, and what the
// README's reconstructions used ("checked before the append when bytesSinceLastIndexEntry >
// 4096"; the 2.x/3.x reconstructions are "the same rule").
const rxInterval = 4096

// rxRestart is a restart the README states.
type rxRestart struct {
	offset   int64 // the first offset after the restart (the log end offset when atEnd)
	atEnd    bool  // after the last batch: Position is the .log's size
	evidence string
	snapshot string // base name of the producer snapshot that shows it ("" for none)
}

// rxSingleLifetime: the README says the segment was written in one process lifetime (its
// reconstruction replayed the rule with no restart): explain must report none.
var rxSingleLifetime = []rxRestart{}

// rxSegment is what the README and MANIFEST say of one segment (a .log).
type rxSegment struct {
	base int64
	// live: its .index or .timeindex is preallocated (MANIFEST: original size 10485760 or
	// 10485756, a zero tail).
	live bool
	// noIndexes: neither index file exists (a test harness wrote the .log, or the index files
	// were too large to fetch: realdata.IndexFilesNotFetched).
	noIndexes bool
	// appends is the append shape the README states ("" where it says none).
	appends explain.AppendShape
	// batches, offsetEntries, timeEntries: counts the README states (-1: not stated).
	batches, offsetEntries, timeEntries int
	// restarts the README states; nil where it says nothing of restarts, rxSingleLifetime where
	// it says there were none.
	restarts []rxRestart
	// gap is what explain does not yet answer right of this segment (realdata.Gaps names the
	// open issue that fixes it): the test asserts today's answer.
	gap rxGap
	// history is the history the README states ("" where it says nothing: not checked);
	// evidence, substrings its HistoryEvidence must hold; recovery, where recovery ran for
	// the recovered history.
	history  explain.History
	evidence []string
	recovery *rxRestart
}

// rxGap is a known gap of explain on one segment.
type rxGap int

const (
	rxGapNone rxGap = iota
	// rxGapNotReproduced: explain reports the segment NOT reproduced.
	rxGapNotReproduced
	// rxGapInterval: reproduced, but the interval set of the shape explain picks lacks 4096.
	rxGapInterval
)

// rxCleaned is a segment the README calls the log cleaner's output, below the cleaner
// checkpoint cp it names: the cleaned history, with no restart, the offset gaps and the
// checkpoint as evidence.
func rxCleaned(base, cp int64) rxSegment {
	s := rxSeg(base, false)
	s.history, s.restarts = explain.HistoryCleaned, rxSingleLifetime
	s.evidence = []string{"skips offsets", fmt.Sprintf("below offset %d, where cleaner-offset-checkpoint", cp)}
	return s
}

// rxPartition is one partition directory.
type rxPartition struct {
	dir     string   // relative to the restored root
	release string   // the writer, as the README names it
	eras    []string // its segment eras (nil: no broker wrote index files)
	// segments: every .log of the directory (MANIFEST), oldest first.
	segments []rxSegment
	// note is a substring the partition's Notes must hold ("" for none expected).
	note string
}

// rxSeg is a segment of which the README states only its base offset and zero tail.
func rxSeg(base int64, live bool) rxSegment {
	return rxSegment{base: base, live: live, batches: -1, offsetEntries: -1, timeEntries: -1}
}

// rxSegWith is rxSeg with the restarts the README states.
func rxSegWith(base int64, live bool, restarts []rxRestart) rxSegment {
	s := rxSeg(base, live)
	s.restarts = restarts
	return s
}

// rxShaped is rxSeg with the append shape and restarts the README states.
func rxShaped(base int64, live bool, appends explain.AppendShape, restarts []rxRestart) rxSegment {
	s := rxSegWith(base, live, restarts)
	s.appends = appends
	return s
}

// rxCloseThenRestart is the restart of donaldy -8/-28/-33 and iechenyb __consumer_offsets-36:
// "one entry, the one that close appended at a clean shutdown (max timestamp, last offset), then
// zeros after the restart": a restart after the written data, shown by the time index. leo is
// the log end offset, the name of the clean shutdown's producer snapshot in MANIFEST.tsv.
func rxCloseThenRestart(leo int64) []rxRestart {
	return []rxRestart{{offset: leo, atEnd: true, evidence: "time-index"}}
}

const (
	rxOne     = explain.OneBatchPerAppend
	rxSeveral = explain.SeveralBatchesPerAppend
)

// rxExpected: every partition directory of ../shared/realdata with a .log (289), from the
// README (quoted in each comment) and MANIFEST.tsv (the segments' base offsets and zero tails):
// the first collection here, the second in rxSecondCollection.
var rxExpected = append(rxFirstCollection, rxSecondCollection()...)

// rxFirstCollection: the 32 partition directories of the first collection.
var rxFirstCollection = []rxPartition{
	// atul-0406: "confluentinc/cp-kafka:7.6.0 (= Apache Kafka 3.6.0), ZooKeeper mode, clean
	// shutdowns"; "compacted `__consumer_offsets-9/-32`"; every index file is trimmed
	// (MANIFEST: stored = original, no zero tail). "Several `.snapshot` files mark restarts (e.g.
	// 14910, 11890)": see TestRealDataExplain's atul-snapshots.
	{dir: "atul-0406/__consumer_offsets-32", release: "3.6.0", eras: rxEras360,
		segments: []rxSegment{rxSeg(0, false), rxSeg(192, false)}},
	{dir: "atul-0406/__consumer_offsets-8", release: "3.6.0", eras: rxEras360,
		segments: []rxSegment{rxSeg(0, false)}},
	{dir: "atul-0406/__consumer_offsets-9", release: "3.6.0", eras: rxEras360,
		segments: []rxSegment{rxSeg(0, false), rxSeg(9907, false)}},
	// "`stock-market-batch-0` (batches of about 100 records and up to 61 KB; a rolled 2.65 MB
	// segment and an active one)".
	{dir: "atul-0406/stock-market-batch-0", release: "3.6.0", eras: rxEras360,
		segments: []rxSegment{rxSeg(0, false), rxSeg(12910, false)}},
	{dir: "atul-0406/stock-market-realtime-0", release: "3.6.0", eras: rxEras360,
		segments: []rxSegment{rxSeg(0, false), rxSeg(3101, false)}},

	// codecrafters-*: "the CodeCrafters "build your own Kafka" tester (not a broker)"; "tiny
	// `__cluster_metadata` logs (2 v2 batches each, no indexes)".
	{dir: "codecrafters-gleam/__cluster_metadata-0", release: "CodeCrafters tester, not a broker",
		segments: []rxSegment{{base: 0, noIndexes: true, batches: 2, offsetEntries: 0, timeEntries: 0}}},
	{dir: "codecrafters-go/__cluster_metadata-0", release: "CodeCrafters tester, not a broker",
		segments: []rxSegment{{base: 0, noIndexes: true, batches: 2, offsetEntries: 0, timeEntries: 0}}},

	// donaldy: "Apache Kafka 2.7.1, ZooKeeper mode"; "compacted `__consumer_offsets`
	// (cleaner-offset-checkpoint): rolled segments with a 0-byte `.index` and a 12-byte
	// `.timeindex`, ... active segments with zero-tailed indexes".
	{dir: "donaldy/__consumer_offsets-0", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSeg(0, true)}},
	{dir: "donaldy/__consumer_offsets-17", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSeg(0, false), rxSeg(1, true)}},
	// "donaldy `-8/-28/-33` ... `.timeindex`: one entry, the one that close appended at a clean
	// shutdown (max timestamp, last offset), then zeros after the restart." The log end offset
	// is 3 (00000000000000000003.snapshot).
	{dir: "donaldy/__consumer_offsets-28", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSeg(0, false), rxSegWith(2, true, rxCloseThenRestart(3))}},
	{dir: "donaldy/__consumer_offsets-33", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSegWith(0, true, rxCloseThenRestart(3))}},
	{dir: "donaldy/__consumer_offsets-39", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSeg(0, false), rxSeg(18, true)}},
	{dir: "donaldy/__consumer_offsets-8", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{rxSegWith(0, true, rxCloseThenRestart(3))}},
	// "`myTopic-0`/`test_topic-0` holding only an empty active segment and a snapshot".
	{dir: "donaldy/myTopic-0", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{{base: 38, live: true, batches: 0, offsetEntries: 0, timeEntries: 0}}},
	{dir: "donaldy/test_topic-0", release: "2.7.1", eras: rxEras271,
		segments: []rxSegment{{base: 12, live: true, batches: 0, offsetEntries: 0, timeEntries: 0}}},

	// iechenyb: "Apache Kafka 0.11–2.x, ZooKeeper mode (v2 batches)".
	{dir: "iechenyb/__consumer_offsets-0", release: "0.11-2.x", eras: rxEras011to2x,
		segments: []rxSegment{rxSeg(0, true)}},
	// "iechenyb `__consumer_offsets-36` `.timeindex`: one entry, the one that close appended at
	// a clean shutdown (max timestamp, last offset), then zeros after the restart." The log end
	// offset is 16 (00000000000000000016.snapshot).
	{dir: "iechenyb/__consumer_offsets-36", release: "0.11-2.x", eras: rxEras011to2x,
		segments: []rxSegment{rxSegWith(0, true, rxCloseThenRestart(16))}},
	// "`string-key-0` (2.05 MB, 28068 batches, 492 index entries, untrimmed)"; "ldi-poc
	// `__cluster_metadata-0`, iechenyb `string-key-0`: the 2.x/3.x rule with one batch per
	// append" (no restart, unlike test-0921-0).
	{dir: "iechenyb/string-key-0", release: "0.11-2.x", eras: rxEras011to2x,
		segments: []rxSegment{{base: 0, live: true, appends: rxOne, batches: 28068, offsetEntries: 492, timeEntries: -1, restarts: rxSingleLifetime}}},
	// "iechenyb `test-0921-0`: the same rule with one broker restart before batch 839
	// (bytesSinceLastIndexEntry is reset, and close appends a time-index entry). The
	// `00000000000000000839.snapshot` file in that directory confirms the restart."
	{dir: "iechenyb/test-0921-0", release: "0.11-2.x", eras: rxEras011to2x,
		segments: []rxSegment{rxShaped(0, true, rxOne, []rxRestart{{offset: 839, evidence: "producer-snapshot", snapshot: "00000000000000000839.snapshot"}})}},

	// kafkalite: "Apache Kafka 0.8/0.9 (magic 0, no .timeindex)"; "the active segments' 10 MB
	// `.index`"; "kafkalite: Kafka 0.8/0.9 per-append rule. The entry is (first offset of the
	// append, its position), checked before the append when bytesSinceLastIndexEntry > 4096.
	// Appends are one compressed wrapper each (gzip, snappy), 254 messages (hamlet-none) or 1
	// message (numbers)." The reconstruction replayed one lifetime (no restart).
	{dir: "kafkalite/hamlet-gzip-0", release: "0.8/0.9", eras: rxEras08to09,
		segments: []rxSegment{{base: 0, live: true, appends: rxOne, batches: 22, offsetEntries: -1, timeEntries: 0, restarts: rxSingleLifetime}}},
	{dir: "kafkalite/hamlet-none-0", release: "0.8/0.9", eras: rxEras08to09,
		segments: []rxSegment{{base: 0, live: true, appends: rxSeveral, batches: 5382, offsetEntries: -1, timeEntries: 0, restarts: rxSingleLifetime}}},
	{dir: "kafkalite/hamlet-snappy-0", release: "0.8/0.9", eras: rxEras08to09,
		segments: []rxSegment{{base: 0, live: true, appends: rxOne, batches: 22, offsetEntries: -1, timeEntries: 0, restarts: rxSingleLifetime}}},
	{dir: "kafkalite/numbers-0", release: "0.8/0.9", eras: rxEras08to09,
		segments: []rxSegment{{base: 0, live: true, appends: rxOne, batches: 11394, offsetEntries: -1, timeEntries: 0, restarts: rxSingleLifetime}}},

	// ldi-poc: "bitnamilegacy/kafka:3.7.0, KRaft (meta.properties version=1)"; "`TestTopicPatient-0`
	// (3 batches; all-zero index and timeindex)".
	{dir: "ldi-poc/TestTopicPatient-0", release: "3.7.0", eras: rxEras370,
		segments: []rxSegment{{base: 0, live: true, batches: 3, offsetEntries: 0, timeEntries: 0}}},
	// "`__cluster_metadata-0` (353 KB, 4814 batches, 1 control batch, epoch 1; untrimmed index
	// and timeindex, 85 entries each)"; "the 2.x/3.x rule with one batch per append" (no
	// restart).
	{dir: "ldi-poc/__cluster_metadata-0", release: "3.7.0", eras: rxEras370,
		segments: []rxSegment{{base: 0, live: true, appends: rxOne, batches: 4814, offsetEntries: 85, timeEntries: 85, restarts: rxSingleLifetime}}},
	// "empty partitions (a 0-byte log with 10 MB zero indexes, or all 0-byte files)".
	{dir: "ldi-poc/__consumer_offsets-0", release: "3.7.0", eras: rxEras370,
		segments: []rxSegment{{base: 0, live: false, batches: 0, offsetEntries: 0, timeEntries: 0}}},
	{dir: "ldi-poc/__consumer_offsets-1", release: "3.7.0", eras: rxEras370,
		segments: []rxSegment{{base: 0, live: true, batches: 0, offsetEntries: 0, timeEntries: 0}}},
	// "`__consumer_offsets-6` (closed and trimmed, plus a `.snapshot`)".
	{dir: "ldi-poc/__consumer_offsets-6", release: "3.7.0", eras: rxEras370,
		segments: []rxSegment{rxSeg(0, false)}},

	// ronem: "Apache Kafka ≥ 3.7, KRaft (directory.id), clean shutdown (`.kafka_cleanshutdown`,
	// trimmed indexes)"; "`__cluster_metadata-0`: segment 1725413 (874 KB, 12105 batches, 213
	// entries), the `.index`/`.timeindex` of segment 839130, whose `.log` (over 4 MiB) the
	// snapshot lacks".
	{dir: "ronem/__cluster_metadata-0", release: ">= 3.7", eras: rxEras37up,
		segments: []rxSegment{{base: 1725413, live: false, batches: 12105, offsetEntries: 213, timeEntries: -1}},
		note:     "839130"},
	{dir: "ronem/__consumer_offsets-0", release: ">= 3.7", eras: rxEras37up,
		segments: []rxSegment{{base: 0, live: false, batches: 0, offsetEntries: 0, timeEntries: 0}}},
	// "compacted `__consumer_offsets-31/-44` (2 segments each, gaps, leader epochs 0/2/4/10)".
	{dir: "ronem/__consumer_offsets-31", release: ">= 3.7", eras: rxEras37up,
		segments: []rxSegment{rxSeg(0, false), rxSeg(3, false)}},
	{dir: "ronem/__consumer_offsets-44", release: ">= 3.7", eras: rxEras37up,
		segments: []rxSegment{rxSeg(0, false), rxSeg(9, false)}},
}

// rxEmpty is a partition of the second collection holding one empty segment (MANIFEST: a
// 0-byte .log; realdata.EmptySegmentBase, realdata.LiveIndexes).
func rxEmpty(name, release string, eras []string) rxPartition {
	seg := rxSegment{base: realdata.EmptySegmentBase(name), live: realdata.LiveIndexes(name), offsetEntries: 0, timeEntries: 0}
	return rxPartition{dir: name, release: release, eras: eras, segments: []rxSegment{seg}}
}

// rxNotFetched is a segment whose index files were too large to fetch ("Index files that could
// not be fetched"): explain has nothing to reproduce.
func rxNotFetched(base int64) rxSegment {
	return rxSegment{base: base, noIndexes: true, batches: -1, offsetEntries: 0, timeEntries: 0}
}

// rxSecondCollection: the 257 partition directories of the second collection (the README's
// "The second collection" and its last four Origins rows, quoted below). The partitions that
// hold batches are written out; every other partition of a topic family holds one empty segment
// (realdata.NonEmpty).
func rxSecondCollection() []rxPartition {
	var out []rxPartition
	family := func(origin, topic string, n int, release string, eras []string) {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("%s/%s-%d", origin, topic, i)
			if _, ok := realdata.NonEmpty[name]; !ok {
				out = append(out, rxEmpty(name, release, eras))
			}
		}
	}
	one := func(origin, dir, release string, eras []string) {
		out = append(out, rxEmpty(origin+"/"+dir, release, eras))
	}

	// k37-itumeleng-txn: "3.7"; "Clean shutdown" (every index trimmed); "`patient_admissions-0..4`
	// are empty"; "50 `__transaction_state` partitions".
	const k37 = realdata.K37
	family(k37, "__consumer_offsets", 50, "3.7", rxEras37)
	family(k37, "__transaction_state", 50, "3.7", rxEras37)
	family(k37, "docker-connect-offsets", 25, "3.7", rxEras37)
	family(k37, "docker-connect-status", 5, "3.7", rxEras37)
	family(k37, "patient_admissions", 5, "3.7", rxEras37)
	one(k37, "default_ksql_processing_log-0", "3.7", rxEras37)
	out = append(out,
		rxPartition{dir: k37 + "/__consumer_offsets-29", release: "3.7", eras: rxEras37, segments: []rxSegment{rxSeg(0, false)}},
		rxPartition{dir: k37 + "/__consumer_offsets-37", release: "3.7", eras: rxEras37, segments: []rxSegment{rxSeg(0, false)}},
		// "`__transaction_state-44` holds 4 records".
		rxPartition{dir: k37 + "/__transaction_state-44", release: "3.7", eras: rxEras37, segments: []rxSegment{rxSeg(0, false)}},
		// "`_confluent-ksql-default__command_topic-0` has a transactional data batch and a
		// **COMMIT control batch**".
		rxPartition{dir: k37 + "/_confluent-ksql-default__command_topic-0", release: "3.7", eras: rxEras37,
			segments: []rxSegment{{base: 0, batches: 2, offsetEntries: -1, timeEntries: -1}}},
		// "`_schemas-0` (42 batches)".
		rxPartition{dir: k37 + "/_schemas-0", release: "3.7", eras: rxEras37,
			segments: []rxSegment{{base: 0, batches: 42, offsetEntries: -1, timeEntries: -1}}},
		rxPartition{dir: k37 + "/docker-connect-configs-0", release: "3.7", eras: rxEras37, segments: []rxSegment{rxSeg(0, false)}},
	)

	// k40-lestfeed-compacted: "4.0.x"; "Clean shutdown"; "Some start at a non-zero log start
	// (e.g. `…0012.log`, `…0009.log`)".
	const k40 = realdata.K40
	family(k40, "__consumer_offsets", 50, "4.0.x", rxEras40x)
	for _, d := range []string{"cart-idProduct-request-0", "idProduct-response-0", "javaguides-0",
		"order-product-request-0", "order-product-response-0", "product-response-0"} {
		one(k40, d, "4.0.x", rxEras40x)
	}
	for _, d := range []struct {
		dir  string
		base int64
	}{{"cart-product-response-0", 9}, {"product-request-0", 5}, {"product-topic-0", 0}, {"user-request-0", 0}, {"user-response-0", 0}} {
		out = append(out, rxPartition{dir: k40 + "/" + d.dir, release: "4.0.x", eras: rxEras40x, segments: []rxSegment{rxSeg(d.base, false)}})
	}
	// "`__consumer_offsets-25` and `-45` have **3 segments each**. Their first segment
	// `00000000000000000000.log` holds only offsets 153..473 / 343..506, i.e. **cleaned
	// (compacted) segments**"; "The third segment (474) is healthy."
	out = append(out,
		// Issue 25: segment 0 is the cleaned history ("the log cleaner's output", "`cleaner-offset-
		// checkpoint` says 474" / 507, "offset gaps"), one pass, so no restart: the producer
		// snapshots inside its offsets (436; 414 and 459) are the source segment's.
		rxPartition{dir: k40 + "/__consumer_offsets-25", release: "4.0.x", eras: rxEras40x,
			segments: []rxSegment{rxCleaned(0, 474), rxSeg(63, false), rxSeg(474, false)}},
		rxPartition{dir: k40 + "/__consumer_offsets-45", release: "4.0.x", eras: rxEras40x,
			segments: []rxSegment{rxCleaned(0, 507), rxSeg(36, false), rxSeg(507, false)}},
		// "A recovered segment (`k40-lestfeed-compacted/cart-product-request-0`)": "the one `close()`
		// wrote at the restart before offset 19" is gone, "with the same `.log`": recover() ran
		// after the last batch (the log end offset 26, 00000000000000000026.snapshot), and the
		// restart before 19 (00000000000000000019.snapshot) still happened.
		rxPartition{dir: realdata.RecoveredDir, release: "4.0.x", eras: rxEras40x,
			segments: []rxSegment{{base: realdata.RecoveredBase, batches: -1, offsetEntries: -1, timeEntries: 1,
				history:  explain.HistoryRecovered,
				restarts: []rxRestart{{offset: realdata.RecoveredRestart, evidence: "producer-snapshot", snapshot: "00000000000000000019.snapshot"}},
				recovery: &rxRestart{offset: 26, atEnd: true, evidence: "producer-snapshot", snapshot: "00000000000000000026.snapshot"}}}},
	)

	// k42-malayka-gzip: "4.2.0"; "98 preallocated all-zero indexes. The 10 active-segment
	// `.index`/`.timeindex` files of the 5 non-empty partitions are **absent-nonzero**".
	const k42 = realdata.K42
	family(k42, "__consumer_offsets", 50, "4.2.0", rxEras420)
	for _, d := range []string{"__cluster_metadata-0", "__consumer_offsets-45", "streaming-events-0", "streaming-events-1", "streaming-events-2"} {
		out = append(out, rxPartition{dir: k42 + "/" + d, release: "4.2.0", eras: rxEras420, segments: []rxSegment{rxNotFetched(0)}})
	}

	// zk11-hermag-lz4: "1.1.0"; "`test-0`'s active `.index`/`.timeindex` are **absent-nonzero**";
	// "`__confluent.support.metrics-0` (1 lz4 batch)"; "The metrics partition's indexes are
	// all-zero".
	const zk11 = realdata.ZK11
	out = append(out,
		rxPartition{dir: zk11 + "/test-0", release: "1.1.0", eras: rxEras110, segments: []rxSegment{rxNotFetched(0)}},
		rxPartition{dir: zk11 + "/__confluent.support.metrics-0", release: "1.1.0", eras: rxEras110,
			segments: []rxSegment{{base: 0, live: true, batches: 1, offsetEntries: 0, timeEntries: 0}}},
	)
	return out
}

// rxEraSet is the set of the eras with these IDs (a test bug fails).
func rxEraSet(t *testing.T, ids []string) logdir.EraSet {
	t.Helper()
	var s logdir.EraSet
	for _, id := range ids {
		e, ok := logdir.EraByID(id)
		if !ok {
			t.Fatalf("no era %q in logdir.Eras", id)
		}
		s |= logdir.EraSetOf(e)
	}
	return s
}

// rxExplainOne explains one partition directory, which must be one partition.
func rxExplainOne(t *testing.T, dir string, opts explain.Options) explain.PartitionExplanation {
	t.Helper()
	parts, err := explain.Dirs([]string{dir}, opts)
	if err != nil {
		t.Fatalf("explain.Dirs %s: %v", dir, err)
	}
	if len(parts) != 1 {
		t.Fatalf("explain.Dirs %s: %d partitions, want 1", dir, len(parts))
	}
	return parts[0]
}

func rxLogPath(dir string, base int64) string {
	return filepath.Join(dir, fmt.Sprintf("%020d.log", base))
}

func rxFileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// rxBatchPos is the position of the batch holding offset off in the .log, by brute force
// (internal/rawlog), -1 when none does.
func rxBatchPos(t *testing.T, logPath string, off int64) int64 {
	t.Helper()
	l, err := rawlog.ReadLog(logPath)
	if err != nil {
		t.Fatalf("%s: brute force: %v", logPath, err)
	}
	for _, b := range l.Batches {
		if b.First <= off && off <= b.Last {
			return b.Position
		}
	}
	return -1
}

func rxRestartText(r explain.Restart) string {
	s := fmt.Sprintf("{offset %d byte %d (earliest %d byte %d) %s", r.Offset, r.Position, r.EarliestOffset, r.EarliestPosition, r.Evidence)
	if r.Snapshot != "" {
		s += " " + filepath.Base(r.Snapshot)
	}
	return s + "}"
}

func rxRestartsText(rs []explain.Restart) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, rxRestartText(r))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// rxCheckPartition checks pe against the README's facts; eraConstrained: the run was narrowed
// to the release's eras and 4096 (so its interval must be exactly 4096).
func rxCheckPartition(t *testing.T, dir string, exp rxPartition, pe explain.PartitionExplanation, eraConstrained bool) {
	t.Helper()
	gap, gapped := realdata.KnownGap(exp.dir, realdata.GapExplain)
	notReproduced := false
	for _, s := range exp.segments {
		notReproduced = notReproduced || s.gap == rxGapNotReproduced
		if s.gap != rxGapNone && !gapped {
			t.Fatalf("%s: segment %d has a gap in the table but none in realdata.Gaps", exp.dir, s.base)
		}
	}
	if pe.Reproduced() == notReproduced {
		t.Errorf("%s: reproduced %v; want %v%s", exp.dir, pe.Reproduced(), !notReproduced, rxGapText(gap, notReproduced))
	}
	var bases []int64
	for _, s := range pe.Segments {
		bases = append(bases, s.BaseOffset)
	}
	var want []int64
	for _, s := range exp.segments {
		want = append(want, s.base)
	}
	if !slices.Equal(bases, want) {
		t.Fatalf("%s: segments %v, want %v (its .log files)", exp.dir, bases, want)
	}
	if exp.note != "" {
		found := false
		for _, n := range pe.Notes {
			found = found || strings.Contains(n, exp.note)
		}
		if !found {
			t.Errorf("%s: notes %q do not mention %s", exp.dir, pe.Notes, exp.note)
		}
	}
	releaseEras := rxEraSet(t, exp.eras)
	for i, es := range exp.segments {
		se := pe.Segments[i]
		name := fmt.Sprintf("%s segment %d", exp.dir, es.base)
		if es.noIndexes {
			if !se.NoIndexes {
				t.Errorf("%s: NoIndexes false; the README says the tester wrote no indexes", name)
			}
		} else {
			if se.NoIndexes {
				t.Errorf("%s: NoIndexes true, but it has index files", name)
			}
			if es.gap == rxGapNotReproduced {
				// Known: today's answer is "NOT reproduced", with a first disagreement.
				if se.Reproduced || se.FirstDisagreement == nil {
					t.Errorf("%s: reproduced %v, first disagreement %v; want NOT reproduced with a first disagreement today%s",
						name, se.Reproduced, se.FirstDisagreement, rxGapText(gap, true))
				}
				continue
			}
			if !se.Reproduced {
				t.Errorf("%s: not reproduced (%s wrote it); first disagreement: %v", name, exp.release, se.FirstDisagreement)
				continue
			}
			if se.Eras&releaseEras == 0 {
				t.Errorf("%s: eras %v hold none of %v (Kafka %s, README)", name, se.Eras.IDs(), exp.eras, exp.release)
			}
			switch {
			case es.gap == rxGapInterval && !eraConstrained:
				// Known: the interval set explain picks lacks the broker's 4096 today.
				if se.Interval.Contains(rxInterval) || se.IntervalPick == rxInterval {
					t.Errorf("%s: interval set %s, replayed with %d; want a set without %d today%s",
						name, se.Interval, se.IntervalPick, rxInterval, rxGapText(gap, true))
				}
			default:
				if !se.Interval.Contains(rxInterval) {
					t.Errorf("%s: interval set %s does not hold %d", name, se.Interval, rxInterval)
				}
				if eraConstrained && (se.Interval.Min() != rxInterval || se.Interval.Max() != rxInterval) {
					t.Errorf("%s: interval set %s, want exactly %d (configured)", name, se.Interval, rxInterval)
				}
				if se.IntervalPick != rxInterval {
					t.Errorf("%s: replayed with index.interval.bytes %d, want %d (it fits)", name, se.IntervalPick, rxInterval)
				}
			}
		}
		if se.Live != es.live {
			t.Errorf("%s: Live %v, want %v (MANIFEST: zero-tailed index files %v)", name, se.Live, es.live, es.live)
		}
		if es.appends != "" && se.Appends != es.appends {
			t.Errorf("%s: appends %q, want %q (README)", name, se.Appends, es.appends)
		}
		if es.batches >= 0 && se.Batches != es.batches {
			t.Errorf("%s: %d batches, want %d (README)", name, se.Batches, es.batches)
		}
		if es.offsetEntries >= 0 && se.OffsetEntries != es.offsetEntries {
			t.Errorf("%s: %d offset-index entries, want %d (README)", name, se.OffsetEntries, es.offsetEntries)
		}
		if es.timeEntries >= 0 && se.TimeEntries != es.timeEntries {
			t.Errorf("%s: %d time-index entries, want %d (README)", name, se.TimeEntries, es.timeEntries)
		}
		if es.restarts != nil {
			rxCheckRestarts(t, name, rxLogPath(dir, es.base), es.restarts, se.Restarts)
		}
		if es.history != "" && se.History != es.history {
			t.Errorf("%s: history %q, want %q (README)", name, se.History, es.history)
		}
		for _, e := range es.evidence {
			if !strings.Contains(strings.Join(se.HistoryEvidence, "; "), e) {
				t.Errorf("%s: history evidence %q does not say %q (README)", name, se.HistoryEvidence, e)
			}
		}
		switch {
		case es.recovery != nil && se.Recovery == nil:
			t.Errorf("%s: no recovery, want one (README)", name)
		case es.recovery != nil:
			rxCheckRestarts(t, name+" (recovery)", rxLogPath(dir, es.base), []rxRestart{*es.recovery}, []explain.Restart{*se.Recovery})
		case se.Recovery != nil:
			t.Errorf("%s: recovery %s, want none", name, rxRestartText(*se.Recovery))
		}
	}
	if !exp.segments[0].noIndexes && !notReproduced {
		if pe.Eras&releaseEras == 0 {
			t.Errorf("%s: partition eras %v hold none of %v (Kafka %s)", exp.dir, pe.Eras.IDs(), exp.eras, exp.release)
		}
		if !pe.Interval.Contains(rxInterval) {
			t.Errorf("%s: partition interval set %s does not hold %d", exp.dir, pe.Interval, rxInterval)
		}
	}
}

// rxGapText is the known gap's note for a failure message: today's answer is pinned, and the
// open issue will change it (then the gap leaves the table and realdata.Gaps).
func rxGapText(g realdata.Gap, pinned bool) string {
	if !pinned || g.Issue == 0 {
		return ""
	}
	return fmt.Sprintf(" (known gap, issue %d: %s; if that issue landed, remove the gap from the table and realdata.Gaps)", g.Issue, g.What)
}

// rxCheckRestarts: got are exactly the README's restarts.
func rxCheckRestarts(t *testing.T, name, logPath string, want []rxRestart, got []explain.Restart) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: restarts %s, want %d (README)", name, rxRestartsText(got), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		pos := rxFileSize(t, logPath)
		if !w.atEnd {
			pos = rxBatchPos(t, logPath, w.offset)
		}
		ok := g.Offset == w.offset && g.Position == pos && g.Evidence == w.evidence &&
			(w.snapshot == "" || filepath.Base(g.Snapshot) == w.snapshot)
		if !ok {
			where := fmt.Sprintf("before offset %d (byte %d, its batch)", w.offset, pos)
			if w.atEnd {
				where = fmt.Sprintf("after the last batch (offset %d, byte %d = the .log's size)", w.offset, pos)
			}
			t.Errorf("%s: restart %s, want one %s with evidence %s %s (README)", name, rxRestartText(g), where, w.evidence, w.snapshot)
		}
	}
}

// TestRealDataExplain: explain.Dirs on every real partition directory finds what the
// README says wrote it: every segment with index files reproduced byte for byte, by an era of
// the README's release, with 4096 in its interval set, and with the restarts the README states
// (and none where it states none). Then again with the release's eras and 4096 given, as an
// operator who knows them would (`--kafka-version`, `--config index.interval.bytes=4096`).
func TestRealDataExplain(t *testing.T) {
	root := realdata.Restore(t)
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount || len(rxExpected) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, %d in the table, want %d", len(dirs), len(rxExpected), realdata.PartitionCount)
	}
	byName := map[string]rxPartition{}
	for _, p := range rxExpected {
		byName[p.dir] = p
	}
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		exp, ok := byName[name]
		if !ok {
			t.Errorf("%s: not in the table", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Run("as-found", func(t *testing.T) {
				pe := rxExplainOne(t, dir, explain.Options{Interval: -1})
				rxCheckPartition(t, dir, exp, pe, false)
			})
			if exp.eras == nil {
				return
			}
			t.Run("readme-release", func(t *testing.T) {
				pe := rxExplainOne(t, dir, explain.Options{Eras: rxEraSet(t, exp.eras), Interval: rxInterval})
				rxCheckPartition(t, dir, exp, pe, true)
			})
		})
	}

	// "The time-index entries name the exact record offset of the batch's max timestamp, not the
	// batch's last offset" (atul-0406, stock-market-batch-0): in segment 12910 that is a leader's
	// append under 0.11-3.6 (LogValidator), and its batches of about 100 records rule out
	// 0.11-1.1 (whose offset-index entries name an append's first offset, not its last).
	t.Run("atul-0406/stock-market-batch-0/exact-record-time-index", func(t *testing.T) {
		pe := rxExplainOne(t, filepath.Join(root, "atul-0406", "stock-market-batch-0"), explain.Options{Interval: -1})
		for _, se := range pe.Segments {
			if se.BaseOffset != 12910 {
				continue
			}
			if se.Origin != "leader" {
				t.Errorf("segment 12910: origin %q, want \"leader\"", se.Origin)
			}
			if got, want := se.Eras.IDs(), []string{"2.0-2.2", "2.3-3.6"}; !slices.Equal(got, want) {
				t.Errorf("segment 12910: eras %v, want exactly %v", got, want)
			}
			return
		}
		t.Errorf("no segment 12910")
	})

	// "Several `.snapshot` files mark restarts (e.g. 14910, 11890)" (atul-0406). Both are the
	// log end offsets of the active segments (checked below by brute force), whose indexes a
	// clean shutdown trimmed ("clean shutdowns"): no batch comes after them, so no index entry
	// shows a reset byte counter and explain need not list them; it must not deny them either
	// (a note that the snapshot is "not a restart of this segment's byte counter").
	t.Run("atul-0406/snapshots", func(t *testing.T) {
		for _, c := range []struct {
			dir       string
			base, leo int64
		}{
			{"stock-market-batch-0", 12910, 14910},
			{"__consumer_offsets-9", 9907, 11890},
		} {
			dir := filepath.Join(root, "atul-0406", c.dir)
			snap := fmt.Sprintf("%020d.snapshot", c.leo)
			if _, err := os.Stat(filepath.Join(dir, snap)); err != nil {
				t.Fatalf("%s: %v", c.dir, err)
			}
			l, err := rawlog.ReadLog(rxLogPath(dir, c.base))
			if err != nil || len(l.Batches) == 0 || l.Batches[len(l.Batches)-1].Last+1 != c.leo {
				t.Fatalf("%s segment %d: brute force: %v; its log end offset is not %d", c.dir, c.base, err, c.leo)
			}
			pe := rxExplainOne(t, dir, explain.Options{Interval: -1})
			for _, se := range pe.Segments {
				for _, n := range se.Notes {
					if strings.Contains(n, snap) {
						t.Errorf("%s segment %d: note %q about %s, which the README says marks a restart", c.dir, se.BaseOffset, n, snap)
					}
				}
			}
		}
	})
}

// Damage on a copy of iechenyb/test-0921-0 (MANIFEST: 288 and 444 bytes stored before the zero
// tails, so 36 offset-index and 37 time-index entries; README: a restart before batch 839): the
// slots damaged below are chosen by hand.
const (
	rxDamageDir = "iechenyb/test-0921-0"
	// rxIndexSlot: its position field is moved 7 bytes into the batch it names.
	rxIndexSlot = 3
	// rxTimeSlot: its timestamp is made 1 ms larger (still below the next entry's).
	rxTimeSlot = 10
)

// TestRealDataExplainDamage: explain reports a real segment whose index was damaged as not
// reproduced, naming the damaged file and slot; the undamaged copy is still reproduced (so the
// damage, not the copy, is what it reports).
func TestRealDataExplainDamage(t *testing.T) {
	root := realdata.Restore(t)
	src := filepath.Join(root, filepath.FromSlash(rxDamageDir))
	stem := fmt.Sprintf("%020d", 0)

	t.Run("undamaged-copy", func(t *testing.T) {
		dir := realdata.CopyDir(t, src)
		pe := rxExplainOne(t, dir, explain.Options{Interval: -1})
		if !pe.Reproduced() || len(pe.Segments) != 1 || pe.Segments[0].FirstDisagreement != nil {
			t.Fatalf("the undamaged copy of %s is not reproduced: %+v", rxDamageDir, pe.Segments)
		}
	})

	t.Run("index-position-inside-a-batch", func(t *testing.T) {
		dir := realdata.CopyDir(t, src)
		idx := filepath.Join(dir, stem+".index")
		at := int64(rxIndexSlot * 8)
		entry := testfiles.ReadAt(t, idx, at, 8)
		pos := int64(binary.BigEndian.Uint32(entry[4:]))
		bpos := rxBatchPos(t, filepath.Join(dir, stem+".log"), int64(binary.BigEndian.Uint32(entry[:4])))
		// The batch there spans 12 + its length field (at +8) bytes.
		size := 12 + int64(binary.BigEndian.Uint32(testfiles.ReadAt(t, filepath.Join(dir, stem+".log"), pos+8, 4)))
		if pos == 0 || bpos != pos || size <= 7 {
			t.Fatalf("slot %d of %s: position %d, its offset's batch at %d (%d bytes): not a place to damage", rxIndexSlot, idx, pos, bpos, size)
		}
		testfiles.WriteAt(t, idx, at+4, binary.BigEndian.AppendUint32(nil, uint32(pos+7)))
		rxCheckDamage(t, dir, idx, rxIndexSlot, 8)
	})

	t.Run("timeindex-timestamp", func(t *testing.T) {
		dir := realdata.CopyDir(t, src)
		tix := filepath.Join(dir, stem+".timeindex")
		at := int64(rxTimeSlot * 12)
		b := testfiles.ReadAt(t, tix, at, 24)
		ts, next := int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[12:]))
		if ts <= 0 || next <= ts+1 {
			t.Fatalf("slots %d, %d of %s: timestamps %d, %d: not a place to damage", rxTimeSlot, rxTimeSlot+1, tix, ts, next)
		}
		testfiles.WriteAt(t, tix, at, binary.BigEndian.AppendUint64(nil, uint64(ts+1)))
		rxCheckDamage(t, dir, tix, rxTimeSlot, 12)
	})
}

// rxCheckDamage: the copy dir is not reproduced, and the first disagreement names file, slot
// and a byte of that slot's entry.
func rxCheckDamage(t *testing.T, dir, file string, slot int, entrySize int64) {
	t.Helper()
	pe := rxExplainOne(t, dir, explain.Options{Interval: -1})
	if pe.Reproduced() {
		t.Fatalf("damaged %s: still reproduced", filepath.Base(file))
	}
	se := pe.Segments[0]
	if se.Reproduced {
		t.Fatalf("damaged %s: segment 0 reproduced", filepath.Base(file))
	}
	d := se.FirstDisagreement
	if d == nil {
		t.Fatalf("damaged %s: no first disagreement", filepath.Base(file))
	}
	lo := int64(slot) * entrySize
	if filepath.Base(d.File) != filepath.Base(file) || d.Slot != slot || d.Byte < lo || d.Byte >= lo+entrySize {
		t.Errorf("damaged slot %d of %s (bytes %d-%d): first disagreement %s", slot, filepath.Base(file), lo, lo+entrySize-1, d)
	}
}
