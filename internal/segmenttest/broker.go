package segmenttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kidx/internal/realdata"
	"kidx/segment"
)

// BrokerSpec sizes a broker's log directory built by BuildBroker.
type BrokerSpec struct {
	Partitions int // partition directories
	Segments   int // segments (.log files) in all
	// RealPartitions of the partitions are copies of ../shared/realdata's healthy partitions,
	// each real partition copied in turn under a new topic name; the others are written.
	RealPartitions int
	// SegmentBytes is the written partitions' segment.bytes; their batches are 512 B to 4 KiB.
	SegmentBytes int64
	Seed         uint64 // the written partitions' batch sizes, topic ids
}

// Broker4000 is issue 22's broker: 4,000 partitions, 20,000 segments, half of the partitions
// copies of real ones.
var Broker4000 = BrokerSpec{Partitions: 4000, Segments: 20000, RealPartitions: 2000, SegmentBytes: 128 << 10, Seed: 22}

// Broker is what BuildBroker built.
type Broker struct {
	Dir                 string // the log directory (log.dirs entry)
	Partitions          int
	Segments            int
	RealPartitions      int // copies of real partitions
	RealSegments        int
	WrittenPartitions   int
	WrittenSegments     int
	Templates           int // distinct written partitions the written ones are links of
	RealSourcePartition int // real partitions copied from
}

// realSkip are the real partitions that are not healthy (realdata's facts): a .log missing,
// and a cleaned segment overlapping its source. A broker of their copies would have problems
// where the benchmark wants a healthy one.
var realSkip = map[string]bool{
	realdata.MissingLogDir:                         true,
	"k40-lestfeed-compacted/__consumer_offsets-25": true,
	"k40-lestfeed-compacted/__consumer_offsets-45": true,
}

// BuildBroker builds a broker's log directory in a temporary directory of t, as a broker with
// spec.Partitions partitions and spec.Segments segments leaves it after a clean shutdown:
//   - spec.RealPartitions partition directories are copies of ../shared/realdata's healthy
//     partitions (restored by realdata.Restore into t's temporary directory: without it t is
//     skipped, or fails under CI), taken in turn and renamed "<topic>.r<i>-<partition>" (i counts the copies: several origins hold a
//     __cluster_metadata-0);
//     the copies are hard links of the restored files, so nothing is copied and no input is
//     written (kidx's readers open files O_RDONLY);
//   - the others are written with kidx's own writer (segment.WriteWorkload, per-batch rule,
//     segment.bytes spec.SegmentBytes, index.interval.bytes 4096, seeded batch sizes), as many
//     segments each as the count needs (the real data has about one per partition): a few
//     template partitions are written, and every written partition is hard links of one,
//     named "load<topic>-<partition>", with its leader-epoch-checkpoint and partition.metadata;
//   - the root files: meta.properties, recovery-point-offset-checkpoint and
//     replication-offset-checkpoint naming every partition at its log end offset,
//     log-start-offset-checkpoint and cleaner-offset-checkpoint empty (Kafka names only logs
//     whose start moved, and compacted ones), .kafka_cleanshutdown and .lock.
//
// It takes about 7 s on 2 vCPUs, nearly all of it restoring the real data.
func BuildBroker(t testing.TB, spec BrokerSpec) Broker {
	t.Helper()
	return BuildBrokerFrom(t, realdata.Restore(t), spec)
}

