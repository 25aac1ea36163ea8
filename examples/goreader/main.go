// Command goreader is the Go reference reader of kidx's "against" protocol, versions 1 and 2
// (docs/against.md): `goreader PARTITION_DIR` reads one JSON request on stdin and prints one
// JSON answer line per query, found by package kafkaindex (stdlib only, no kidx package).
// `goreader -` is the long-lived mode: one request per stdin line, each naming its partition,
// the answers to each flushed before the next line is read; the end of stdin ends it.
//
//	go build -o bin/goreader ./examples/goreader
//	kidx diff --against bin/goreader
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kidx/examples/goreader/kafkaindex"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// request is the protocol's stdin object; keys it does not name are ignored, as the protocol
// asks (forward compatibility). In one-shot mode the directory is the last argument and the
// partition key is informational; in the long-lived mode the partition key names it.
type request struct {
	Protocol  *int64  `json:"protocol"`
	Partition string  `json:"partition"`
	Release   string  `json:"release"`
	IndexView string  `json:"indexView"`
	Queries   []query `json:"queries"`
}

type query struct {
	Kind       string `json:"kind"` // protocol 2: offset, timestamp or segment
	Segment    string `json:"segment"`
	BaseOffset int64  `json:"baseOffset"`
	Offset     int64  `json:"offset"`
	Timestamp  int64  `json:"timestamp"`
}

type hitLine struct {
	Start int64 `json:"start"`
	Hit   int64 `json:"hit"`
}

type timestampLine struct {
	Start     int64 `json:"start"`
	Offset    int64 `json:"offset"`
	Timestamp int64 `json:"timestamp"`
}

type segmentLine struct {
	BaseOffset int64 `json:"baseOffset"`
}

type errorLine struct {
	Error string `json:"error"`
	File  string `json:"file,omitempty"`
	Byte  *int64 `json:"byte,omitempty"`
}

// Exit statuses: 0 answered, 2 a request this reader refuses (usage, protocol, bad JSON, an
// unknown release line or index view), 1 a failure to write the answers.
const (
	exitRefused = 2
	exitFailed  = 1
)

// refusal is a request this reader does not answer (exit 2).
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "usage: goreader PARTITION_DIR|-  (the request comes on stdin; docs/against.md)")
		return exitRefused
	}
	dir := args[len(args)-1]
	if dir == "-" {
		return serve(stdin, stdout, stderr)
	}
	var raw json.RawMessage
	if err := json.NewDecoder(stdin).Decode(&raw); err != nil {
		fmt.Fprintf(stderr, "goreader: bad request: %v\n", err)
		return exitRefused
	}
	out := bufio.NewWriter(stdout)
	if err := answerRequest(raw, dir, out); err != nil {
		return fail(err, stderr)
	}
	if err := out.Flush(); err != nil {
		return fail(fmt.Errorf("writing the answers: %w", err), stderr)
	}
	return 0
}

// serve is the long-lived mode: a request per line, its answers written and flushed before the
// next line is read; exit 0 at the end of stdin. A refused request ends the process (exit 2):
// kidx starts a new reader for the next request.
func serve(stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReaderSize(stdin, 1<<16)
	out := bufio.NewWriter(stdout)
	for {
		line, readErr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := answerRequest(line, "", out); err != nil {
				return fail(err, stderr)
			}
			if err := out.Flush(); err != nil {
				return fail(fmt.Errorf("writing the answers: %w", err), stderr)
			}
		}
		switch {
		case errors.Is(readErr, io.EOF):
			return 0
		case readErr != nil:
			return fail(fmt.Errorf("reading stdin: %w", readErr), stderr)
		}
	}
}

func fail(err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "goreader: %v\n", err)
	var r *refusal
	if errors.As(err, &r) {
		return exitRefused
	}
	return exitFailed
}

// answerRequest answers one request; dir "" takes the directory from its partition key.
func answerRequest(raw []byte, dir string, out *bufio.Writer) error {
	var req request
	if err := json.Unmarshal(raw, &req); err != nil {
		return &refusal{fmt.Sprintf("bad request: %v", err)}
	}
	if req.Protocol == nil || (*req.Protocol != 1 && *req.Protocol != 2) {
		got := "none"
		if req.Protocol != nil {
			got = fmt.Sprint(*req.Protocol)
		}
		return &refusal{fmt.Sprintf("protocol %s refused: this reader speaks protocols 1 and 2", got)}
	}
	release, err := kafkaindex.ParseRelease(req.Release)
	if err != nil {
		return &refusal{err.Error()}
	}
	view, err := kafkaindex.ParseView(req.IndexView)
	if err != nil {
		return &refusal{err.Error()}
	}
	if dir == "" {
		if req.Partition == "" {
			return &refusal{"a request of the long-lived mode must name its partition"}
		}
		dir = req.Partition
	}
	rules := kafkaindex.Rules{Release: release, View: view}
	segments := map[string]*kafkaindex.Segment{}
	openErrs := map[string]*kafkaindex.ReadError{}
	defer func() {
		for _, s := range segments {
			s.Close()
		}
	}()
	for _, q := range req.Queries {
		kind := q.Kind
		if *req.Protocol == 1 {
			kind = "offset" // protocol 1 knows offset queries only
		}
		var line any
		switch kind {
		case "segment":
			if base, err := kafkaindex.FloorSegment(dir, q.Offset); err != nil {
				line = asErrorLine(asReadError(err))
			} else {
				line = segmentLine{BaseOffset: base}
			}
		case "offset", "timestamp":
			// One Segment per stem: its index files are read once for all the queries on it.
			key := q.Segment + "\x00" + fmt.Sprint(q.BaseOffset)
			seg, rerr := segments[key], openErrs[key]
			if seg == nil && rerr == nil {
				s, err := kafkaindex.OpenNamed(dir, q.Segment, q.BaseOffset)
				if err != nil {
					rerr = asReadError(err)
					openErrs[key] = rerr
				} else {
					seg = s
					segments[key] = s
				}
			}
			switch {
			case rerr != nil:
				line = asErrorLine(rerr)
			case kind == "offset":
				if a := seg.LookupAs(q.Offset, rules); a.Err != nil {
					line = asErrorLine(a.Err)
				} else {
					line = hitLine{Start: a.Start, Hit: a.Hit}
				}
			default:
				if a := seg.LookupTimestamp(q.Timestamp, rules); a.Err != nil {
					line = asErrorLine(a.Err)
				} else {
					line = timestampLine{Start: a.Start, Offset: a.Offset, Timestamp: a.Timestamp}
				}
			}
		default:
			line = errorLine{Error: fmt.Sprintf("unknown query kind %q (this reader knows offset, timestamp and segment)", q.Kind)}
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return nil
}

func asErrorLine(e *kafkaindex.ReadError) errorLine {
	at := e.Byte
	return errorLine{Error: e.Message, File: e.File, Byte: &at}
}

func asReadError(err error) *kafkaindex.ReadError {
	if re, ok := err.(*kafkaindex.ReadError); ok {
		return re
	}
	return &kafkaindex.ReadError{Byte: -1, Message: strings.TrimSpace(err.Error())}
}
