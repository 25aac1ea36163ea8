package sim

import (
	"errors"
	"io"
	"math/rand/v2"

	"kidx/model"
)

// errCrashWrapped refuses a crash step inside a wrapper: its byte counts describe the inner
// stream's segments, which a wrapper that regroups appends or adds restarts changes.
var errCrashWrapped = errors.New("a crash step cannot go through follower(...) or restarts(...): its byte counts describe the segments of the workload as written")

// errCleanWrapped refuses a clean step, and a recover step with a recovery point, inside a
// wrapper: they name the segments and batches of the workload as written, which a wrapper that
// regroups appends or adds restarts changes.
var errCleanWrapped = errors.New(`a clean step, or a recover step with a "recoveryPoint", cannot go through follower(...) or restarts(...): it names the segments and batches of the workload as written`)

// wrappedStepError is why a wrapper refuses step s, or nil.
func wrappedStepError(s *model.Step) error {
	switch {
	case s.Crash != nil:
		return errCrashWrapped
	case s.Clean != nil || s.HasRecoveryPoint:
		return errCleanWrapped
	}
	return nil
}

// stepReader pulls one step at a time from a Stream.
type stepReader struct {
	in   Stream
	buf  []model.Step
	i, n int
	err  error
}

func (r *stepReader) peek() (*model.Step, error) {
	for r.i >= r.n {
		if r.err != nil {
			return nil, r.err
		}
		if r.buf == nil {
			r.buf = make([]model.Step, 256)
		}
		r.n, r.err = r.in.Next(r.buf)
		r.i = 0
		if r.err != nil && !errors.Is(r.err, io.EOF) {
			return nil, r.err
		}
		if r.n == 0 && r.err == nil {
			r.err = io.EOF
		}
	}
	return &r.buf[r.i], nil
}

func (r *stepReader) advance() { r.i++ }

// followerStream is follower catch-up (ReplicaFetcherThread → UnifiedLog.appendAsFollower):
// consecutive batches of the leader's log arrive in fetch responses of at most fetch bytes
// (replica.fetch.max.bytes, default 1 MiB), and each response is one append of several
// batches. A batch larger than fetch still comes alone (Kafka returns at least one batch).
// Restarts and recoveries of the inner stream end the current append and pass through.
type followerStream struct {
	in    stepReader
	fetch int64
	group []model.Batch
}

// DefaultFetchBytes is replica.fetch.max.bytes.
const DefaultFetchBytes = 1 << 20

func (f *followerStream) Next(dst []model.Step) (int, error) {
	n := 0
	// dst's Append slices point into f.group, which is reused by the next call.
	f.group = f.group[:0]
	type span struct{ from, to int }
	var spans []span
	for n < len(dst) {
		s, err := f.in.peek()
		if err != nil {
			if n == 0 {
				return 0, err
			}
			break
		}
		if werr := wrappedStepError(s); werr != nil {
			if n == 0 {
				return 0, werr
			}
			break
		}
		if s.Restart || s.Recover || s.Roll {
			// A restart or an operator's roll is the follower's too, between its fetches.
			dst[n] = model.Step{Restart: s.Restart, Recover: s.Recover, Roll: s.Roll, RollBaseOffset: s.RollBaseOffset}
			spans = append(spans, span{-1, -1})
			f.in.advance()
			n++
			continue
		}
		from := len(f.group)
		var bytes int64
		for {
			s, err := f.in.peek()
			if err != nil || len(s.Append) == 0 {
				break
			}
			b := s.Append[0]
			if len(f.group) > from && bytes+b.Bytes > f.fetch {
				break
			}
			for _, b := range s.Append {
				f.group = append(f.group, b)
				bytes += b.Bytes
			}
			f.in.advance()
		}
		spans = append(spans, span{from, len(f.group)})
		n++
	}
	for i, sp := range spans {
		if sp.from >= 0 {
			dst[i] = model.Step{Append: f.group[sp.from:sp.to:sp.to]}
		}
	}
	return n, nil
}

// restartStream inserts broker restarts after appends at random points: after each append
// a restart follows with probability 1/every; it is unclean (a recovery, LogSegment.recover)
// with probability recover, else clean (close and reopen, counter back to 0).
type restartStream struct {
	in      stepReader
	every   float64
	recover float64
	r       *rand.Rand
	owed    bool
	batches []model.Batch
}

func (s *restartStream) Next(dst []model.Step) (int, error) {
	n := 0
	s.batches = s.batches[:0]
	type span struct{ from, to int }
	spans := make([]span, 0, len(dst))
	for n < len(dst) {
		if s.owed {
			s.owed = false
			if s.r.Float64() < s.recover {
				dst[n] = model.Step{Recover: true}
			} else {
				dst[n] = model.Step{Restart: true}
			}
			spans = append(spans, span{-1, -1})
			n++
			continue
		}
		st, err := s.in.peek()
		if err != nil {
			if n == 0 {
				return 0, err
			}
			break
		}
		if werr := wrappedStepError(st); werr != nil {
			if n == 0 {
				return 0, werr
			}
			break
		}
		from := len(s.batches)
		s.batches = append(s.batches, st.Append...)
		dst[n] = model.Step{Restart: st.Restart, Recover: st.Recover}
		if len(st.Append) > 0 {
			spans = append(spans, span{from, len(s.batches)})
			s.owed = s.r.Float64()*s.every < 1
		} else {
			spans = append(spans, span{-1, -1})
		}
		s.in.advance()
		n++
	}
	for i, sp := range spans {
		if sp.from >= 0 {
			dst[i] = model.Step{Append: s.batches[sp.from:sp.to:sp.to]}
		}
	}
	return n, nil
}
