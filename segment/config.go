package segment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"kidx/internal/jsonwords"
)

// Config holds the topic configs the file-backed log obeys, under Kafka's
// key names (LogConfig).
type Config struct {
	IndexIntervalBytes int64 // index.interval.bytes, default 4096, >= 0
	SegmentBytes       int64 // segment.bytes, default 1073741824, >= 14
	SegmentIndexBytes  int64 // segment.index.bytes, default 10485760; < 12 fails like AbstractIndex's "Invalid max index size"
	// SegmentMs is segment.ms (default 604800000) for time-based rolls, judged on the
	// batches' timestamps as LogSegment.timeWaitedForRoll does (there is no wall clock
	// here). 0 turns time-based rolling off, as in the golden vectors' runs.
	SegmentMs int64
	// FlushMessages is flush.messages: after an append that leaves at least this many
	// messages unflushed (log end - recovery point), the log is flushed and the recovery
	// point moves to its end (UnifiedLog.append). 0 means never, Kafka's default
	// (Long.MAX_VALUE).
	FlushMessages int64
	// MaxMessageBytes is max.message.bytes (default 1048588). Only the cleaner reads it: it
	// stands for both the log's maxMessageSize and the cleaner's maxIoBufferSize (the broker's
	// message.max.bytes, same default), the bound its read buffer grows to for one batch
	// (Cleaner.growBuffersOrFail). 0 is a value Kafka accepts: the buffer then grows to the
	// batch's own size.
	MaxMessageBytes int64
	// Candidate is a proposed patch of the append and roll rules (candidate.go); zero: Kafka.
	Candidate Candidate
}

// Config key names.
const (
	KeyIndexIntervalBytes = "index.interval.bytes"
	KeySegmentBytes       = "segment.bytes"
	KeySegmentIndexBytes  = "segment.index.bytes"
	KeySegmentMs          = "segment.ms"
	KeyFlushMessages      = "flush.messages"
	KeyMaxMessageBytes    = "max.message.bytes"
)

// DefaultMaxMessageBytes is max.message.bytes's default: 1 MiB + the 12-byte log overhead.
const DefaultMaxMessageBytes = 1024*1024 + 12

// DefaultConfig is Kafka's defaults.
func DefaultConfig() Config {
	return Config{IndexIntervalBytes: 4096, SegmentBytes: 1073741824, SegmentIndexBytes: 10485760, SegmentMs: 604800000, MaxMessageBytes: DefaultMaxMessageBytes}
}

// Validate checks the ranges Kafka enforces (LogConfig validators, and
// AbstractIndex.createAndAssignMmap for index sizes below one time-index entry).
func (c Config) Validate() error {
	switch {
	case c.IndexIntervalBytes < 0 || c.IndexIntervalBytes > 1<<31-1:
		return fmt.Errorf("%s=%d: must be in [0, 2147483647]", KeyIndexIntervalBytes, c.IndexIntervalBytes)
	case c.SegmentBytes < 14 || c.SegmentBytes > 1<<31-1:
		return fmt.Errorf("%s=%d: must be in [14, 2147483647]", KeySegmentBytes, c.SegmentBytes)
	case c.SegmentIndexBytes < TimeIndexEntrySize || c.SegmentIndexBytes > 1<<31-1:
		return fmt.Errorf("%s=%d: Invalid max index size (below one %d-byte time-index entry)", KeySegmentIndexBytes, c.SegmentIndexBytes, TimeIndexEntrySize)
	case c.SegmentMs < 0:
		return fmt.Errorf("%s=%d: must be >= 1 (or 0: time-based rolling off)", KeySegmentMs, c.SegmentMs)
	case c.FlushMessages < 0:
		return fmt.Errorf("%s=%d: must be >= 1 (or 0: never)", KeyFlushMessages, c.FlushMessages)
	case c.MaxMessageBytes < 0 || c.MaxMessageBytes > 1<<31-1:
		return fmt.Errorf("%s=%d: must be in [0, 2147483647]", KeyMaxMessageBytes, c.MaxMessageBytes)
	}
	return nil
}

