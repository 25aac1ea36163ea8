package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"kidx/segment/vfs"
)

// A partition's replicas on files (docs/contract.md §3.1; docs/segment.md,
// "Replicas"): one Log per replica, each running exactly the single-log rules. The leader
// appends what producers send, one append per produce (UnifiedLog.appendAsLeader); a follower
// fetches from the leader's files as Kafka's leader reads them (LocalLog.read →
// LogSegment.read) and appends the chunk in one append (UnifiedLog.appendAsFollower): one
// shouldRoll check, then LogSegment.append of every batch. That is where the follower's index
// overflow (issue 23, docs/kafka-hazards.md) comes from: the follower's segments roll by its
// own indexes, and a chunk of many batches can fill one in the middle.

// A StepError is a step the replicas cannot take as the workload asks (an election of a replica
// that is not caught up, a fetch from inside a batch, a fetch by the leader): the workload's
// fault, not the filesystem's.
type StepError struct{ Msg string }

func (e *StepError) Error() string { return e.Msg }

func refusal(format string, args ...any) error { return &StepError{fmt.Sprintf(format, args...)} }

// ReplicaDirName is replica r's partition directory under a replicated write's directory.
func ReplicaDirName(r int) string { return fmt.Sprintf("replica-%d", r) }

// ReplicaSet is a partition's replicas, each a Log in its own directory under one parent. It
// is not safe for concurrent use.
type ReplicaSet struct {
	fs     vfs.FS
	parent string
	logs   []*Log
	leader int
	// fetchMaxBytes is replica.fetch.max.bytes.
	fetchMaxBytes int64
	// step counts the calls of Apply (and of the step methods): the workload step an event
	// or a note names.
	step   int
	events [][]Event // per replica, each Step the workload step
	notes  []ReplicaNote
	// failedAt is the step at which each replica's log failed (-1 while it has not).
	failedAt []int
}

// ReplicaNote is a step that did nothing, and why: a caught-up follower's fetch, a failed
// follower's.
type ReplicaNote struct {
	Step    int    `json:"step"`
	Replica int    `json:"replica"`
	Message string `json:"message"`
}

// FetchResult is what one fetch did: the leader's batches [From, Next) taken from the leader
// segment LeaderSegment and appended by the follower, or nothing (Note says why).
type FetchResult struct {
	Replica       int
	From, Next    int64
	Batches       int
	Bytes         int64
	LeaderSegment int64
	Event         *Event // the follower's append threw (an index overflow) or was rejected
	Note          string // the fetch did nothing
}

// CreateReplicaSetFS creates spec.Count logs under parent (created if missing), replica r in
// parent/replica-r starting at spec.StartOffsets[r], all with cfg and rule. Replica 0 leads.
func CreateReplicaSetFS(fsys vfs.FS, parent string, cfg Config, rule Rule, spec ReplicaSpec) (*ReplicaSet, error) {
	if spec.Count < MinReplicas || spec.Count > MaxReplicas || len(spec.StartOffsets) != spec.Count {
		return nil, fmt.Errorf("replicas: %d replicas with %d start offsets (want %d to %d, one offset each)", spec.Count, len(spec.StartOffsets), MinReplicas, MaxReplicas)
	}
	if err := fsys.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	rs := &ReplicaSet{fs: fsys, parent: parent, fetchMaxBytes: spec.FetchMaxBytes, events: make([][]Event, spec.Count)}
	for r := range spec.Count {
		l, err := CreateLogFS(fsys, filepath.Join(parent, ReplicaDirName(r)), cfg, rule, spec.StartOffsets[r])
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("replica %d: %w", r, err)
		}
		rs.logs = append(rs.logs, l)
		rs.failedAt = append(rs.failedAt, -1)
	}
	return rs, nil
}

// Leader is the replica leading now.
func (rs *ReplicaSet) Leader() int { return rs.leader }

// Log is replica r's log.
func (rs *ReplicaSet) Log(r int) *Log { return rs.logs[r] }

// Events is replica r's events, each naming the workload step it happened at.
func (rs *ReplicaSet) Events(r int) []Event { return rs.events[r] }

// Notes lists the steps that did nothing.
func (rs *ReplicaSet) Notes() []ReplicaNote { return rs.notes }

// FailedAt is the step at which replica r's log failed, or -1.
func (rs *ReplicaSet) FailedAt(r int) int { return rs.failedAt[r] }

// Apply runs one workload step of a replicated workload.
func (rs *ReplicaSet) Apply(s Step) error {
	var err error
	switch {
	case s.Fetch:
		_, err = rs.Fetch(s.Replica, s.MaxBytes)
	case s.Elect:
		err = rs.Elect(s.Replica)
	case s.Restart:
		err = rs.Restart(s.Replica)
	case s.Recover:
		err = rs.Recover(s.Replica)
	case s.Roll:
		err = refusal("step %d: %v", rs.step, errRollStep)
		rs.step++
	case s.Crash != nil:
		err = refusal("step %d: a crash step in a replicated workload is not modelled", rs.step)
		rs.step++
	default:
		_, err = rs.Produce(s.Append)
	}
	return err
}

