package codec

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdState is a pooled decoder. A zstd.Decoder made with concurrency 1 and
// used through DecodeAll starts no goroutines; the cleanup closes it anyway
// when the pool drops it.
type zstdState struct{ d *zstd.Decoder }

const zstdMinWindow = 8 << 20

var zstdPool = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	st := &zstdState{d: d}
	runtime.AddCleanup(st, func(d *zstd.Decoder) { d.Close() }, d)
	return st
}}

// unzstd decodes every frame of src (Kafka reads zstd through zstd-jni's
// ZstdInputStreamNoFinalizer, ZstdCompression.wrapForInput: concatenated and
// skippable frames are read, trailing garbage is an error). The bound is the
// decoder's WithDecoderMaxMemory: a frame that declares a larger content size
// is refused before allocating, one that decodes past it is stopped. The
// decoder also refuses a frame whose window is over that bound, so the bound
// is max(limit, 8 MiB) (8 MiB: the window every decoder must support, RFC 8878
// section 3.1.1.1.2; producers use 64 KiB to 2 MiB), and output over limit is
// then refused after decoding: memory stays under max(limit, 8 MiB).
func unzstd(src []byte, s *sink) ([]byte, error) {
	v := zstdPool.Get()
	st, ok := v.(*zstdState)
	if !ok {
		return nil, &Error{Codec: Zstd, Offset: -1, Msg: "creating the decoder", Err: v.(error)}
	}
	defer zstdPool.Put(st)
	bound := max(s.limit, zstdMinWindow)
	if err := st.d.ResetWithOptions(nil, zstd.WithDecoderMaxMemory(uint64(bound))); err != nil {
		return nil, &Error{Codec: Zstd, Offset: -1, Msg: "setting the limit", Err: err}
	}
	out, err := st.d.DecodeAll(src, s.buf[:0])
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return nil, &LimitError{Codec: Zstd, What: fmt.Sprintf("decompressed output (declared or decoded, stopped at %d bytes)", bound), Limit: s.limit}
	case errors.Is(err, zstd.ErrWindowSizeExceeded):
		return nil, &LimitError{Codec: Zstd, What: fmt.Sprintf("frame window (over %d bytes)", bound), Limit: s.limit}
	case err != nil:
		return nil, &Error{Codec: Zstd, Offset: -1, Msg: fmt.Sprintf("decoding %d bytes", len(src)), Err: err}
	}
	if int64(len(out)) > s.limit {
		return nil, s.overLimit(int64(len(out)))
	}
	return out, nil
}
