// Package printsafe writes names and pieces of input kidx did not choose (file and directory
// names, lines of a user's files) so that they cannot shape its output (issue 27 item 6): a
// name holding a newline cannot fake a line of a report, an escape sequence cannot redraw the
// terminal, a 50 MB garbage line is not echoed whole. docs/cli.md, "Names and input in the
// output", gives the rules and why names are quoted only when they need it.
package printsafe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ExcerptBytes is how much of a piece of input an error or report shows: more than any line
// Kafka writes in a checkpoint (a topic name is at most 249 characters), far less than a
// terminal's scrollback.
const ExcerptBytes = 256

// NeedsQuoting reports whether s would not print as itself on one line: it holds a byte that is
// not valid UTF-8, or a rune Go's %q escapes (strconv.IsPrint false: control characters such as
// newline, carriage return, tab, ESC and DEL, the C1 controls, bidirectional and other format
// characters, unassigned code points), or it begins with a double quote (so that a name printed
// as it is can never be read as one printed quoted).
func NeedsQuoting(s string) bool {
	return strings.HasPrefix(s, `"`) || hasUnprintable(s)
}

// hasUnprintable: s holds a byte that is not valid UTF-8 or a rune strconv.IsPrint refuses.
func hasUnprintable(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII: printable from space to tilde
			if c < ' ' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return true
		}
		if !strconv.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// Name is a file or directory name (or any name from outside: a topic, a key) as it is when it
// prints as itself, else quoted as Go's %q quotes it ("a\nb", "\x1b[2J"): one token, on one
// line, that shows every byte.
func Name(s string) string {
	if NeedsQuoting(s) {
		return strconv.Quote(s)
	}
	return s
}

// Excerpt is a piece of input (a line of a file, a JSON value) shown in a message: its first
// ExcerptBytes bytes (cut at a rune boundary) with Line's escapes, followed, when it was cut, by
// how long it was: "yyyy... (the first 256 of 5000002 bytes)". Not quoted: the messages that
// show input keep Kafka's words, which show it bare ("Malformed line in checkpoint file [f]:
// 0 0 x").
func Excerpt(s string) string { return lineCut(s, ExcerptBytes) }

// QuotedExcerpt is Excerpt always quoted, for messages that quote their input (Java's
// NumberFormatException: For input string: "x").
func QuotedExcerpt(s string) string {
	head, cut := cutAt(s, ExcerptBytes)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(head) + cutNote(len(head), len(s))
}

func cutNote(shown, all int) string {
	return fmt.Sprintf("... (the first %d of %d bytes)", shown, all)
}

// cutAt is s's first n bytes or fewer, not splitting a UTF-8 sequence; cut reports whether
// anything was left out.
func cutAt(s string, n int) (head string, cut bool) {
	if len(s) <= n {
		return s, false
	}
	k := n
	for k > 0 && k > n-utf8.UTFMax && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k], true
}

// MessageBytes bounds a whole message (a `kidx: ` error line): far more than any message kidx
// writes, so only a message carrying input nobody cut is cut.
const MessageBytes = 4096

// Message is Line of a message, cut to MessageBytes bytes (at a rune boundary) with how long it
// was: the last guard where an error is printed, whatever input its makers echoed.
func Message(s string) string { return lineCut(s, MessageBytes) }

// lineCut is Line of s's first n bytes (at a rune boundary), with how long s was when cut.
func lineCut(s string, n int) string {
	head, cut := cutAt(s, n)
	if !cut {
		return Line(s)
	}
	return Line(head) + cutNote(len(head), len(s))
}

// Line makes a message one line that redraws nothing: every rune Name would quote for is
// written as %q writes it inside quotes (\n, \x1b, \u202e, \xff), the rest as it is. For
// messages built from names kidx could not quote where they were made (an operating system
// error names its file raw), written where the message is printed.
func Line(s string) string {
	if !hasUnprintable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
