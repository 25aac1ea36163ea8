package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"kidx/internal/realdata"
)

// The acceptance tests over real brokers' log directories (../shared/realdata, restored into a
// temporary directory by internal/realdata): 289 partition directories written by Kafka 0.8 to
// 4.2, all healthy except segment 839130 of ronem/__cluster_metadata-0, whose .log is missing,
// and the two partitions of k40-lestfeed-compacted whose cleaned segment sits beside the
// segment it was cleaned from (realdata.CleanedBesideSource).

type verifyFinding struct {
	File     string `json:"file"`
	Pos      int64  `json:"pos"`
	Severity string `json:"severity"`
	Check    string `json:"check"`
	Message  string `json:"message"`
	Expected string `json:"expected"`
}

func (f verifyFinding) String() string {
	file := "(no file)"
	if f.File != "" {
		file = filepath.Base(f.File)
	}
	s := fmt.Sprintf("%s:%d: %s: %s: %s", file, f.Pos, f.Severity, f.Check, f.Message)
	if f.Expected != "" {
		s += " (expected " + f.Expected + ")"
	}
	return s
}

func (f verifyFinding) problem() bool { return f.Severity == "error" || f.Severity == "warning" }

type verifyDoc struct {
	Segments int             `json:"segments"`
	Batches  int             `json:"batches"`
	LogBytes int64           `json:"logBytes"`
	Findings []verifyFinding `json:"findings"`
}

// verifyJSON runs `kidx verify --format json ARGS...` and decodes its report (a usage error
// fails the test).
func verifyJSON(t *testing.T, args ...string) (verifyDoc, int) {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"verify", "--format", "json"}, args...)...)
	var doc verifyDoc
	if code != 0 && code != 1 {
		t.Fatalf("kidx verify %v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("kidx verify %v: %v\n%s", args, err, out)
	}
	// Real brokers' directories hold the shapes hand-built cases miss: the document must
	// still match its schema (docs/schema/kidx.verify.1.json).
	if got := validateDocument(t, realDataSchemas, []byte(out)); got != "kidx.verify/1" {
		t.Errorf("kidx verify %v: schema %s, want kidx.verify/1", args, got)
	}
	return doc, code
}

// realDataSchemas compiles each schema once for the real-data tests.
var realDataSchemas = jsonschema.NewCompiler()

// sameFile: a and b name one file (a finding may give it relative or absolute).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// listFindings prints up to 15 findings, one per line.
func listFindings(fs []verifyFinding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == 15 {
			fmt.Fprintf(&b, "\n    ... and %d more", len(fs)-i)
			break
		}
		b.WriteString("\n    " + f.String())
	}
	return b.String()
}

func problemsOf(fs []verifyFinding) []verifyFinding {
	var out []verifyFinding
	for _, f := range fs {
		if f.problem() {
			out = append(out, f)
		}
	}
	return out
}

// statedDamage is the files of the damage the README states in a directory verify must judge
// broken (realdata.Problem): segment 839130's .index and .timeindex in ronem's metadata log
// (its .log really is missing), and in the two overlaps of k40-lestfeed-compacted the .log of
// the cleaned segment 0 and of the segment it was cleaned from.
func statedDamage(name, dir string) []string {
	if name == realdata.MissingLogDir {
		stem := filepath.Join(dir, fmt.Sprintf("%020d", realdata.MissingLogBase))
		return []string{stem + ".index", stem + ".timeindex"}
	}
	if src, ok := realdata.CleanedBesideSource[name]; ok {
		return []string{filepath.Join(dir, fmt.Sprintf("%020d.log", 0)), filepath.Join(dir, fmt.Sprintf("%020d.log", src))}
	}
	return nil
}

// aboutDamage: f is about a segment of the stated damage (any of its files).
func aboutDamage(f verifyFinding, damage []string) bool {
	for _, d := range damage {
		stem := strings.TrimSuffix(filepath.Base(d), filepath.Ext(d))
		if strings.HasPrefix(filepath.Base(f.File), stem+".") {
			return true
		}
	}
	return false
}

