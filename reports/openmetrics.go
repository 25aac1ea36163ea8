package reports

import (
	"io"
	"path/filepath"
	"strconv"

	"kidx/logdir"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// WriteOpenMetrics writes the analysis as Prometheus metrics in the text exposition format
// (version 0.0.4, the one node_exporter's textfile collector reads), through
// prometheus/common's expfmt: per broker and log directory, and per partition of the report
// (every one, or the --top ones and those with a problem). Every metric is a gauge named
// kidx_*, labelled broker, and log_dir, topic and partition where they apply
// (docs/reports.md, "Metrics for a fleet").
func (a *Analysis) WriteOpenMetrics(w io.Writer) error {
	for _, f := range a.metricFamilies() {
		if _, err := expfmt.MetricFamilyToText(w, f); err != nil {
			return err
		}
	}
	return nil
}

// metricSet collects gauges by family, in the order the families are first named.
type metricSet struct {
	families []*dto.MetricFamily
	byName   map[string]*dto.MetricFamily
}

// add records one sample of family name (its help text given the first time).
func (m *metricSet) add(name, help string, v float64, labels ...string) {
	f := m.byName[name]
	if f == nil {
		f = &dto.MetricFamily{Name: proto.String(name), Help: proto.String(help), Type: dto.MetricType_GAUGE.Enum()}
		m.byName[name] = f
		m.families = append(m.families, f)
	}
	metric := &dto.Metric{Gauge: &dto.Gauge{Value: proto.Float64(v)}}
	for i := 0; i+1 < len(labels); i += 2 {
		metric.Label = append(metric.Label, &dto.LabelPair{Name: proto.String(labels[i]), Value: proto.String(labels[i+1])})
	}
	f.Metric = append(f.Metric, metric)
}

func (a *Analysis) metricFamilies() []*dto.MetricFamily {
	m := &metricSet{byName: map[string]*dto.MetricFamily{}}
	b := []string{"broker", a.Broker}
	for _, state := range []string{logdir.VerdictHealthy, logdir.VerdictAttention, logdir.VerdictDamaged} {
		v := 0.0
		if a.Verdict.State == state {
			v = 1
		}
		m.add("kidx_broker_verdict", "1 for the broker's verdict (healthy, needs attention, damaged), 0 for the others", v, with(b, "state", state)...)
	}
	m.add("kidx_broker_partitions", "partition directories analyzed", float64(a.Analyzed), b...)
	m.add("kidx_broker_segments", "segments (sets with a .log)", float64(a.Segments), b...)
	m.add("kidx_broker_live_segments", "segments whose indexes are still preallocated (active segments of a running broker)", float64(a.LiveSegments), b...)
	m.add("kidx_broker_log_bytes", ".log bytes", float64(a.LogBytes), b...)
	m.add("kidx_broker_memory_maps", "memory maps the broker's indexes take: 2 per segment", float64(a.Maps), b...)
	m.add("kidx_broker_max_map_count", "vm.max_map_count of the machine analyze ran on (or --max-map-count)", float64(a.MaxMapCount), b...)
	m.add("kidx_broker_memory_map_headroom", "vm.max_map_count minus the memory maps (negative: the broker fails with Map failed)", float64(a.MaxMapCount-a.Maps), b...)
	m.add("kidx_broker_problems", "findings of severity error or warning", float64(a.Errors), with(b, "severity", "error")...)
	m.add("kidx_broker_problems", "findings of severity error or warning", float64(a.Warnings), with(b, "severity", "warning")...)
	m.add("kidx_broker_attention_partitions", "partitions that need attention", float64(a.AttentionPartitions), b...)
	var maxScan int64
	for _, t := range a.Topics {
		maxScan = max(maxScan, t.MaxScanBytes)
	}
	m.add("kidx_broker_max_scan_bytes", "the longest phase-2 walk of any offset lookup on the broker (exact)", float64(maxScan), b...)
	for _, d := range a.LogDirs {
		l := with(b, "log_dir", d.Path)
		clean := 0.0
		if d.Clean != nil {
			clean = 1
		}
		m.add("kidx_log_dir_clean_shutdown", "1 when .kafka_cleanshutdown is there: the next start skips recovery", clean, l...)
		m.add("kidx_log_dir_next_start_recovered_segments", "segments the next start recovers or rebuilds the indexes of", float64(d.NextStart.Segments+d.NextStart.Rebuilds), l...)
		m.add("kidx_log_dir_next_start_recovered_bytes", "log bytes of those segments", float64(d.NextStart.Bytes+d.NextStart.RebuildBytes), l...)
	}
	for _, p := range a.Partitions {
		l := with(b, "log_dir", filepath.Dir(p.Path), "topic", p.Topic, "partition", strconv.Itoa(p.Partition))
		if p.Topic == "" {
			l = with(b, "log_dir", filepath.Dir(p.Path), "topic", filepath.Base(p.Path), "partition", "")
		}
		m.add("kidx_partition_segments", "segments (sets with a .log)", float64(p.Segments), l...)
		m.add("kidx_partition_live_segments", "live segments (indexes still preallocated)", float64(len(p.Live)), l...)
		m.add("kidx_partition_memory_maps", "memory maps: 2 per segment", float64(p.Maps), l...)
		m.add("kidx_partition_offset_index_entries", "valid offset-index entries", float64(p.OffsetIndexEntries), l...)
		m.add("kidx_partition_max_scan_bytes", "the most bytes one offset lookup walks in phase 2 (exact, every offset)", float64(p.Scan.MaxScanBytes), l...)
		m.add("kidx_partition_p99_scan_bytes", "99th percentile of phase-2 bytes walked per lookup (nearest rank)", float64(p.ScanQ[P99]), l...)
		if p.NextStart != nil {
			m.add("kidx_partition_next_start_recovered_segments", "segments the next start recovers or rebuilds the indexes of", float64(p.NextStart.Segments), l...)
		}
		m.add("kidx_partition_problems", "findings of severity error or warning", float64(p.Errors), with(l, "severity", "error")...)
		m.add("kidx_partition_problems", "findings of severity error or warning", float64(p.Problems-p.Errors), with(l, "severity", "warning")...)
	}
	return m.families
}

// with is base's labels and more, in a slice of its own (appends never share an array).
func with(base []string, more ...string) []string {
	return append(append(make([]string, 0, len(base)+len(more)), base...), more...)
}
