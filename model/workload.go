package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"kidx/internal/english"
	"math"
	"sort"
	"strings"

	"kidx/internal/jsonwords"
	"kidx/internal/printsafe"
)

// RecordBatchOverhead is the size of a v2 record batch with no records
// (DefaultRecordBatch.RECORD_BATCH_OVERHEAD, docs/kafka.md §1.3).
const RecordBatchOverhead = 61

// NoTimestamp is Kafka's RecordBatch.NO_TIMESTAMP.
const NoTimestamp = -1

// A Batch is one record batch as the log sees it: how many offsets it spans (Records), its
// sizeInBytes on disk and its max timestamp. Legacy marks a message of the formats before
// 0.11 (magic 0 or 1: one message, or a compressed wrapper of several, Records > 1), which
// the log walks like a batch (FileLogInputStream).
//
// The other fields are for replaying real logs (docs/contract.md §3's optional keys); their zero values
// are what a producer's batch is.
type Batch struct {
	Records      int64
	Bytes        int64
	MaxTimestamp int64
	Legacy       LegacyMagic
	// BaseOffset is the batch's first offset, when the workload gives it ("baseOffset"):
	// offsets after compaction, or on a follower of a compacted leader, have gaps. 0 means
	// right after the previous batch (an explicit 0 can only be the log's first offset).
	BaseOffset int64
	// MaxTimestampDelta is the offset delta of the first record holding MaxTimestamp, when
	// HasMaxTimestampDelta ("timestamps" or "maxTimestampDelta"): the offset Kafka 0.11 to
	// 3.6 time-index a leader's uncompressed batch at (docs/kafka.md §13.2). Without it the model
	// takes the batch's last record.
	MaxTimestampDelta    int32
	HasMaxTimestampDelta bool
	// Compressed: the batch's records are compressed, so no leader names a record inside it
	// in the time index (LogValidator's compressed path names the batch's last offset).
	Compressed bool
	// Compression names the codec ("compression": "gzip", "snappy", "lz4" or "zstd"; it sets
	// Compressed) for the file writer, which builds the batch with it (docs/contract.md §3).
	// The model's rules never look at it; "" when the workload names none.
	Compression string
	// Transactional, Control ("commit" or "abort": an end-transaction marker, one record) and
	// ProducerID describe a transactional producer's batches for the file writer
	// (docs/contract.md §3); the model's rules never look at them.
	Transactional bool
	Control       string
	ProducerID    int64
}

// LegacyMagic is a legacy message format: NotLegacy (a v2 batch, magic 2), Magic0 or Magic1.
type LegacyMagic int8

// Message formats.
const (
	NotLegacy LegacyMagic = iota
	Magic0
	Magic1
)

// A Step is one thing that happens to a partition's log: an append of one or more batches
// (one LogSegment.append call), a clean restart, an unclean restart with recovery, a roll, a
// crash, or a pass of the log cleaner; in a replicated workload (Workload.Replicas) also a
// follower's fetch or a leadership move. Exactly one of Append, Restart, Recover, Roll, Crash,
// Clean, Fetch and Elect is set.
type Step struct {
	Append []Batch
	// Origin is where the append came from (docs/contract.md §3 "origin"): the leader (the default) or a
	// follower's replication fetch; the eras' rules differ by origin (docs/kafka.md §13.2).
	Origin  Origin
	Restart bool
	Recover bool
	// RecoveryPoint, when HasRecoveryPoint, is where a recover step starts: every segment
	// from the one holding it is recovered, as LogLoader recovers the segments past the
	// recovery-point checkpoint (docs/contract.md §3 "recover"); without it, the active one.
	RecoveryPoint    int64
	HasRecoveryPoint bool
	// Clean is one pass of the log cleaner (docs/contract.md §3 "clean"; Log.Clean).
	Clean *Clean
	// Roll rolls the log now, as LocalLog.roll does for a reason the workload does not
	// model (a time roll by the wall clock, an operator's roll, the cleaner's segment
	// boundaries when a real log is replayed): the active segment is closed and a new one
	// starts at max(log end offset, RollBaseOffset).
	Roll           bool
	RollBaseOffset int64
	// Crash is an unclean shutdown and the broker's restart, with what survived of the
	// segments' files (docs/contract.md §3 "crash"; Log.Crash).
	Crash *Crash
	// Fetch: follower Replica fetches once from the leader (ReplicaSet.Fetch); FetchMaxBytes,
	// when above 0, replaces the workload's fetchMaxBytes for this fetch.
	Fetch         bool
	FetchMaxBytes int64
	// Elect: leadership moves to Replica (ReplicaSet.Elect).
	Elect bool
	// Replica is the replica a fetch, elect, restart, recover or roll step is about, when
	// HasReplica; a restart, recover or roll without one is the current leader's.
	Replica    int
	HasReplica bool
}

// AppendStep returns the step that appends batches in one call.
func AppendStep(batches ...Batch) Step { return Step{Append: batches} }

// Kind names the step: "append", "restart", "recover", "roll", "crash", "clean", "fetch" or "elect".
func (s Step) Kind() string {
	switch {
	case s.Crash != nil:
		return "crash"
	case s.Clean != nil:
		return "clean"
	case s.Restart:
		return "restart"
	case s.Recover:
		return "recover"
	case s.Roll:
		return "roll"
	case s.Fetch:
		return "fetch"
	case s.Elect:
		return "elect"
	}
	return "append"
}

// AppendBytes is the total size of an append step, the figure Kafka's size-based roll and
// oversize check use.
func (s Step) AppendBytes() int64 {
	var n int64
	for _, b := range s.Append {
		n += b.Bytes
	}
	return n
}

// A Workload is the docs/contract.md §3 input: a config, a rule or Kafka release, a start offset and
// the steps.
type Workload struct {
	// Config holds only the keys the file sets; see ApplyTo.
	Config       map[string]int64
	Rule         string // "" when the file does not set it
	KafkaVersion string // "" when the file does not set it; never set together with Rule
	StartOffset  int64
	Steps        []Step
	// SingleBatch is true when the file used the "batches" form (one batch per append); it is
	// kept so that the workload is written back in the form it came in.
	SingleBatch bool
	// Replicas, when set, makes the workload a partition's replicas (docs/contract.md §3.1):
	// SimulateReplicas runs it; Simulate refuses it.
	Replicas *ReplicaSpec
}