// replica resolves LeaderReplica and checks the number.
func (rs *ReplicaSet) replica(r int) (int, error) {
	if r == LeaderReplica {
		return rs.leader, nil
	}
	if r < 0 || r >= len(rs.logs) {
		return 0, refusal("replica %d does not exist (replicas 0 to %d)", r, len(rs.logs)-1)
	}
	return r, nil
}

// record files an event of replica r at the current step, and notes the log's failure.
func (rs *ReplicaSet) record(r, step int, e *Event) *Event {
	if e == nil {
		return nil
	}
	ev := *e
	ev.Step = step
	rs.events[r] = append(rs.events[r], ev)
	if rs.logs[r].Failed() && rs.failedAt[r] < 0 {
		rs.failedAt[r] = step
	}
	return &rs.events[r][len(rs.events[r])-1]
}

func (rs *ReplicaSet) note(step, r int, format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	rs.notes = append(rs.notes, ReplicaNote{Step: step, Replica: r, Message: msg})
	return msg
}

// failedNote is the note of a step on a replica whose log failed earlier.
func (rs *ReplicaSet) failedNote(step, r int, what string) string {
	return rs.note(step, r, "replica %d's log failed at step %d (an index overflow: Kafka threw, its fetcher marked the partition failed): %s", r, rs.failedAt[r], what)
}

// Produce is a ProduceRequest's batches appended by the leader as one append
// (UnifiedLog.appendAsLeader: offsets assigned after its log end). A leader whose log failed
// takes no more produces: the write cannot go on (ErrLogFailed).
func (rs *ReplicaSet) Produce(specs []BatchSpec) (*Event, error) {
	step := rs.step
	rs.step++
	l := rs.logs[rs.leader]
	if l.Failed() {
		return nil, fmt.Errorf("step %d: produce to replica %d: %w", step, rs.leader, ErrLogFailed)
	}
	e, err := l.AppendSpecs(specs)
	if err != nil {
		return nil, fmt.Errorf("step %d: produce to replica %d: %w", step, rs.leader, err)
	}
	return rs.record(rs.leader, step, e), nil
}

// Restart is a clean restart of replica r (LeaderReplica: the leader): Log.Restart.
func (rs *ReplicaSet) Restart(r int) error {
	return rs.restart(r, "restart", func(l *Log) (*Event, error) { return nil, l.Restart() })
}

// Recover is an unclean restart of replica r: Log.Recover (LogSegment.recover of the active
// segment), which may overflow an index as an append does.
func (rs *ReplicaSet) Recover(r int) error {
	return rs.restart(r, "recover", (*Log).Recover)
}

func (rs *ReplicaSet) restart(r int, what string, run func(*Log) (*Event, error)) error {
	step := rs.step
	rs.step++
	r, err := rs.replica(r)
	if err != nil {
		return fmt.Errorf("step %d: %s: %w", step, what, err)
	}
	if rs.logs[r].Failed() {
		rs.failedNote(step, r, "kidx keeps its files as the throw left them, and its "+what+" does nothing")
		return nil
	}
	e, err := run(rs.logs[r])
	if err != nil {
		return fmt.Errorf("step %d: %s of replica %d: %w", step, what, r, err)
	}
	rs.record(r, step, e)
	return nil
}

// Elect moves leadership to replica r. kidx models no truncation, so r must hold the
// current leader's whole log (equal log end offsets) and its log must not have failed.
func (rs *ReplicaSet) Elect(r int) error {
	step := rs.step
	rs.step++
	r, err := rs.replica(r)
	if err != nil {
		return fmt.Errorf("step %d: elect: %w", step, err)
	}
	if rs.logs[r].Failed() {
		return refusal("step %d: elect: replica %d's log failed at step %d: it cannot lead", step, r, rs.failedAt[r])
	}
	if got, want := rs.logs[r].NextOffset(), rs.logs[rs.leader].NextOffset(); got != want {
		return refusal("step %d: elect: replica %d is not caught up: its log ends at offset %d, the leader's (replica %d) at %d, and kidx models no truncation", step, r, got, rs.leader, want)
	}
	rs.leader = r
	return nil
}

