package smt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// session is one z3 process read and written command by command, for scripts whose next
// command depends on an answer (get-value only after sat).
type session struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	cancel context.CancelFunc
	// answers are the check-sat answers so far.
	answers []string
}

func (z Solver) start(ctx context.Context) (*session, error) {
	var cancel context.CancelFunc = func() {}
	if z.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, z.Timeout)
	}
	cmd := exec.CommandContext(ctx, z.Path, "-smt2", "-in")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("starting %s: %w", z.Path, err)
	}
	s := &session{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), cancel: cancel}
	if z.CheckTimeout > 0 {
		// z3's own option, sent to the session only: the emitted files stay standard.
		if err := s.send(fmt.Sprintf("(set-option :timeout %d)\n", z.CheckTimeout.Milliseconds())); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

func (s *session) send(text string) error {
	_, err := io.WriteString(s.stdin, text)
	return err
}

// read returns z3's next answer: one S-expression, which may span lines.
func (s *session) read() (sexpr, error) {
	var text strings.Builder
	depth := 0
	for {
		line, err := s.stdout.ReadString('\n')
		text.WriteString(line)
		depth += strings.Count(line, "(") - strings.Count(line, ")")
		if depth <= 0 && strings.TrimSpace(text.String()) != "" {
			break
		}
		if err != nil {
			return sexpr{}, fmt.Errorf("z3 stopped answering (a timeout, or a crash): %w", err)
		}
	}
	es, err := parseSexprs(text.String())
	if err != nil {
		return sexpr{}, err
	}
	if len(es) != 1 {
		return sexpr{}, fmt.Errorf("expected one answer from z3, got %q", text.String())
	}
	if e := es[0]; e.isList && len(e.List) > 0 && e.List[0].Atom == "error" {
		return sexpr{}, fmt.Errorf("z3 rejected the script: %s", e)
	}
	return es[0], nil
}

func (s *session) checkSat() (answer, error) {
	if err := s.send("(check-sat)\n"); err != nil {
		return "", err
	}
	e, err := s.read()
	if err != nil {
		return "", err
	}
	a, err := answerOf(e)
	if err == nil {
		s.answers = append(s.answers, string(a))
	}
	return a, err
}

func (s *session) getValues(names []string) (map[string]sexpr, error) {
	if err := s.send("(get-value (" + strings.Join(names, " ") + "))\n"); err != nil {
		return nil, err
	}
	e, err := s.read()
	if err != nil {
		return nil, err
	}
	vals, err := values(e)
	if err != nil {
		return nil, err
	}
	return named(names, vals)
}

func (s *session) close() {
	_ = s.send("(exit)\n")
	_ = s.stdin.Close()
	_ = s.cmd.Wait()
	s.cancel()
}
