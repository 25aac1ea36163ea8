package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kidx/internal/segmenttest"
	"kidx/internal/testfiles"
	"kidx/logdir"
	"kidx/segment"
)

// writePartition writes n batches of the seed post's shape (docs/background.md; 16350 bytes,
// 79 records) into root/name under segment.bytes=65536: 4 batches per segment.
func writePartition(t *testing.T, root, name string, n int) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if _, err := segment.WriteWorkload(dir, segmenttest.SeedWorkload(n)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// orphanIndex leaves an index with no .log in dir: a warning (missing-log), Kafka's LogLoader
// deletes it at the next start.
func orphanIndex(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "00000000000000099999.index")
	testfiles.MustWrite(t, p, nil)
	return p
}

func analyzeText(t *testing.T, a *Analysis, o RenderOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := a.WriteTextWith(&b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Issue 22, item 3: "Problems are always printed, whatever the top-N cut." The partition with
// the problem has the cheapest lookups (one batch: no walk), so --top 1 would cut it.
func TestTopNeverHidesProblems(t *testing.T) {
	root := t.TempDir()
	writePartition(t, root, "big-0", 8)
	writePartition(t, root, "big-1", 8)
	orphan := orphanIndex(t, writePartition(t, root, "small-0", 1))
	a, err := AnalyzeDir(root, AnalyzeOptions{Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Problems != 1 || a.Analyzed != 3 {
		t.Fatalf("problems %d, analyzed %d", a.Problems, a.Analyzed)
	}
	var kept []string
	for _, p := range a.Partitions {
		kept = append(kept, filepath.Base(p.Path))
	}
	if strings.Join(kept, ",") != "big-0,small-0" && strings.Join(kept, ",") != "big-1,small-0" {
		t.Fatalf("kept %v: want the worst one, then the one with the problem", kept)
	}
	for _, o := range []RenderOptions{{}, {Quiet: true}, {All: true}} {
		if out := analyzeText(t, a, o); !strings.Contains(out, orphan+": warning: missing-log") {
			t.Errorf("%+v: the problem is not printed:\n%s", o, out)
		}
	}
}

// The verdict: "damaged" with an error, "needs attention" with a warning or a partition that
// needs attention, "healthy" otherwise (docs/reports.md, "A broker's verdict").
func TestBrokerVerdictStates(t *testing.T) {
	healthy := t.TempDir()
	writePartition(t, healthy, "t-0", 6)
	warned := t.TempDir()
	orphanIndex(t, writePartition(t, warned, "t-0", 6))
	damaged := t.TempDir()
	d := writePartition(t, damaged, "t-0", 6)
	// An unknown magic in the second batch's header: analyze reads headers only, and this one
	// is an error there.
	log := filepath.Join(d, "00000000000000000000.log")
	data := testfiles.MustRead(t, log)
	data[16350+16] = 7 // the second batch's magic
	testfiles.MustWrite(t, log, data)
	for _, c := range []struct {
		dir, state string
	}{{healthy, logdir.VerdictHealthy}, {warned, logdir.VerdictAttention}, {damaged, logdir.VerdictDamaged}} {
		a, err := AnalyzeDir(c.dir, AnalyzeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict.State != c.state || !strings.HasPrefix(a.Verdict.Text, "Verdict: "+c.state+".") {
			t.Errorf("%s: verdict %+v, want %s", c.dir, a.Verdict, c.state)
		}
		if out := analyzeText(t, a, RenderOptions{}); !strings.Contains(out, "Verdict: "+c.state+".") {
			t.Errorf("%s: the text does not open with the verdict:\n%s", c.dir, out)
		}
	}
}

// The default layout lists only the partitions that need attention; --all lists every one in
// natural order (t-2 before t-10); --quiet stops after the problems. The roll-up sums a
// topic's partitions.
func TestBrokerLayouts(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"t-10", "t-2", "t-1", "u-0"} {
		writePartition(t, root, name, 6)
	}
	orphanIndex(t, filepath.Join(root, "t-10"))
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Topics) != 2 || a.Topics[0].Topic != "t" || a.Topics[0].Partitions != 3 || a.Topics[0].Segments != 6 ||
		a.Topics[0].LogBytes != 3*6*16350 || a.Topics[0].Warnings != 1 || a.Topics[0].Attention != 1 || a.Topics[1].Topic != "u" {
		t.Fatalf("topics %+v", a.Topics)
	}
	rows := func(out string) []string {
		var names []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && (strings.HasPrefix(f[0], "t-") || strings.HasPrefix(f[0], "u-")) {
				names = append(names, f[0])
			}
		}
		return names
	}
	def := analyzeText(t, a, RenderOptions{})
	if got := strings.Join(rows(def), ","); got != "t-10" || !strings.Contains(def, "Partitions that need attention: 1 of 4") {
		t.Errorf("default rows %q:\n%s", got, def)
	}
	all := analyzeText(t, a, RenderOptions{All: true})
	if got := strings.Join(rows(all), ","); got != "t-1,t-2,t-10,u-0" {
		t.Errorf("--all rows %q:\n%s", got, all)
	}
	quiet := analyzeText(t, a, RenderOptions{Quiet: true})
	if strings.Contains(quiet, "Topics") || strings.Contains(quiet, "Partitions") || !strings.Contains(quiet, "Problems (1)") {
		t.Errorf("--quiet:\n%s", quiet)
	}
	var doc struct {
		Verdict struct {
			State   string   `json:"state"`
			Reasons []string `json:"reasons"`
		} `json:"verdict"`
		Topics     []TopicRollup `json:"topics"`
		Partitions []struct {
			Path      string   `json:"path"`
			Attention []string `json:"attention"`
		} `json:"partitions"`
	}
	var b bytes.Buffer
	if err := a.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict.State != logdir.VerdictAttention || len(doc.Verdict.Reasons) != 1 || doc.Verdict.Reasons[0] != "1 warning (1 topic)" || len(doc.Topics) != 2 {
		t.Errorf("json verdict %+v, topics %+v", doc.Verdict, doc.Topics)
	}
	for _, p := range doc.Partitions {
		if (filepath.Base(p.Path) == "t-10") != (len(p.Attention) == 1 && p.Attention[0] == "1 warning") {
			t.Errorf("json attention of %s: %q", p.Path, p.Attention)
		}
	}
}

// meta.properties names the broker: its node.id (broker.id in ZooKeeper mode), not the host.
func TestBrokerNamedByNodeID(t *testing.T) {
	root := t.TempDir()
	writePartition(t, root, "t-0", 2)
	testfiles.MustWrite(t, filepath.Join(root, segment.MetaPropertiesName), []byte("version=1\nnode.id=4\ncluster.id=abc\n"))
	a, err := AnalyzeDir(root, AnalyzeOptions{HostName: "somehost"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Broker != "4" || a.BrokerFrom != "meta.properties" || a.ClusterID != "abc" {
		t.Fatalf("broker %q from %q cluster %q", a.Broker, a.BrokerFrom, a.ClusterID)
	}
	if err := os.Remove(filepath.Join(root, segment.MetaPropertiesName)); err != nil {
		t.Fatal(err)
	}
	if a, _ := AnalyzeDir(root, AnalyzeOptions{HostName: "somehost"}); a.Broker != "somehost" {
		t.Fatalf("without meta.properties: %q", a.Broker)
	}
	if a, _ := AnalyzeDir(root, AnalyzeOptions{Broker: "b7", HostName: "somehost"}); a.Broker != "b7" {
		t.Fatalf("--broker: %q", a.Broker)
	}
}

// The next start's plan is analyze's too, and its findings count as verify's.
func TestAnalyzeCarriesTheLogDirChecks(t *testing.T) {
	root := t.TempDir()
	writePartition(t, root, "t-0", 6)
	testfiles.MustWrite(t, filepath.Join(root, segment.LogStartOffsetCheckpointName), []byte("0\n1\nt 0 900\n"))
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := logdir.Verify([]string{root}, logdir.VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Problems != 1 || r.Problems() != 1 || a.Verdict.State != logdir.VerdictDamaged || len(a.LogDirs) != 1 || !a.LogDirs[0].NextStart.Recovers {
		t.Fatalf("analyze %d problems (%s), verify %d, log dirs %+v", a.Problems, a.Verdict.State, r.Problems(), a.LogDirs)
	}
}

// Issue 22, item 6, HTML: the verdict and the problems come first, then the charts, then the
// roll-up and a folded table per topic (open where a partition needs attention), every table
// sortable; the page minus its charts is well-formed XML.
func TestAnalyzeHTMLVerdictFirst(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"t-0", "t-1", "u-0"} {
		writePartition(t, root, name, 6)
	}
	orphan := orphanIndex(t, filepath.Join(root, "t-1"))
	a, err := AnalyzeDir(root, AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := a.WriteHTML(&b, []Figure{{Title: "c", SVG: `<svg width="10" height="10"></svg>`}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	at := func(s string) int {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("no %q in the page", s)
		}
		return i
	}
	verdict, problem, svg, table := at(`<p class="verdict attention">Verdict: needs attention.`), at(htmlEscape(orphan)), at("<svg"), at("<table")
	if verdict >= problem || problem >= svg || svg >= table {
		t.Errorf("order: verdict %d, problem %d, chart %d, first table %d", verdict, problem, svg, table)
	}
	if strings.Count(page, `<details class="topic" open="open">`) != 1 || strings.Count(page, `<details class="topic">`) != 1 ||
		!strings.Contains(page, `<table class="sortable">`) {
		t.Errorf("topics folded wrong or tables not sortable")
	}
	body := strings.Replace(strings.Replace(page, "<!DOCTYPE html>", "", 1), `<meta charset="utf-8">`, `<meta charset="utf-8"/>`, 1)
	dec := xml.NewDecoder(strings.NewReader(body))
	for {
		if _, err := dec.Token(); err != nil {
			if err != io.EOF {
				t.Errorf("not well-formed: %v", err)
			}
			break
		}
	}
}
