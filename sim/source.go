package sim

import (
	"fmt"
	"io"
	"math"

	"kidx/internal/english"
	"kidx/model"
)

// A Source is a replayable workload: every Open yields the same steps, so a source can be
// run once per sweep point without being held in memory. Random sources are deterministic
// from their seed, and Describe includes it.
type Source interface {
	// Describe names the source with its parameters and seed, for reports and replays.
	Describe() string
	// Open starts the workload from its beginning.
	Open() (Stream, error)
}

// A Stream yields a workload's steps in order.
type Stream interface {
	// Next fills dst with up to len(dst) steps and returns how many. At the end it returns
	// 0, io.EOF. The steps' Append slices may be reused by the next call.
	Next(dst []model.Step) (int, error)
}

// A BatchStream is a Stream of single-batch appends with no restarts or recoveries (what a
// leader sees). It can also fill plain arrays, which is what model.StatStream consumes.
type BatchStream interface {
	Stream
	// NextBatches fills bytes, records and maxTimestamps (all of the same length; maxTimestamps
	// may be nil when the caller needs none) with up to len(bytes) batches and returns how
	// many; 0, io.EOF at the end.
	NextBatches(bytes, records []int32, maxTimestamps []int64) (int, error)
}

// WorkloadSource replays a parsed workload (docs/contract.md §3).
type WorkloadSource struct {
	Name     string // shown by Describe, e.g. the file name
	Workload model.Workload
}

// Describe implements Source.
func (w *WorkloadSource) Describe() string {
	return fmt.Sprintf("workload %s (%s)", w.Name, english.Plural(int64(len(w.Workload.Steps)), "step"))
}

// Open implements Source.
func (w *WorkloadSource) Open() (Stream, error) {
	single := true
	for _, s := range w.Workload.Steps {
		if !plainBatch(s) {
			single = false
			break
		}
	}
	if single {
		return &singleBatchSteps{steps: w.Workload.Steps}, nil
	}
	return &stepSlice{steps: w.Workload.Steps}, nil
}

// plainBatch reports whether a step is what model.StatStream reads: one leader append of one
// v2 batch right after the previous one. Steps with an origin, a base offset of their own or
// a legacy message need model.Log (the eras' rules differ there).
func plainBatch(s model.Step) bool {
	if len(s.Append) != 1 || s.Origin != model.OriginLeader {
		return false
	}
	b := s.Append[0]
	return b.BaseOffset == 0 && b.Legacy == model.NotLegacy
}

type stepSlice struct {
	steps []model.Step
	next  int
}

func (s *stepSlice) Next(dst []model.Step) (int, error) {
	if s.next >= len(s.steps) {
		return 0, io.EOF
	}
	n := copy(dst, s.steps[s.next:])
	s.next += n
	return n, nil
}

// singleBatchSteps is a stepSlice whose every step is one batch, so it is a BatchStream.
type singleBatchSteps struct {
	steps []model.Step
	next  int
}

func (s *singleBatchSteps) Next(dst []model.Step) (int, error) {
	if s.next >= len(s.steps) {
		return 0, io.EOF
	}
	n := copy(dst, s.steps[s.next:])
	s.next += n
	return n, nil
}

func (s *singleBatchSteps) NextBatches(bytes, records []int32, maxTimestamps []int64) (int, error) {
	if s.next >= len(s.steps) {
		return 0, io.EOF
	}
	n := min(len(bytes), len(s.steps)-s.next)
	for i := range n {
		b := s.steps[s.next+i].Append[0]
		bytes[i], records[i] = int32(b.Bytes), int32(b.Records)
		if maxTimestamps != nil {
			maxTimestamps[i] = b.MaxTimestamp
		}
	}
	s.next += n
	return n, nil
}

// FixedSource is Count batches of Bytes bytes and Records records, one per append, with max
// timestamp TimestampBase + the batch's base offset (or none when TimestampBase < 0).
type FixedSource struct {
	Count, Bytes, Records int64
	TimestampBase         int64
}

// Describe implements Source.
func (f *FixedSource) Describe() string {
	return fmt.Sprintf("fixed: %d batches of %d bytes, %d records", f.Count, f.Bytes, f.Records)
}

// Open implements Source.
func (f *FixedSource) Open() (Stream, error) {
	if f.Records < 1 || f.Count < 0 || f.Bytes > math.MaxInt32 {
		return nil, fmt.Errorf("fixed source: %d batches of %d bytes and %d records is not a valid workload", f.Count, f.Bytes, f.Records)
	}
	if err := model.PossibleBatchError(f.Records, f.Bytes, model.NotLegacy); err != nil {
		return nil, fmt.Errorf("fixed source: %v", err)
	}
	return &fixedStream{src: *f}, nil
}

type fixedStream struct {
	src  FixedSource
	done int64
}

func (f *fixedStream) ts() int64 {
	if f.src.TimestampBase < 0 {
		return model.NoTimestamp
	}
	return f.src.TimestampBase + f.done*f.src.Records
}

func (f *fixedStream) Next(dst []model.Step) (int, error) {
	n := 0
	for ; n < len(dst) && f.done < f.src.Count; n++ {
		dst[n] = model.AppendStep(model.Batch{Records: f.src.Records, Bytes: f.src.Bytes, MaxTimestamp: f.ts()})
		f.done++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (f *fixedStream) NextBatches(bytes, records []int32, maxTimestamps []int64) (int, error) {
	n := 0
	for ; n < len(bytes) && f.done < f.src.Count; n++ {
		bytes[n], records[n] = int32(f.src.Bytes), int32(f.src.Records)
		if maxTimestamps != nil {
			maxTimestamps[n] = f.ts()
		}
		f.done++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