// Fetch is one fetch by follower r from the leader (ReplicaFetcherThread →
// UnifiedLog.appendAsFollower). The leader reads as LocalLog.read does: the one segment that
// holds r's log end offset (a read never spans a segment), from the offset's position
// (LogSegment.translateOffset: the offset index's entry at or below it, then the batch headers
// from there), whole batches up to maxBytes (0: replica.fetch.max.bytes) and at least one
// (minOneMessage), never past the segment's end. The follower appends the copied batches in
// one Log.Append, which keeps the leader's offsets: each batch's base offset is checked
// against the offset the follower's append gives it. A caught-up follower, or one whose log
// failed, fetches nothing (Note says so).
func (rs *ReplicaSet) Fetch(r int, maxBytes int64) (FetchResult, error) {
	step := rs.step
	rs.step++
	res := FetchResult{Replica: r}
	if r < 0 || r >= len(rs.logs) {
		return res, refusal("step %d: fetch: replica %d does not exist (replicas 0 to %d)", step, r, len(rs.logs)-1)
	}
	if r == rs.leader {
		return res, refusal("step %d: fetch: replica %d is the leader: only a follower fetches", step, r)
	}
	if maxBytes <= 0 {
		maxBytes = rs.fetchMaxBytes
	}
	f, leader := rs.logs[r], rs.logs[rs.leader]
	from, end := f.NextOffset(), leader.NextOffset()
	res.From, res.Next = from, from
	switch {
	case f.Failed():
		res.Note = rs.failedNote(step, r, "it fetches nothing more")
		return res, nil
	case leader.Failed():
		return res, fmt.Errorf("step %d: fetch by replica %d: the leader (replica %d) %w", step, r, rs.leader, ErrLogFailed)
	case from == end:
		res.Note = rs.note(step, r, "replica %d is caught up with the leader (replica %d) at offset %d: the fetch returns nothing", r, rs.leader, end)
		return res, nil
	case from > end:
		return res, refusal("step %d: fetch by replica %d: its log ends at offset %d, past the leader's (replica %d) end %d; a real follower would truncate, and kidx models no truncation", step, r, from, rs.leader, end)
	}
	chunk, seg, err := leader.readForFetch(from, maxBytes)
	if err != nil {
		return res, fmt.Errorf("step %d: fetch by replica %d from the leader (replica %d): %w", step, r, rs.leader, err)
	}
	res.LeaderSegment = seg
	next := from
	for _, b := range chunk {
		// appendAsFollower keeps the leader's offsets; Log.Append assigns them after the
		// follower's log end, so the two must agree batch by batch.
		if base := int64(binary.BigEndian.Uint64(b)); base != next {
			return res, fmt.Errorf("step %d: fetch by replica %d: the leader's batch at offset %d follows offset %d: the follower's append would renumber it", step, r, base, next-1)
		}
		next = batchLastOffset(b) + 1
		res.Bytes += int64(len(b))
	}
	res.Batches = len(chunk)
	e, err := f.Append(chunk...)
	if err != nil {
		return res, fmt.Errorf("step %d: fetch by replica %d: %w", step, r, err)
	}
	res.Event = rs.record(r, step, e)
	res.Next = f.NextOffset()
	return res, nil
}

// readForFetch is LocalLog.read + LogSegment.read on the leader's files: copies of the whole
// batches of the segment holding offset, from offset's batch on, up to maxBytes (at least one).
// It returns the chunk and the segment's base offset. offset must be a batch's base offset.
func (l *Log) readForFetch(offset, maxBytes int64) ([][]byte, int64, error) {
	if l.active == nil {
		return nil, 0, errLostActive
	}
	// LocalLog.read: the segment with the greatest base offset at or below the offset.
	i := sort.Search(len(l.bases), func(i int) bool { return l.bases[i] > offset }) - 1
	if i < 0 {
		return nil, 0, refusal("offset %d is below the leader's log start offset %d; kidx models no truncation", offset, l.bases[0])
	}
	base := l.bases[i]
	var logR, idxR io.ReaderAt
	var size, entries int64
	logPath, idxPath, _ := l.paths(base)
	if s := l.active; s.base == base {
		// The active segment is open for writing: its own handles see every byte written.
		logR, idxR, size, entries = s.logF, s.idxF, s.size, int64(s.idxEntries)
	} else {
		lf, err := l.fs.Open(logPath)
		if err != nil {
			return nil, 0, err
		}
		defer lf.Close()
		xf, err := l.fs.Open(idxPath)
		if err != nil {
			return nil, 0, err
		}
		defer xf.Close()
		st, err := lf.Stat()
		if err != nil {
			return nil, 0, err
		}
		xst, err := xf.Stat()
		if err != nil {
			return nil, 0, err
		}
		// A rolled segment's index is trimmed to its entries (trimToValidSize).
		logR, idxR, size, entries = lf, xf, st.Size(), xst.Size()/OffsetIndexEntrySize
	}
	start, err := indexLookup(idxR, base, entries, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", idxPath, err)
	}
	lf := logFileOn(logPath, logR, size)
	defer lf.Close()
	var chunk [][]byte
	var total int64
	var readErr error
	found := false
	res := lf.Walk(start, 0, func(b BatchInfo) bool {
		if !found {
			// LogSegment.translateOffset: the first batch whose last offset is at or past
			// the target.
			if b.LastOffset() < offset {
				return true
			}
			if b.BaseOffset() != offset {
				readErr = refusal("offset %d is inside the leader's batch of offsets %d-%d (at position %d of %s): a follower's log end must be a batch boundary of the leader's log", offset, b.BaseOffset(), b.LastOffset(), b.Position, filepath.Base(logPath))
				return false
			}
			found = true
		} else if total+b.Size > maxBytes {
			// The fetch's bytes end inside this batch: the follower's MemoryRecords keeps
			// whole batches only.
			return false
		}
		data, err := lf.ReadBatch(b)
		if err != nil {
			readErr = err
			return false
		}
		chunk = append(chunk, append([]byte(nil), data...))
		total += b.Size
		return true
	})
	switch {
	case readErr != nil:
		return nil, 0, readErr
	case res.Err != nil:
		return nil, 0, res.Err
	case !found:
		return nil, 0, fmt.Errorf("no batch of %s holds offset %d", filepath.Base(logPath), offset)
	}
	return chunk, base, nil
}

