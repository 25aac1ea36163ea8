package model

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Data-driven scenario scripts in the style of etcd raft's testdata: each file in
// ../testdata/scenarios is a list of commands, each followed by "----" and the output it must
// produce, ending at a blank line. The expected outputs were written by hand from the seed
// posts (docs/background.md) and docs/kafka.md (each file says where its figures come from); the runner
// never rewrites them.
//
// Commands:
//
//	config [rule=per-batch|per-append | version=X.Y.Z] [candidate=a|b] [start=N] [ts=auto] [key=value ...]   new empty log
//	                          (candidate: the era with fix (a) RollWhenAppendLacksIndexRoom or
//	                          (b) SkipEntryWhenIndexFull on, docs/kafka-hazards.md §6)
//	append BATCH ... [xN]     one leader append of these batches, N times; prints rolls and events
//	replicate BATCH ... [xN]  the same as a follower's append (origin replication)
//	restart | recover         a clean restart / an unclean one (recover())
//	roll [BASE]               a roll step (to max(log end offset, BASE))
//	index [BASE]              offset index of every segment (or one)
//	timeindex [BASE]          time index of every segment (or one)
//	lookup OFFSET             phase 1 + phase 2
//	stats [BASE]              exact scan statistics per segment
//	reads [BASE]              Kafka's phase-2 header reads per segment (docs/contract.md §5)
//	events                    rejections and overflows so far
//
// A BATCH is SIZE[:RECORDS][@TS[~DELTA]][=BASE][/FLAG]: RECORDS offsets (default 1), max
// timestamp TS held first by the record at offset delta DELTA, explicit base offset BASE, and
// FLAG z (compressed), m0 or m1 (a legacy message or wrapper of that magic). BATCH*N is N
// copies of it in the append. With ts=auto every batch without a timestamp gets the next one
// (1, 2, 3, ... over the log's appends), as a live producer's CreateTime would.

type scenarioCase struct {
	file, cmd string
	line      int
	want      string
}

func readScenarios(t *testing.T, path string) []scenarioCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []scenarioCase
	sc := bufio.NewScanner(f)
	lineNo := 0
	var cur *scenarioCase
	inOutput := false
	var out []string
	flush := func() {
		if cur != nil {
			cur.want = strings.Join(out, "\n")
			cases = append(cases, *cur)
		}
		cur, inOutput, out = nil, false, nil
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case inOutput && strings.TrimSpace(line) == "":
			flush()
		case inOutput:
			out = append(out, line)
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		case line == "----":
			if cur == nil {
				t.Fatalf("%s:%d: ---- without a command", path, lineNo)
			}
			inOutput = true
		default:
			if cur != nil {
				t.Fatalf("%s:%d: command %q has no ---- output block", path, cur.line, cur.cmd)
			}
			cur = &scenarioCase{file: path, cmd: line, line: lineNo}
		}
	}
	if cur != nil && !inOutput {
		t.Fatalf("%s:%d: command %q has no ---- output block", path, cur.line, cur.cmd)
	}
	flush()
	return cases
}

func TestScenarioScripts(t *testing.T) {
	files, err := filepath.Glob("../testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var run scenarioRunner
			for _, c := range readScenarios(t, path) {
				got, err := run.do(c.cmd)
				if err != nil {
					got = "error: " + err.Error()
				}
				if got != c.want {
					t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", c.file, c.line, c.cmd, got, c.want)
				}
			}
		})
	}
}

type scenarioRunner struct {
	log *Log
	// nextTs, when above 0 (config ts=auto), is the max timestamp the next batch without one
	// gets: every batch a newer one, as a live producer's CreateTime.
	nextTs int64
}

