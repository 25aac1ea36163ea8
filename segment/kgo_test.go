package segment

import (
	"path/filepath"
	"testing"

	"kidx/internal/testfiles"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// franz-go's consumer path as the oracle: kgo.ProcessFetchPartition parses a fetch
// response's record batches exactly as a client does, validating every batch's CRC-32C.
// Each .log the writer produced is handed to it as one partition's fetched bytes.
func TestKgoProcessFetchPartitionAcceptsWriterLogs(t *testing.T) {
	for _, name := range []string{"random-i512-per-batch", "blog-i4096"} {
		for _, form := range []string{"recipe", "workload"} {
			dir := writeGoldenForm(t, name, form)
			for _, f := range testfiles.ListFiles(t, dir) {
				if filepath.Ext(f) != LogSuffix {
					continue
				}
				data := testfiles.MustRead(t, filepath.Join(dir, f))
				base, _ := OffsetFromFileName(f)
				rp := kmsg.FetchResponseTopicPartition{HighWatermark: 1 << 40, LastStableOffset: 1 << 40, RecordBatches: data}
				fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: base, Topic: "t"}, &rp, kgo.DefaultDecompressor(), nil)
				if fp.Err != nil {
					t.Fatalf("%s %s %s: kgo: %v", name, form, f, fp.Err)
				}
				// Every record comes back, offsets consecutive from the segment's base.
				l, err := OpenLog(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				var want int64
				l.Walk(0, l.Size(), func(b BatchInfo) bool { want += b.LastOffset() - b.BaseOffset() + 1; return true })
				l.Close()
				if int64(len(fp.Records)) != want {
					t.Fatalf("%s %s %s: kgo returned %d records, the log holds %d", name, form, f, len(fp.Records), want)
				}
				for i, r := range fp.Records {
					if r.Offset != base+int64(i) {
						t.Fatalf("%s %s: record %d has offset %d", f, form, i, r.Offset)
					}
				}
				// A flipped payload byte must fail kgo's CRC check.
				bad := append([]byte(nil), data...)
				bad[len(bad)-1] ^= 0x01
				rp.RecordBatches = bad
				if fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: base, Topic: "t"}, &rp, kgo.DefaultDecompressor(), nil); fp.Err == nil {
					t.Fatalf("%s %s: kgo accepted a corrupted batch", form, f)
				}
			}
		}
	}
}
