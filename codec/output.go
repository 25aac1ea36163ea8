package codec

import (
	"errors"
	"fmt"
)

// sink is the bounded output of one decompression. Codecs ask it for room
// before they write, so the buffer never grows past limit+1 bytes (plus one
// codec block for lz4), and they stop as soon as want bytes are there.
type sink struct {
	codec Codec
	buf   []byte
	limit int64 // more than limit bytes is a LimitError
	want  int   // > 0: prefix decoding, stop once len(buf) >= want
}

func newSink(c Codec, limit int64, want, srcLen int) *sink {
	s := &sink{codec: c, limit: limit, want: want}
	// First guess: 4x the input (typical record data compresses 2-10x), at
	// most the limit, or exactly what a prefix wants.
	guess := int64(4*srcLen + 512)
	if want > 0 {
		guess = int64(want)
	}
	s.buf = make([]byte, 0, min(guess, limit+1))
	return s
}

// done reports that a prefix decode has what it wants.
func (s *sink) done() bool { return s.want > 0 && len(s.buf) >= s.want }

// overLimit is the LimitError for n output bytes.
func (s *sink) overLimit(n int64) error {
	if n > s.limit+1 {
		return &LimitError{Codec: s.codec, What: fmt.Sprintf("decompressed output (at least %d bytes)", n), Limit: s.limit}
	}
	return &LimitError{Codec: s.codec, What: "decompressed output", Limit: s.limit}
}

// check fails once the output is over the limit.
func (s *sink) check() error {
	if int64(len(s.buf)) > s.limit {
		return s.overLimit(int64(len(s.buf)))
	}
	return nil
}

// reserve makes room for n more bytes (n <= limit+1-len is not required: a
// request past the limit is refused with a LimitError before allocating).
func (s *sink) reserve(n int) error {
	need := int64(len(s.buf)) + int64(n)
	if need > s.limit+int64(maxLZ4Block) {
		return s.overLimit(need)
	}
	if need <= int64(cap(s.buf)) {
		return nil
	}
	c := max(int64(2*cap(s.buf)), need, 4096)
	c = min(c, max(need, s.limit+1))
	nb := make([]byte, len(s.buf), c)
	copy(nb, s.buf)
	s.buf = nb
	return nil
}

// errPrefixDone stops a streaming codec once a prefix decode has its bytes.
var errPrefixDone = errors.New("prefix decoded")

// sinkWriter is the sink as an io.Writer for codecs that push their output
// (gzip's WriteTo): bytes past the limit are refused with a LimitError.
type sinkWriter struct{ s *sink }

func (w sinkWriter) Write(p []byte) (int, error) {
	s := w.s
	if total := int64(len(s.buf)) + int64(len(p)); total > s.limit {
		return 0, s.overLimit(total)
	}
	if err := s.reserve(len(p)); err != nil {
		return 0, err
	}
	s.buf = append(s.buf, p...)
	if s.done() {
		return len(p), errPrefixDone
	}
	return len(p), nil
}
