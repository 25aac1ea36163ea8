package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"testing"

	"kidx/examples/internal/handmade"
)

// BenchmarkRequests measures the built reader over the protocol on one hand-built partition
// (three-v2: six offset queries a request), one process per request (kidx's one-shot mode)
// against one process for all (the long-lived mode), in requests per second (issue 24 asks
// the long-lived mode with this reader for at least 5 times the one-shot rate):
//
//	go test -run '^$' -bench Requests -benchtime 2000x ./examples/goreader/
func BenchmarkRequests(b *testing.B) {
	bin := buildReader(b)
	cases, err := handmade.Load()
	if err != nil {
		b.Fatal(err)
	}
	var c handmade.Case
	for _, x := range cases {
		if x.Dir == "three-v2" {
			c = x
		}
	}
	req := c.Request()
	b.Run("one-process-per-request", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bin, c.Path)
			cmd.Stdin = bytes.NewReader(req)
			out, err := cmd.Output()
			if err != nil || bytes.Count(out, []byte("\n")) != len(c.Queries) {
				b.Fatalf("%v: %q", err, out)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	})
	b.Run("long-lived", func(b *testing.B) {
		cmd := exec.Command(bin, "-")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		answers := bufio.NewReader(stdout)
		line := append(append([]byte{}, req...), '\n')
		for b.Loop() {
			if _, err := stdin.Write(line); err != nil {
				b.Fatal(err)
			}
			for range c.Queries {
				if _, err := answers.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	})
}
