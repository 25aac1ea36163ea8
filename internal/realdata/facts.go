package realdata

import "strings"

// The second collection: the four origins added to ../shared/realdata later (its README, the
// section "The second collection" and the last four rows of "Origins"; MANIFEST.tsv for every
// file), written down here by hand. Nothing below is computed by kidx.

// The origins of the second collection, with the Kafka release the README names for each.
const (
	// K37: Kafka 3.7 (confluentinc/cp-kafka 7.7, MV 19), KRaft, clean shutdown; transactions,
	// compacted Connect and Schema Registry topics; 139 partitions.
	K37 = "k37-itumeleng-txn"
	// K40: Kafka 4.0.x (bitnami/kafka, MV 25), KRaft, clean shutdown; the log cleaner's output
	// in __consumer_offsets, idempotent producers; 62 partitions.
	K40 = "k40-lestfeed-compacted"
	// K42: Kafka 4.2.0, KRaft combined mode, on Windows, killed: a .lock and no
	// .kafka_cleanshutdown; all-gzip streaming-events-*; 54 partitions.
	K42 = "k42-malayka-gzip"
	// ZK11: Kafka 1.1.0 (confluentinc/cp-kafka 4.1.0), ZooKeeper, killed: a .lock and no
	// .kafka_cleanshutdown; 529 lz4 batches in test-0; 2 partitions.
	ZK11 = "zk11-hermag-lz4"
)

// SecondCollection is the number of partition directories (with a .log) of each origin of
// the second collection (MANIFEST.tsv).
var SecondCollection = map[string]int{K37: 139, K40: 62, K42: 54, ZK11: 2}

// NonEmpty is every partition of the second collection whose .log files hold batches
// (MANIFEST.tsv: a .log of more than 0 bytes), with the base offset of each of its segments
// (.log files), oldest first. Every other partition of these origins holds one empty segment
// (a 0-byte .log), at base offset 0 except K40's product-response-0 (base 5).
var NonEmpty = map[string][]int64{
	K37 + "/__consumer_offsets-29":                    {0},
	K37 + "/__consumer_offsets-37":                    {0},
	K37 + "/__transaction_state-44":                   {0},
	K37 + "/_confluent-ksql-default__command_topic-0": {0},
	K37 + "/_schemas-0":                               {0},
	K37 + "/docker-connect-configs-0":                 {0},
	K40 + "/__consumer_offsets-25":                    {0, 63, 474},
	K40 + "/__consumer_offsets-45":                    {0, 36, 507},
	K40 + "/cart-product-request-0":                   {12},
	K40 + "/cart-product-response-0":                  {9},
	K40 + "/product-request-0":                        {5},
	K40 + "/product-topic-0":                          {0},
	K40 + "/user-request-0":                           {0},
	K40 + "/user-response-0":                          {0},
	K42 + "/__cluster_metadata-0":                     {0},
	K42 + "/__consumer_offsets-45":                    {0},
	K42 + "/streaming-events-0":                       {0},
	K42 + "/streaming-events-1":                       {0},
	K42 + "/streaming-events-2":                       {0},
	ZK11 + "/__confluent.support.metrics-0":           {0},
	ZK11 + "/test-0":                                  {0},
}

// SecondCollectionEmpty reports whether name is a partition of the second collection holding
// only an empty segment (236 of its 257: one shape, a 0-byte .log with 0-byte or preallocated
// all-zero indexes, which the first collection's ldi-poc/__consumer_offsets-0 and -1 also have).
func SecondCollectionEmpty(name string) bool {
	origin, _, _ := strings.Cut(name, "/")
	_, second := SecondCollection[origin]
	_, nonEmpty := NonEmpty[name]
	return second && !nonEmpty
}

// EmptySegmentBase is the base offset of the one empty segment of a partition of the second
// collection that NonEmpty does not list (MANIFEST.tsv).
func EmptySegmentBase(name string) int64 {
	if name == K40+"/product-response-0" {
		return 5
	}
	return 0
}

// LiveIndexes reports whether the partition's segment has preallocated (zero-tailed) index
// files: MANIFEST.tsv gives original sizes of 10485760 and 10485756 to K42's empty partitions
// ("98 preallocated all-zero indexes") and to ZK11's __confluent.support.metrics-0 ("The
// metrics partition's indexes are all-zero"); the other two origins shut down cleanly and
// trimmed every index.
func LiveIndexes(name string) bool {
	if name == ZK11+"/__confluent.support.metrics-0" {
		return true
	}
	_, nonEmpty := NonEmpty[name]
	return strings.HasPrefix(name, K42+"/") && !nonEmpty
}

