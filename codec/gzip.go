package codec

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// gzipState is a pooled reader: a gzip.Reader allocates its inflater's window
// and tables once, and Reset reuses them.
type gzipState struct {
	z  gzip.Reader
	br bytes.Reader
}

var gzipPool = sync.Pool{New: func() any { return new(gzipState) }}

// gunzip reads src as java.util.zip.GZIPInputStream does (GzipCompression.wrapForInput;
// KafkaGZIPInputStream is the same code with pooled buffers): one or more
// concatenated members, each with its CRC-32 and ISIZE trailer checked
// (readTrailer: "Corrupt GZIP trailer"). After a member, any bytes left are
// tried as the header of another member; when that header is malformed or
// truncated, GZIPInputStream ignores the rest ("ignore any malformed, do
// nothing") and so does this. The bytes.Reader is an io.ByteReader, so the
// inflater reads no further than the member's end and the remainder is exact.
func gunzip(src []byte, s *sink) ([]byte, error) {
	st := gzipPool.Get().(*gzipState)
	defer func() {
		st.br.Reset(nil)
		gzipPool.Put(st)
	}()
	st.br.Reset(src)
	pos := func() int64 { return int64(len(src) - st.br.Len()) }
	if err := st.z.Reset(&st.br); err != nil {
		if err == io.EOF {
			return nil, corrupt(Gzip, 0, "empty input, not in GZIP format")
		}
		return nil, &Error{Codec: Gzip, Offset: 0, Msg: "member header", Err: err}
	}
	st.z.Multistream(false)
	w := sinkWriter{s}
	for {
		// WriteTo hands the inflater's window straight to the sink (no
		// intermediate Read buffer); the sink refuses bytes past the limit,
		// which stops the inflater.
		_, err := st.z.WriteTo(w)
		switch {
		case err == errPrefixDone:
			return s.buf, nil
		case err != nil:
			var le *LimitError
			if errors.As(err, &le) {
				return nil, err
			}
			what := "member body"
			if errors.Is(err, gzip.ErrChecksum) {
				what = "Corrupt GZIP trailer"
			}
			return nil, &Error{Codec: Gzip, Offset: pos(), Msg: what, Err: err}
		}
		// End of a member, trailer checked.
		if st.br.Len() == 0 {
			return s.buf, nil
		}
		if err := st.z.Reset(&st.br); err != nil {
			// GZIPInputStream.readTrailer: a malformed next header ends the stream.
			return s.buf, nil
		}
		st.z.Multistream(false)
	}
}
