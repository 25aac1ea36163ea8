package codec

import "fmt"

// Error is a decompression failure: the codec, what failed, and the byte
// offset in the compressed input where it was found (-1 when the library does
// not say). Err is the library's error, if one was the cause.
type Error struct {
	Codec  Codec
	Offset int64
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.Codec, msg)
	}
	return fmt.Sprintf("%s: byte %d: %s", e.Codec, e.Offset, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// LimitError says the output would exceed the limit: What names what was too
// large ("decompressed output", a declared block length, a zstd frame window).
type LimitError struct {
	Codec Codec
	What  string
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s exceeds the limit of %d bytes (decompression bomb?)", e.Codec, e.What, e.Limit)
}

func corrupt(c Codec, off int64, format string, args ...any) *Error {
	return &Error{Codec: c, Offset: off, Msg: fmt.Sprintf(format, args...)}
}