// BatchesWorkload builds a workload of single-batch appends (the "batches" form).
func BatchesWorkload(batches []Batch) Workload {
	steps := make([]Step, len(batches))
	for i, b := range batches {
		steps[i] = AppendStep(b)
	}
	return Workload{Steps: steps, SingleBatch: true}
}

// ApplyTo sets the workload's config keys on c.
func (w Workload) ApplyTo(c *Config) error {
	keys := make([]string, 0, len(w.Config))
	for k := range w.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := c.SetInt(k, w.Config[k]); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	return nil
}

// A WorkloadError locates a problem in a workload file.
type WorkloadError struct {
	Path   string // "config.segment.bytes", "steps[3].append[1].bytes", ...
	Offset int64  // 0-based byte position of a JSON syntax error, or -1
	Err    error
}

func (e *WorkloadError) Error() string {
	switch {
	case e.Offset >= 0:
		return fmt.Sprintf("byte %d: %v", e.Offset, e.Err)
	case e.Path != "":
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return e.Err.Error()
}

func (e *WorkloadError) Unwrap() error { return e.Err }

// The decoded forms of a workload file. Numbers stay json.Number so that a non-integer is
// reported with its path rather than as a Go type error.
type (
	workloadFile struct {
		Config       map[string]json.Number `json:"config"`
		Rule         *string                `json:"rule"`
		KafkaVersion *string                `json:"kafkaVersion"`
		StartOffset  *json.Number           `json:"startOffset"`
		Batches      []batchFile            `json:"batches"`
		Steps        []stepFile             `json:"steps"`
		Replicas     *replicasFile          `json:"replicas"`
	}
	replicasFile struct {
		Count         *json.Number  `json:"count"`
		FetchMaxBytes *json.Number  `json:"fetchMaxBytes"`
		StartOffsets  []json.Number `json:"startOffsets"`
	}
	stepFile struct {
		Append     []batchFile  `json:"append"`
		Origin     *string      `json:"origin"`
		Restart    *bool        `json:"restart"`
		Recover    *bool        `json:"recover"`
		Roll       *bool        `json:"roll"`
		BaseOffset *json.Number `json:"baseOffset"`
		Crash      *crashFile   `json:"crash"`
		Clean      *cleanFile   `json:"clean"`
		// RecoveryPoint goes with "recover" only.
		RecoveryPoint *json.Number `json:"recoveryPoint"`
		Fetch         *json.Number `json:"fetch"`
		MaxBytes      *json.Number `json:"maxBytes"`
		Elect         *json.Number `json:"elect"`
		Replica       *json.Number `json:"replica"`
	}
	crashFile struct {
		RecoveryPoint *json.Number       `json:"recoveryPoint"`
		Segments      []crashSegmentFile `json:"segments"`
	}
	cleanFile struct {
		UncleanableOffset *json.Number       `json:"uncleanableOffset"`
		Drop              []json.Number      `json:"drop"`
		Rewrite           []cleanRewriteFile `json:"rewrite"`
		IOBufferSize      *json.Number       `json:"ioBufferSize"`
	}
	cleanRewriteFile struct {
		BaseOffset      *json.Number `json:"baseOffset"`
		Bytes           *json.Number `json:"bytes"`
		MaxTimestamp    *json.Number `json:"maxTimestamp"`
		DeleteHorizonMs *json.Number `json:"deleteHorizonMs"`
	}
	crashSegmentFile struct {
		BaseOffset     *json.Number `json:"baseOffset"`
		LogBytes       *json.Number `json:"logBytes"`
		IndexBytes     *json.Number `json:"indexBytes"`
		TimeIndexBytes *json.Number `json:"timeIndexBytes"`
	}
	batchFile struct {
		Records           *json.Number  `json:"records"`
		Bytes             *json.Number  `json:"bytes"`
		MaxTimestamp      *json.Number  `json:"maxTimestamp"`
		Magic             *json.Number  `json:"magic"`
		BaseOffset        *json.Number  `json:"baseOffset"`
		Timestamps        []json.Number `json:"timestamps"`
		MaxTimestampDelta *json.Number  `json:"maxTimestampDelta"`
		Compressed        *bool         `json:"compressed"`
		Compression       *string       `json:"compression"`
		Transactional     *bool         `json:"transactional"`
		Control           *string       `json:"control"`
		ProducerID        *json.Number  `json:"producerId"`
	}
	// The same with every step and batch left raw: decoded one by one only to say which
	// step or batch a JSON type error or unknown key is in.
	workloadRaw struct {
		Config       map[string]json.RawMessage `json:"config"`
		Rule         *string                    `json:"rule"`
		KafkaVersion *string                    `json:"kafkaVersion"`
		StartOffset  *json.RawMessage           `json:"startOffset"`
		Batches      []json.RawMessage          `json:"batches"`
		Steps        []json.RawMessage          `json:"steps"`
		Replicas     *json.RawMessage           `json:"replicas"`
	}
	stepRaw struct {
		Append     []json.RawMessage `json:"append"`
		Origin     *string           `json:"origin"`
		Restart    *bool             `json:"restart"`
		Recover    *bool             `json:"recover"`
		Roll       *bool             `json:"roll"`
		BaseOffset *json.RawMessage  `json:"baseOffset"`
		Crash      *json.RawMessage  `json:"crash"`
		Clean      *json.RawMessage  `json:"clean"`
		// RecoveryPoint goes with "recover" only.
		RecoveryPoint *json.RawMessage `json:"recoveryPoint"`
		Fetch         *json.RawMessage `json:"fetch"`
		MaxBytes      *json.RawMessage `json:"maxBytes"`
		Elect         *json.RawMessage `json:"elect"`
		Replica       *json.RawMessage `json:"replica"`
	}
	crashRaw struct {
		RecoveryPoint *json.RawMessage  `json:"recoveryPoint"`
		Segments      []json.RawMessage `json:"segments"`
	}
	cleanRaw struct {
		UncleanableOffset *json.RawMessage  `json:"uncleanableOffset"`
		Drop              []json.RawMessage `json:"drop"`
		Rewrite           []json.RawMessage `json:"rewrite"`
		IOBufferSize      *json.RawMessage  `json:"ioBufferSize"`
	}
)

// ParseWorkload decodes a docs/contract.md §3 workload. Errors are *WorkloadError values that name the
// step and field (or the byte of a syntax error). Unknown keys are errors: a typo in a
// config name must not silently fall back to a default.
//
// A well-formed file is decoded in one pass. Only when that pass fails is the file decoded
// again step by step, to say where the problem is.
func ParseWorkload(data []byte) (Workload, error) {
	var f workloadFile
	if err := decodeStrict(data, &f); err != nil {
		return Workload{}, locateDecodeError(data, err)
	}
	return f.workload()
}

func (f *workloadFile) workload() (Workload, error) {
	w := Workload{Config: map[string]int64{}}
	for name, v := range f.Config {
		path := "config." + name
		if _, err := lookupConfigKey(name); err != nil {
			return Workload{}, &WorkloadError{Path: path, Offset: -1, Err: err}
		}
		n, err := numberInt(v, path)
		if err != nil {
			return Workload{}, err
		}
		if err := (&Config{}).SetInt(name, n); err != nil {
			return Workload{}, &WorkloadError{Path: path, Offset: -1, Err: err}
		}
		w.Config[name] = n
	}
	if f.Rule != nil {
		if _, err := ParseRule(*f.Rule); err != nil {
			return Workload{}, &WorkloadError{Path: "rule", Offset: -1, Err: err}
		}
		w.Rule = *f.Rule
	}
	if f.KafkaVersion != nil {
		if f.Rule != nil {
			return Workload{}, &WorkloadError{Path: "kafkaVersion", Offset: -1, Err: errors.New(`set either "rule" or "kafkaVersion", not both`)}
		}
		if _, err := EraForKafkaVersion(*f.KafkaVersion); err != nil {
			return Workload{}, &WorkloadError{Path: "kafkaVersion", Offset: -1, Err: err}
		}
		w.KafkaVersion = *f.KafkaVersion
	}
	if f.StartOffset != nil {
		n, err := numberInt(*f.StartOffset, "startOffset")
		if err != nil {
			return Workload{}, err
		}
		if n < 0 {
			return Workload{}, &WorkloadError{Path: "startOffset", Offset: -1, Err: fmt.Errorf("%d is negative", n)}
		}
		w.StartOffset = n
	}
	switch {
	case f.Batches != nil && f.Steps != nil:
		return Workload{}, &WorkloadError{Offset: -1, Err: errors.New("set either \"batches\" or \"steps\", not both")}
	case f.Batches == nil && f.Steps == nil:
		return Workload{}, &WorkloadError{Offset: -1, Err: errors.New("no \"batches\" or \"steps\"")}
	case f.Batches != nil:
		w.SingleBatch = true
		w.Steps = make([]Step, 0, len(f.Batches))
		batches := make([]Batch, len(f.Batches)) // one allocation backs every step
		for i := range f.Batches {
			b, err := f.Batches[i].batch(fmt.Sprintf("batches[%d]", i))
			if err != nil {
				return Workload{}, err
			}
			batches[i] = b
			w.Steps = append(w.Steps, Step{Append: batches[i : i+1 : i+1]})
		}
	default:
		w.Steps = make([]Step, 0, len(f.Steps))
		for i := range f.Steps {
			s, err := f.Steps[i].step(fmt.Sprintf("steps[%d]", i))
			if err != nil {
				return Workload{}, err
			}
			w.Steps = append(w.Steps, s)
		}
	}
	if f.Replicas != nil {
		spec, err := f.Replicas.spec(w.StartOffset)
		if err != nil {
			return Workload{}, err
		}
		w.Replicas = &spec
	}
	if err := w.checkReplicaSteps(); err != nil {
		return Workload{}, err
	}
	if err := w.checkOffsets(); err != nil {
		return Workload{}, err
	}
	return w, nil
}

// checkOffsets holds explicit base offsets to docs/contract.md §3: offsets increase, gaps allowed. A
// roll's base offset may not lie below the log end offset either.
func (w Workload) checkOffsets() error {
	next := w.StartOffset
	rolledTo := int64(-1) // a roll's base offset past the log end, until a batch names its offset
	for i, st := range w.Steps {
		if st.Crash != nil {
			// Lost offsets are given again after a crash: the log end falls back, at most to
			// the first surviving segment's base. Log.Crash knows the exact value.
			if len(st.Crash.Segments) > 0 {
				next = min(next, st.Crash.Segments[0].BaseOffset)
			}
			rolledTo = -1
			continue
		}
		if st.Roll {
			if st.RollBaseOffset > 0 && st.RollBaseOffset < next {
				return &WorkloadError{Path: fmt.Sprintf("steps[%d].baseOffset", i), Offset: -1,
					Err: fmt.Errorf("%d is below the log end offset %d: a roll cannot go back", st.RollBaseOffset, next)}
			}
			if st.RollBaseOffset > next {
				rolledTo = st.RollBaseOffset
			}
			continue
		}
		for j, b := range st.Append {
			path := fmt.Sprintf("steps[%d].append[%d]", i, j)
			if w.SingleBatch {
				path = fmt.Sprintf("batches[%d]", i)
			}
			if b.BaseOffset > 0 || (b.BaseOffset == 0 && next == 0) {
				if b.BaseOffset < next {
					return &WorkloadError{Path: path + ".baseOffset", Offset: -1,
						Err: fmt.Errorf("%d is below %d, the offset after the previous batch: offsets must increase", b.BaseOffset, next)}
				}
				next = b.BaseOffset
			}
			if rolledTo >= 0 && next < rolledTo {
				// The segment a roll past the log end starts holds offsets from its base on;
				// only a batch that names its own offset (a follower's, the cleaner's) lands there.
				return &WorkloadError{Path: path + ".baseOffset", Offset: -1,
					Err: fmt.Errorf("the roll before this batch started a segment at offset %d, past the log end %d: give the batch a \"baseOffset\" of at least %d", rolledTo, next, rolledTo)}
			}
			rolledTo = -1
			if b.Records > math.MaxInt64-next {
				return &WorkloadError{Path: path + ".records", Offset: -1,
					Err: fmt.Errorf("offsets %d and up pass 9223372036854775807 (a Kafka offset is a signed 64-bit number)", next)}
			}
			next += b.Records
		}
	}
	return nil
}

func (f *stepFile) step(path string) (Step, error) {
	set := 0
	for _, isSet := range []bool{f.Append != nil, f.Restart != nil, f.Recover != nil, f.Roll != nil, f.Crash != nil, f.Clean != nil, f.Fetch != nil, f.Elect != nil} {
		if isSet {
			set++
		}
	}
	if set != 1 {
		return Step{}, &WorkloadError{Path: path, Offset: -1,
			Err: errors.New(`a step is exactly one of {"append": [...]}, {"restart": true}, {"recover": true}, {"roll": true}, {"crash": {...}}, {"clean": {...}}, {"fetch": R}, {"elect": R}`)}
	}
	st, err := f.stepKind(path)
	if err != nil {
		return Step{}, err
	}
	return f.replicaFields(path, st)
}

// stepKind decodes the one kind of step f is.
func (f *stepFile) stepKind(path string) (Step, error) {
	if f.Origin != nil && f.Append == nil {
		return Step{}, &WorkloadError{Path: path + ".origin", Offset: -1, Err: errors.New("only an append has an origin")}
	}
	if f.RecoveryPoint != nil && f.Recover == nil {
		return Step{}, &WorkloadError{Path: path + ".recoveryPoint", Offset: -1, Err: errors.New(`only a recover step has a "recoveryPoint" (a crash step's goes inside "crash")`)}
	}
	if f.BaseOffset != nil && f.Roll == nil {
		return Step{}, &WorkloadError{Path: path + ".baseOffset", Offset: -1, Err: errors.New(`only a roll step has a "baseOffset" (a batch's goes inside the batch)`)}
	}
	switch {
	case f.Fetch != nil:
		return Step{Fetch: true}, nil
	case f.Elect != nil:
		return Step{Elect: true}, nil
	case f.Crash != nil:
		c, err := f.Crash.crash(path + ".crash")
		if err != nil {
			return Step{}, err
		}
		return Step{Crash: &c}, nil
	case f.Clean != nil:
		c, err := f.Clean.clean(path + ".clean")
		if err != nil {
			return Step{}, err
		}
		return Step{Clean: &c}, nil
	case f.Roll != nil:
		if !*f.Roll {
			return Step{}, &WorkloadError{Path: path + ".roll", Offset: -1, Err: errors.New("must be true")}
		}
		st := Step{Roll: true}
		if f.BaseOffset != nil {
			n, err := numberInt(*f.BaseOffset, path+".baseOffset")
			if err != nil {
				return Step{}, err
			}
			if n < 0 {
				return Step{}, &WorkloadError{Path: path + ".baseOffset", Offset: -1, Err: fmt.Errorf("%d is negative", n)}
			}
			st.RollBaseOffset = n
		}
		return st, nil
	case f.Restart != nil:
		if !*f.Restart {
			return Step{}, &WorkloadError{Path: path + ".restart", Offset: -1, Err: errors.New("must be true")}
		}
		return Step{Restart: true}, nil
	case f.Recover != nil:
		if !*f.Recover {
			return Step{}, &WorkloadError{Path: path + ".recover", Offset: -1, Err: errors.New("must be true")}
		}
		st := Step{Recover: true}
		if f.RecoveryPoint != nil {
			n, err := numberInt(*f.RecoveryPoint, path+".recoveryPoint")
			if err != nil {
				return Step{}, err
			}
			if n < 0 {
				return Step{}, &WorkloadError{Path: path + ".recoveryPoint", Offset: -1, Err: fmt.Errorf("%d is negative", n)}
			}
			st.RecoveryPoint, st.HasRecoveryPoint = n, true
		}
		return st, nil
	}
	if len(f.Append) == 0 {
		return Step{}, &WorkloadError{Path: path + ".append", Offset: -1, Err: errors.New("an append needs at least one batch")}
	}
	s := Step{Append: make([]Batch, len(f.Append))}
	if f.Origin != nil {
		o, err := ParseOrigin(*f.Origin)
		if err != nil {
			return Step{}, &WorkloadError{Path: path + ".origin", Offset: -1, Err: err}
		}
		s.Origin = o
	}
	for j := range f.Append {
		b, err := f.Append[j].batch(fmt.Sprintf("%s.append[%d]", path, j))
		if err != nil {
			return Step{}, err
		}
		s.Append[j] = b
	}
	return s, nil
}

func (f *crashFile) crash(path string) (Crash, error) {
	var c Crash
	if f.RecoveryPoint == nil {
		return c, &WorkloadError{Path: path + ".recoveryPoint", Offset: -1, Err: errors.New("missing")}
	}
	if f.Segments == nil {
		return c, &WorkloadError{Path: path + ".segments", Offset: -1, Err: errors.New("missing")}
	}
	var err error
	if c.RecoveryPoint, err = numberInt(*f.RecoveryPoint, path+".recoveryPoint"); err != nil {
		return c, err
	}
	c.Segments = make([]CrashSegment, len(f.Segments))
	for i, sf := range f.Segments {
		at := fmt.Sprintf("%s.segments[%d]", path, i)
		for _, field := range []struct {
			name string
			n    *json.Number
			v    *int64
		}{
			{"baseOffset", sf.BaseOffset, &c.Segments[i].BaseOffset},
			{"logBytes", sf.LogBytes, &c.Segments[i].LogBytes},
			{"indexBytes", sf.IndexBytes, &c.Segments[i].IndexBytes},
			{"timeIndexBytes", sf.TimeIndexBytes, &c.Segments[i].TimeIndexBytes},
		} {
			if field.n == nil {
				return c, &WorkloadError{Path: at + "." + field.name, Offset: -1, Err: errors.New("missing")}
			}
			if *field.v, err = numberInt(*field.n, at+"."+field.name); err != nil {
				return c, err
			}
		}
	}
	if err := c.Validate(); err != nil {
		var ce *CrashError
		if errors.As(err, &ce) {
			return c, &WorkloadError{Path: path + "." + ce.Field, Offset: -1, Err: ce.Err}
		}
		return c, &WorkloadError{Path: path, Offset: -1, Err: err}
	}
	return c, nil
}

// clean decodes a clean step (docs/contract.md §3 "clean"); Clean.Validate's errors are given
// the step's path.
func (f *cleanFile) clean(path string) (Clean, error) {
	var c Clean
	var err error
	if f.UncleanableOffset != nil {
		if c.UncleanableOffset, err = numberInt(*f.UncleanableOffset, path+".uncleanableOffset"); err != nil {
			return c, err
		}
		c.HasUncleanableOffset = true
	}
	if f.IOBufferSize != nil {
		if c.IOBufferSize, err = numberInt(*f.IOBufferSize, path+".ioBufferSize"); err != nil {
			return c, err
		}
		if c.IOBufferSize < 1 {
			// 0 is the Go default's sentinel; in a file the key says a size.
			return c, &WorkloadError{Path: path + ".ioBufferSize", Offset: -1, Err: fmt.Errorf("%d is less than 1", c.IOBufferSize)}
		}
	}
	if f.Drop != nil {
		c.Drop = make([]int64, len(f.Drop))
		for i, n := range f.Drop {
			if c.Drop[i], err = numberInt(n, fmt.Sprintf("%s.drop[%d]", path, i)); err != nil {
				return c, err
			}
		}
	}
	if f.Rewrite != nil {
		c.Rewrite = make([]CleanRewrite, len(f.Rewrite))
	}
	for i, rf := range f.Rewrite {
		at := fmt.Sprintf("%s.rewrite[%d]", path, i)
		r := &c.Rewrite[i]
		for _, field := range []struct {
			name     string
			n        *json.Number
			v        *int64
			has      *bool
			required bool
		}{
			{"baseOffset", rf.BaseOffset, &r.BaseOffset, nil, true},
			{"bytes", rf.Bytes, &r.Bytes, nil, true},
			{"maxTimestamp", rf.MaxTimestamp, &r.MaxTimestamp, &r.HasMaxTimestamp, false},
			{"deleteHorizonMs", rf.DeleteHorizonMs, &r.DeleteHorizonMs, &r.HasDeleteHorizon, false},
		} {
			if field.n == nil {
				if field.required {
					return c, &WorkloadError{Path: at + "." + field.name, Offset: -1, Err: errors.New("missing")}
				}
				continue
			}
			if *field.v, err = numberInt(*field.n, at+"."+field.name); err != nil {
				return c, err
			}
			if field.has != nil {
				*field.has = true
			}
		}
	}
	if err := c.Validate(); err != nil {
		var ce *CleanError
		if errors.As(err, &ce) {
			return c, &WorkloadError{Path: path + "." + ce.Field, Offset: -1, Err: ce.Err}
		}
		return c, &WorkloadError{Path: path, Offset: -1, Err: err}
	}
	return c, nil
}

func (f *batchFile) batch(path string) (Batch, error) {
	b := Batch{MaxTimestamp: NoTimestamp}
	if f.Records == nil {
		return b, &WorkloadError{Path: path + ".records", Offset: -1, Err: errors.New("missing")}
	}
	if f.Bytes == nil {
		return b, &WorkloadError{Path: path + ".bytes", Offset: -1, Err: errors.New("missing")}
	}
	var err error
	if b.Records, err = numberInt(*f.Records, path+".records"); err != nil {
		return b, err
	}
	if b.Bytes, err = numberInt(*f.Bytes, path+".bytes"); err != nil {
		return b, err
	}
	if f.MaxTimestamp != nil {
		if b.MaxTimestamp, err = numberInt(*f.MaxTimestamp, path+".maxTimestamp"); err != nil {
			return b, err
		}
	}
	if f.BaseOffset != nil {
		if b.BaseOffset, err = numberInt(*f.BaseOffset, path+".baseOffset"); err != nil {
			return b, err
		}
		if b.BaseOffset < 0 {
			return b, &WorkloadError{Path: path + ".baseOffset", Offset: -1, Err: fmt.Errorf("%d is negative", b.BaseOffset)}
		}
	}
	if f.Compressed != nil {
		b.Compressed = *f.Compressed
	}
	if f.Compression != nil {
		// CompressionType's names; "none" is an uncompressed batch, as no key is.
		switch c := *f.Compression; c {
		case "none":
		case "gzip", "snappy", "lz4", "zstd":
			b.Compression = c
		default:
			return b, &WorkloadError{Path: path + ".compression", Offset: -1, Err: fmt.Errorf("%q is no codec (want none, gzip, snappy, lz4 or zstd)", c)}
		}
		if f.Compressed != nil && *f.Compressed != (b.Compression != "") {
			return b, &WorkloadError{Path: path + ".compressed", Offset: -1, Err: fmt.Errorf("%v contradicts compression %q", *f.Compressed, *f.Compression)}
		}
		b.Compressed = b.Compression != ""
	}
	if f.Transactional != nil {
		b.Transactional = *f.Transactional
	}
	if f.Control != nil {
		switch c := *f.Control; c {
		case "commit", "abort":
			b.Control = c
		default:
			return b, &WorkloadError{Path: path + ".control", Offset: -1, Err: fmt.Errorf("%q is no end-transaction marker (want commit or abort)", c)}
		}
		if f.Transactional != nil && !*f.Transactional {
			return b, &WorkloadError{Path: path + ".transactional", Offset: -1, Err: errors.New("false, but a marker is transactional")}
		}
		if b.Records != 1 {
			return b, &WorkloadError{Path: path + ".records", Offset: -1, Err: fmt.Errorf("%d: a marker holds one control record", b.Records)}
		}
		b.Transactional = true
	}
	if f.ProducerID != nil {
		if b.ProducerID, err = numberInt(*f.ProducerID, path+".producerId"); err != nil {
			return b, err
		}
		if b.ProducerID < 0 {
			return b, &WorkloadError{Path: path + ".producerId", Offset: -1, Err: fmt.Errorf("%d is negative", b.ProducerID)}
		}
	}
	if f.Timestamps != nil && f.MaxTimestampDelta != nil {
		return b, &WorkloadError{Path: path, Offset: -1, Err: errors.New(`set either "timestamps" or "maxTimestampDelta", not both`)}
	}
	if f.Timestamps != nil {
		if int64(len(f.Timestamps)) != b.Records {
			return b, &WorkloadError{Path: path + ".timestamps", Offset: -1,
				Err: fmt.Errorf("%s for %s: give one per record, in offset order", english.Plural(int64(len(f.Timestamps)), "timestamp"), english.Plural(b.Records, "record"))}
		}
		maxTs, at := int64(NoTimestamp), -1
		for i, n := range f.Timestamps {
			ts, err := numberInt(n, fmt.Sprintf("%s.timestamps[%d]", path, i))
			if err != nil {
				return b, err
			}
			if ts < NoTimestamp {
				return b, &WorkloadError{Path: fmt.Sprintf("%s.timestamps[%d]", path, i), Offset: -1, Err: fmt.Errorf("%d is below -1 (NO_TIMESTAMP)", ts)}
			}
			// LogValidator: strict >, so the first record holding the max is named.
			if ts > maxTs {
				maxTs, at = ts, i
			}
		}
		if f.MaxTimestamp != nil && b.MaxTimestamp != maxTs {
			return b, &WorkloadError{Path: path + ".maxTimestamp", Offset: -1,
				Err: fmt.Errorf("%d is not the largest of the batch's timestamps (%d)", b.MaxTimestamp, maxTs)}
		}
		b.MaxTimestamp = maxTs
		if at >= 0 {
			b.MaxTimestampDelta, b.HasMaxTimestampDelta = int32(at), true
		}
	}
	if f.MaxTimestampDelta != nil {
		d, err := numberInt(*f.MaxTimestampDelta, path+".maxTimestampDelta")
		if err != nil {
			return b, err
		}
		if d < 0 || d >= b.Records {
			return b, &WorkloadError{Path: path + ".maxTimestampDelta", Offset: -1,
				Err: fmt.Errorf("%d is not the offset delta of one of the batch's %d offsets", d, b.Records)}
		}
		b.MaxTimestampDelta, b.HasMaxTimestampDelta = int32(d), true
	}
	if f.Magic != nil {
		m, err := numberInt(*f.Magic, path+".magic")
		if err != nil {
			return b, err
		}
		switch m {
		case 0:
			b.Legacy = Magic0
		case 1:
			b.Legacy = Magic1
		case 2:
		default:
			return b, &WorkloadError{Path: path + ".magic", Offset: -1, Err: fmt.Errorf("%d is no message format (want 0, 1 or 2)", m)}
		}
	}
	if err := b.Validate(); err != nil {
		var be *BatchError
		if errors.As(err, &be) {
			return b, &WorkloadError{Path: path + "." + be.Field, Offset: -1, Err: be.Err}
		}
		return b, &WorkloadError{Path: path, Offset: -1, Err: err}
	}
	return b, nil
}

// locateDecodeError decodes the file again with its steps and batches left raw and decodes
// each one alone, so that a type error or an unknown key is reported with its path (the
// one-pass decoder only knows the field name). A syntax error already has its byte.
func locateDecodeError(data []byte, first error) error {
	var syn *json.SyntaxError
	if errors.As(first, &syn) || errors.Is(first, io.ErrUnexpectedEOF) || errors.Is(first, io.EOF) {
		return jsonError(first, "")
	}
	var werr *WorkloadError
	if errors.As(first, &werr) { // trailing data
		return first
	}
	var raw workloadRaw
	if err := decodeStrict(data, &raw); err != nil {
		return jsonError(err, "")
	}
	for name, v := range raw.Config {
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return &WorkloadError{Path: "config." + name, Offset: -1, Err: fmt.Errorf("%s is not a number", bytes.TrimSpace(v))}
		}
	}
	if raw.StartOffset != nil {
		var n json.Number
		if err := json.Unmarshal(*raw.StartOffset, &n); err != nil {
			return &WorkloadError{Path: "startOffset", Offset: -1, Err: fmt.Errorf("%s is not a number", printsafe.Excerpt(string(bytes.TrimSpace(*raw.StartOffset))))}
		}
	}
	// numbers decodes one object whose fields are numbers (a batch, a crash segment).
	numbers := func(data []byte, f any, path string) error {
		err := decodeStrictAt(data, f, path)
		if err != nil && strings.Contains(err.Error(), "invalid number literal") {
			// A json.Number field given a string: the decoder does not say which field.
			var fields map[string]json.RawMessage
			if json.Unmarshal(data, &fields) == nil {
				for name, v := range fields {
					var n json.Number
					if v := bytes.TrimSpace(v); len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &n) != nil {
						return &WorkloadError{Path: path + "." + name, Offset: -1, Err: fmt.Errorf("expected a number, found the string %s", printsafe.Excerpt(string(v)))}
					}
				}
			}
		}
		return err
	}
	batch := func(data []byte, path string) error { return numbers(data, &batchFile{}, path) }
	for i, rb := range raw.Batches {
		if err := batch(rb, fmt.Sprintf("batches[%d]", i)); err != nil {
			return err
		}
	}
	for i, rs := range raw.Steps {
		path := fmt.Sprintf("steps[%d]", i)
		var st stepRaw
		if err := decodeStrictAt(rs, &st, path); err != nil {
			return err
		}
		for j, rb := range st.Append {
			if err := batch(rb, fmt.Sprintf("%s.append[%d]", path, j)); err != nil {
				return err
			}
		}
		if st.RecoveryPoint != nil {
			var n json.Number
			if err := json.Unmarshal(*st.RecoveryPoint, &n); err != nil {
				return &WorkloadError{Path: path + ".recoveryPoint", Offset: -1, Err: fmt.Errorf("%s is not a number", printsafe.Excerpt(string(bytes.TrimSpace(*st.RecoveryPoint))))}
			}
		}
		if st.Crash != nil {
			var c crashRaw
			if err := decodeStrictAt(*st.Crash, &c, path+".crash"); err != nil {
				return err
			}
			if c.RecoveryPoint != nil {
				var n json.Number
				if err := json.Unmarshal(*c.RecoveryPoint, &n); err != nil {
					return &WorkloadError{Path: path + ".crash.recoveryPoint", Offset: -1, Err: fmt.Errorf("%s is not a number", bytes.TrimSpace(*c.RecoveryPoint))}
				}
			}
			for j, rs := range c.Segments {
				if err := numbers(rs, &crashSegmentFile{}, fmt.Sprintf("%s.crash.segments[%d]", path, j)); err != nil {
					return err
				}
			}
		}
		if st.Clean != nil {
			var c cleanRaw
			if err := decodeStrictAt(*st.Clean, &c, path+".clean"); err != nil {
				return err
			}
			for j, rd := range c.Drop {
				var n json.Number
				if err := json.Unmarshal(rd, &n); err != nil {
					return &WorkloadError{Path: fmt.Sprintf("%s.clean.drop[%d]", path, j), Offset: -1, Err: fmt.Errorf("expected a base offset, found %s", printsafe.Excerpt(string(bytes.TrimSpace(rd))))}
				}
			}
			if c.UncleanableOffset != nil {
				var n json.Number
				if err := json.Unmarshal(*c.UncleanableOffset, &n); err != nil {
					return &WorkloadError{Path: path + ".clean.uncleanableOffset", Offset: -1, Err: fmt.Errorf("%s is not a number", printsafe.Excerpt(string(bytes.TrimSpace(*c.UncleanableOffset))))}
				}
			}
			if c.IOBufferSize != nil {
				var n json.Number
				if err := json.Unmarshal(*c.IOBufferSize, &n); err != nil {
					return &WorkloadError{Path: path + ".clean.ioBufferSize", Offset: -1, Err: fmt.Errorf("%s is not a number", printsafe.Excerpt(string(bytes.TrimSpace(*c.IOBufferSize))))}
				}
			}
			for j, rr := range c.Rewrite {
				if err := numbers(rr, &cleanRewriteFile{}, fmt.Sprintf("%s.clean.rewrite[%d]", path, j)); err != nil {
					return err
				}
			}
		}
	}
	return jsonError(first, "")
}