// Set assigns a config by Kafka key name. A key kidx knows but the segment writer does not
// use (segment.jitter.ms) is accepted and ignored.
func (c *Config) Set(key string, v int64) error {
	switch key {
	case KeyIndexIntervalBytes:
		c.IndexIntervalBytes = v
	case KeySegmentBytes:
		c.SegmentBytes = v
	case KeySegmentIndexBytes:
		c.SegmentIndexBytes = v
	case KeySegmentMs:
		c.SegmentMs = v
	case KeyFlushMessages:
		if v < 1 {
			return fmt.Errorf("%s=%d: must be >= 1", KeyFlushMessages, v)
		}
		if v == math.MaxInt64 {
			v = 0 // Kafka's default: never
		}
		c.FlushMessages = v
	case KeyMaxMessageBytes:
		c.MaxMessageBytes = v
	case "segment.jitter.ms":
	default:
		return fmt.Errorf("unknown config key %q", key)
	}
	return nil
}

// Rule is the append rule of LogSegment.append.
type Rule int

// The two rules.
const (
	// PerBatch is KAFKA-806 (3.9.1+, 4.0.1+, 4.1.0+): one index check per
	// batch, entry = the batch's last offset at the batch's position.
	PerBatch Rule = iota
	// PerAppend is the older rule (<= 3.8.x, 3.9.0, 4.0.0): one check per
	// append, entry = last offset of the append at the append's start.
	PerAppend
)

func (r Rule) String() string {
	if r == PerAppend {
		return "per-append"
	}
	return "per-batch"
}

// ParseRule accepts "per-batch" and "per-append".
func ParseRule(s string) (Rule, error) {
	switch s {
	case "per-batch", "":
		return PerBatch, nil
	case "per-append":
		return PerAppend, nil
	}
	return PerBatch, fmt.Errorf("unknown rule %q (want per-batch or per-append)", s)
}

// BatchSpec is a batch of the workload file (docs/contract.md §3): a record count, the
// sizeInBytes on disk and the max timestamp (-1 when absent), and the codec its records are
// compressed with ("compression"; CompressionNone, the zero value, writes them uncompressed).
type BatchSpec struct {
	Records      int         `json:"records"`
	Bytes        int         `json:"bytes"`
	MaxTimestamp int64       `json:"maxTimestamp"`
	Compression  Compression `json:"compression,omitempty"`
	// Transactional marks a transactional producer's batch, Control ("commit") an
	// end-transaction marker; ProducerID is their producer (0: DefaultTransactionalProducerID).
	Transactional bool   `json:"transactional,omitempty"`
	Control       string `json:"control,omitempty"`
	ProducerID    int64  `json:"producerId,omitempty"`
	// BaseOffset, when past the log end, is the batch's first offset: the offsets before it
	// are a gap (a compacted log). 0, or an offset the log has passed, is the log end.
	BaseOffset int64 `json:"baseOffset,omitempty"`
}

// Step is one workload step: exactly one of Append, Restart, Recover, Crash, Clean, Roll,
// Fetch, Elect. Fetch, Elect, MaxBytes and Replica belong to a replicated workload (docs/contract.md
// §3.1).
type Step struct {
	Append  []BatchSpec
	Restart bool // clean close of the active segment and reopen (counter 0)
	Recover bool // unclean restart: LogSegment.recover of the active segment
	// RecoveryPoint, when HasRecoveryPoint, makes a Recover step recover every segment from
	// the one holding it (Log.RecoverFrom), as LogLoader does past the recovery-point checkpoint.
	RecoveryPoint    int64
	HasRecoveryPoint bool
	Crash            *CrashSpec // a crash, then the broker's reload (crash.go)
	// Clean is one pass of the log cleaner (clean.go; docs/contract.md §3 "clean").
	Clean *CleanSpec
	// Roll is a forced roll (an operator's or the cleaner's): parsed so that the refusal names
	// it; the writer rolls only by Kafka's own rules and refuses it (Workload.Validate).
	Roll bool
	// Fetch is one fetch by follower Replica from the current leader
	// (ReplicaFetcherThread → UnifiedLog.appendAsFollower); MaxBytes bounds it (0: the
	// workload's replica.fetch.max.bytes; a file's "maxBytes": 0 is kept as 1, which fetches
	// the same single batch).
	Fetch    bool
	MaxBytes int64
	// Elect moves leadership to Replica.
	Elect bool
	// Replica is the replica a Restart, Recover, Roll, Fetch or Elect applies to in a
	// replicated workload; LeaderReplica (the parser's default for restart, recover and
	// roll) is the current leader. Appends always go to the current leader.
	Replica int
}

// LeaderReplica is Step.Replica's "the current leader".
const LeaderReplica = -1

