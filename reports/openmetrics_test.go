package reports

import (
	"bytes"
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kidx/internal/testfiles"
	"kidx/segment"
)

// Issue 22, "Fleet in the ecosystem's terms": the metrics parse back with expfmt's text
// parser (node_exporter's textfile collector reads this format), and carry the broker's and
// each partition's figures under kidx_ names with the broker, log_dir, topic and partition
// labels. The expected values are the workload's, counted by hand: t-0 holds 6 seed batches
// (two segments of 4 and 2 batches under segment.bytes=65536), u-0 one batch; no
// .kafka_cleanshutdown, so the next start recovers from recovery point 0: every segment.
func TestOpenMetricsParseBack(t *testing.T) {
	root := t.TempDir()
	writePartition(t, root, "t-0", 6)
	writePartition(t, root, "u-0", 1)
	orphanIndex(t, filepath.Join(root, "u-0"))
	testfiles.MustWrite(t, filepath.Join(root, segment.MetaPropertiesName), []byte("version=1\nnode.id=3\ncluster.id=c\n"))
	a, err := AnalyzeDir(root, AnalyzeOptions{MaxMapCount: 100})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := a.WriteOpenMetrics(&b); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatalf("does not parse back: %v\n%s", err, b.String())
	}
	value := func(name string, labels map[string]string) float64 {
		t.Helper()
		f := fams[name]
		if f == nil {
			t.Fatalf("no %s", name)
		}
		if f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s is %v, not a gauge", name, f.GetType())
		}
	next:
		for _, m := range f.Metric {
			got := map[string]string{}
			for _, l := range m.Label {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			if got["broker"] != "3" {
				t.Errorf("%s: broker label %q, want the node.id 3", name, got["broker"])
			}
			return m.GetGauge().GetValue()
		}
		t.Fatalf("%s has no sample with %v", name, labels)
		return 0
	}
	part := func(topic string) map[string]string {
		return map[string]string{"log_dir": root, "topic": topic, "partition": "0"}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"kidx_broker_partitions", nil, 2},
		{"kidx_broker_segments", nil, 3},
		{"kidx_broker_memory_maps", nil, 6},
		{"kidx_broker_max_map_count", nil, 100},
		{"kidx_broker_memory_map_headroom", nil, 94},
		{"kidx_broker_problems", map[string]string{"severity": "warning"}, 1},
		{"kidx_broker_problems", map[string]string{"severity": "error"}, 0},
		{"kidx_broker_verdict", map[string]string{"state": VerdictAttention}, 1},
		{"kidx_broker_verdict", map[string]string{"state": VerdictHealthy}, 0},
		{"kidx_log_dir_clean_shutdown", map[string]string{"log_dir": root}, 0},
		{"kidx_log_dir_next_start_recovered_segments", map[string]string{"log_dir": root}, 3},
		{"kidx_log_dir_next_start_recovered_bytes", map[string]string{"log_dir": root}, 7 * 16350},
		{"kidx_partition_segments", part("t"), 2},
		{"kidx_partition_memory_maps", part("t"), 4},
		{"kidx_partition_next_start_recovered_segments", part("t"), 2},
		{"kidx_partition_live_segments", part("t"), 0},
		{"kidx_partition_problems", map[string]string{"topic": "u", "severity": "warning"}, 1},
		{"kidx_partition_problems", map[string]string{"topic": "t", "severity": "warning"}, 0},
	} {
		if got := value(c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// The scan figures are the report's own, by name: the exact figures are pinned elsewhere
	// (TestAnalyzeGoldenKafkaFiles); here only that each partition carries them.
	for _, pr := range a.Partitions {
		l := part(pr.Topic)
		if got := value("kidx_partition_max_scan_bytes", l); got != float64(pr.Scan.MaxScanBytes) {
			t.Errorf("%s max scan %v, report %d", pr.Topic, got, pr.Scan.MaxScanBytes)
		}
		if got := value("kidx_partition_p99_scan_bytes", l); got != float64(pr.ScanQ[P99]) {
			t.Errorf("%s p99 %v, report %d", pr.Topic, got, pr.ScanQ[P99])
		}
	}
}