// A BatchError names the invalid field of a Batch.
type BatchError struct {
	Field string
	Err   error
}

func (e *BatchError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *BatchError) Unwrap() error { return e.Err }

// Validate checks what Kafka's v2 format allows: at least one record (RecordsCount is an
// int32 and lastOffsetDelta = records-1), and a sizeInBytes between the 61-byte batch
// overhead and the int32 limit of the Length field.
func (b Batch) Validate() error {
	switch {
	case b.Records < 1:
		return &BatchError{"records", fmt.Errorf("%d is less than 1", b.Records)}
	case b.Records > math.MaxInt32:
		return &BatchError{"records", fmt.Errorf("%d does not fit the batch's int32 record count", b.Records)}
	case b.Bytes < 0:
		return &BatchError{"bytes", fmt.Errorf("%d is negative", b.Bytes)}
	case b.Legacy == Magic0 && b.Bytes < MinLegacyV0Bytes:
		return &BatchError{"bytes", fmt.Errorf("%d is less than %d, the smallest magic-0 message (LegacyRecord.RECORD_OVERHEAD_V0 + 12)", b.Bytes, MinLegacyV0Bytes)}
	case b.Legacy == Magic1 && b.Bytes < MinLegacyV1Bytes:
		return &BatchError{"bytes", fmt.Errorf("%d is less than %d, the smallest magic-1 message (LegacyRecord.RECORD_OVERHEAD_V1 + 12)", b.Bytes, MinLegacyV1Bytes)}
	case b.Legacy == NotLegacy && b.Bytes < RecordBatchOverhead:
		return &BatchError{"bytes", fmt.Errorf("%d is less than %d, the size of a v2 batch header (RECORD_BATCH_OVERHEAD)",
			b.Bytes, RecordBatchOverhead)}
	case b.Bytes > math.MaxInt32:
		return &BatchError{"bytes", fmt.Errorf("%d does not fit the batch's int32 length", b.Bytes)}
	case b.MaxTimestamp < NoTimestamp:
		return &BatchError{"maxTimestamp", fmt.Errorf("%d is below -1 (NO_TIMESTAMP)", b.MaxTimestamp)}
	}
	return nil
}