// ReplicaSpec is a workload's "replicas" (docs/contract.md §3.1): Count replicas
// numbered 0..Count-1, replica 0 the first leader, all on the workload's config and rule.
type ReplicaSpec struct {
	Count int
	// FetchMaxBytes is replica.fetch.max.bytes (ReplicaFetchMaxBytes, default 1048576): the
	// most a follower's fetch takes from the partition, whole batches, at least one.
	FetchMaxBytes int64
	// StartOffsets holds each replica's log start (its first segment's base offset), one per
	// replica; replica 0's is the workload's StartOffset.
	StartOffsets []int64
}

// Replica counts and the fetch size a replicated workload may give.
const (
	MinReplicas = 2
	MaxReplicas = 8
	// DefaultReplicaFetchMaxBytes is replica.fetch.max.bytes's default (1 MiB).
	DefaultReplicaFetchMaxBytes = 1 << 20
)

// Workload is a parsed workload file (docs/contract.md §3).
type Workload struct {
	Config      Config
	Rule        Rule
	StartOffset int64
	Steps       []Step
	// KafkaVersion is the file's "kafkaVersion", kept as written: package segment knows two
	// rules, not releases; the caller (kidx write) resolves a release to its rule.
	KafkaVersion string
	// Replicas is nil for a single log.
	Replicas *ReplicaSpec
}

// decodeStrict decodes one JSON document, refusing unknown keys; its errors say in words
// where and what was wrong, never a Go type name (issue 11, defect 5).
func decodeStrict(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	return jsonwords.Describe(d.Decode(v), "")
}

type wireBatch struct {
	Records      *int   `json:"records"`
	Bytes        *int   `json:"bytes"`
	MaxTimestamp *int64 `json:"maxTimestamp"`
	Magic        *int   `json:"magic"`
	// Compressed is the model's (docs/contract.md §3): read so that the refusal says what
	// the writer cannot write, rather than naming an unknown key. BaseOffset makes a gap.
	Compressed *bool  `json:"compressed"`
	BaseOffset *int64 `json:"baseOffset"`
	// Compression names the codec (docs/contract.md §3): "none", "gzip", "snappy", "lz4",
	// "zstd".
	Compression *string `json:"compression"`
	// Transactional, Control and ProducerID are a transactional producer's batch and its
	// end-transaction marker (docs/contract.md §3).
	Transactional *bool   `json:"transactional"`
	Control       *string `json:"control"`
	ProducerID    *int64  `json:"producerId"`
}

func (w wireBatch) spec(where string) (BatchSpec, error) {
	if w.Records == nil || w.Bytes == nil {
		return BatchSpec{}, fmt.Errorf("%s: a batch needs \"records\" and \"bytes\"", where)
	}
	if w.Magic != nil && *w.Magic != 2 {
		return BatchSpec{}, fmt.Errorf("%s: magic %d: the file writer writes v2 batches only (a legacy replay runs in the model: kidx sim, kidx whatif)", where, *w.Magic)
	}
	c := CompressionNone
	if w.Compression != nil {
		var err error
		if c, err = ParseCompression(*w.Compression); err != nil {
			return BatchSpec{}, fmt.Errorf("%s: %v", where, err)
		}
	}
	if w.Compressed != nil && *w.Compressed != (c != CompressionNone) {
		if w.Compression == nil {
			return BatchSpec{}, fmt.Errorf("%s: compressed: name the codec the file writer is to compress with (\"compression\": \"gzip\", \"snappy\", \"lz4\" or \"zstd\")", where)
		}
		return BatchSpec{}, fmt.Errorf("%s: compressed %v contradicts compression %q", where, *w.Compressed, *w.Compression)
	}
	b := BatchSpec{Records: *w.Records, Bytes: *w.Bytes, MaxTimestamp: NoTimestamp, Compression: c}
	if w.BaseOffset != nil {
		if *w.BaseOffset < 0 {
			return b, fmt.Errorf("%s: baseOffset %d is negative", where, *w.BaseOffset)
		}
		b.BaseOffset = *w.BaseOffset
	}
	if w.Transactional != nil {
		b.Transactional = *w.Transactional
	}
	if w.Control != nil {
		if w.Transactional != nil && !*w.Transactional {
			return b, fmt.Errorf("%s: transactional false, but a marker is transactional", where)
		}
		b.Control, b.Transactional = *w.Control, true
	}
	if w.ProducerID != nil {
		b.ProducerID = *w.ProducerID
	}
	if err := b.checkTransactional(); err != nil {
		return b, fmt.Errorf("%s: %v", where, err)
	}
	if w.MaxTimestamp != nil {
		b.MaxTimestamp = *w.MaxTimestamp
	}
	if b.Records < 0 || b.Bytes < RecordBatchOverhead {
		return b, fmt.Errorf("%s: records %d / bytes %d: a v2 batch is at least 61 bytes", where, b.Records, b.Bytes)
	}
	return b, nil
}

