package reports

import (
	"fmt"
	"sort"
	"strings"

	"kidx/logdir"
)

// A broker's report opens with its verdict, then a roll-up by topic, then the partitions that
// need attention (docs/reports.md, "A broker's verdict"). Everything here is counted while the
// partitions stream by, so that --top can drop partitions without changing the verdict.

// BrokerVerdict is the verdict on one analysis.
type BrokerVerdict struct {
	State string `json:"state"`
	// Reasons say why the state is not healthy, the most serious first; ReasonDetails are the
	// same reasons, one for one, in machine-readable form.
	Reasons       []string `json:"reasons"`
	ReasonDetails []Reason `json:"reasonDetails"`
	// NextStart says, per log directory, what the broker's next start does.
	NextStart   []string `json:"nextStart"`
	Maps        int64    `json:"maps"`
	MaxMapCount int64    `json:"maxMapCount"`
	Headroom    int64    `json:"headroom"`
	// WorstTopics are the topics to look at first: those with problems, then the longest
	// lookup walks.
	WorstTopics []string `json:"worstTopics"`
	Text        string   `json:"text"`
}

// Reason is one reason of a verdict in machine-readable form (docs/reports.md, "A broker's
// verdict"): its kind, the figure it counts (Name: the document's key that holds it), the
// setting it asks to change where it asks for one, and its words.
type Reason struct {
	Kind   ReasonKind    `json:"kind"`
	Config string        `json:"config,omitempty"`
	Value  string        `json:"value,omitempty"`
	Figure *AdviceFigure `json:"figure,omitempty"`
	Text   string        `json:"text"`
}

// ReasonKind names a verdict's reason; the kinds are a closed list (docs/reports.md,
// docs/schema/kidx.analyze.1.json).
type ReasonKind string

// The reasons of a broker's verdict, in the order the verdict gives them.
const (
	ReasonErrors         ReasonKind = "errors"
	ReasonWarnings       ReasonKind = "warnings"
	ReasonEmptyIndexes   ReasonKind = "empty-indexes"
	ReasonExposed        ReasonKind = "follower-overflow-exposure"
	ReasonMapsOverLimit  ReasonKind = "maps-over-limit"
	ReasonMapHeadroomLow ReasonKind = "map-headroom-low"
)

// ReasonKinds lists every kind of a broker verdict's reason.
var ReasonKinds = []ReasonKind{ReasonErrors, ReasonWarnings, ReasonEmptyIndexes, ReasonExposed, ReasonMapsOverLimit, ReasonMapHeadroomLow}

// TopicRollup sums a topic's partitions.
type TopicRollup struct {
	Topic        string `json:"topic"`
	Partitions   int    `json:"partitions"`
	Segments     int    `json:"segments"`
	LiveSegments int    `json:"liveSegments"`
	Restarts     int    `json:"restarts"`
	Batches      int64  `json:"batches"`
	LogBytes     int64  `json:"logBytes"`
	Entries      int64  `json:"entries"`
	MaxScanBytes int64  `json:"maxScanBytes"` // the largest over its partitions
	P99ScanBytes int64  `json:"p99ScanBytes"` // the largest partition p99
	Maps         int64  `json:"maps"`
	Errors       int    `json:"errors"`
	Warnings     int    `json:"warnings"`
	Attention    int    `json:"attention"` // partitions that need attention
	Rebuilt      int    `json:"rebuilt"`   // segments whose index the next start rebuilds
}

// noTopic groups partition directories not named topic-partition.
const noTopic = "(not topic-partition)"

// attentionOf says why a partition needs an operator's attention: problems, or advice that
// asks for a change (an offset index left empty by index.interval.bytes). Facts that are
// normal on a healthy broker (live segments, restarts, an index as dense as the batching
// allows, a rebuilt index of the active segment) are not reasons.
func attentionOf(pr *PartitionReport) []string {
	var out []string
	if pr.Errors > 0 {
		out = append(out, plural(int64(pr.Errors), "error"))
	}
	if w := pr.Problems - pr.Errors; w > 0 {
		out = append(out, plural(int64(w), "warning"))
	}
	if emptyIndexAdvice(pr) {
		out = append(out, fmt.Sprintf("empty offset index over %s", plural(pr.Batches, "batch")))
	}
	if pr.Exposure != nil && pr.Exposure.Exposed {
		out = append(out, "exposed to the follower index overflow")
	}
	return out
}