// BuildBrokerFrom is BuildBroker from real data already restored at rd (realdata.Restore).
func BuildBrokerFrom(t testing.TB, rd string, spec BrokerSpec) Broker {
	t.Helper()
	sources, err := realSources(rd)
	if err != nil {
		t.Fatal(err)
	}
	b := Broker{Dir: filepath.Join(t.TempDir(), "kafka-logs"), Partitions: spec.Partitions, RealSourcePartition: len(sources)}
	if err := os.Mkdir(b.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var ends []partitionEnd
	for i := range spec.RealPartitions {
		src := sources[i%len(sources)]
		name := fmt.Sprintf("%s.r%d-%d", src.topic, i, src.partition)
		if err := linkFiles(src.dir, filepath.Join(b.Dir, name), src.files); err != nil {
			t.Fatal(err)
		}
		b.RealPartitions++
		b.RealSegments += src.segments
		ends = append(ends, partitionEnd{name, src.end})
	}
	written, err := writePartitions(b.Dir, t.TempDir(), spec, spec.Partitions-b.RealPartitions, spec.Segments-b.RealSegments)
	if err != nil {
		t.Fatal(err)
	}
	b.WrittenPartitions, b.WrittenSegments, b.Templates = len(written.ends), written.segments, written.templates
	b.Segments = b.RealSegments + b.WrittenSegments
	ends = append(ends, written.ends...)
	if err := writeBrokerRoot(b.Dir, ends, spec.Seed); err != nil {
		t.Fatal(err)
	}
	return b
}

// realSource is a healthy real partition directory: its regular files, segments and log end.
type realSource struct {
	dir, topic string
	partition  int
	files      []string
	segments   int
	end        int64
}

type partitionEnd struct {
	name string
	end  int64 // log end offset
}

func realSources(root string) ([]realSource, error) {
	var out []realSource
	for _, dir := range realdata.PartitionDirs(root) {
		if realSkip[realdata.Name(root, dir)] {
			continue
		}
		topic, p, ok := segment.ParsePartitionDirName(filepath.Base(dir))
		if !ok {
			continue
		}
		src := realSource{dir: dir, topic: topic, partition: p}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				src.files = append(src.files, e.Name())
			}
		}
		logs := realdata.LogFiles(dir)
		src.segments = len(logs)
		if src.end, err = logEndOffset(logs); err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no healthy real partition under %s", root)
	}
	return out, nil
}

// logEndOffset is one past the last offset of the newest segment of logs (sorted), or its base
// offset when it holds no batch.
func logEndOffset(logs []string) (int64, error) {
	newest := logs[len(logs)-1]
	lf, err := segment.OpenLogWith(newest, segment.AccessPread)
	if err != nil {
		return 0, err
	}
	defer lf.Close()
	end := max(lf.BaseOffset, 0)
	lf.Walk(0, 0, func(b segment.BatchInfo) bool {
		end = max(end, b.LastOffset()+1)
		return true
	})
	return end, nil
}

func linkFiles(srcDir, dstDir string, files []string) error {
	if err := os.Mkdir(dstDir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Link(filepath.Join(srcDir, f), filepath.Join(dstDir, f)); err != nil {
			return err
		}
	}
	return nil
}

// writtenPartitions is what writePartitions made.
type writtenPartitions struct {
	ends      []partitionEnd
	segments  int
	templates int
}

// templateVariants is how many differently seeded templates each segment count gets.
const templateVariants = 4

// writePartitions writes n partitions holding segments segments in all into dir: spread as
// evenly as the count allows (segments/n each, one more for the first segments%n), each a set
// of hard links of a template written once into scratch.
func writePartitions(dir, scratch string, spec BrokerSpec, n, segments int) (writtenPartitions, error) {
	var out writtenPartitions
	if n <= 0 {
		return out, nil
	}
	if segments < n {
		return out, fmt.Errorf("%d segments for %d written partitions: each needs one", segments, n)
	}
	type template struct {
		dir   string
		files []string
		end   int64
	}
	templates := map[[2]int]template{}
	for i := range n {
		count := segments / n
		if i < segments%n {
			count++
		}
		key := [2]int{count, i % templateVariants}
		tpl, ok := templates[key]
		if !ok {
			tdir := filepath.Join(scratch, fmt.Sprintf("template%d.%d-0", count, key[1]))
			seed := spec.Seed*1000003 + uint64(count)*16 + uint64(key[1])
			end, err := writeTemplate(tdir, count, spec.SegmentBytes, seed)
			if err != nil {
				return out, err
			}
			files, err := regularFiles(tdir)
			if err != nil {
				return out, err
			}
			tpl = template{tdir, files, end}
			templates[key] = tpl
		}
		name := fmt.Sprintf("load%03d-%d", i/50, i%50)
		if err := linkFiles(tpl.dir, filepath.Join(dir, name), tpl.files); err != nil {
			return out, err
		}
		out.ends = append(out.ends, partitionEnd{name, tpl.end})
		out.segments += count
	}
	out.templates = len(templates)
	return out, nil
}

