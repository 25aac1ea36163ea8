package segmenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// RealdataPath is a file of /work/shared/realdata (../../shared/realdata from this package).
// Without it the test is skipped loudly, and fails when CI is set.
func RealdataPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "realdata", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("real Kafka data %s is missing (CI is set, so this fails): %v", p, err)
		}
		t.Skipf("SKIPPED, NOT RUN: real Kafka data %s is missing (%v); the golden tests against Kafka's own files did not run", p, err)
	}
	return p
}