// ParseWorkload parses a workload file. Missing config keys take Kafka's
// defaults; "batches" means one single-batch append each. A "replicas" key makes it a
// replicated workload (docs/contract.md §3.1), checked here as far as the steps
// alone tell: replica numbers, fetches by the leader of the moment, refused keys.
func ParseWorkload(data []byte) (*Workload, error) {
	var wire struct {
		Config       map[string]int64 `json:"config"`
		Rule         string           `json:"rule"`
		KafkaVersion string           `json:"kafkaVersion"`
		StartOffset  int64            `json:"startOffset"`
		Replicas     *wireReplicas    `json:"replicas"`
		Batches      []wireBatch      `json:"batches"`
		Steps        []wireStep       `json:"steps"`
	}
	if err := decodeStrict(data, &wire); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	w := &Workload{Config: DefaultConfig(), StartOffset: wire.StartOffset, KafkaVersion: wire.KafkaVersion}
	keys := make([]string, 0, len(wire.Config))
	for k := range wire.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := w.Config.Set(k, wire.Config[k]); err != nil {
			return nil, fmt.Errorf("workload config: %w", err)
		}
	}
	var err error
	if w.Rule, err = ParseRule(wire.Rule); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	if wire.Rule != "" && wire.KafkaVersion != "" {
		// Both pick the rule (a release is a rule): the model's parser refuses the pair too.
		return nil, fmt.Errorf("workload: set either \"rule\" or \"kafkaVersion\", not both")
	}
	if wire.Batches != nil && wire.Steps != nil {
		return nil, fmt.Errorf("workload: both \"batches\" and \"steps\"")
	}
	if wire.Replicas != nil {
		if wire.Steps == nil {
			return nil, fmt.Errorf("workload: a replicated workload (\"replicas\") is written as \"steps\" (appends, fetches, restarts, elections), not \"batches\"")
		}
		if w.Replicas, err = wire.Replicas.spec(w.StartOffset); err != nil {
			return nil, err
		}
	}
	for i, b := range wire.Batches {
		s, err := b.spec(fmt.Sprintf("workload batches[%d]", i))
		if err != nil {
			return nil, err
		}
		w.Steps = append(w.Steps, Step{Append: []BatchSpec{s}, Replica: LeaderReplica})
	}
	leader := 0 // the leader of the moment, followed through the elections
	for i, st := range wire.Steps {
		s, err := st.step(fmt.Sprintf("workload steps[%d]", i), w.Replicas, leader)
		if err != nil {
			return nil, err
		}
		if s.Elect {
			leader = s.Replica
		}
		w.Steps = append(w.Steps, s)
	}
	return w, w.Config.Validate()
}

// wireReplicas is the "replicas" object.
type wireReplicas struct {
	Count         *int    `json:"count"`
	FetchMaxBytes *int64  `json:"fetchMaxBytes"`
	StartOffsets  []int64 `json:"startOffsets"`
}