func numberInt(n json.Number, path string) (int64, error) {
	v, err := n.Int64()
	if err != nil {
		return 0, &WorkloadError{Path: path, Offset: -1, Err: fmt.Errorf("%s is not an integer", n)}
	}
	return v, nil
}

// decodeStrict decodes the one JSON object of a file, refusing unknown keys and trailing
// data (a *WorkloadError with its byte). Decoder errors are returned as they are.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return &WorkloadError{Offset: dec.InputOffset(), Err: errors.New("trailing data after the workload object")}
	}
	return nil
}

func decodeStrictAt(data []byte, v any, path string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, path)
	}
	return nil
}

func jsonError(err error, path string) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// SyntaxError.Offset counts the bytes read, the offending one included: report its
		// 0-based position.
		return &WorkloadError{Path: path, Offset: max(syn.Offset-1, 0), Err: err}
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		// In words, never a Go type name (issue 11, defect 5).
		var we *jsonwords.Error
		if errors.As(jsonwords.Describe(err, path), &we) {
			if we.Path == "" {
				return &WorkloadError{Offset: -1, Err: fmt.Errorf(`a workload is a JSON object ({"batches": [...]} or {"steps": [...]}), not %s`, jsonwords.Found(typ.Value))}
			}
			return &WorkloadError{Path: we.Path, Offset: -1, Err: errors.New(we.Msg)}
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &WorkloadError{Path: path, Offset: -1, Err: errors.New("the JSON ends before the workload does (an empty or truncated file?)")}
	}
	var we *jsonwords.Error
	if errors.As(jsonwords.Describe(err, path), &we) {
		return &WorkloadError{Path: we.Path, Offset: -1, Err: errors.New(we.Msg)}
	}
	return &WorkloadError{Path: path, Offset: -1, Err: err}
}

