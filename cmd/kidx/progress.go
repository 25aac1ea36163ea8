package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressLineEvery is how often a run without a terminal says how far it is (issue 11: a 65 s
// run printed nothing at all to a CI log). A variable for tests.
var progressLineEvery = 10 * time.Second

// progressMeter shows a long run's progress on stderr (docs/cli.md, "Progress"):
//   - on a terminal, a progressbar: a determinate bar with its ETA when the total is known, a
//     spinner when it is not, erased when the run ends so nothing of it stays on the screen;
//   - otherwise (a pipe, a file, a CI log), nothing for the first progressLineEvery, then one
//     line every progressLineEvery, so a long run shows it is alive and how far it is.
//
// Its methods are safe for concurrent use (campaign workers report from their goroutines).
type progressMeter struct {
	mu    sync.Mutex
	w     io.Writer
	what  string
	total int64 // < 0: unknown
	n     int64
	note  string
	start time.Time
	bar   *progressbar.ProgressBar
	stop  chan struct{}
	wg    sync.WaitGroup
	done  bool
}

// startProgress starts a meter over total units named what ("cases", "log bytes"); total < 0
// when it is not known.
func startProgress(w io.Writer, what string, total int64) *progressMeter {
	return newProgressMeter(w, what, total, isTerminal(w))
}

func newProgressMeter(w io.Writer, what string, total int64, tty bool) *progressMeter {
	p := &progressMeter{w: w, what: what, total: total, start: time.Now(), stop: make(chan struct{})}
	if tty {
		max := total
		if max <= 0 {
			max = -1 // progressbar's spinner
		}
		opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish()}
		if max > 0 {
			// The rate only where it means something: a spinner's, from large counts set at
			// once, read as billions a second (issue 11 review).
			opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(what),
				progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30))
		}
		p.bar = progressbar.NewOptions64(max, opts...)
		return p
	}
	p.wg.Add(1)
	go p.lines()
	return p
}

// lines writes the periodic line of a run without a terminal.
func (p *progressMeter) lines() {
	defer p.wg.Done()
	t := time.NewTicker(progressLineEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.done {
				fmt.Fprintf(p.w, "kidx: %s\n", p.line(time.Since(p.start)))
			}
			p.mu.Unlock()
		}
	}
}

// line is the text of one periodic line: "3,482 of 10,000 cases (34.8%), 0 divergences, 20 s
// elapsed, about 37 s left" or, with no total, "3,482 cases, 20 s elapsed (174 cases/s)".
func (p *progressMeter) line(elapsed time.Duration) string {
	secs := elapsed.Round(time.Second)
	note := ""
	if p.note != "" {
		note = ", " + p.note
	}
	if p.total > 0 {
		s := fmt.Sprintf("%s of %s %s (%.1f%%)%s, %s elapsed", groupDigits(p.n), groupDigits(p.total), p.what,
			100*float64(p.n)/float64(p.total), note, secs)
		if p.n > 0 && p.n < p.total {
			left := time.Duration(float64(elapsed) * float64(p.total-p.n) / float64(p.n))
			s += fmt.Sprintf(", about %s left", left.Round(time.Second))
		}
		return s
	}
	s := fmt.Sprintf("%s %s%s, %s elapsed", groupDigits(p.n), p.what, note, secs)
	if elapsed > 0 {
		s += fmt.Sprintf(" (%s %s/s)", groupDigits(int64(float64(p.n)/elapsed.Seconds())), p.what)
	}
	return s
}

// Add counts n more units done.
func (p *progressMeter) Add(n int64) { p.update(func(done int64) int64 { return done + n }) }

// Set says how many units are done.
func (p *progressMeter) Set(n int64) { p.update(func(int64) int64 { return n }) }

func (p *progressMeter) update(next func(done int64) int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = next(p.n)
	if p.bar != nil && !p.done {
		_ = p.bar.Set64(p.n)
	}
}

// Note sets a short status shown beside the count ("2 divergences").
func (p *progressMeter) Note(note string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.note = note
	if p.bar != nil && !p.done {
		if note != "" {
			p.bar.Describe(p.what + ", " + note)
		} else {
			p.bar.Describe(p.what)
		}
	}
}

// Done ends the meter: the bar is erased from the terminal (the report that follows stands
// alone), and the periodic lines stop. Calling it again does nothing.
func (p *progressMeter) Done() {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.done = true
	if p.bar != nil {
		// Exit, then Clear: a spinner's Finish would draw its last frame again.
		_ = p.bar.Exit()
		_ = p.bar.Clear()
	}
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
}

// groupDigits writes n with thousands separators: 1234567 -> "1,234,567".
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
