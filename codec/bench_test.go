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
