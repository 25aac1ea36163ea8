package against

import (
	"kidx/segment"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A Reader answers a case's queries on a partition directory. A reader that crashes, hangs or
// answers outside the protocol returns a *Failure; any other error is the harness's own.
type Reader interface {
	Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error)
}

// Failure kinds: what went wrong with the reader itself (findings about it, not kidx errors).
const (
	FailCrash    = "crash"    // the reader exited non-zero or was killed by a signal
	FailHang     = "hang"     // the reader ran past its time limit and was killed
	FailProtocol = "protocol" // the reader exited 0 but its output is not one answer per query
)

// Failure is a reader run that gave no answers: its kind, what was seen, and the end of its
// standard error.
type Failure struct {
	Kind   string
	What   string
	Stderr string
}

func (f *Failure) Error() string { return f.Kind + ": " + f.What }

// Command is a Reader that runs an external program: `/bin/sh -c 'CMD "$@"' kidx-against DIR`,
// so CMD is a shell command line (arguments, quoting, environment assignments) and the
// partition directory is its last argument. The request goes to its stdin; its stdout is read
// as answers. Each run is limited to Timeout; on expiry the program's whole process group is
// killed (a reader started through a wrapper script dies with it).
type Command struct {
	Line    string
	Timeout time.Duration
	// Protocol 2 asks protocol 2's questions (timestamp and segment queries); 0 or 1: protocol 1.
	Protocol int
	// slowest is the longest run, in nanoseconds, that ended by itself: Shrink bounds the
	// candidates of a hang by a multiple of it rather than by Timeout.
	slowest atomic.Int64
}

// shrinkTimeout is the time limit of a hang's shrink candidates: 8 times the slowest run that
// ended by itself, at least half a second, at most Timeout. A candidate that outlives it
// counts as hanging; the shrunk case is then checked again under Timeout.
func (c *Command) shrinkTimeout() time.Duration {
	t := max(8*time.Duration(c.slowest.Load()), 500*time.Millisecond)
	if c.Timeout > 0 {
		t = min(t, c.Timeout)
	}
	return t
}

func (c *Command) protocolVersion() int { return c.Protocol }

// errTimeLimit is the cause of a run's cancel when its time limit expires.
var errTimeLimit = errors.New("time limit")

// stderrTail is how much of a failed reader's standard error a Failure keeps.
const stderrTail = 4 << 10

// maxOutput bounds what is read of a reader's stdout: about 250 times what its answers need.
func maxOutput(queries int) int { return 1<<20 + queries*16<<10 }

// ErrCannotRun is the error of a Command whose program the shell cannot find or execute
// (exit status 126 or 127): a usage error, not a finding.
var ErrCannotRun = errors.New("the command cannot be run")

// Answer runs the command once on partition with qs.
func (c *Command) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	req, err := json.Marshal(Request{Protocol: protocolOf(qs), Partition: partition, Release: rules.Release.String(), IndexView: rules.View.String(), Queries: qs})
	if err != nil {
		return nil, err
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, errTimeLimit)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", c.Line+` "$@"`, "kidx-against", partition)
	cmd.Stdin = bytes.NewReader(append(req, '\n'))
	stdout := &limitedBuffer{max: maxOutput(len(qs))}
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	inProcessGroup(cmd)
	// A grandchild that keeps the pipes open must not keep Wait waiting past the kill.
	cmd.WaitDelay = time.Second
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	if runErr != nil && errors.Is(context.Cause(ctx), errTimeLimit) {
		return nil, &Failure{Kind: FailHang, What: fmt.Sprintf("no exit within the time limit of %s: killed", c.Timeout), Stderr: stderr.String()}
	}
	if runErr != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx) // the caller's cancel, not the reader's doing
	}
	if runErr == nil {
		for {
			old := c.slowest.Load()
			if int64(elapsed) <= old || c.slowest.CompareAndSwap(old, int64(elapsed)) {
				break
			}
		}
	}
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		if code := ee.ExitCode(); code == 126 || code == 127 {
			return nil, fmt.Errorf("%w: %s: sh exit status %d: %s", ErrCannotRun, c.Line, code, strings.TrimSpace(stderr.String()))
		}
		what := ee.ProcessState.String()
		if code := ee.ExitCode(); code > 128 && code < 128+65 {
			// The shell reports a command killed by signal N as exit status 128+N.
			what += fmt.Sprintf(" (signal %d, %v)", code-128, syscall.Signal(code-128))
		}
		return nil, &Failure{Kind: FailCrash, What: what + " after " + elapsed.Round(time.Millisecond).String(), Stderr: stderr.String()}
	case runErr != nil && !errors.Is(runErr, exec.ErrWaitDelay):
		return nil, fmt.Errorf("running %s: %w", c.Line, runErr)
	}
	if stdout.overflow {
		return nil, &Failure{Kind: FailProtocol, What: fmt.Sprintf("more than %d bytes of output for %d queries", stdout.max, len(qs)), Stderr: stderr.String()}
	}
	answers, err := parseAnswersOf(stdout.Bytes(), qs)
	if err != nil {
		return nil, &Failure{Kind: FailProtocol, What: err.Error(), Stderr: stderr.String()}
	}
	return answers, nil
}

// limitedBuffer keeps the first max bytes written and notes that there were more; it never
// refuses a write (a refused write would kill the reader with SIGPIPE: a crash kidx caused).
type limitedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