// MarshalJSON writes the docs/contract.md §3 form: "batches" when every step is one single-batch
// append (and the workload came in that form), "steps" otherwise. Timestamps of -1 are
// omitted (the default). An empty workload keeps its empty list, so it parses back.
func (w Workload) MarshalJSON() ([]byte, error) {
	type batchOut struct {
		Records           int64  `json:"records"`
		Bytes             int64  `json:"bytes"`
		MaxTimestamp      *int64 `json:"maxTimestamp,omitempty"`
		Magic             *int8  `json:"magic,omitempty"`
		BaseOffset        *int64 `json:"baseOffset,omitempty"`
		MaxTimestampDelta *int32 `json:"maxTimestampDelta,omitempty"`
		Compressed        bool   `json:"compressed,omitempty"`
		Compression       string `json:"compression,omitempty"`
		Transactional     bool   `json:"transactional,omitempty"`
		Control           string `json:"control,omitempty"`
		ProducerID        int64  `json:"producerId,omitempty"`
	}
	type head struct {
		Config       map[string]int64 `json:"config,omitempty"`
		Rule         string           `json:"rule,omitempty"`
		KafkaVersion string           `json:"kafkaVersion,omitempty"`
		StartOffset  int64            `json:"startOffset"`
	}
	conv := func(b Batch) batchOut {
		o := batchOut{Records: b.Records, Bytes: b.Bytes, Compressed: b.Compressed && b.Compression == "", Compression: b.Compression,
			Transactional: b.Transactional && b.Control == "", Control: b.Control, ProducerID: b.ProducerID}
		if b.BaseOffset > 0 {
			base := b.BaseOffset
			o.BaseOffset = &base
		}
		if b.HasMaxTimestampDelta {
			d := b.MaxTimestampDelta
			o.MaxTimestampDelta = &d
		}
		if b.MaxTimestamp != NoTimestamp {
			ts := b.MaxTimestamp
			o.MaxTimestamp = &ts
		}
		if b.Legacy != NotLegacy {
			m := int8(b.Legacy) - 1
			o.Magic = &m
		}
		return o
	}
	h := head{Config: w.Config, Rule: w.Rule, KafkaVersion: w.KafkaVersion, StartOffset: w.StartOffset}
	single := w.SingleBatch && w.Replicas == nil
	for _, s := range w.Steps {
		if len(s.Append) != 1 || s.Origin != OriginLeader {
			single = false
		}
	}
	if single {
		batches := make([]batchOut, 0, len(w.Steps))
		for _, s := range w.Steps {
			batches = append(batches, conv(s.Append[0]))
		}
		return json.Marshal(struct {
			head
			Batches []batchOut `json:"batches"`
		}{h, batches})
	}
	type crashSegmentOut struct {
		BaseOffset     int64 `json:"baseOffset"`
		LogBytes       int64 `json:"logBytes"`
		IndexBytes     int64 `json:"indexBytes"`
		TimeIndexBytes int64 `json:"timeIndexBytes"`
	}
	type crashOut struct {
		RecoveryPoint int64             `json:"recoveryPoint"`
		Segments      []crashSegmentOut `json:"segments"`
	}
	steps := make([]map[string]any, 0, len(w.Steps))
	for _, s := range w.Steps {
		switch {
		case s.Crash != nil:
			c := crashOut{RecoveryPoint: s.Crash.RecoveryPoint, Segments: make([]crashSegmentOut, len(s.Crash.Segments))}
			for i, cs := range s.Crash.Segments {
				c.Segments[i] = crashSegmentOut(cs)
			}
			steps = append(steps, map[string]any{"crash": c})
		case s.Restart:
			steps = append(steps, withReplica(map[string]any{"restart": true}, s))
		case s.Clean != nil:
			steps = append(steps, map[string]any{"clean": cleanOut(*s.Clean)})
		case s.Recover:
			st := map[string]any{"recover": true}
			if s.HasRecoveryPoint {
				st["recoveryPoint"] = s.RecoveryPoint
			}
			steps = append(steps, withReplica(st, s))
		case s.Roll:
			st := map[string]any{"roll": true}
			if s.RollBaseOffset > 0 {
				st["baseOffset"] = s.RollBaseOffset
			}
			steps = append(steps, withReplica(st, s))
		case s.Fetch:
			st := map[string]any{"fetch": s.Replica}
			if s.FetchMaxBytes > 0 {
				st["maxBytes"] = s.FetchMaxBytes
			}
			steps = append(steps, st)
		case s.Elect:
			steps = append(steps, map[string]any{"elect": s.Replica})
		default:
			bs := make([]batchOut, len(s.Append))
			for i, b := range s.Append {
				bs[i] = conv(b)
			}
			st := map[string]any{"append": bs}
			if s.Origin != OriginLeader {
				st["origin"] = s.Origin.String()
			}
			steps = append(steps, st)
		}
	}
	return json.Marshal(struct {
		head
		Replicas *ReplicaSpec     `json:"replicas,omitempty"`
		Steps    []map[string]any `json:"steps"`
	}{h, w.Replicas, steps})
}

// cleanOut is a clean step in its docs/contract.md §3 form: only the keys it sets.
func cleanOut(c Clean) map[string]any {
	out := map[string]any{}
	if c.HasUncleanableOffset {
		out["uncleanableOffset"] = c.UncleanableOffset
	}
	if c.Drop != nil {
		out["drop"] = c.Drop
	}
	if c.Rewrite != nil {
		rs := make([]map[string]any, len(c.Rewrite))
		for i, r := range c.Rewrite {
			rm := map[string]any{"baseOffset": r.BaseOffset, "bytes": r.Bytes}
			if r.HasMaxTimestamp {
				rm["maxTimestamp"] = r.MaxTimestamp
			}
			if r.HasDeleteHorizon {
				rm["deleteHorizonMs"] = r.DeleteHorizonMs
			}
			rs[i] = rm
		}
		out["rewrite"] = rs
	}
	if c.IOBufferSize != 0 {
		out["ioBufferSize"] = c.IOBufferSize
	}
	return out
}
