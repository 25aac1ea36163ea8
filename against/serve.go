package against

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"kidx/segment"
)

// Serve is a Reader that keeps its reader running (the long-lived mode, `kidx diff --against
// CMD --serve`, docs/against.md): `/bin/sh -c 'CMD "$@"' kidx-against -` is started once per
// worker, each request is one compact JSON line on its stdin, and exactly one answer line per
// query is read back before the next request is sent. Timeout limits each request (a newly
// started reader's start-up included). A reader that crashes, hangs or answers outside the
// protocol is a Failure for that request; its process group is killed and the next request
// starts a new one. A reader that exits between requests is started again. Close ends them all.
type Serve struct {
	Line     string
	Timeout  time.Duration
	Protocol int // 2: protocol 2's questions; 0 or 1: protocol 1's

	mu      sync.Mutex
	idle    []*serveProcess
	closed  bool
	started int // reader processes started
}

func (s *Serve) protocolVersion() int { return s.Protocol }

// Started is the number of reader processes started so far.
func (s *Serve) Started() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// serveProcess is one running reader.
type serveProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan serveLine // its stdout, line by line; closed at end of file
	done   chan struct{}  // closed once Wait has returned (waitErr is then set)
	stderr *lockedTail
	// waitErr is Wait's error, read after done is closed.
	waitErr error
}

type serveLine struct {
	b   []byte
	err error // a line too long, or a read error; the last value sent
}

// start starts one reader process.
func (s *Serve) start() (*serveProcess, error) {
	// The context is never cancelled: it lets inProcessGroup set cmd.Cancel, the group kill
	// that kill calls.
	cmd := exec.CommandContext(context.Background(), "/bin/sh", "-c", s.Line+` "$@"`, "kidx-against", "-")
	inProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &serveProcess{cmd: cmd, stdin: stdin, lines: make(chan serveLine, 16), done: make(chan struct{}), stderr: &lockedTail{tail: tailBuffer{max: stderrTail}}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", s.Line, err)
	}
	s.mu.Lock()
	s.started++
	s.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 4096), maxLine)
		for sc.Scan() {
			p.lines <- serveLine{b: append([]byte(nil), sc.Bytes()...)}
		}
		if err := sc.Err(); err != nil {
			p.lines <- serveLine{err: err}
			io.Copy(io.Discard, stdout) // let the reader write on until it is killed or ends
		}
		close(p.lines)
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// kill ends p's whole process group and lets its output drain; it does not wait.
func (p *serveProcess) kill() {
	if p.cmd.Cancel != nil {
		p.cmd.Cancel()
	} else {
		p.cmd.Process.Kill()
	}
	p.stdin.Close()
	go func() {
		for range p.lines {
		}
	}()
}

// take is an idle reader, or a new one.
func (s *Serve) take() (*serveProcess, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("against: the long-lived reader is closed")
	}
	for len(s.idle) > 0 {
		p := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		select {
		case <-p.done: // it exited between requests
			continue
		default:
		}
		s.mu.Unlock()
		return p, nil
	}
	s.mu.Unlock()
	return s.start()
}

func (s *Serve) putBack(p *serveProcess) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		p.stdin.Close()
		go func() { <-p.done }()
		return
	}
	s.idle = append(s.idle, p)
}

// Answer sends one request to a running reader and reads its answers.
func (s *Serve) Answer(ctx context.Context, partition string, rules segment.ReadRules, qs []Query) ([]Answer, error) {
	req, err := json.Marshal(Request{Protocol: protocolOf(qs), Partition: partition, Release: rules.Release.String(), IndexView: rules.View.String(), Queries: qs})
	if err != nil {
		return nil, err
	}
	p, err := s.take()
	if err != nil {
		return nil, err
	}
	fail := func(kind, what string) error {
		p.kill()
		return &Failure{Kind: kind, What: what, Stderr: p.stderr.String()}
	}
	// Output left from the request before: the reader answered more than it was asked.
	select {
	case l, ok := <-p.lines:
		if ok {
			return nil, fail(FailProtocol, fmt.Sprintf("output after the answers to the request before: %s", clip(l.b)))
		}
	default:
	}
	var timeLimit <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timeLimit = t.C
	}
	go func() {
		// A reader that does not read its stdin must not block the request's time limit.
		p.stdin.Write(append(req, '\n'))
	}()
	answers := make([]Answer, 0, len(qs))
	read, limit := 0, maxOutput(len(qs))
	for len(answers) < len(qs) {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return nil, s.ended(p, len(answers), len(qs))
			}
			if l.err != nil {
				return nil, fail(FailProtocol, fmt.Sprintf("line %d: %v", len(answers)+1, l.err))
			}
			if read += len(l.b) + 1; read > limit {
				return nil, fail(FailProtocol, fmt.Sprintf("more than %d bytes of output for %d queries", limit, len(qs)))
			}
			a, err := parseAnswerAs(qs[len(answers)].Kind, l.b)
			if err != nil {
				return nil, fail(FailProtocol, fmt.Sprintf("line %d (answer to query %d): %v: %s", len(answers)+1, len(answers), err, clip(l.b)))
			}
			answers = append(answers, a)
		case <-timeLimit:
			return nil, fail(FailHang, fmt.Sprintf("%d of %d answers within the time limit of %s: killed", len(answers), len(qs), s.Timeout))
		case <-ctx.Done():
			p.kill()
			return nil, context.Cause(ctx)
		}
	}
	s.putBack(p)
	return answers, nil
}

// ended judges a reader whose stdout ended after got of n answers: a crash (non-zero exit,
// a signal), a protocol violation (exit 0), or a command the shell cannot run.
func (s *Serve) ended(p *serveProcess, got, n int) error {
	select {
	case <-p.done:
	case <-time.After(time.Second):
		// Its stdout is closed but it lives on: not a protocol reader.
		p.kill()
		<-p.done
	}
	stderr := p.stderr.String()
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if code := ee.ExitCode(); code == 126 || code == 127 {
			return fmt.Errorf("%w: %s: sh exit status %d: %s", ErrCannotRun, s.Line, code, stderr)
		}
		what := ee.ProcessState.String()
		if code := ee.ExitCode(); code > 128 && code < 128+65 {
			what += fmt.Sprintf(" (signal %d, %v)", code-128, syscall.Signal(code-128))
		}
		return &Failure{Kind: FailCrash, What: fmt.Sprintf("%s after %d of %d answers", what, got, n), Stderr: stderr}
	}
	if p.waitErr != nil {
		return fmt.Errorf("running %s: %w", s.Line, p.waitErr)
	}
	return &Failure{Kind: FailProtocol, What: fmt.Sprintf("exited 0 after %d of %d answers of a request", got, n), Stderr: stderr}
}

// Close ends every idle reader: end of stdin, then its process group is killed if it has not
// exited within a second.
func (s *Serve) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	for _, p := range idle {
		p.stdin.Close()
	}
	for _, p := range idle {
		select {
		case <-p.done:
		case <-time.After(time.Second):
			p.kill()
			<-p.done
		}
	}
	return nil
}

// lockedTail is a tailBuffer written by exec's copying goroutine and read by Answer.
type lockedTail struct {
	mu   sync.Mutex
	tail tailBuffer
}

func (l *lockedTail) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tail.Write(b)
}

func (l *lockedTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tail.String()
}
