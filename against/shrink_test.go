package against

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kidx/corpus"
	"kidx/segment"
)

// A hang's shrink candidates run under a shorter limit (Command.shrinkTimeout), so a candidate
// that is only slow may pass for hanging; what Shrink reports must hang under the full limit.
// This reader hangs on a request of more than 20 queries and takes 0.8 s, then exits 3, on a
// smaller one (past the candidates' 0.5 s, within the case's 2 s): the shrunk case, run again
// under the full limit, hangs.
func TestHangShrinkHoldsUnderTheFullLimit(t *testing.T) {
	sh := script(t, `n=$(tr ',' '\n' | grep -c '"offset"'); if [ "$n" -gt 20 ]; then sleep 30; fi; sleep 0.8; exit 3`)
	r := &Command{Line: sh, Timeout: 2 * time.Second}
	rep, err := Run(context.Background(), Options{Seed: 3, Cases: 1, Reader: r})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Divergences) != 1 || rep.Divergences[0].Kind != FailHang || rep.Divergences[0].Queries <= 20 {
		t.Fatalf("want one hang on a case of more than 20 queries: %+v", rep.Divergences)
	}
	s, err := Shrink(context.Background(), rep.Divergences[0], r, ShrinkOptions{Out: t.TempDir(), Budget: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != FailHang || len(s.Queries) <= 20 {
		t.Fatalf("shrunk to %d queries (%s): a request of 20 or fewer does not hang", len(s.Queries), s.Kind)
	}
	again, err := RunCorpus(context.Background(), s.Dir, r, AllFields)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Divergences) != 1 || again.Divergences[0].Divergence.Kind != FailHang {
		t.Fatalf("the shrunk case under the full limit: %+v", again.Divergences)
	}
}

// A case's queries.json cuts the questions to its queries, and the answers stay those of the
// release line and view expected.json names (issue 24: a replay asked the reader for the zero
// rules while kidx's answers were 2.1-3.9's).
func TestQueriesFileKeepsTheCasesRules(t *testing.T) {
	dir := t.TempDir()
	c, err := corpus.WriteCase(dir, corpus.Options{Seed: 3, Release: "2.1-3.9", IndexView: "reopened"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := QuestionsOf(c.Expected)
	req := Request{Protocol: 1, Partition: corpus.Partition, Queries: q.Queries[:1]}
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, QueriesFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := restrictTo(c.Dir, q)
	if err != nil {
		t.Fatal(err)
	}
	want := segment.ReadRules{Release: segment.Release21, View: segment.ViewReopened}
	if len(got.Queries) != 1 || got.Rules != want {
		t.Fatalf("%d queries under %v; want 1 under %v", len(got.Queries), got.Rules, want)
	}
}