// IndexFilesNotFetched is every partition whose active segment's .index and .timeindex were
// not all zeros and too large for the fetch, so that here its .log has no index files ("Index
// files that could not be fetched"). A broker rebuilds missing index files when it loads the
// log: such a partition is not damaged, and no lookup figure may come from its index.
var IndexFilesNotFetched = []string{
	K42 + "/__cluster_metadata-0",
	K42 + "/__consumer_offsets-45",
	K42 + "/streaming-events-0",
	K42 + "/streaming-events-1",
	K42 + "/streaming-events-2",
	ZK11 + "/test-0",
}

// IndexNotFetched reports whether name is in IndexFilesNotFetched.
func IndexNotFetched(name string) bool {
	for _, d := range IndexFilesNotFetched {
		if d == name {
			return true
		}
	}
	return false
}

// CleanedBesideSource is the two partitions whose first segment 00000000000000000000.log is the
// log cleaner's output, committed beside the segment it was cleaned from (the value: that
// segment's base offset), whose deletion was never committed ("Two points in time mixed"). The
// two segments overlap: verify must report it (exit 1). Their third segment is healthy.
var CleanedBesideSource = map[string]int64{
	K40 + "/__consumer_offsets-25": 63,
	K40 + "/__consumer_offsets-45": 36,
}

// The segment whose indexes recovery rebuilt ("A recovered segment"): its time index lost
// the entry close() wrote at the restart before offset RecoveredRestart.
const (
	RecoveredDir     = K40 + "/cart-product-request-0"
	RecoveredBase    = 12
	RecoveredRestart = 19
)

// Problem is the exit status verify must give a partition directory of either collection: 1
// for the missing .log of MissingLogDir and for the two overlaps of CleanedBesideSource, 0 for
// every other (healthy) directory.
func Problem(name string) bool {
	_, overlap := CleanedBesideSource[name]
	return overlap || name == MissingLogDir
}

// Gap is something kidx does not yet say right of a real directory, and the open issue that
// will fix it. A test that meets one asserts today's answer (so that the fix makes it fail and
// the gap is removed here) and names the issue in its message.
type Gap struct {
	Issue int
	What  string
}

// The answers Gaps are about.
const (
	// GapExplain: `kidx explain` does not reproduce the segment, or not with the broker's
	// index.interval.bytes.
	GapExplain = "explain"
	// GapReplay: the replay of the partition (whatif/sim --from-logdir) fails or does not say
	// that its baseline reproduces the real index.
	GapReplay = "replay"
)

// Gaps is every known gap, by partition directory and answer.
var Gaps = map[string]map[string]Gap{
	// Issue 25 closed the last three: lestfeed's __consumer_offsets-25 and -45 (a cleaned segment
	// beside its stale source) and cart-product-request-0 (a segment recovery rebuilt) replay.
}

// KnownGap is the gap of name about answer, if there is one.
func KnownGap(name, answer string) (Gap, bool) {
	g, ok := Gaps[name][answer]
	return g, ok
}

// Shutdown and mode, as the README's origins table states them (the origins it says nothing of
// are left out).
var (
	// CleanShutdown says whether the origin's log directory holds .kafka_cleanshutdown: ronem
	// ("clean shutdown (.kafka_cleanshutdown ...)"), atul-0406 ("clean shutdowns"), K37 and
	// K40 ("Clean shutdown."); K42 and ZK11 were killed ("a .lock and no .kafka_cleanshutdown").
	CleanShutdown = map[string]bool{"ronem": true, "atul-0406": true, K37: true, K40: true, K42: false, ZK11: false}
	// KRaft says whether the origin's broker ran in KRaft mode (true) or with ZooKeeper
	// (false): ronem ("KRaft (directory.id)"), ldi-poc ("KRaft (meta.properties version=1)"),
	// K37, K40, K42 ("KRaft"); atul-0406, donaldy, iechenyb, ZK11 ("ZooKeeper mode").
	KRaft = map[string]bool{"ronem": true, "ldi-poc": true, K37: true, K40: true, K42: true,
		"atul-0406": false, "donaldy": false, "iechenyb": false, ZK11: false}
	// MetadataLog names the origins holding KRaft's __cluster_metadata-0 among their
	// partitions (the README's "what is in it"; the codecrafters ones are a harness's).
	MetadataLog = map[string]bool{"ronem": true, "ldi-poc": true, K42: true, "codecrafters-go": true, "codecrafters-gleam": true}
)
