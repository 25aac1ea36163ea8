package logdir

import "kidx/internal/printsafe"

// What kidx prints of a directory it did not write is bounded and cannot shape the output
// (docs/findings.md, "Hostile input"; the rules are internal/printsafe's, shared by every
// command): a file name with a control character (a newline could fake a summary line) is
// printed quoted, and file content is cut to an excerpt.

// fileValue is a value read from a file (a cluster.id, a topic name in a checkpoint) as a
// message shows it: as it is when it is short and prints as itself, else quoted and cut to
// printsafe.ExcerptBytes.
func fileValue(v string) string {
	if len(v) <= printsafe.ExcerptBytes && !printsafe.NeedsQuoting(v) {
		return v
	}
	return printsafe.QuotedExcerpt(v)
}
