package segmenttest

import (
	"errors"
	"testing"

	"kidx/segment"
)

// FormatErrAt asserts that err is a *FormatError at pos with exactly msg.
func FormatErrAt(t testing.TB, err error, file string, pos int64, msg string) {
	t.Helper()
	var fe *segment.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *FormatError %q at byte %d", err, err, msg, pos)
	}
	if fe.File != file || fe.Pos != pos || fe.Msg != msg {
		t.Fatalf("error\n  %s at byte %d: %q\nwant\n  %s at byte %d: %q", fe.File, fe.Pos, fe.Msg, file, pos, msg)
	}
}
