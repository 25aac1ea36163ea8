// Command goreader is the Go reference reader of kidx's "against" protocol, version 1
// (docs/against.md): `goreader PARTITION_DIR` reads one JSON request on stdin and prints one
// JSON answer line per query, found by package kafkaindex (stdlib only, no kidx package).
//
//	go build -o bin/goreader ./examples/goreader
//	kidx diff --against bin/goreader
package main

import (
	"bufio"
	"encoding/json"
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
// asks (forward compatibility). The partition key is informational: the directory is the last
// argument.
type request struct {
	Protocol *int64 `json:"protocol"`
	Queries  []struct {
		Segment    string `json:"segment"`
		BaseOffset int64  `json:"baseOffset"`
		Offset     int64  `json:"offset"`
	} `json:"queries"`
}

type hitLine struct {
	Start int64 `json:"start"`
	Hit   int64 `json:"hit"`
}

type errorLine struct {
	Error string `json:"error"`
	File  string `json:"file,omitempty"`
	Byte  int64  `json:"byte"`
}

// Exit statuses: 0 answered, 2 a request this reader refuses (usage, protocol, bad JSON).
const (
	exitRefused = 2
	exitFailed  = 1
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintln(stderr, "usage: goreader PARTITION_DIR  (the request comes on stdin; docs/against.md)")
		return exitRefused
	}
	dir := args[len(args)-1]
	var req request
	dec := json.NewDecoder(stdin)
	if err := dec.Decode(&req); err != nil {
		fmt.Fprintf(stderr, "goreader: bad request: %v\n", err)
		return exitRefused
	}
	if req.Protocol == nil || *req.Protocol != 1 {
		got := "none"
		if req.Protocol != nil {
			got = fmt.Sprint(*req.Protocol)
		}
		fmt.Fprintf(stderr, "goreader: protocol %s refused: this reader speaks protocol 1\n", got)
		return exitRefused
	}
	out := bufio.NewWriter(stdout)
	segments := map[string]*kafkaindex.Segment{}
	openErrs := map[string]*kafkaindex.ReadError{}
	defer func() {
		for _, s := range segments {
			s.Close()
		}
	}()
	for _, q := range req.Queries {
		// One Segment per stem: its index is read once for all the queries on it.
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
		var line any
		if rerr == nil {
			a := seg.Lookup(q.Offset)
			rerr = a.Err
			line = hitLine{Start: a.Start, Hit: a.Hit}
		}
		if rerr != nil {
			line = errorLine{Error: rerr.Message, File: rerr.File, Byte: rerr.Byte}
		}
		b, err := json.Marshal(line)
		if err != nil {
			fmt.Fprintf(stderr, "goreader: %v\n", err)
			return exitFailed
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "goreader: writing the answers: %v\n", err)
		return exitFailed
	}
	return 0
}

func asReadError(err error) *kafkaindex.ReadError {
	if re, ok := err.(*kafkaindex.ReadError); ok {
		return re
	}
	return &kafkaindex.ReadError{Byte: -1, Message: strings.TrimSpace(err.Error())}
}
