package logdir

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What kidx prints of a directory it did not write is bounded and cannot shape the output:
// a file name with a control character (a newline could fake a summary line) is printed
// quoted, and file content is cut to an excerpt (docs/findings.md, "Hostile input").

// ExcerptBytes is how much of a file's content a finding quotes.
const ExcerptBytes = 64

// maxMessageBytes bounds a message made from an error that may echo file content (a
// checkpoint's 50 MB line): past it the message is cut, and says how long it was.
const maxMessageBytes = 512

// QuoteName is name as it is when every character is printable (the common case: output
// stays friendly to copy and paste), else Go's %q of it, which escapes every control
// character and invalid UTF-8.
func QuoteName(name string) string {
	if printable(name) {
		return name
	}
	return strconv.Quote(name)
}

// Excerpt quotes content with %q, cut to its first ExcerptBytes bytes followed by
// "… (N bytes)" when it is longer.
func Excerpt(content string) string {
	if len(content) <= ExcerptBytes {
		return strconv.Quote(content)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(content[:ExcerptBytes]), len(content))
}

// FileValue is a value read from a file (a cluster.id, a topic name in a checkpoint) as a
// message shows it: as it is when it is short and printable, else Excerpt.
func FileValue(v string) string {
	if len(v) <= ExcerptBytes && printable(v) {
		return v
	}
	return Excerpt(v)
}

// BoundedText is text from elsewhere (an error's message, which may echo file content) made
// safe to print on one line: cut past maxMessageBytes (saying how long it was), and every
// non-printable character escaped as %q would.
func BoundedText(text string) string {
	cut := ""
	if len(text) > maxMessageBytes {
		cut = fmt.Sprintf("… (%d bytes)", len(text))
		text = text[:maxMessageBytes]
	}
	return escapeControl(text) + cut
}

// escapeControl is text with every non-printable character escaped as %q would, so that
// it prints on one line.
func escapeControl(text string) string {
	if printable(text) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if (r == utf8.RuneError && n == 1) || !unicode.IsPrint(r) {
			q := strconv.Quote(text[i : i+n])
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteString(text[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printable: valid UTF-8 and every rune printable (spaces included).
func printable(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}