func (r *scenarioRunner) do(cmd string) (string, error) {
	fields := strings.Fields(cmd)
	name, args := fields[0], fields[1:]
	if name != "config" && r.log == nil {
		return "", fmt.Errorf("no config yet")
	}
	switch name {
	case "config":
		return r.config(args)
	case "append":
		return r.append(OriginLeader, args)
	case "replicate":
		return r.append(OriginReplication, args)
	case "roll":
		var base int64
		if len(args) == 1 {
			var err error
			if base, err = strconv.ParseInt(args[0], 10, 64); err != nil {
				return "", err
			}
		}
		segsBefore := len(r.log.Segments())
		if err := r.log.Roll(base); err != nil {
			return "", err
		}
		segs := r.log.Segments()
		if len(segs) > segsBefore {
			old := segs[len(segs)-2]
			return fmt.Sprintf("roll: segment %d closed (%s), segment %d starts", old.BaseOffset(), old.RollReason(), segs[len(segs)-1].BaseOffset()), nil
		}
		return fmt.Sprintf("roll: empty segment replaced, segment %d starts", segs[len(segs)-1].BaseOffset()), nil
	case "restart", "recover":
		before := len(r.log.Events())
		var err error
		if name == "restart" {
			err = r.log.Restart()
		} else {
			err = r.log.Recover()
		}
		if err != nil {
			return "", err
		}
		if len(r.log.Events()) > before {
			return formatEvents(r.log.Events()[before:]), nil
		}
		return "ok", nil
	case "index", "timeindex", "stats", "reads":
		var lines []string
		for _, s := range r.log.Segments() {
			if len(args) == 1 && strconv.FormatInt(s.BaseOffset(), 10) != args[0] {
				continue
			}
			lines = append(lines, formatSegment(name, s))
		}
		return strings.Join(lines, "\n"), nil
	case "lookup":
		o, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil {
			return "", err
		}
		res, ok := r.log.Lookup(o)
		if !ok {
			return fmt.Sprintf("offset %d: not found", o), nil
		}
		entry := "no entry, start 0"
		if res.IndexSlot >= 0 {
			entry = fmt.Sprintf("entry %d@%d", res.Index.Offset, res.Index.Position)
		}
		return fmt.Sprintf("offset %d: segment %d, %s, hit batch %d-%d@%d, scan %d bytes, %d hops",
			o, res.SegmentBase, entry, res.Hit.BaseOffset, res.Hit.LastOffset, res.Hit.Position, res.ScanBytes, res.Hops), nil
	case "events":
		return formatEvents(r.log.Events()), nil
	}
	return "", fmt.Errorf("unknown command %q", name)
}

func (r *scenarioRunner) config(args []string) (string, error) {
	cfg := DefaultConfig()
	rule := PerBatch
	var era Era
	var start int64
	autoTs := false
	candidate := ""
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return "", fmt.Errorf("want key=value, got %q", a)
		}
		switch k {
		case "rule":
			var err error
			if rule, err = ParseRule(v); err != nil {
				return "", err
			}
		case "version":
			var err error
			if era, err = EraForKafkaVersion(v); err != nil {
				return "", err
			}
		case "candidate":
			if v != "a" && v != "b" {
				return "", fmt.Errorf("candidate=%s: want a or b", v)
			}
			candidate = v
		case "start":
			var err error
			if start, err = strconv.ParseInt(v, 10, 64); err != nil {
				return "", err
			}
		case "ts":
			if v != "auto" {
				return "", fmt.Errorf("ts=%s: only ts=auto", v)
			}
			autoTs = true
		default:
			if err := cfg.Set(k, v); err != nil {
				return "", err
			}
		}
	}
	if candidate != "" {
		if era.ID == "" {
			era = EraForRule(rule)
		}
		era.RollWhenAppendLacksIndexRoom = candidate == "a"
		era.SkipEntryWhenIndexFull = candidate == "b"
	}
	l, err := NewLog(cfg, rule, LogOptions{StartOffset: start, KeepSegments: true, Era: era})
	if err != nil {
		return "", err
	}
	r.log, r.nextTs = l, 0
	if autoTs {
		r.nextTs = 1
	}
	return "ok", nil
}

