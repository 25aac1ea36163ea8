package parsers

import (
	"os"
	"testing"

	"kidx/fuzz/internal/parsecheck"
)

// TestMain removes the scratch directory of the inputs read through real files when the
// process ends (the fuzz workers' too: they return from m.Run when the coordinator stops them).
func TestMain(m *testing.M) {
	code := m.Run()
	parsecheck.RemoveScratch()
	os.Exit(code)
}
