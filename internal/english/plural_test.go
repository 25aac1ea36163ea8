package english

import "testing"

// TestPlural pins the plural rules the reports rely on (issue 11, defect 5: "1 pages",
// "1 entries", and "key" must not become "keies").
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{
		{1, "page", "1 page"},
		{2, "page", "2 pages"},
		{0, "byte", "0 bytes"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{2, "key", "2 keys"},
		{2, "day", "2 days"},
		{2, "batch", "2 batches"},
		{2, "pass", "2 passes"},
		{2, "box", "2 boxes"},
		{2, "byte-counter restart", "2 byte-counter restarts"},
		{2, ".index entry", "2 .index entries"},
		{-1, "byte", "-1 byte"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
