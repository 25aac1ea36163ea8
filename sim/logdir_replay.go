package sim

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"kidx/explain"
	"kidx/internal/english"
	"kidx/internal/printsafe"
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
	// Workload is the replay's config (Settings), era and start offset; its steps (the
	// batches as appended, the restarts, a roll at every segment's base offset) are not held:
	// Source streams them from the files.
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
	// Restarts counts the replay's restart steps, Recovers its recover steps (a segment
	// explain found rebuilt by recovery: LogSegment.recover where the recovery ran).
	Restarts, Recovers int
	// Cleaned are the base offsets of the segments replayed as the log cleaner wrote them
	// (explain's cleaned history): a new segment, its appends, no restart, then inactive.
	Cleaned []int64
	// LeftOut are the base offsets of the source segments a cleaned segment overlaps (the
	// broker deleted them at the swap; a note names each): not replayed, not compared.
	LeftOut []int64

	// The steps are not held (issue 27): Source walks the files again on every Open.
	segments  []replayPlanSegment
	shapes    []replaySegment // the segments' figures, from the check pass
	dropRolls bool
}

// DropRolls leaves the files' segment boundaries out of the steps, so that the segments come
// from the config (segment.bytes or segment.ms given or swept).
func (r *LogDirReplay) DropRolls() { r.dropRolls = true }

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
	files := r.withoutStaleSources(pick.LogSegments())
	if err := r.buildSteps(files); err != nil {
		return nil, err
	}
	r.inferSettings(files)
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
	// A .log Kafka would not open is refused from its size, before explain and the replay
	// walk it (issue 27).
	// So is an index with more entries than its .log has room for batches (verify's
	// index-capacity): explain does not load it, and the replay would (docs/explain.md).
	for _, sf := range pick.LogSegments() {
		if err := segment.CheckLogSize(sf.Log); err != nil {
			return nil, err
		}
		if err := indexOverCapacity(sf); err != nil {
			return nil, err
		}
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

// buildSteps sets the workload's config and checks the files as the replay will read them:
// one streamed pass over every .log (nothing per batch is kept; issue 27), which finds what
// would stop the model (a batch it refuses, segments whose offsets overlap) before any run, and
// names the files, and which takes the figures inferSettings reads off the segments.
func (r *LogDirReplay) buildSteps(files []segment.SegmentFiles) error {
	w := &r.Workload
	w.KafkaVersion = r.Era.First.String()
	// The files' segment boundaries are replayed as roll steps; the settings (inferSettings)
	// keep the model from rolling by itself inside a segment.
	w.Config = map[string]int64{"index.interval.bytes": r.Interval}
	r.segments = r.replayPlan(files)
	if len(r.segments) > 0 {
		w.StartOffset = r.segments[0].files.BaseOffset
	}
	r.shapes = nil
	st := r.open(true)
	defer st.close()
	steps := make([]model.Step, 1024)
	for {
		n, err := st.Next(steps)
		for _, s := range steps[:n] {
			if s.Restart {
				r.Restarts++
			}
			if s.Recover {
				r.Recovers++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	r.shapes = st.shapes
	return nil
}

// replayPlan is, per segment, what explain inferred that the replay follows.
func (r *LogDirReplay) replayPlan(files []segment.SegmentFiles) []replayPlanSegment {
	exact := r.Era.Time == model.TimeExactRecord
	byBase := map[int64]*explain.SegmentExplanation{}
	for i := range r.Explanation.Segments {
		byBase[r.Explanation.Segments[i].BaseOffset] = &r.Explanation.Segments[i]
	}
	out := make([]replayPlanSegment, len(files))
	for i, sf := range files {
		p := replayPlanSegment{files: sf, origin: model.OriginLeader, restartAt: map[int64]bool{}, recoverAt: -1}
		if se := byBase[sf.BaseOffset]; se != nil {
			if se.Origin == "replication" {
				p.origin = model.OriginReplication
			}
			for _, rs := range se.Restarts {
				p.restartAt[rs.Position] = true
			}
			p.starts = se.AppendStarts
			switch se.History {
			case explain.HistoryCleaned:
				// Written in one pass: no restart inside it (explain places none).
				p.cleaned, p.restartAt = true, map[int64]bool{}
				r.Cleaned = append(r.Cleaned, sf.BaseOffset)
				r.Notes = append(r.Notes, fmt.Sprintf("segment %d was written by the log cleaner (kidx explain's cleaned history): the replay writes it as the cleaner does, a new segment whose batches are appended with no restart inside it, then made inactive by the roll to the next segment (Cleaner.cleanSegments)", sf.BaseOffset))
			case explain.HistoryRecovered:
				if se.Recovery != nil {
					p.recoverAt = se.Recovery.Position
					r.Notes = append(r.Notes, fmt.Sprintf("segment %d's indexes were rebuilt by recovery (kidx explain's recovered history) at the restart before offset %d (byte %d): the replay recovers the segment there (LogSegment.recover), which drops what close() wrote at the restarts before it", sf.BaseOffset, se.Recovery.Offset, se.Recovery.Position))
				}
			}
		}
		// The cleaner's appends name each batch's last offset in the time index (cleanInto
		// passes the batch-level offset of the max timestamp), never a leader's record.
		p.exact = exact && p.origin == model.OriginLeader && !p.cleaned
		out[i] = p
	}
	return out
}

// replayPlanSegment is one segment of the replay: its files and what explain inferred.
type replayPlanSegment struct {
	files     segment.SegmentFiles
	origin    model.Origin
	restartAt map[int64]bool // positions where the byte counter restarted
	starts    []int          // ordinals of the batches that start an append (nil: one batch each)
	exact     bool           // read the record holding a leader's max timestamp (0.11-3.6)
	cleaned   bool           // written by the log cleaner in one pass (explain's cleaned history)
	// recoverAt is the position where LogSegment.recover rebuilt the indexes (explain's
	// recovered history: the first batch after that restart, or the log's size after the
	// last batch); -1: none.
	recoverAt int64
}

// Source is the replay as a Source (for whatif and sim): every Open walks the .log files again
// (headers, and the records of the batches whose max-timestamp record matters), so a replay of
// any length costs the memory of one append, not of its batches (issue 27).
func (r *LogDirReplay) Source() Source { return &replaySource{r: r} }

type replaySource struct{ r *LogDirReplay }

// Describe implements Source.
func (s *replaySource) Describe() string {
	return "replay of " + printsafe.Name(s.r.Dir) + " as kidx explain infers it"
}

// Open implements Source.
func (s *replaySource) Open() (Stream, error) {
	st := s.r.open(false)
	st.dropRolls = s.r.dropRolls
	return st, nil
}

// open starts a walk of the replay's steps; check also gathers what inferSettings needs.
func (r *LogDirReplay) open(check bool) *replayStream {
	return &replayStream{r: r, seg: -1, check: check}
}

// replayStream yields the replay's steps, walking one .log at a time.
type replayStream struct {
	r         *LogDirReplay
	check     bool
	dropRolls bool // the files' boundaries are not roll steps (LogDirReplay.DropRolls)
	seg       int  // the segment being walked (-1 before the first)
	lf        *segment.LogFile
	pos       int64 // the next batch's position in lf
	j         int   // the next batch's ordinal in the segment
	si        int   // the next append start (plan.starts)
	open      *model.Step
	queue     []model.Step
	done      bool
	// prevLast is the last offset of the batches so far, prevFile the .log holding it.
	prevLast, prevFirst int64
	prevFile            string
	segFirst            int64 // the first offset of the segment being walked
	shapes              []replaySegment
}

// Next implements Stream. The steps' Append slices are the stream's own until the next call.
func (st *replayStream) Next(dst []model.Step) (int, error) {
	n := 0
	for n < len(dst) {
		if len(st.queue) > 0 {
			k := copy(dst[n:], st.queue)
			st.queue = st.queue[:copy(st.queue, st.queue[k:])]
			n += k
			continue
		}
		if st.done {
			break
		}
		if err := st.advance(); err != nil {
			st.close()
			return n, err
		}
	}
	if n == 0 {
		st.close()
		return 0, io.EOF
	}
	return n, nil
}

func (st *replayStream) close() {
	if st.lf != nil {
		st.lf.Close()
		st.lf = nil
	}
}

func (st *replayStream) flush() {
	if st.open != nil {
		if st.check {
			st.shape(st.open.Append)
		}
		st.queue = append(st.queue, *st.open)
		st.open = nil
	}
}

// advance reads one batch (or starts the next segment) and queues the steps it completes.
func (st *replayStream) advance() error {
	if st.lf == nil {
		return st.nextSegment()
	}
	plan := &st.r.segments[st.seg]
	b, err := st.lf.NextBatch(st.pos, st.lf.Size())
	if err == segment.ErrNoBatch {
		return st.endSegment()
	}
	if err != nil {
		return err
	}
	mb, err := replayBatch(st.lf, b, plan.exact)
	if err != nil {
		return err
	}
	first := mb.BaseOffset
	if st.j == 0 {
		st.segFirst = first
	}
	if st.prevFile != "" && first <= st.prevLast {
		return st.overlapError(plan, first)
	}
	restart := plan.restartAt[b.Position] || (plan.recoverAt == b.Position && st.j > 0)
	if restart {
		st.flush()
		st.queue = append(st.queue, plan.restartStep(b.Position))
	}
	for st.si < len(plan.starts) && plan.starts[st.si] < st.j {
		st.si++
	}
	if st.open == nil || plan.starts == nil || (st.si < len(plan.starts) && plan.starts[st.si] == st.j) || st.j == 0 || restart {
		st.flush()
		st.open = &model.Step{Append: []model.Batch{mb}, Origin: plan.origin}
	} else {
		st.open.Append = append(st.open.Append, mb)
	}
	st.prevLast, st.prevFile = mb.BaseOffset+mb.Records-1, plan.files.Log
	st.pos = b.End()
	st.j++
	return nil
}

// restartStep is the step at a restart before position pos: the recover that rebuilt the
// segment's indexes where explain found it (LogSegment.recover, run on the segment then active:
// its close() entries before are gone), else a clean restart (close(), then a fresh counter).
func (p *replayPlanSegment) restartStep(pos int64) model.Step {
	if p.recoverAt == pos {
		return model.Step{Recover: true}
	}
	return model.Step{Restart: true}
}

// overlapError names the two segments that hold the same offsets, as kidx verify's
// segment-overlap finding does: Kafka's LogSegments.floorSegment reads such offsets from the
// segment with the greatest base offset not above them, and no append order gives both files.
func (st *replayStream) overlapError(plan *replayPlanSegment, first int64) error {
	if st.j == 0 {
		return fmt.Errorf("%s holds offsets %d to %d, and the next segment %s starts at offset %d (its first batch at %d): the two segments overlap, and the next is not a stale source the log cleaner's swap left beside the first (kidx explain does not find the first written by the cleaner, or a batch it holds within the next's offsets is no batch of the next; see kidx verify); a replay appends every batch once, in offset order, so it cannot give back both",
			st.prevFile, st.prevFirst, st.prevLast, plan.files.Log, plan.files.BaseOffset, first)
	}
	return fmt.Errorf("%s at byte %d: a batch starts at offset %d, at or below %d, the last offset before it: offsets must increase", plan.files.Log, st.pos, first, st.prevLast)
}

// nextSegment opens the next .log (queuing its roll), or ends the stream.
func (st *replayStream) nextSegment() error {
	st.seg++
	if st.seg >= len(st.r.segments) {
		st.flush()
		st.done = true
		return nil
	}
	plan := &st.r.segments[st.seg]
	lf, err := segment.OpenLogWith(plan.files.Log, segment.AccessPread)
	if err != nil {
		return err
	}
	lf.SetReadAhead(logdir.HeaderWindow)
	st.lf, st.pos, st.j, st.si = lf, 0, 0, 0
	if st.seg > 0 {
		st.flush()
		if !st.dropRolls {
			st.queue = append(st.queue, model.Step{Roll: true, RollBaseOffset: plan.files.BaseOffset})
		}
	}
	if st.check {
		st.shapes = append(st.shapes, replaySegment{firstTs: model.NoTimestamp, indexSize: -1, timeSize: -1})
	}
	return nil
}

// endSegment closes the segment's walk: a restart at its end, a walk stopped by corruption.
func (st *replayStream) endSegment() error {
	plan := &st.r.segments[st.seg]
	if st.pos < st.lf.Size() {
		// NextBatch's ErrNoBatch: the data ends in zeros or a partial header; anything else
		// is an error of its own above. A preallocated tail is what a live segment has.
		if _, err := st.lf.NextBatch(st.pos, st.lf.Size()); err != nil && err != segment.ErrNoBatch {
			return err
		}
	}
	st.flush()
	if st.j > 0 && (plan.restartAt[st.pos] || plan.recoverAt == st.pos) {
		st.queue = append(st.queue, plan.restartStep(st.pos))
	}
	if st.j > 0 {
		st.prevFirst = st.segFirst
	}
	st.close()
	return nil
}

// shape adds a complete append to the segment's figures, as replaySegments takes them from
// a held workload's steps: its size, its first append, the time its appends span.
func (st *replayStream) shape(app []model.Batch) {
	cur := &st.shapes[len(st.shapes)-1]
	bytes, maxTs := int64(0), int64(model.NoTimestamp)
	for _, b := range app {
		bytes += b.Bytes
		maxTs = max(maxTs, b.MaxTimestamp)
	}
	if cur.size == 0 {
		cur.firstAppend, cur.firstTs = bytes, app[0].MaxTimestamp
	} else if cur.firstTs >= 0 && maxTs >= 0 {
		cur.maxSpan = max(cur.maxSpan, maxTs-cur.firstTs)
	}
	cur.beforeLast = cur.size
	cur.size += bytes
}

// replayBatch is a .log batch as the model takes it, with its explicit base offset; exact also
// reads the records of a leader's uncompressed CreateTime v2 batch for the one holding the max
// timestamp (what 0.11-3.6 time-index).
func replayBatch(lf *segment.LogFile, b segment.BatchInfo, exact bool) (model.Batch, error) {
	first, err := lf.FirstOffset(b)
	if err != nil {
		return model.Batch{}, err
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
			return mb, err
		}
	}
	if err := mb.Validate(); err != nil {
		return mb, fmt.Errorf("%s at byte %d: %w", lf.Path, b.Position, err)
	}
	return mb, nil
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
			if !slices.Contains(r.LeftOut, sf.BaseOffset) {
				pick[sf.BaseOffset] = sf
			}
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
	// Without a recover step the model keeps one append's batches (ForgetBatches): a segment of
	// any length costs its index entries (issue 27). A recover reads every batch of the
	// active segment, which it then keeps.
	l, err := model.NewLog(cfg, r.Era.Rule(), model.LogOptions{StartOffset: r.Workload.StartOffset, Era: r.Era, OnSegmentDone: check, ForgetBatches: r.Recovers == 0})
	if err != nil {
		return false, "", err
	}
	stream := r.open(false)
	defer stream.close()
	steps := make([]model.Step, 1024)
	i := 0
	for {
		n, err := stream.Next(steps)
		for _, st := range steps[:n] {
			if err := l.Apply(st); err != nil {
				return false, "", fmt.Errorf("replay step %d: %w", i, err)
			}
			if l.Stopped() {
				return false, fmt.Sprintf("the model stopped at step %d: %v", i, l.Events()), nil
			}
			i++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, "", err
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

// indexOverCapacity refuses a segment whose .index or .timeindex holds more valid entries than
// its .log has room for batches (Kafka writes at most one of each per batch), counted in
// bounded reads before anything would load the file.
func indexOverCapacity(sf segment.SegmentFiles) error {
	for _, time := range []bool{false, true} {
		if c, over := logdir.IndexOverCapacity(sf, time); over {
			return fmt.Errorf("%s: %d entries before the zero tail, more than the %d a .log of %d bytes has room for (one per batch, each at least 26 bytes): no Kafka release wrote this index (kidx verify reports it as index-capacity); the replay does not load it",
				printsafe.Name(c.Path), c.Valid, c.Limit, c.LogSize)
		}
	}
	return nil
}