// judgeVerify says what is wrong with a verify report of a real directory (nil: as expected):
// exit 0 and no problem, except for the directories of realdata.Problem: exit 1, a problem
// finding on a file of the damage the README states (statedDamage), and no problem about
// anything else. A partition whose index files were never fetched (realdata.IndexNotFetched)
// is healthy, and verify says of its segment that the index is missing (an info finding).
func judgeVerify(name, dir string, doc verifyDoc, code int) []string {
	var wrong []string
	probs := problemsOf(doc.Findings)
	if realdata.IndexNotFetched(name) {
		said := false
		for _, f := range doc.Findings {
			said = said || (f.Severity == "info" && f.Check == "missing-index" && sameFile(f.File, filepath.Join(dir, fmt.Sprintf("%020d.log", 0))))
		}
		if !said {
			wrong = append(wrong, "no info finding missing-index on segment 0's .log (its index files were never fetched)")
		}
	}
	if !realdata.Problem(name) {
		if code != 0 || len(probs) > 0 {
			wrong = append(wrong, fmt.Sprintf("exit %d, %d problems (want exit 0, none):%s", code, len(probs), listFindings(probs)))
		}
		return wrong
	}
	damage := statedDamage(name, dir)
	named := false
	var others []verifyFinding
	for _, f := range probs {
		for _, d := range damage {
			named = named || sameFile(f.File, d)
		}
		if !aboutDamage(f, damage) {
			others = append(others, f)
		}
	}
	if code != 1 {
		wrong = append(wrong, fmt.Sprintf("exit %d, want 1 (the damage of %v)", code, damage))
	}
	if !named {
		wrong = append(wrong, fmt.Sprintf("no error/warning finding whose file is one of %v; problems:%s", damage, listFindings(probs)))
	}
	if len(others) > 0 {
		wrong = append(wrong, fmt.Sprintf("%d problems not about %v:%s", len(others), damage, listFindings(others)))
	}
	// "the most useful explanation says what the files show (a cleaned segment next to the
	// segment it was cleaned from)" (../shared/realdata/README.md).
	if src, ok := realdata.CleanedBesideSource[name]; ok {
		said := false
		for _, f := range probs {
			said = said || strings.Contains(f.Message, "a log cleaner's output next to the segment it was cleaned from") &&
				strings.Contains(f.Message, fmt.Sprintf("the swap would have deleted %020d.log", src))
		}
		if !said {
			wrong = append(wrong, fmt.Sprintf("no finding says the files are a cleaned segment beside its source %020d.log:%s", src, listFindings(probs)))
		}
	}
	return wrong
}

// TestRealDataCLI runs kidx's verify, dump and analyze over one restored copy of the real data
// (they only read it).
func TestRealDataCLI(t *testing.T) {
	root := realdata.Restore(t)
	t.Run("verify-deep", func(t *testing.T) { testRealDataVerifyDeep(t, root) })
	t.Run("dump", func(t *testing.T) { testRealDataDumpEveryFile(t, root) })
	t.Run("analyze", func(t *testing.T) { testRealDataAnalyzeSegments(t, root) })
}

// testRealDataVerifyDeep: `kidx verify --deep` judges every real directory as it is: healthy
// (exit 0), except ronem/__cluster_metadata-0 (exit 1, naming segment 839130's index files and
// nothing else) and lestfeed's two overlaps (exit 1, naming the two overlapping segments). A
// failure lists each directory's problems: the to-do list.
func testRealDataVerifyDeep(t *testing.T, root string) {
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	ok := 0
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		t.Run(name, func(t *testing.T) {
			doc, code := verifyJSON(t, "--deep", dir)
			wrong := judgeVerify(name, dir, doc, code)
			for _, w := range wrong {
				t.Errorf("verify --deep %s: %s", name, w)
			}
			if len(wrong) == 0 {
				ok++
			}
		})
	}
	t.Logf("%d/%d real partition directories judged as expected", ok, len(dirs))
}

