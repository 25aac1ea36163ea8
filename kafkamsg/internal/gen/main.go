// Command gen writes kafkamsg's message tables (kafkamsg/*_gen.go) from Kafka's own JSON
// message definitions, read from a Kafka source tree at a commit the caller names
// (docs/kafkamsg.md). It is a development tool, run by `make generate-kafkamsg`, never by
// the tests or the build.
//
//	go run ./kafkamsg/internal/gen -kafka /path/to/kafka -commit SHA -out kafkamsg
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	kafka := flag.String("kafka", "", "a Kafka source tree (a checkout or `git archive` of apache/kafka)")
	commit := flag.String("commit", "", "the apache/kafka commit the tree is at (written into the generated files' headers)")
	out := flag.String("out", "kafkamsg", "the directory the *_gen.go files are written to")
	flag.Parse()
	if *kafka == "" || *commit == "" {
		fmt.Fprintln(os.Stderr, "gen: -kafka DIR and -commit SHA are required")
		os.Exit(2)
	}
	if err := run(*kafka, *commit, *out, families); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