// indexLookup is OffsetIndex.lookup on the first entries of an offset index: the position of
// the last entry whose offset is at or below target, 0 when none is.
func indexLookup(idx io.ReaderAt, base, entries, target int64) (int64, error) {
	var buf [OffsetIndexEntrySize]byte
	read := func(i int64) (int64, int64, error) {
		if _, err := idx.ReadAt(buf[:], i*OffsetIndexEntrySize); err != nil {
			return 0, 0, err
		}
		return base + int64(int32(binary.BigEndian.Uint32(buf[:4]))), int64(int32(binary.BigEndian.Uint32(buf[4:]))), nil
	}
	lo, hi := int64(0), entries // the answer is the last entry in [0, lo) once lo == hi
	for lo < hi {
		mid := lo + (hi-lo)/2
		off, _, err := read(mid)
		if err != nil {
			return 0, err
		}
		if off <= target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, nil
	}
	_, pos, err := read(lo - 1)
	return pos, err
}

// Close closes every replica's log as Log.Close does (Kafka's clean shutdown; a failed log is
// closed too, LogSegment.close's final time-index entry skipping the full check).
func (rs *ReplicaSet) Close() error {
	var err error
	for r, l := range rs.logs {
		if e := l.Close(); e != nil {
			err = errors.Join(err, fmt.Errorf("replica %d: %w", r, e))
		}
	}
	return err
}

// ReplicaResult is one replica's part of a replicated write.
type ReplicaResult struct {
	Replica    int     `json:"replica"`
	Dir        string  `json:"dir"`      // under the written directory
	Segments   []int64 `json:"segments"` // base offsets
	NextOffset int64   `json:"nextOffset"`
	// FailedAt is the step whose append threw (an index overflow), or -1. The failed
	// replica's nextOffset is where that append began: Kafka wrote its batches into the .log
	// before the per-batch loop threw, but did not advance the log end offset.
	FailedAt int     `json:"failedAt"`
	Events   []Event `json:"events"` // each Step a workload step
}

// results closes nothing: the replicas' results as they stand.
func (rs *ReplicaSet) results() []ReplicaResult {
	out := make([]ReplicaResult, len(rs.logs))
	for r, l := range rs.logs {
		ev := rs.events[r]
		if ev == nil {
			ev = []Event{}
		}
		out[r] = ReplicaResult{Replica: r, Dir: ReplicaDirName(r), Segments: l.SegmentBaseOffsets(), NextOffset: l.NextOffset(), FailedAt: rs.failedAt[r], Events: ev}
	}
	return out
}

// writeReplicas creates w's replicas under parent, applies every step, and closes them all.
// A produce whose append fails the leader ends the write after that step, as a single log's
// does (the partition takes no more produces); a follower that fails only stops fetching.
func writeReplicas(fsys vfs.FS, parent string, w *Workload) (*WriteResult, error) {
	rs, err := CreateReplicaSetFS(fsys, parent, w.Config, w.Rule, *w.Replicas)
	if err != nil {
		return nil, err
	}
	for i, s := range w.Steps {
		if interrupted.Load() {
			rs.Close()
			return nil, ErrInterrupted
		}
		if writeStepHook != nil {
			if err := writeStepHook(i); err != nil {
				rs.Close()
				return nil, err
			}
		}
		if err := rs.Apply(s); err != nil {
			rs.Close()
			return nil, err
		}
		if rs.logs[rs.leader].Failed() {
			break
		}
	}
	err = rs.Close()
	notes := rs.notes
	if notes == nil {
		notes = []ReplicaNote{}
	}
	return &WriteResult{Replicas: rs.results(), Leader: rs.leader, Notes: notes}, err
}
