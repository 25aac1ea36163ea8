package sim

import (
	"fmt"

	"kidx/explain"
	"kidx/internal/english"
	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// A LogDirReplay is a real partition turned into a workload that reproduces its files: what
// `kidx explain` inferred (the era, the interval, how appends were grouped, the restarts)
// and the segment boundaries, so that a what-if starts from a model that gives back today's
// indexes (docs/explain.md, "Replaying what was inferred").
type LogDirReplay struct {
	Dir         string
	Explanation explain.PartitionExplanation
	// Era is the model's era the replay runs, from the release Explanation's eras name (the
	// newest of them) or the one given.
	Era model.Era
	// Interval is the index.interval.bytes the replay runs: the given one, else 4096 when
	// every segment allows it, else the smallest value they all allow.
	Interval int64
	// Workload holds the steps: the batches as appended, the restarts, a roll at every
	// segment's base offset; its config is Settings.
	Workload model.Workload
	// Settings are the topic settings the replay runs, each read off the files or assumed
	// (issue 11, defect 6): index.interval.bytes, segment.index.bytes, segment.bytes,
	// segment.ms. Every value keeps the model from rolling inside one of the files' segments.
	Settings []ReplaySetting
	// Reproducible: explain reproduced every segment with index files, so the replay should
	// give them back; Notes say what it could not match.
	Reproducible bool
	Notes        []string
	// Unindexed are the base offsets of the segments whose files have neither .index nor
	// .timeindex (Check sets it): nothing to compare, as a broker rebuilds them at its next
	// start (LogSegment.recover).
	Unindexed []int64
	// Compared counts the segments whose index files Check compared.
	Compared int
}

// ReplayOptions narrow the replay to what the operator knows.
type ReplayOptions struct {
	// Era, when set (ID not empty), is the release the files were written by.
	Era model.Era
	// Interval >= 0 is the topic's index.interval.bytes; -1 when unknown.
	Interval int64
}

// ReplayLogDir explains the partition at dir (a partition directory, or a log.dirs entry with
// topic and partition naming one) and builds its replay. Files are only read.
func ReplayLogDir(dir, topic string, partition int, opts ReplayOptions) (*LogDirReplay, error) {
	pick, err := pickPartition(dir, topic, partition)
	if err != nil {
		return nil, err
	}
	eopts := explain.Options{Interval: opts.Interval}
	if opts.Era.ID != "" {
		r, err := logdir.ParseRelease(opts.Era.First.String())
		if err != nil {
			return nil, err
		}
		eopts.Eras = logdir.EraSetOf(logdir.EraFor(r))
	}
	pe, err := explain.Partition(pick, eopts)
	if err != nil {
		return nil, err
	}
	r := &LogDirReplay{Dir: pick.Path, Explanation: pe, Reproducible: pe.Reproduced()}
	if err := r.chooseSettings(opts); err != nil {
		return nil, err
	}
	if err := r.buildSteps(pick); err != nil {
		return nil, err
	}
	r.inferSettings(pick.LogSegments())
	for _, st := range r.Settings {
		r.Workload.Config[st.Key] = st.Value
	}
	return r, nil
}

// pickPartition scans dir and returns the partition to replay.
func pickPartition(dir, topic string, partition int) (*logdir.PartitionDir, error) {
	scan, err := logdir.ScanLogDir(dir)
	if err != nil {
		return nil, err
	}
	var pick *logdir.PartitionDir
	for i := range scan.Partitions {
		p := &scan.Partitions[i]
		if (topic == "" || p.Topic == topic) && (partition < 0 || topic == "" || p.Partition == partition) {
			if pick != nil && topic == "" {
				return nil, fmt.Errorf("%s holds several partitions: name one with topic and partition", dir)
			}
			if pick == nil {
				pick = p
			}
		}
	}
	if err := unreadableInScan(scan, pick, topic, partition); err != nil {
		return nil, err
	}
	if pick == nil {
		return nil, fmt.Errorf("%s: no partition %s-%d with segment files", dir, topic, partition)
	}
	if len(pick.LogSegments()) == 0 {
		return nil, fmt.Errorf("%s: no .log files", pick.Path)
	}
	return pick, nil
}

// chooseSettings picks the era and interval from the explanation.
func (r *LogDirReplay) chooseSettings(opts ReplayOptions) error {
	pe := &r.Explanation
	eras := pe.Eras
	if eras.Empty() {
		// Segments of different releases (an upgrade): the newest segment's, where a what-if
		// matters.
		for i := len(pe.Segments) - 1; i >= 0 && eras.Empty(); i-- {
			eras = pe.Segments[i].Eras
		}
		r.Notes = append(r.Notes, "no one release reproduces every segment (an upgrade?): the replay runs the newest segment's")
	}
	switch {
	case opts.Era.ID != "":
		r.Era = opts.Era
	case !eras.Empty():
		all := eras.Eras()
		e, err := model.EraForKafkaVersion(all[len(all)-1].Latest)
		if err != nil {
			return err
		}
		r.Era = e
		if len(all) > 1 {
			r.Notes = append(r.Notes, fmt.Sprintf("the files allow %s; the replay runs %s, the newest", eras, e))
		}
	default:
		r.Era = model.EraForRule(model.PerBatch)
		r.Notes = append(r.Notes, "no release reproduces the files: the replay runs the per-batch rule")
	}
	interval := pe.Interval
	if interval.Empty() {
		for i := len(pe.Segments) - 1; i >= 0 && interval.Empty(); i-- {
			if pe.Segments[i].Reproduced {
				interval = pe.Segments[i].Interval
			}
		}
		r.Notes = append(r.Notes, "no one index.interval.bytes reproduces every segment (a config change?): the replay uses the newest segment's")
	}
	r.Interval = interval.Pick(opts.Interval)
	if r.Interval < 0 {
		r.Interval = model.DefaultIndexIntervalBytes
		if opts.Interval >= 0 {
			r.Interval = opts.Interval
		}
	}
	return nil
}

// buildSteps turns the segments' batches into the workload.
func (r *LogDirReplay) buildSteps(pick *logdir.PartitionDir) error {
	w := &r.Workload
	w.KafkaVersion = r.Era.First.String()
	// The files' segment boundaries are replayed as roll steps; the settings (inferSettings)
	// keep the model from rolling by itself inside a segment.
	w.Config = map[string]int64{"index.interval.bytes": r.Interval}
	exact := r.Era.Time == model.TimeExactRecord
	byBase := map[int64]*explain.SegmentExplanation{}
	for i := range r.Explanation.Segments {
		byBase[r.Explanation.Segments[i].BaseOffset] = &r.Explanation.Segments[i]
	}
	for i, sf := range pick.LogSegments() {
		if i == 0 {
			w.StartOffset = sf.BaseOffset
		} else {
			w.Steps = append(w.Steps, model.Step{Roll: true, RollBaseOffset: sf.BaseOffset})
		}
		se := byBase[sf.BaseOffset]
		origin := model.OriginLeader
		if se != nil && se.Origin == "replication" {
			origin = model.OriginReplication
		}
		batches, positions, err := readReplayBatches(sf.Log, exact && origin == model.OriginLeader)
		if err != nil {
			return err
		}
		restartAt := map[int64]bool{}
		var starts []int
		if se != nil {
			for _, rs := range se.Restarts {
				restartAt[rs.Position] = true
			}
			starts = se.AppendStarts
		}
		si := 0 // the next append start, when the appends held several batches
		for j, b := range batches {
			if restartAt[positions[j]] {
				w.Steps = append(w.Steps, model.Step{Restart: true})
			}
			for si < len(starts) && starts[si] < j {
				si++
			}
			if starts == nil || (si < len(starts) && starts[si] == j) || j == 0 || restartAt[positions[j]] {
				w.Steps = append(w.Steps, model.Step{Append: []model.Batch{b}, Origin: origin})
				continue
			}
			last := &w.Steps[len(w.Steps)-1]
			last.Append = append(last.Append, b)
		}
		if end := segmentEnd(positions, batches); restartAt[end] && len(batches) > 0 {
			w.Steps = append(w.Steps, model.Step{Restart: true})
		}
	}
	return nil
}

func segmentEnd(positions []int64, batches []model.Batch) int64 {
	if len(batches) == 0 {
		return 0
	}
	return positions[len(positions)-1] + batches[len(batches)-1].Bytes
}

// readReplayBatches reads a .log's batches as the model takes them, with their explicit base
// offsets; exact also reads the records of the leader's uncompressed CreateTime v2 batches
// for the one holding the max timestamp (what 0.11-3.6 time-index).
func readReplayBatches(path string, exact bool) ([]model.Batch, []int64, error) {
	lf, err := segment.OpenLog(path)
	if err != nil {
		return nil, nil, err
	}
	defer lf.Close()
	var out []model.Batch
	var positions []int64
	var berr error
	res := lf.Walk(0, 0, func(b segment.BatchInfo) bool {
		first, err := lf.FirstOffset(b)
		if err != nil {
			berr = err
			return false
		}
		ts := max(b.MaxTimestamp(), model.NoTimestamp)
		mb := model.Batch{Records: b.LastOffset() - first + 1, Bytes: b.Size, MaxTimestamp: ts, BaseOffset: first}
		switch {
		case b.Magic == 0:
			mb.Legacy = model.Magic0
			mb.Compressed = b.Legacy.Attributes&7 != 0
		case b.Magic == 1:
			mb.Legacy = model.Magic1
			mb.Compressed = b.Legacy.Attributes&7 != 0
		default:
			mb.Compressed = b.Header.Compression() != 0
		}
		if exact && b.Magic >= 2 && !mb.Compressed && b.Header.TimestampType() == "CreateTime" && mb.Records > 1 {
			best := int64(-2)
			if err := lf.RecordTimestamps(b, func(off, t int64) bool {
				if t > best {
					best, mb.MaxTimestampDelta, mb.HasMaxTimestampDelta = t, int32(off-first), true
				}
				return true
			}); err != nil {
				berr = err
				return false
			}
		}
		if err := mb.Validate(); err != nil {
			berr = fmt.Errorf("%s at byte %d: %w", path, b.Position, err)
			return false
		}
		out = append(out, mb)
		positions = append(positions, b.Position)
		return true
	})
	if berr != nil {
		return nil, nil, berr
	}
	return out, positions, res.Err
}

// Source is the replay as a Source (for whatif and sim).
func (r *LogDirReplay) Source() Source {
	return &WorkloadSource{Name: "replay of " + r.Dir, Workload: r.Workload}
}

// Check runs the replay through the model at the replay's settings and compares every
// segment's offset and time index with the files' valid entries: "the baseline reproduces
// the real index". A live segment's time index lacks the entry the model's closing adds.
func (r *LogDirReplay) Check() (bool, string, error) {
	cfg := model.DefaultConfig()
	if err := r.Workload.ApplyTo(&cfg); err != nil {
		return false, "", err
	}
	pick := map[int64]segment.SegmentFiles{}
	scan, err := logdir.ScanDir(r.Dir)
	if err != nil {
		return false, "", err
	}
	for _, p := range scan.Partitions {
		for _, sf := range p.LogSegments() {
			pick[sf.BaseOffset] = sf
		}
	}
	var diff string
	r.Unindexed, r.Compared = nil, 0
	check := func(s *model.Segment) {
		if diff != "" {
			return
		}
		sf, ok := pick[s.BaseOffset()]
		if !ok {
			diff = fmt.Sprintf("the model has a segment at %d, the files none", s.BaseOffset())
			return
		}
		if sf.Index == "" && sf.TimeIndex == "" {
			r.Unindexed = append(r.Unindexed, sf.BaseOffset)
			return
		}
		r.Compared++
		diff = compareSegment(s, sf)
	}
	l, err := model.NewLog(cfg, r.Era.Rule(), model.LogOptions{StartOffset: r.Workload.StartOffset, Era: r.Era, OnSegmentDone: check})
	if err != nil {
		return false, "", err
	}
	for i, st := range r.Workload.Steps {
		if err := l.Apply(st); err != nil {
			return false, "", fmt.Errorf("replay step %d: %w", i, err)
		}
		if l.Stopped() {
			return false, fmt.Sprintf("the model stopped at step %d: %v", i, l.Events()), nil
		}
	}
	if err := l.Close(); err != nil {
		return false, "", err
	}
	if n := l.SegmentCount(); diff == "" && n != len(pick) {
		diff = fmt.Sprintf("the model has %s, the files %d", english.Plural(int64(n), "segment"), len(pick))
	}
	return diff == "", diff, nil
}

// compareSegment compares a model segment with a segment's files (valid entries only).
func compareSegment(s *model.Segment, sf segment.SegmentFiles) string {
	var entries []segment.IndexEntry
	live := false
	if sf.Index != "" {
		x, err := segment.OpenOffsetIndex(sf.Index, sf.BaseOffset)
		if err != nil {
			return err.Error()
		}
		entries = x.Entries(x.ValidLen())
	}
	got := s.OffsetIndex().All()
	if len(got) != len(entries) {
		return fmt.Sprintf("segment %d: the model has %d offset-index entries, %s %d", sf.BaseOffset, len(got), sf.Index, len(entries))
	}
	for i, e := range entries {
		if got[i].Offset != e.Offset || got[i].Position != e.Position {
			return fmt.Sprintf("segment %d slot %d: the model has (%d, %d), %s (%d, %d)", sf.BaseOffset, i, got[i].Offset, got[i].Position, sf.Index, e.Offset, e.Position)
		}
	}
	if sf.TimeIndex == "" {
		return ""
	}
	x, err := segment.OpenTimeIndex(sf.TimeIndex, sf.BaseOffset)
	if err != nil {
		return err.Error()
	}
	live = x.Untrimmed()
	times := x.Entries(x.ValidLen())
	mt := s.TimeIndex().All()
	if live && len(mt) == len(times)+1 {
		mt = mt[:len(times)] // the model closed the segment; the broker had not
	}
	if len(mt) != len(times) {
		return fmt.Sprintf("segment %d: the model has %d time-index entries, %s %d", sf.BaseOffset, len(mt), sf.TimeIndex, len(times))
	}
	for i, e := range times {
		if mt[i].Timestamp != e.Timestamp || mt[i].Offset != e.Offset {
			return fmt.Sprintf("segment %d time slot %d: the model has (%d, %d), %s (%d, %d)", sf.BaseOffset, i, mt[i].Timestamp, mt[i].Offset, sf.TimeIndex, e.Timestamp, e.Offset)
		}
	}
	return ""
}
