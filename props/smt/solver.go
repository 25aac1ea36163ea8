package smt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Solver runs SMT-LIB 2 scripts through z3's text interface on stdin (`z3 -smt2 -in`): one
// process per script, whose check-sat answers are read back in order.
type Solver struct {
	// Path is the z3 binary.
	Path string
	// Timeout bounds one z3 process (0: none); a process cut short is an error.
	Timeout time.Duration
	// CheckTimeout bounds one check-sat of a proof (z3's :timeout option; 0: none): z3 then
	// answers unknown, and the proof's result is "unknown", not an error.
	CheckTimeout time.Duration
}

// ErrNoZ3 says z3 is not installed.
var ErrNoZ3 = errors.New("z3 not found on PATH: install it (Debian/Ubuntu: apt-get install z3, or `make z3` as root)")

// FindZ3 returns a Solver for the z3 on PATH.
func FindZ3() (Solver, error) {
	p, err := exec.LookPath("z3")
	if err != nil {
		return Solver{}, ErrNoZ3
	}
	return Solver{Path: p, Timeout: 120 * time.Second, CheckTimeout: 30 * time.Second}, nil
}

// Version is z3's version line ("Z3 version 4.8.12 - 64 bit").
func (s Solver) Version() (string, error) {
	out, err := exec.Command(s.Path, "-version").Output()
	if err != nil {
		return "", fmt.Errorf("%s -version: %w", s.Path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// run feeds script to z3 and returns every S-expression it answers, in order. An
// "(error …)" answer is an error: the script is not what this package meant to write.
func (s Solver) run(ctx context.Context, script string) ([]sexpr, error) {
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, s.Path, "-smt2", "-in")
	cmd.Stdin = strings.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	answers, perr := parseSexprs(stdout.String())
	for _, a := range answers {
		if a.isList && len(a.List) > 0 && a.List[0].Atom == "error" {
			return nil, fmt.Errorf("z3 rejected the script: %s", a)
		}
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("z3 did not finish within %s: %w", s.Timeout, ctx.Err())
	}
	if runErr != nil {
		return nil, fmt.Errorf("z3: %w (stderr: %s)", runErr, strings.TrimSpace(stderr.String()))
	}
	if perr != nil {
		return nil, perr
	}
	return answers, nil
}

// answer is one check-sat's result.
type answer string

// The three answers of check-sat.
const (
	answerSat     answer = "sat"
	answerUnsat   answer = "unsat"
	answerUnknown answer = "unknown"
)

func answerOf(e sexpr) (answer, error) {
	switch a := answer(e.Atom); a {
	case answerSat, answerUnsat, answerUnknown:
		if !e.isList {
			return a, nil
		}
	}
	return "", fmt.Errorf("expected sat, unsat or unknown from z3, got %s", e)
}

// values reads get-value's answer ((term value) …), in the order asked.
func values(e sexpr) ([]sexpr, error) {
	if !e.isList {
		return nil, fmt.Errorf("expected get-value's ((term value) ...), got %s", e)
	}
	out := make([]sexpr, len(e.List))
	for i, pair := range e.List {
		if !pair.isList || len(pair.List) != 2 {
			return nil, fmt.Errorf("expected (term value), got %s", pair)
		}
		out[i] = pair.List[1]
	}
	return out, nil
}

// named pairs the terms asked with get-value's answers (in the same order).
func named(names []string, vals []sexpr) (map[string]sexpr, error) {
	if len(vals) != len(names) {
		return nil, fmt.Errorf("asked z3 for %d values, got %d", len(names), len(vals))
	}
	m := make(map[string]sexpr, len(names))
	for i, n := range names {
		m[n] = vals[i]
	}
	return m, nil
}
