package doccheck

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The words of the outside documents are spelled in pieces so that this file does not cite them.
var (
	spec      = "SP" + "EC"
	semantics = "seman" + "tics"
	kafkaDoc  = "KAFKA-INDEX-" + "SEMANTICS"
	seedPosts = "seed" + `(?:\s|//|#)+` + "posts?"
	// lineBreak is what may stand between a word and its section sign: spaces, or the end of a
	// comment line and the start of the next.
	lineBreak = `(?:\s|//|#)*`

	forbidden = []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`\b` + spec + `(?:\.md)?` + lineBreak + `§`), "cites the original contract: cite docs/contract.md §N"},
		{regexp.MustCompile(`\b` + spec + `\.md\b`), "names the original contract: cite docs/contract.md"},
		{regexp.MustCompile(`(?i)\b` + semantics + `(?:'|’)?` + lineBreak + `(?:own )?§`), "cites the original semantics notes: cite docs/kafka.md §N"},
		{regexp.MustCompile(kafkaDoc), "names the original semantics notes: cite docs/kafka.md"},
		{regexp.MustCompile(`\.\./shared/(?:` + spec + `|` + kafkaDoc + `|seeds)`), "points outside the repository: cite docs/"},
	}
	seedRe = regexp.MustCompile(`(?i)\b` + seedPosts + `\b`)
	// citeRe finds "docs/contract.md §N" and "docs/kafka.md §N", and a list after it
	// ("§1.3, §1.5", "§1.2-§1.4", "§8/§9", "§2 and §3").
	citeRe  = regexp.MustCompile(`docs/(contract|kafka)\.md` + lineBreak + `§(\d+(?:\.\d+)*)((?:\s*(?:,|/|-|–|and|or)\s*§\d+(?:\.\d+)*)*)`)
	moreRe  = regexp.MustCompile(`§(\d+(?:\.\d+)*)`)
	bareRe  = regexp.MustCompile(`(?:^|[^\w/.])§(\d+(?:\.\d+)*)`)
	headRe  = regexp.MustCompile(`(?m)^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s`)
	window  = 2 // lines either side where a docs/background.md reference counts
	ownDocs = map[string]string{"docs/contract.md": "contract", "docs/kafka.md": "kafka"}
)

// headings returns the section numbers of a document's headings ("5", "13.2").
func headings(text string) map[string]bool {
	h := map[string]bool{}
	for _, m := range headRe.FindAllStringSubmatch(text, -1) {
		h[m[1]] = true
	}
	return h
}

// lineOf is the 1-based line of byte offset off.
func lineOf(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

// prose keeps the parts of a file that are prose: all of it, except in .txt scripts, where
// only '#' comment lines are (the rest is commands and expected output). Other lines become
// empty so that line numbers stay right.
func prose(path, text string) string {
	if !strings.HasSuffix(path, ".txt") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// check returns the problems of one file; docs maps "contract"/"kafka" to their headings.
func check(path, text string, docs map[string]map[string]bool) []string {
	text = prose(path, text)
	var out []string
	report := func(off int, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s:%d: %s", path, lineOf(text, off), fmt.Sprintf(format, args...)))
	}
	for _, f := range forbidden {
		for _, loc := range f.re.FindAllStringIndex(text, -1) {
			report(loc[0], "%q %s", text[loc[0]:loc[1]], f.what)
		}
	}
	if path != "docs/background.md" {
		lines := strings.Split(text, "\n")
		for _, loc := range seedRe.FindAllStringIndex(text, -1) {
			ln := lineOf(text, loc[0]) - 1
			near := false
			for i := max(0, ln-window); i <= min(len(lines)-1, ln+window+strings.Count(text[loc[0]:loc[1]], "\n")); i++ {
				near = near || strings.Contains(lines[i], "background.md")
			}
			if !near {
				report(loc[0], "mentions the seed posts with no docs/background.md reference within %d lines", window)
			}
		}
	}
	for _, m := range citeRe.FindAllStringSubmatchIndex(text, -1) {
		doc := text[m[2]:m[3]]
		secs := []string{text[m[4]:m[5]]}
		for _, more := range moreRe.FindAllStringSubmatch(text[m[6]:m[7]], -1) {
			secs = append(secs, more[1])
		}
		for _, s := range secs {
			if !docs[doc][s] {
				report(m[0], "cites docs/%s.md §%s, which is no heading of docs/%s.md", doc, s, doc)
			}
		}
	}
	if own, ok := ownDocs[path]; ok {
		// A bare §N in one of the two numbered documents names its own section, unless a
		// document name stands just before it (those are checked above).
		for _, m := range bareRe.FindAllStringSubmatchIndex(text, -1) {
			before := text[max(0, m[0]-20) : m[0]+1]
			if strings.Contains(before, ".md") {
				continue
			}
			if s := text[m[2]:m[3]]; !docs[own][s] {
				report(m[2], "§%s is no heading of %s", s, path)
			}
		}
	}
	return out
}

// repoRoot is the directory holding go.mod, above the test's directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func readDocs(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	docs := map[string]map[string]bool{}
	for path, name := range ownDocs {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatalf("the repository must hold %s: %v", path, err)
		}
		docs[name] = headings(string(b))
	}
	return docs
}