// testRealDataDumpEveryFile: `kidx dump FILE` exits 0 on every regular file of every restored
// origin (segment files, snapshots, checkpoints, metadata files alike).
func testRealDataDumpEveryFile(t *testing.T, root string) {
	origins := realdata.Origins(root)
	if len(origins) != realdata.OriginCount {
		t.Fatalf("%d origins, want %d (README): %v", len(origins), realdata.OriginCount, origins)
	}
	n := 0
	for _, origin := range origins {
		for _, f := range realdata.Files(origin) {
			n++
			_, errOut, code := runKidx(t, "dump", f)
			if code != 0 {
				t.Errorf("dump %s: exit %d: %s", realdata.Name(root, f), code, firstLine(errOut))
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d files dumped; the MANIFEST lists more than 200", n)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

type analyzeDoc struct {
	Segments           int `json:"segments"`
	AnalyzedPartitions int `json:"analyzedPartitions"`
	Partitions         []struct {
		Path            string   `json:"path"`
		Segments        int      `json:"segments"`
		Recommendations []string `json:"recommendations"`
		Rebuilt         []struct {
			BaseOffset int64 `json:"baseOffset"`
			Entries    int   `json:"entries"`
		} `json:"rebuilt"`
	} `json:"partitions"`
}

func analyzeJSON(t *testing.T, dir string) (analyzeDoc, int) {
	t.Helper()
	out, errOut, code := runKidx(t, "analyze", dir, "--format", "json")
	var doc analyzeDoc
	if code != 0 && code != 1 {
		t.Fatalf("kidx analyze %s: exit %d: %s", dir, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("kidx analyze %s: %v\n%s", dir, err, out)
	}
	return doc, code
}

// testRealDataAnalyzeSegments: `kidx analyze --format json` counts a partition's segments as
// its .log files (a segment is a .log; index files or a producer snapshot alone are not one),
// per partition directory and summed over a whole log directory (origin). Analyze, like
// verify, finds no problem in the healthy directories. A partition whose index files were
// never fetched gets no advice derived from an index (a known gap today, realdata.Gaps).
func testRealDataAnalyzeSegments(t *testing.T, root string) {
	dirs := realdata.PartitionDirs(root)
	if len(dirs) != realdata.PartitionCount {
		t.Fatalf("%d partition directories, want %d", len(dirs), realdata.PartitionCount)
	}
	logsIn := map[string]int{} // partition dir -> .log files, by listing
	for _, dir := range dirs {
		name := realdata.Name(root, dir)
		logsIn[dir] = len(realdata.LogFiles(dir))
		doc, code := analyzeJSON(t, dir)
		got := -1
		if len(doc.Partitions) == 1 {
			got = doc.Partitions[0].Segments
		}
		if doc.Segments != logsIn[dir] || got != logsIn[dir] {
			t.Errorf("analyze %s: segments %d (partition: %d), want %d (.log files)", name, doc.Segments, got, logsIn[dir])
		}
		if want := map[bool]int{true: 1, false: 0}[realdata.Problem(name)]; code != want {
			t.Errorf("analyze %s: exit %d, want %d", name, code, want)
		}
		if realdata.IndexNotFetched(name) && len(doc.Partitions) == 1 {
			// Issue 22, item 1: "reported as what Kafka does with them ... and no advice is
			// derived from an index that does not exist".
			p := doc.Partitions[0]
			advised, said := false, false
			for _, r := range p.Recommendations {
				advised = advised || strings.Contains(r, "index.interval.bytes is at least") || strings.Contains(r, "Lower index.interval.bytes")
				said = said || strings.Contains(r, "has no .index: Kafka's next start recovers it and rebuilds the indexes")
			}
			if advised || !said || len(p.Rebuilt) != 1 || p.Rebuilt[0].Entries == 0 {
				t.Errorf("analyze %s: recommendations %q, rebuilt %+v; want the rebuild said, its figures, and no advice from the missing index", name, p.Recommendations, p.Rebuilt)
			}
		}
	}
	for _, origin := range realdata.Origins(root) {
		name := realdata.Name(root, origin)
		want, parts, broken := 0, 0, false
		for _, dir := range dirs {
			if strings.HasPrefix(dir, origin+string(filepath.Separator)) {
				want += logsIn[dir]
				parts++
				broken = broken || realdata.Problem(realdata.Name(root, dir))
			}
		}
		doc, code := analyzeJSON(t, origin)
		sum := 0
		for _, p := range doc.Partitions {
			sum += p.Segments
		}
		if doc.Segments != want || sum != want || doc.AnalyzedPartitions != parts {
			t.Errorf("analyze %s: segments %d (sum over partitions %d), %d partitions; want %d .log files in %d partitions",
				name, doc.Segments, sum, doc.AnalyzedPartitions, want, parts)
		}
		if wantCode := map[bool]int{true: 1, false: 0}[broken]; code != wantCode {
			t.Errorf("analyze %s: exit %d, want %d", name, code, wantCode)
		}
	}
}
