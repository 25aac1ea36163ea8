package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the meter's goroutine and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Issue 11, defect 8: without a terminal a 65 s run printed nothing. Now a run without a
// terminal prints one line per progressLineEvery, and a run shorter than that prints nothing.
func TestProgressWithoutTerminal(t *testing.T) {
	defer func(d time.Duration) { progressLineEvery = d }(progressLineEvery)
	progressLineEvery = 40 * time.Millisecond

	var quick syncBuffer
	m := newProgressMeter(&quick, "cases", 100, false)
	m.Add(100)
	m.Done()
	if quick.String() != "" {
		t.Errorf("a run shorter than the period printed %q", quick.String())
	}

	var slow syncBuffer
	m = newProgressMeter(&slow, "cases", 10000, false)
	m.Set(3482)
	m.Note("0 divergences")
	for deadline := time.Now().Add(5 * time.Second); slow.String() == "" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // a loaded machine may take a while to tick
	}
	m.Done()
	out := slow.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" || !strings.HasPrefix(lines[0], "kidx: 3,482 of 10,000 cases (34.8%), 0 divergences, ") {
		t.Fatalf("periodic lines %q", out)
	}
	time.Sleep(100 * time.Millisecond)
	if slow.String() != out {
		t.Errorf("lines after Done: %q", strings.TrimPrefix(slow.String(), out))
	}
}

// The periodic line's words, with and without a total (hand-written).
func TestProgressLine(t *testing.T) {
	m := &progressMeter{what: "cases", total: 10000, n: 2500}
	if got, want := m.line(20*time.Second), "2,500 of 10,000 cases (25.0%), 20s elapsed, about 1m0s left"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	m = &progressMeter{what: "batches", total: -1, n: 1234567}
	if got, want := m.line(10*time.Second), "1,234,567 batches, 10s elapsed (123,456 batches/s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Issue 11, defect 8: the spinner stayed on the screen after the run ("- cases, 0
// divergence(s) (3482/-, ...)"). On a terminal the meter's last output erases its line: what
// a terminal shows after the final carriage return is blank.
func TestProgressClearedOnTerminal(t *testing.T) {
	for _, total := range []int64{-1, 5000} {
		var term syncBuffer
		m := newProgressMeter(&term, "cases", total, true)
		for i := 0; i < 5; i++ {
			m.Add(1000)
			m.Note("0 divergences")
			time.Sleep(120 * time.Millisecond) // past the bar's 100 ms throttle: it draws
		}
		m.Done()
		out := term.String()
		if !strings.Contains(out, "cases") {
			t.Fatalf("total %d: the bar never drew: %q", total, out)
		}
		last := out[strings.LastIndex(out, "\r")+1:]
		if strings.TrimSpace(last) != "" {
			t.Errorf("total %d: the terminal keeps %q after the run", total, last)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4096: "-4,096"} {
		if got := groupDigits(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
