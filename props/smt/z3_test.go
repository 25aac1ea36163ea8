package smt

import (
	"fmt"
	"os"
	"testing"
)

// needZ3 returns the installed z3, skips the test loudly when there is none, and fails it
// instead when CI is set: CI must run the proofs (`make test` installs z3 through `make z3`).
func needZ3(tb testing.TB) Solver {
	tb.Helper()
	z, err := FindZ3()
	if err == nil {
		return z
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("CI is set and z3 is missing: install it (apt-get install z3, or `make z3` as root): %v", err)
	}
	msg := fmt.Sprintf("SKIPPING %s: z3 is not installed, the parametric proofs are NOT checked (apt-get install z3, or `make z3` as root)", tb.Name())
	fmt.Fprintln(os.Stderr, "!!! "+msg)
	tb.Skip(msg)
	return Solver{}
}
