package reports

import (
	"bytes"
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kidx/internal/testfiles"
	"kidx/logdir"
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
		{"kidx_broker_verdict", map[string]string{"state": logdir.VerdictAttention}, 1},
		{"kidx_broker_verdict", map[string]string{"state": logdir.VerdictHealthy}, 0},
		{"kidx_log_dir_clean_shutdown", map[string]string{"log_dir": root}, 0},
		{"kidx_log_dir_next_start_recovered_segments", map[string]string{"log_dir": root}, 3},
		{"kidx_log_dir_next_start_recovered_bytes", map[string]string{"log_dir": root}, 7 * 16350},
		{"kidx_partition_segments", part("t"), 2},
		{"kidx_partition_memory_maps", part("t"), 4},
		{"kidx_partition_next_start_recovered_segments", part("t"), 2},
		{"kidx_partition_live_segments", part("t"), 0},
		{"kidx_partition_problems", map[string]string{"topic": "u", "severity": "warning"}, 1},
		{"kidx_partition_problems", map[string]string{"topic": "t", "severity": "warning"}, 0},
		// The seed post's figures (docs/background.md), by hand: index.interval.bytes=4096 and
		// batches of 16350 bytes index every batch but a segment's first, each entry naming its
		// batch's last offset, so an offset of batch k>0 below its last walks from the previous
		// batch's entry or byte 0 (16350 bytes), and the rest walk nothing. t-0: 6 x 79 = 474
		// offsets, of which 4 batches x 78 = 312 walk 16350: p99 (rank 470) is 16350. u-0: one
		// batch, no walk.
		{"kidx_partition_max_scan_bytes", part("t"), 16350},
		{"kidx_partition_p99_scan_bytes", part("t"), 16350},
		{"kidx_partition_max_scan_bytes", part("u"), 0},
		{"kidx_partition_p99_scan_bytes", part("u"), 0},
		{"kidx_broker_max_scan_bytes", nil, 16350},
	} {
		if got := value(c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}