// emptyIndexAdvice: no entry anywhere though batches start further into their segments than
// the default index.interval.bytes, and no index is missing (recommendPartition's "Lower
// index.interval.bytes").
func emptyIndexAdvice(pr *PartitionReport) bool {
	densest := pr.Batches - int64(pr.Segments+len(pr.Restarts))
	return len(pr.Rebuilt) == 0 && pr.OffsetIndexEntries == 0 && densest > 0 && pr.MaxLastBatchPos > defaultIndexInterval
}

// countPartition adds one analyzed partition to the broker's counts and its topic's roll-up.
func (a *Analysis) countPartition(pr *PartitionReport) {
	pr.Attention = attentionOf(pr)
	a.countNotes(pr.Findings)
	a.Errors += pr.Errors
	a.Warnings += pr.Problems - pr.Errors
	if len(pr.Attention) > 0 {
		a.AttentionPartitions++
	}
	if pr.Problems > 0 {
		a.problemPartitions++
	}
	if emptyIndexAdvice(pr) {
		a.emptyIndexes++
	}
	if pr.Exposure != nil && pr.Exposure.Exposed {
		a.ExposedPartitions++
	}
	if a.topicIndex == nil {
		a.topicIndex = map[string]int{}
	}
	name := pr.Topic
	if name == "" {
		name = noTopic
	}
	i, ok := a.topicIndex[name]
	if !ok {
		i = len(a.Topics)
		a.topicIndex[name] = i
		a.Topics = append(a.Topics, TopicRollup{Topic: name})
	}
	t := &a.Topics[i]
	t.Partitions++
	t.Segments += pr.Segments
	t.LiveSegments += len(pr.Live)
	t.Restarts += len(pr.Restarts)
	t.Batches += pr.Batches
	t.LogBytes += pr.LogBytes
	t.Entries += pr.OffsetIndexEntries
	t.MaxScanBytes = max(t.MaxScanBytes, pr.Scan.MaxScanBytes)
	t.P99ScanBytes = max(t.P99ScanBytes, pr.ScanQ[P99])
	t.Maps += pr.Maps
	t.Errors += pr.Errors
	t.Warnings += pr.Problems - pr.Errors
	t.Rebuilt += len(pr.Rebuilt)
	if len(pr.Attention) > 0 {
		t.Attention++
	}
}

// countNotes counts info findings by check.
func (a *Analysis) countNotes(fs []logdir.Finding) {
	if a.NoteCounts == nil {
		a.NoteCounts = map[string]int{}
	}
	for _, f := range fs {
		if f.Severity == logdir.SeverityInfo {
			a.NoteCounts[f.Check] += f.Weight()
		}
	}
}

// sortTopics puts the topics to look at first on top: errors, warnings, partitions needing
// attention, then the longest walk, then the name.
func sortTopics(ts []TopicRollup) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		switch {
		case a.Errors != b.Errors:
			return a.Errors > b.Errors
		case a.Warnings != b.Warnings:
			return a.Warnings > b.Warnings
		case a.Attention != b.Attention:
			return a.Attention > b.Attention
		case a.MaxScanBytes != b.MaxScanBytes:
			return a.MaxScanBytes > b.MaxScanBytes
		}
		return a.Topic < b.Topic
	})
}

