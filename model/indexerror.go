package model

import "fmt"

// IndexErrorKind classifies the exceptions Kafka's index classes throw.
type IndexErrorKind int

const (
	// ErrIndexFull is IllegalArgumentException("Attempt to append to a full index ...") from
	// OffsetIndex.append, or "... full time index ..." from TimeIndex.maybeAppend.
	ErrIndexFull IndexErrorKind = iota + 1
	// ErrInvalidOffset is InvalidOffsetException: an offset not larger than the last one.
	ErrInvalidOffset
	// ErrInvalidTimestamp is IllegalStateException: a timestamp smaller than the last one.
	ErrInvalidTimestamp
	// ErrOffsetOverflow is IndexOffsetOverflowException: offset - baseOffset outside int32.
	ErrOffsetOverflow
	// ErrNoSuchEntry is IllegalArgumentException from entry(n) with n >= entries.
	ErrNoSuchEntry
	// ErrBufferOverflow is the raw BufferOverflowException of a skipFullCheck append with no
	// physical room left.
	ErrBufferOverflow
	// ErrInvalidSize is IllegalArgumentException("Invalid max index size").
	ErrInvalidSize
)

// IndexError is an exception of Kafka's OffsetIndex or TimeIndex, with Kafka's message.
type IndexError struct {
	Kind IndexErrorKind
	Msg  string
}

func (e *IndexError) Error() string { return e.Msg }

func indexErr(kind IndexErrorKind, format string, args ...any) error {
	return &IndexError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// IsIndexError reports whether err is an *IndexError of the given kind.
func IsIndexError(err error, kind IndexErrorKind) bool {
	e, ok := err.(*IndexError)
	return ok && e.Kind == kind
}
