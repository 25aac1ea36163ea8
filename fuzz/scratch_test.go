package fuzz

import (
	"os"
	"testing"

	"kidx/fuzz/internal/parsecheck"
)

// TestMain removes the scratch directory of the file-backed targets (parsecheck.WriteScratch)
// when the process ends (the fuzz workers' too: they return from m.Run when the coordinator
// stops them).
func TestMain(m *testing.M) {
	code := m.Run()
	parsecheck.RemoveScratch()
	os.Exit(code)
}
