package printsafe

import (
	"strings"
	"testing"
)

// Issue 27 item 6: names are printed as they are unless they would not print as themselves on
// one line; then as Go's %q writes them. Expected strings written by hand.
func TestNameQuotesOnlyWhatNeedsIt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"orders-0", "orders-0"},
		{"/var/lib/kafka/data/orders-0/00000000000000000000.log", "/var/lib/kafka/data/orders-0/00000000000000000000.log"},
		{"with space-0", "with space-0"},
		{"tōpic-0", "tōpic-0"},       // printable non-ASCII stays
		{`a"b`, `a"b`},               // a quote inside is harmless: the name does not start with one
		{`back\slash`, `back\slash`}, // no quotes around it, so not read as an escape
		{"evil\n1 partition, 0 problems-0", `"evil\n1 partition, 0 problems-0"`},
		{"\x1b[2J-0", `"\x1b[2J-0"`},
		{"cr\r-0", `"cr\r-0"`},
		{"tab\t-0", `"tab\t-0"`},
		{"del\x7f", `"del\x7f"`},
		{"bidi\u202egnp.0", `"bidi\u202egnp.0"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{`"looks-quoted"`, `"\"looks-quoted\""`},
		{"", ""},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Line escapes what Name would quote for, in place, and leaves quotes and the rest alone.
func TestLineEscapesInPlace(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`open /d/x: permission denied`, `open /d/x: permission denied`},
		{"open /d/a\nkidx: all good: no such file", `open /d/a\nkidx: all good: no such file`},
		{"open /d/\x1b[2J\xff: denied", `open /d/\x1b[2J\xff: denied`},
		{`"quoted" \n stays`, `"quoted" \n stays`},
		{"bidi\u202e", `bidi\u202e`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// Message: a message is escaped like Line and cut past 4096 bytes.
func TestMessageIsBounded(t *testing.T) {
	if got := Message("unknown key \"k\n\""); got != `unknown key "k\n"` {
		t.Errorf("short message: %s", got)
	}
	msg := "wl.json: unknown key \"" + strings.Repeat("k", 1000000) + "\""
	want := "wl.json: unknown key \"" + strings.Repeat("k", 4096-22) + "... (the first 4096 of 1000023 bytes)"
	if got := Message(msg); got != want {
		t.Errorf("long message: %d bytes, want %d: %.60s...%s", len(got), len(want), got, got[max(len(got)-50, 0):])
	}
}

// Excerpt and QuotedExcerpt: input over ExcerptBytes (256) is cut, at a rune boundary, and
// says how long it was.
func TestExcerptIsBounded(t *testing.T) {
	if got := Excerpt("0 0 x"); got != "0 0 x" {
		t.Errorf("short printable input: %s", got)
	}
	if got := QuotedExcerpt("12x"); got != `"12x"` {
		t.Errorf("short quoted input: %s", got)
	}
	long := strings.Repeat("y", 50<<20)
	want := strings.Repeat("y", 256) + "... (the first 256 of 52428800 bytes)"
	if got := Excerpt(long); got != want {
		t.Errorf("Excerpt of 50 MiB: %d bytes, want %d", len(got), len(want))
	}
	if got := QuotedExcerpt(long); got != `"`+strings.Repeat("y", 256)+`"... (the first 256 of 52428800 bytes)` {
		t.Errorf("QuotedExcerpt of 50 MiB: %.80s...", got)
	}
	// 255 ASCII bytes then a 3-byte rune straddling byte 256: the rune is left out whole.
	straddle := strings.Repeat("a", 255) + "€" + "tail"
	if got := Excerpt(straddle); got != strings.Repeat("a", 255)+"... (the first 255 of 262 bytes)" {
		t.Errorf("Excerpt cut inside a rune: %q", got)
	}
	// A control character inside the excerpt is escaped in place; a JSON value keeps its quotes.
	if got := Excerpt(`"1"`); got != `"1"` {
		t.Errorf("Excerpt of a JSON string: %s", got)
	}
	if got := Excerpt("\x1b[2J" + strings.Repeat("z", 300)); got != `\x1b[2J`+strings.Repeat("z", 252)+`... (the first 256 of 304 bytes)` {
		t.Errorf("Excerpt with ESC: %q", got)
	}
}

// BenchmarkNameOfASegmentPath: the check every printed name now pays (a 60-byte path Kafka
// wrote, nothing to quote).
func BenchmarkNameOfASegmentPath(b *testing.B) {
	p := "/var/lib/kafka/data/orders-12/00000000000000004424.timeindex"
	for b.Loop() {
		if Name(p) != p {
			b.Fatal("quoted")
		}
	}
	b.ReportMetric(float64(len(p)), "bytes/name")
}

// BenchmarkExcerptOf50MiB: a 50 MiB line costs its first 256 bytes, not its length.
func BenchmarkExcerptOf50MiB(b *testing.B) {
	line := strings.Repeat("y", 50<<20)
	var out string
	for b.Loop() {
		out = Excerpt(line)
	}
	b.ReportMetric(float64(len(out)), "output-bytes")
}