// writeTemplate writes a partition of exactly segments segments into dir with the writer:
// batches of 512 B to 4 KiB (seeded) at segment.bytes segmentBytes, cut where the roll rule
// (LogSegment.shouldRoll: size > segment.bytes - the append's size) has started the last
// segment and half filled it. It returns the log end offset.
func writeTemplate(dir string, segments int, segmentBytes int64, seed uint64) (int64, error) {
	rng := rand.New(rand.NewPCG(seed, 22))
	w := &segment.Workload{Config: segment.Config{IndexIntervalBytes: 4096, SegmentBytes: segmentBytes, SegmentIndexBytes: 10485760}, Rule: segment.PerBatch}
	const records = 4
	ts := int64(1_700_000_000_000)
	for n, size := 1, int64(0); ; {
		b := int64(512 + rng.IntN(4096-512))
		if size > segmentBytes-b {
			if n == segments {
				break
			}
			n, size = n+1, 0
		}
		if n == segments && size > segmentBytes/2 {
			break
		}
		size += b
		ts += int64(rng.IntN(1000))
		w.Steps = append(w.Steps, segment.Step{Append: []segment.BatchSpec{{Records: records, Bytes: int(b), MaxTimestamp: ts}}})
	}
	res, err := segment.WriteWorkload(dir, w)
	if err != nil {
		return 0, err
	}
	if len(res.Segments) != segments {
		return 0, fmt.Errorf("%s: %d segments written, want %d", dir, len(res.Segments), segments)
	}
	topicID := make([]byte, 16)
	for i := range topicID {
		topicID[i] = byte(rng.Uint32())
	}
	files := map[string]string{
		"leader-epoch-checkpoint": "0\n1\n0 0\n",
		"partition.metadata":      "version: 0\ntopic_id: " + base64.RawURLEncoding.EncodeToString(topicID) + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return 0, err
		}
	}
	return res.NextOffset, nil
}

func regularFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// writeBrokerRoot writes the log directory's own files, as a KRaft broker's clean shutdown
// leaves them.
func writeBrokerRoot(dir string, ends []partitionEnd, seed uint64) error {
	sort.Slice(ends, func(i, j int) bool { return ends[i].name < ends[j].name })
	var offsets strings.Builder
	fmt.Fprintf(&offsets, "0\n%d\n", len(ends))
	for _, p := range ends {
		topic, part, ok := segment.ParsePartitionDirName(p.name)
		if !ok {
			return fmt.Errorf("%s: not a partition directory name", p.name)
		}
		fmt.Fprintf(&offsets, "%s %d %d\n", topic, part, p.end)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	id := func() string {
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	files := map[string]string{
		"meta.properties":                  fmt.Sprintf("#\n#Thu Oct 10 11:57:10 GMT 2024\nnode.id=1\ndirectory.id=%s\nversion=1\ncluster.id=%s\n", id(), id()),
		"recovery-point-offset-checkpoint": offsets.String(),
		"replication-offset-checkpoint":    offsets.String(),
		"log-start-offset-checkpoint":      "0\n0\n",
		"cleaner-offset-checkpoint":        "0\n0\n",
		".kafka_cleanshutdown":             `{"version":0,"brokerEpoch":53326}`,
		".lock":                            "",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}