// judgeBroker writes the verdict once every partition is counted.
func (a *Analysis) judgeBroker() {
	a.countNotes(a.Findings)
	for _, f := range a.Findings {
		switch f.Severity {
		case logdir.SeverityError:
			a.Errors += f.Weight()
		case logdir.SeverityWarning:
			a.Warnings += f.Weight()
		}
	}
	sortTopics(a.Topics)
	v := BrokerVerdict{State: logdir.VerdictHealthy, Maps: a.Maps, MaxMapCount: a.MaxMapCount, Headroom: a.MaxMapCount - a.Maps, Reasons: []string{}, ReasonDetails: []Reason{}, NextStart: []string{}, WorstTopics: []string{}}
	where := func(n int, sev logdir.Severity) string {
		parts := 0
		for _, t := range a.Topics {
			if sev == logdir.SeverityError && t.Errors > 0 || sev == logdir.SeverityWarning && t.Warnings > 0 {
				parts++
			}
		}
		return fmt.Sprintf("%s (%s)", plural(int64(n), string(sev)), plural(int64(parts), "topic"))
	}
	reason := func(r Reason) {
		v.Reasons = append(v.Reasons, r.Text)
		v.ReasonDetails = append(v.ReasonDetails, r)
	}
	if a.Errors > 0 {
		v.State = logdir.VerdictDamaged
		reason(Reason{Kind: ReasonErrors, Figure: fig("errors", int64(a.Errors), "findings"), Text: where(a.Errors, logdir.SeverityError)})
	}
	if a.Warnings > 0 {
		reason(Reason{Kind: ReasonWarnings, Figure: fig("warnings", int64(a.Warnings), "findings"), Text: where(a.Warnings, logdir.SeverityWarning)})
	}
	if a.emptyIndexes > 0 {
		reason(Reason{Kind: ReasonEmptyIndexes, Config: "index.interval.bytes", Figure: fig("emptyIndexPartitions", int64(a.emptyIndexes), "partitions"),
			Text: fmt.Sprintf("%s with an empty offset index that index.interval.bytes could fill", plural(int64(a.emptyIndexes), "partition"))})
	}
	if a.ExposedPartitions > 0 {
		reason(Reason{Kind: ReasonExposed, Figure: fig("exposedPartitions", int64(a.ExposedPartitions), "partitions"), Text: fmt.Sprintf("%s exposed to the follower index overflow: an index can fill before segment.bytes, so a follower can throw \"Attempt to append to a full time index\" (docs/kafka-hazards.md)",
			plural(int64(a.ExposedPartitions), "partition"))})
	}
	switch {
	case v.Headroom < 0:
		k, val := setting("vm.max_map_count", a.Maps)
		reason(Reason{Kind: ReasonMapsOverLimit, Config: k, Value: val, Figure: fig("maps", a.Maps, "maps"),
			Text: fmt.Sprintf("%s, more than vm.max_map_count=%d: the broker fails with \"Map failed\"", plural(a.Maps, "memory map"), a.MaxMapCount)})
	case v.Headroom*10 < a.MaxMapCount:
		reason(Reason{Kind: ReasonMapHeadroomLow, Figure: fig("maps", a.Maps, "maps"),
			Text: fmt.Sprintf("%s of vm.max_map_count=%d: less than 10%% headroom", plural(a.Maps, "memory map"), a.MaxMapCount)})
	}
	if v.State == logdir.VerdictHealthy && len(v.Reasons) > 0 {
		v.State = logdir.VerdictAttention
	}
	for _, d := range a.LogDirs {
		s := d.NextStart.Summary
		if len(a.LogDirs) > 1 {
			s = d.Path + ": " + s
		}
		v.NextStart = append(v.NextStart, s)
	}
	for _, t := range a.Topics {
		if len(v.WorstTopics) == 3 {
			break
		}
		switch {
		case t.Errors+t.Warnings > 0:
			v.WorstTopics = append(v.WorstTopics, fmt.Sprintf("%s (%s)", t.Topic, plural(int64(t.Errors+t.Warnings), "problem")))
		case t.Attention > 0:
			v.WorstTopics = append(v.WorstTopics, fmt.Sprintf("%s (%s to look at)", t.Topic, plural(int64(t.Attention), "partition")))
		case t.MaxScanBytes > 0:
			v.WorstTopics = append(v.WorstTopics, fmt.Sprintf("%s (lookups walk up to %s)", t.Topic, Bytes(t.MaxScanBytes)))
		}
	}
	v.Text = a.verdictText(v)
	a.Verdict = v
}

// verdictText is the verdict's paragraph.
func (a *Analysis) verdictText(v BrokerVerdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict: %s.", v.State)
	if len(v.Reasons) > 0 {
		fmt.Fprintf(&b, " %s.", capitalize(strings.Join(v.Reasons, "; ")))
	}
	who := "This broker"
	if a.Broker != "" {
		who = "Broker " + a.Broker
	}
	fmt.Fprintf(&b, " %s: %s of %s, %s, %s.", who, plural(int64(a.Analyzed), "partition"), plural(int64(len(a.Topics)), "topic"),
		plural(int64(a.Segments), "segment"), Bytes(a.LogBytes))
	for _, s := range v.NextStart {
		fmt.Fprintf(&b, " %s.", capitalize(s))
	}
	fmt.Fprintf(&b, " Memory maps: %d of vm.max_map_count %d (headroom %d).", v.Maps, v.MaxMapCount, v.Headroom)
	if len(v.WorstTopics) > 0 {
		lead := "Look first at"
		if len(v.Reasons) == 0 {
			lead = "Longest lookup walks"
		}
		fmt.Fprintf(&b, " %s: %s.", lead, strings.Join(v.WorstTopics, ", "))
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