func (r *wireReplicas) spec(startOffset int64) (*ReplicaSpec, error) {
	if r.Count == nil {
		return nil, fmt.Errorf("workload replicas: \"count\" is missing (%d to %d replicas)", MinReplicas, MaxReplicas)
	}
	if *r.Count < MinReplicas || *r.Count > MaxReplicas {
		return nil, fmt.Errorf("workload replicas.count: %d is outside [%d, %d]", *r.Count, MinReplicas, MaxReplicas)
	}
	spec := &ReplicaSpec{Count: *r.Count, FetchMaxBytes: DefaultReplicaFetchMaxBytes}
	if r.FetchMaxBytes != nil {
		// replica.fetch.max.bytes is an int at least 0 (KafkaConfig); a fetch still returns
		// its first batch whatever the bound (minOneMessage).
		if *r.FetchMaxBytes < 0 || *r.FetchMaxBytes > math.MaxInt32 {
			return nil, fmt.Errorf("workload replicas.fetchMaxBytes: %d is outside [0, %d] (replica.fetch.max.bytes)", *r.FetchMaxBytes, math.MaxInt32)
		}
		spec.FetchMaxBytes = *r.FetchMaxBytes
	}
	switch {
	case r.StartOffsets == nil:
		for range spec.Count {
			spec.StartOffsets = append(spec.StartOffsets, startOffset)
		}
	case len(r.StartOffsets) != spec.Count:
		return nil, fmt.Errorf("workload replicas.startOffsets: %d offsets for %d replicas (one per replica)", len(r.StartOffsets), spec.Count)
	default:
		for i, o := range r.StartOffsets {
			if o < 0 {
				return nil, fmt.Errorf("workload replicas.startOffsets[%d]: %d is negative", i, o)
			}
		}
		if r.StartOffsets[0] != startOffset {
			return nil, fmt.Errorf("workload replicas.startOffsets[0]: %d, but replica 0 is the first leader and its log starts at the workload's startOffset %d", r.StartOffsets[0], startOffset)
		}
		spec.StartOffsets = append([]int64(nil), r.StartOffsets...)
	}
	return spec, nil
}

// wireStep is one element of "steps".
type wireStep struct {
	Append  []wireBatch `json:"append"`
	Restart bool        `json:"restart"`
	Recover bool        `json:"recover"`
	// RecoveryPoint is a recover step's recovery point (docs/contract.md §3 "recover").
	RecoveryPoint *int64     `json:"recoveryPoint"`
	Crash         *wireCrash `json:"crash"`
	Clean         *wireClean `json:"clean"`
	Roll          bool       `json:"roll"`
	Fetch         *int       `json:"fetch"`
	MaxBytes      *int64     `json:"maxBytes"`
	Elect         *int       `json:"elect"`
	Replica       *int       `json:"replica"`
}

// step checks one step; reps is nil in a single-log workload, leader the replica leading
// when the step runs.
func (st wireStep) step(where string, reps *ReplicaSpec, leader int) (Step, error) {
	n := 0
	for _, given := range []bool{st.Append != nil, st.Restart, st.Recover, st.Crash != nil, st.Clean != nil, st.Roll, st.Fetch != nil, st.Elect != nil} {
		if given {
			n++
		}
	}
	if n != 1 {
		if reps != nil {
			return Step{}, fmt.Errorf("%s: need exactly one of append, fetch, restart, recover, roll, elect", where)
		}
		return Step{}, fmt.Errorf("%s: need exactly one of append, restart, recover, crash, clean", where)
	}
	s := Step{Restart: st.Restart, Recover: st.Recover, Roll: st.Roll, Fetch: st.Fetch != nil, Elect: st.Elect != nil, Replica: LeaderReplica}
	if st.RecoveryPoint != nil {
		switch {
		case !st.Recover:
			return Step{}, fmt.Errorf("%s: \"recoveryPoint\" belongs to a recover step", where)
		case reps != nil:
			return Step{}, fmt.Errorf("%s: a recover step with a recovery point in a replicated workload is not modelled (one replica's recover step is)", where)
		case *st.RecoveryPoint < 0:
			return Step{}, fmt.Errorf("%s.recoveryPoint: %d is negative", where, *st.RecoveryPoint)
		}
		s.RecoveryPoint, s.HasRecoveryPoint = *st.RecoveryPoint, true
	}
	if reps == nil {
		for _, k := range []struct {
			key   string
			given bool
		}{{"fetch", st.Fetch != nil}, {"maxBytes", st.MaxBytes != nil}, {"elect", st.Elect != nil}, {"replica", st.Replica != nil}} {
			if k.given {
				return Step{}, fmt.Errorf("%s: %q belongs to a replicated workload, and this one has no \"replicas\"", where, k.key)
			}
		}
	} else {
		replica := func(key string, r int) error {
			if r < 0 || r >= reps.Count {
				return fmt.Errorf("%s.%s: replica %d does not exist (replicas 0 to %d)", where, key, r, reps.Count-1)
			}
			return nil
		}
		switch {
		case st.Crash != nil:
			return Step{}, fmt.Errorf("%s: a crash step in a replicated workload is not modelled (a restart or recover step of one replica is)", where)
		case st.Clean != nil:
			return Step{}, fmt.Errorf("%s: a clean step in a replicated workload is not modelled (the file writer cleans a single log)", where)
		case st.Replica != nil && !(st.Restart || st.Recover || st.Roll):
			return Step{}, fmt.Errorf("%s: \"replica\" names the replica of a restart, recover or roll step (an append goes to the leader, a fetch and an election name their replica)", where)
		case st.MaxBytes != nil && st.Fetch == nil:
			return Step{}, fmt.Errorf("%s: \"maxBytes\" bounds a fetch, and this step is not one", where)
		case st.Replica != nil:
			if err := replica("replica", *st.Replica); err != nil {
				return Step{}, err
			}
			s.Replica = *st.Replica
		case st.Fetch != nil:
			if err := replica("fetch", *st.Fetch); err != nil {
				return Step{}, err
			}
			if *st.Fetch == leader {
				return Step{}, fmt.Errorf("%s.fetch: replica %d is the leader at this step: only a follower fetches", where, leader)
			}
			s.Replica = *st.Fetch
			if st.MaxBytes != nil {
				if *st.MaxBytes < 0 || *st.MaxBytes > math.MaxInt32 {
					return Step{}, fmt.Errorf("%s.maxBytes: %d is outside [0, %d]", where, *st.MaxBytes, math.MaxInt32)
				}
				// 0 fetches the first batch alone (minOneMessage), as 1 does: no batch is
				// that small. Stored as 1, since MaxBytes 0 means "not given".
				s.MaxBytes = max(*st.MaxBytes, 1)
			}
		case st.Elect != nil:
			if err := replica("elect", *st.Elect); err != nil {
				return Step{}, err
			}
			s.Replica = *st.Elect
		}
	}
	if st.Crash != nil {
		c, err := st.Crash.spec(where + ".crash")
		if err != nil {
			return Step{}, err
		}
		s.Crash = &c
	}
	if st.Clean != nil {
		c, err := st.Clean.spec(where + ".clean")
		if err != nil {
			return Step{}, err
		}
		s.Clean = &c
	}
	for j, b := range st.Append {
		bs, err := b.spec(fmt.Sprintf("%s.append[%d]", where, j))
		if err != nil {
			return Step{}, err
		}
		s.Append = append(s.Append, bs)
	}
	return s, nil
}

