// Command kidx models, checks and tunes Apache Kafka's per-segment offset index. See the
// README for a tour; `kidx help` lists the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"kidx/internal/printsafe"
	"kidx/internal/rapidenv" // before pgregory.net/rapid initializes: see its package doc
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one kidx command line and returns its exit code (docs/contract.md §8): 0 success, 1 a
// property failed or a verification found problems, 2 a usage or input error.
func run(args []string, stdout, stderr io.Writer) int {
	for _, p := range rapidenv.Malformed {
		fmt.Fprintf(stderr, "kidx: warning: %s=%q is not %s: ignored (rapid reads it, for kidx check)\n", p.Name, p.Value, p.Want)
	}
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	// One line, whatever the names in it hold: an operating system's error names its file as
	// it is (docs/cli.md, "Names and input in the output").
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "kidx: %s\n", printsafe.Message(ee.err.Error()))
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, bad value, wrong argument count) are usage errors.
	fmt.Fprintf(stderr, "kidx: %s\n", printsafe.Message(err.Error()))
	return 2
}

// exitError carries an exit code out of a command; err, if set, is printed to stderr.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is an input or usage error: exit 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// problemsFound ends a command with exit 1 after it printed its report.
var problemsFound = &exitError{code: 1}
