package segment_test

import (
	"testing"

	"kidx/segment"
	"kidx/segment/vfs"
)

// BenchmarkReplicatedFetch measures a follower catching up on files in memory: a leader of
// 4096 one-record 5070-byte batches (about 20 MiB, segment.bytes 4 MiB: 5 segments) fetched in
// 1 MiB chunks (one index search and a header walk per fetch, then a copy and one append).
// Reported: fetches/s and MB/s of batches copied.
func BenchmarkReplicatedFetch(b *testing.B) {
	cfg := segment.DefaultConfig()
	cfg.SegmentBytes = 4 << 20
	const batches, size = 4096, 5070
	var fetches int
	for b.Loop() {
		b.StopTimer()
		fsys := vfs.NewMemFS()
		rs, err := segment.CreateReplicaSetFS(fsys, "/p", cfg, segment.PerBatch,
			segment.ReplicaSpec{Count: 2, FetchMaxBytes: 1 << 20, StartOffsets: []int64{0, 0}})
		if err != nil {
			b.Fatal(err)
		}
		for o := int64(0); o < batches; o++ {
			if _, err := rs.Produce([]segment.BatchSpec{{Records: 1, Bytes: size, MaxTimestamp: o}}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for rs.Log(1).NextOffset() < batches {
			if _, err := rs.Fetch(1, 0); err != nil {
				b.Fatal(err)
			}
			fetches++
		}
		b.StopTimer()
		rs.Close()
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(fetches)/sec, "fetches/s")
	b.ReportMetric(float64(b.N)*batches*size/1e6/sec, "MB/s")
}