func parseScenarioBatch(s string) (Batch, error) {
	b := Batch{Records: 1, MaxTimestamp: NoTimestamp}
	s, flag, _ := strings.Cut(s, "/")
	switch flag {
	case "":
	case "z":
		b.Compressed = true
	case "m0":
		b.Legacy = Magic0
	case "m1":
		b.Legacy = Magic1
	default:
		return b, fmt.Errorf("unknown batch flag %q", flag)
	}
	s, base, hasBase := strings.Cut(s, "=")
	rest, ts, hasTs := strings.Cut(s, "@")
	size, recs, hasRecs := strings.Cut(rest, ":")
	var err error
	if b.Bytes, err = strconv.ParseInt(size, 10, 64); err != nil {
		return b, err
	}
	if hasRecs {
		if b.Records, err = strconv.ParseInt(recs, 10, 64); err != nil {
			return b, err
		}
	}
	if hasTs {
		ts, delta, hasDelta := strings.Cut(ts, "~")
		if b.MaxTimestamp, err = strconv.ParseInt(ts, 10, 64); err != nil {
			return b, err
		}
		if hasDelta {
			d, err := strconv.ParseInt(delta, 10, 32)
			if err != nil {
				return b, err
			}
			b.MaxTimestampDelta, b.HasMaxTimestampDelta = int32(d), true
		}
	}
	if hasBase {
		if b.BaseOffset, err = strconv.ParseInt(base, 10, 64); err != nil {
			return b, err
		}
	}
	return b, nil
}

func (r *scenarioRunner) append(origin Origin, args []string) (string, error) {
	repeat := 1
	var batches []Batch
	var untimed []int // the batches ts=auto stamps, at every repeat
	for _, a := range args {
		if strings.HasPrefix(a, "x") {
			n, err := strconv.Atoi(a[1:])
			if err != nil {
				return "", err
			}
			repeat = n
			continue
		}
		copies := 1
		if spec, n, ok := strings.Cut(a, "*"); ok {
			var err error
			if copies, err = strconv.Atoi(n); err != nil {
				return "", err
			}
			a = spec
		}
		b, err := parseScenarioBatch(a)
		if err != nil {
			return "", err
		}
		for range copies {
			if b.MaxTimestamp == NoTimestamp {
				untimed = append(untimed, len(batches))
			}
			batches = append(batches, b)
		}
	}
	var lines []string
	for range repeat {
		segsBefore := len(r.log.Segments())
		eventsBefore := len(r.log.Events())
		if r.nextTs > 0 {
			for _, i := range untimed {
				batches[i].MaxTimestamp = r.nextTs
				r.nextTs++
			}
		}
		if err := r.log.AppendFrom(origin, batches...); err != nil {
			return "", err
		}
		segs := r.log.Segments()
		if len(segs) > segsBefore {
			old := segs[len(segs)-2]
			lines = append(lines, fmt.Sprintf("roll: segment %d closed (%s), segment %d starts", old.BaseOffset(), old.RollReason(), segs[len(segs)-1].BaseOffset()))
		}
		if evs := r.log.Events(); len(evs) > eventsBefore {
			lines = append(lines, formatEvents(evs[eventsBefore:]))
		}
	}
	if len(lines) == 0 {
		return "ok", nil
	}
	return strings.Join(lines, "\n"), nil
}

func formatEvents(evs []Event) string {
	if len(evs) == 0 {
		return "no events"
	}
	var lines []string
	for _, e := range evs {
		lines = append(lines, fmt.Sprintf("event %s at step %d: %s", e.Kind, e.Step, e.Message))
	}
	return strings.Join(lines, "\n")
}

func formatSegment(what string, s *Segment) string {
	head := fmt.Sprintf("segment %d [%d-%d] %d bytes, %d batches:", s.BaseOffset(), s.BaseOffset(), s.LastOffset(), s.Size(), len(s.Batches()))
	var parts []string
	switch what {
	case "index":
		for _, e := range s.OffsetIndex().All() {
			parts = append(parts, fmt.Sprintf("%d@%d", e.Offset, e.Position))
		}
	case "timeindex":
		for _, e := range s.TimeIndex().All() {
			parts = append(parts, fmt.Sprintf("%d->%d", e.Timestamp, e.Offset))
		}
	case "stats":
		st := s.Scan()
		return fmt.Sprintf("segment %d: lookups %d, max scan %d, total scan %d, max hops %d, total hops %d",
			s.BaseOffset(), st.Lookups, st.MaxScanBytes, st.TotalScanBytes, st.MaxHops, st.TotalHops)
	case "reads":
		st := s.Scan()
		return fmt.Sprintf("segment %d: lookups %d, max header reads %d, total header reads %d",
			s.BaseOffset(), st.Lookups, st.MaxHeaderReads, st.TotalHeaderReads)
	}
	if len(parts) == 0 {
		return head + " (empty)"
	}
	return head + " " + strings.Join(parts, " ")
}
