package codec_test

import (
	"testing"

	"kidx/codec"
)

// BenchmarkDecompress/<codec>: 1 MiB of record-shaped data (recordData: JSON events with
// keys and varints, compressing about 4-6x), compressed by franz-go's producer compressor,
// decompressed whole. Reports decompressed MB/s (target >= 200).
func BenchmarkDecompress(b *testing.B) {
	src := recordData(1 << 20)
	for _, c := range compressed {
		comp := franzCompress(b, c, src)
		b.Run(c.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := codec.Decompress(c, 2, comp, 0)
				if err != nil || len(out) != len(src) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
			b.ReportMetric(float64(len(src))/float64(len(comp)), "ratio")
		})
	}
}

// BenchmarkDecompressRealKafka08/<codec>: the 22 wrappers of Kafka 0.8's Hamlet fixtures
// (real producer output: gzip and xerial snappy, about 14 KB each decompressed), read in
// place from /work/shared/realdata. Reports decompressed MB/s.
func BenchmarkDecompressRealKafka08(b *testing.B) {
	for _, c := range []struct {
		dir   string
		codec codec.Codec
	}{{"hamlet-gzip-0", codec.Gzip}, {"hamlet-snappy-0", codec.Snappy}} {
		ws := legacyEntries(b, realdata(b, "kafkalite/"+c.dir+"/00000000000000000000.log"))
		b.Run(c.codec.String(), func(b *testing.B) {
			total := 0
			for b.Loop() {
				for _, w := range ws {
					out, err := codec.Decompress(c.codec, 0, w.Value, 0)
					if err != nil {
						b.Fatal(err)
					}
					total += len(out)
				}
			}
			b.ReportMetric(float64(total)/b.Elapsed().Seconds()/1e6, "MB/s")
		})
	}
}
