package segmenttest

import (
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kidx/internal/realdata"
	"kidx/segment"
)

// BuildBroker builds what it says, at a tenth of issue 22's size: the partitions and segments
// asked for, the checkpoints naming every partition at its log end offset, the root files of a
// clean shutdown; the same every time for one seed.
func TestBuildBroker(t *testing.T) {
	spec := BrokerSpec{Partitions: 400, Segments: 2000, RealPartitions: 300, SegmentBytes: 64 << 10, Seed: 3}
	rd := realdata.Restore(t)
	b := BuildBrokerFrom(t, rd, spec)
	if b.Partitions != 400 || b.Segments != 2000 || b.RealPartitions != 300 || b.WrittenPartitions != 100 {
		t.Fatalf("built %+v", b)
	}
	ents, err := os.ReadDir(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	partitions, logs := 0, 0
	var names []string
	for _, e := range ents {
		if !e.IsDir() {
			names = append(names, e.Name())
			continue
		}
		partitions++
		files, _ := filepath.Glob(filepath.Join(b.Dir, e.Name(), "*.log"))
		logs += len(files)
	}
	if partitions != 400 || logs != 2000 {
		t.Fatalf("%d partition directories, %d .log files", partitions, logs)
	}
	want := []string{".kafka_cleanshutdown", ".lock", "cleaner-offset-checkpoint", "log-start-offset-checkpoint", "meta.properties", "recovery-point-offset-checkpoint", "replication-offset-checkpoint"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("root files %v", names)
	}
	if _, err := segment.ParseMetaProperties(mustRead(t, filepath.Join(b.Dir, "meta.properties")), "meta.properties"); err != nil {
		t.Fatal(err)
	}
	points, err := segment.ReadOffsetCheckpoint(filepath.Join(b.Dir, "recovery-point-offset-checkpoint"))
	if err != nil || len(points) != 400 {
		t.Fatalf("recovery points: %d entries, %v", len(points), err)
	}
	// A written partition's recovery point is its log end: one past the newest segment's last offset.
	for _, p := range points {
		if !strings.HasPrefix(p.Topic, "load") {
			continue
		}
		dir := filepath.Join(b.Dir, p.Topic+"-"+strconv.Itoa(p.Partition))
		logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		end, err := logEndOffset(logs)
		if err != nil || end != p.Offset || end == 0 {
			t.Fatalf("%s: recovery point %d, log end %d (%v)", dir, p.Offset, end, err)
		}
	}
	again := BuildBrokerFrom(t, rd, spec)
	if a, b := listing(t, b.Dir), listing(t, again.Dir); a != b {
		t.Fatal("two builds with one seed differ")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// listing is every file under dir with its size and CRC-32C.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&out, "%s %d %08x\n", rel, len(data), crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}
