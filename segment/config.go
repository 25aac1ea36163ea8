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
)

// DefaultConfig is Kafka's defaults.
func DefaultConfig() Config {
	return Config{IndexIntervalBytes: 4096, SegmentBytes: 1073741824, SegmentIndexBytes: 10485760, SegmentMs: 604800000}
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
	}
	return nil
}

// Set assigns a config by Kafka key name. Keys kidx knows but the segment
// writer does not use (max.message.bytes, segment.jitter.ms) are accepted
// and ignored.
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
	case "max.message.bytes", "segment.jitter.ms":
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
// sizeInBytes on disk and the max timestamp (-1 when absent).
type BatchSpec struct {
	Records      int   `json:"records"`
	Bytes        int   `json:"bytes"`
	MaxTimestamp int64 `json:"maxTimestamp"`
}

// Step is one workload step: exactly one of Append, Restart, Recover, Crash.
type Step struct {
	Append  []BatchSpec
	Restart bool       // clean close of the active segment and reopen (counter 0)
	Recover bool       // unclean restart: LogSegment.recover of the active segment
	Crash   *CrashSpec // a crash, then the broker's reload (crash.go)
}

// Workload is a parsed workload file (docs/contract.md §3).
type Workload struct {
	Config      Config
	Rule        Rule
	StartOffset int64
	Steps       []Step
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
}

func (w wireBatch) spec(where string) (BatchSpec, error) {
	if w.Records == nil || w.Bytes == nil {
		return BatchSpec{}, fmt.Errorf("%s: a batch needs \"records\" and \"bytes\"", where)
	}
	if w.Magic != nil && *w.Magic != 2 {
		return BatchSpec{}, fmt.Errorf("%s: magic %d: the file writer writes v2 batches only (a legacy replay runs in the model: kidx sim, kidx whatif)", where, *w.Magic)
	}
	b := BatchSpec{Records: *w.Records, Bytes: *w.Bytes, MaxTimestamp: NoTimestamp}
	if w.MaxTimestamp != nil {
		b.MaxTimestamp = *w.MaxTimestamp
	}
	if b.Records < 0 || b.Bytes < RecordBatchOverhead {
		return b, fmt.Errorf("%s: records %d / bytes %d: a v2 batch is at least 61 bytes", where, b.Records, b.Bytes)
	}
	return b, nil
}

// ParseWorkload parses a workload file. Missing config keys take Kafka's
// defaults; "batches" means one single-batch append each.
func ParseWorkload(data []byte) (*Workload, error) {
	var wire struct {
		Config      map[string]int64 `json:"config"`
		Rule        string           `json:"rule"`
		StartOffset int64            `json:"startOffset"`
		Batches     []wireBatch      `json:"batches"`
		Steps       []struct {
			Append  []wireBatch `json:"append"`
			Restart bool        `json:"restart"`
			Recover bool        `json:"recover"`
			Crash   *wireCrash  `json:"crash"`
		} `json:"steps"`
	}
	if err := decodeStrict(data, &wire); err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	w := &Workload{Config: DefaultConfig(), StartOffset: wire.StartOffset}
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
	if wire.Batches != nil && wire.Steps != nil {
		return nil, fmt.Errorf("workload: both \"batches\" and \"steps\"")
	}
	for i, b := range wire.Batches {
		s, err := b.spec(fmt.Sprintf("workload batches[%d]", i))
		if err != nil {
			return nil, err
		}
		w.Steps = append(w.Steps, Step{Append: []BatchSpec{s}})
	}
	for i, st := range wire.Steps {
		n := 0
		if st.Append != nil {
			n++
		}
		if st.Restart {
			n++
		}
		if st.Recover {
			n++
		}
		if st.Crash != nil {
			n++
		}
		if n != 1 {
			return nil, fmt.Errorf("workload steps[%d]: need exactly one of append, restart, recover, crash", i)
		}
		var s Step
		s.Restart, s.Recover = st.Restart, st.Recover
		if st.Crash != nil {
			c, err := st.Crash.spec(fmt.Sprintf("workload steps[%d].crash", i))
			if err != nil {
				return nil, err
			}
			s.Crash = &c
		}
		for j, b := range st.Append {
			bs, err := b.spec(fmt.Sprintf("workload steps[%d].append[%d]", i, j))
			if err != nil {
				return nil, err
			}
			s.Append = append(s.Append, bs)
		}
		w.Steps = append(w.Steps, s)
	}
	return w, w.Config.Validate()
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
