package kafkamsg

import (
	"os"
	"path/filepath"
	"testing"

	"kidx/internal/realdata"
)

// BenchmarkMetadataRecord decodes and prints (JSON) a realistic mix of metadata records: every
// record of ldi-poc's __cluster_metadata-0 (a 3.7 controller: mostly NoOpRecords, then
// partition, topic, broker and config records) when ../shared/realdata is there, else the hand
// vectors of decode_test.go. It reports records/s and MB/s of record values.
func BenchmarkMetadataRecord(b *testing.B) {
	var values [][]byte
	source := "hand vectors"
	if dir, err := realdata.SharedDir(); err == nil {
		part := filepath.Join(dir, "ldi-poc", "__cluster_metadata-0")
		if files, err := os.ReadDir(part); err == nil {
			for _, f := range files {
				if filepath.Ext(f.Name()) == ".log" {
					for _, r := range recordsOf(b, filepath.Join(part, f.Name())) {
						if !r.control {
							values = append(values, r.value)
						}
					}
				}
			}
			source = "ldi-poc/__cluster_metadata-0"
		}
	}
	if len(values) == 0 {
		values = metadataSeeds()
	}
	bytes := 0
	for _, v := range values {
		bytes += len(v)
	}
	b.Logf("%d records (%d bytes) from %s", len(values), bytes, source)
	b.ResetTimer()
	records := 0
	for i := 0; i < b.N; i++ {
		for _, v := range values {
			obj, err := MetadataRecord(v)
			if err != nil {
				b.Fatal(err)
			}
			_ = JSON(obj)
		}
		records += len(values)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(records)/secs, "records/s")
	b.ReportMetric(float64(bytes)*float64(b.N)/secs/1e6, "MB/s")
}