// Recipe is a record-level workload (the golden kafka-input.json): every
// batch is rebuilt record by record as MemoryRecordsBuilder wrote it.
type Recipe struct {
	Config      Config
	Rule        Rule
	StartOffset int64
	Appends     [][]RecipeBatch // after expanding "repeat"
}

// RecipeBatch describes one batch: Records records, record i with a value of
// ValueBytes bytes 'v' (-1: null), a key of KeyBytes bytes 'k' (-1: null)
// and timestamp Timestamp + i*TimestampDelta. When the recipe gives no
// timestamp, Timestamp is 1700000000000 + the batch's base offset
// (TimestampFromOffset).
type RecipeBatch struct {
	Records             int
	ValueBytes          int
	KeyBytes            int
	Timestamp           int64
	TimestampFromOffset bool
	TimestampDelta      int64
}

// ParseRecipe parses kafka-input.json (see testdata/kafka-golden/GOLDEN-README.md).
func ParseRecipe(data []byte) (*Recipe, error) {
	type wb struct {
		Records        int    `json:"records"`
		ValueBytes     *int   `json:"valueBytes"`
		KeyBytes       *int   `json:"keyBytes"`
		Timestamp      *int64 `json:"timestamp"`
		TimestampDelta *int64 `json:"timestampDelta"`
		Repeat         *int   `json:"repeat"`
	}
	var wire struct {
		IndexIntervalBytes *int64 `json:"indexIntervalBytes"`
		SegmentBytes       *int64 `json:"segmentBytes"`
		SegmentIndexBytes  *int64 `json:"segmentIndexBytes"`
		Rule               string `json:"rule"`
		StartOffset        int64  `json:"startOffset"`
		Appends            []struct {
			Repeat  *int `json:"repeat"`
			Batches []wb `json:"batches"`
		} `json:"appends"`
	}
	if err := decodeStrict(data, &wire); err != nil {
		return nil, fmt.Errorf("recipe: %w", err)
	}
	r := &Recipe{Config: DefaultConfig(), StartOffset: wire.StartOffset}
	// The golden recipes were run with time-based rolling off (segment.ms = Long.MAX_VALUE).
	r.Config.SegmentMs = 0
	if wire.IndexIntervalBytes != nil {
		r.Config.IndexIntervalBytes = *wire.IndexIntervalBytes
	}
	if wire.SegmentBytes != nil {
		r.Config.SegmentBytes = *wire.SegmentBytes
	}
	if wire.SegmentIndexBytes != nil {
		r.Config.SegmentIndexBytes = *wire.SegmentIndexBytes
	}
	var err error
	if r.Rule, err = ParseRule(wire.Rule); err != nil {
		return nil, fmt.Errorf("recipe: %w", err)
	}
	rep := func(p *int, where string) (int, error) {
		switch {
		case p == nil:
			return 1, nil
		case *p < 0 || *p > maxRecipeBatches:
			return 0, fmt.Errorf("recipe %s.repeat: %d is outside [0, %d]", where, *p, maxRecipeBatches)
		}
		return *p, nil
	}
	total := 0 // batches after expansion: a recipe is bounded, whatever its repeat counts say
	for i, a := range wire.Appends {
		var batches []RecipeBatch
		for j, b := range a.Batches {
			where := fmt.Sprintf("appends[%d].batches[%d]", i, j)
			rb := RecipeBatch{Records: b.Records, KeyBytes: -1, TimestampDelta: 1, TimestampFromOffset: b.Timestamp == nil}
			if b.Records < 0 || b.Records > maxRecipeRecords {
				return nil, fmt.Errorf("recipe %s.records: %d is outside [0, %d]", where, b.Records, maxRecipeRecords)
			}
			for _, f := range []struct {
				name string
				v    *int
			}{{"valueBytes", b.ValueBytes}, {"keyBytes", b.KeyBytes}} {
				if f.v != nil && (*f.v < -1 || *f.v > maxRecipeFieldBytes) {
					return nil, fmt.Errorf("recipe %s.%s: %d is outside [-1, %d]", where, f.name, *f.v, maxRecipeFieldBytes)
				}
			}
			if b.ValueBytes != nil {
				rb.ValueBytes = *b.ValueBytes
			}
			if b.KeyBytes != nil {
				rb.KeyBytes = *b.KeyBytes
			}
			if b.Timestamp != nil {
				rb.Timestamp = *b.Timestamp
			}
			if b.TimestampDelta != nil {
				rb.TimestampDelta = *b.TimestampDelta
			}
			n, err := rep(b.Repeat, where)
			if err != nil {
				return nil, err
			}
			if total += n; total > maxRecipeBatches {
				return nil, fmt.Errorf("recipe %s: more than %d batches in all", where, maxRecipeBatches)
			}
			for k := 0; k < n; k++ {
				batches = append(batches, rb)
			}
		}
		n, err := rep(a.Repeat, fmt.Sprintf("appends[%d]", i))
		if err != nil {
			return nil, err
		}
		if total += (n - 1) * len(batches); n > 1 && total > maxRecipeBatches {
			return nil, fmt.Errorf("recipe appends[%d]: more than %d batches in all", i, maxRecipeBatches)
		}
		for k := 0; k < n; k++ {
			r.Appends = append(r.Appends, batches)
		}
	}
	return r, r.Config.Validate()
}

// Bounds of a recipe: it is a test vector, and must not make kidx allocate without limit.
const (
	maxRecipeBatches    = 1 << 20
	maxRecipeRecords    = 1 << 20
	maxRecipeFieldBytes = 1 << 24
)

// recipeBaseTimestamp is the golden default: 1700000000000 + base offset.
const recipeBaseTimestamp = 1700000000000

func fixedBytes(n int, c byte) []byte {
	if n < 0 {
		return nil
	}
	return bytes.Repeat([]byte{c}, n)
}

// Build appends the batch at baseOffset to dst.
func (b RecipeBatch) Build(dst []byte, baseOffset int64) []byte {
	key, value := fixedBytes(b.KeyBytes, 'k'), fixedBytes(b.ValueBytes, 'v')
	ts := b.Timestamp
	if b.TimestampFromOffset {
		ts = recipeBaseTimestamp + baseOffset
	}
	recs := make([]RecordSpec, b.Records)
	for i := range recs {
		recs[i] = RecordSpec{Key: key, Value: value, Timestamp: ts + int64(i)*b.TimestampDelta}
	}
	return AppendBatch(dst, baseOffset, recs, BatchDefaults)
}