// Issue 11, "Self-contained docs": the code, docs and --help cited documents that are not in the
// repository. Every citation must now name the repository's own docs, and every section cited
// must exist.
func TestCitationsStayInTheRepository(t *testing.T) {
	root := repoRoot(t)
	docs := readDocs(t, root)
	var problems []string
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") || name == "Makefile" || strings.HasSuffix(name, ".txt")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files++
		problems = append(problems, check(filepath.ToSlash(rel), string(b), docs)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked only %d files from %s: not the repository", files, root)
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// The rules have teeth: each line below breaks exactly one of them, and the expected problems
// are written by hand.
func TestRulesCatchEachKind(t *testing.T) {
	docs := map[string]map[string]bool{
		"contract": headings("## 3. Workload\n## 5. Lookup cost\n"),
		"kafka":    headings("## 2. Append\n### 2.3 Worked example\n### 8.2 Time\n"),
	}
	sem := strings.ToUpper(semantics[:1]) + semantics[1:]
	post := "seed" + " post"
	cases := []struct {
		path, text string
		want       []string
	}{
		{"a.go", "// the " + spec + " §3 format\n", []string{"a.go:1: \"" + spec + " §\" cites the original contract: cite docs/contract.md §N"}},
		{"a.go", "// as " + spec + "\n// §5 says\n", []string{"a.go:1: \"" + spec + "\\n// §\" cites the original contract: cite docs/contract.md §N"}},
		{"a.md", "see " + sem + " §2.3.\n", []string{"a.md:1: \"" + sem + " §\" cites the original semantics notes: cite docs/kafka.md §N"}},
		{"a.md", "in " + kafkaDoc + ".md\n", []string{"a.md:1: \"" + kafkaDoc + "\" names the original semantics notes: cite docs/kafka.md"}},
		{"a.go", "// the " + post + "'s figures\n", []string{"a.go:1: mentions the seed posts with no docs/background.md reference within 2 lines"}},
		{"a.go", "// the " + post + "'s figures\n// (docs/background.md)\n", nil},
		{"a.go", "// from the seed\n// " + "posts, by hand\n", []string{"a.go:1: mentions the seed posts with no docs/background.md reference within 2 lines"}},
		{"a.txt", "append 1 x2\n# " + post + " 000\n", []string{"a.txt:2: mentions the seed posts with no docs/background.md reference within 2 lines"}},
		{"a.txt", "source: " + post + " 000: 5000 records\n", nil}, // expected output, not prose
		{"a.go", "// docs/contract.md §5 and docs/kafka.md §2.3, §8.2\n", nil},
		{"a.go", "// docs/contract.md §4\n", []string{"a.go:1: cites docs/contract.md §4, which is no heading of docs/contract.md"}},
		{"a.go", "// docs/kafka.md §2.3, §2.4\n", []string{"a.go:1: cites docs/kafka.md §2.4, which is no heading of docs/kafka.md"}},
		{"docs/kafka.md", "## 2. Append\nas in §2 and §9.\n", []string{"docs/kafka.md:2: §9 is no heading of docs/kafka.md"}},
		{"docs/kafka.md", "## 2. Append\n(docs/contract.md §5)\n", nil},
	}
	for _, c := range cases {
		got := check(c.path, c.text, docs)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s %q:\n got  %q\n want %q", c.path, c.text, got, c.want)
		}
	}
}
