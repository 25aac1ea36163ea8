// Package kafkagolden reads the golden vectors that Apache Kafka's own storage classes wrote
// (testdata/kafka-golden, see its PROVENANCE.md and GOLDEN-README.md) for the tests of every
// kidx package. It is test support: nothing outside _test.go files imports it.
package kafkagolden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// CaseCount is the number of golden cases.
const CaseCount = 16

// Output is a case's kafka-output.json: what Kafka's classes reported reading its files back.
// Rows are arrays whose column names are in the README.
type Output struct {
	Rule         string    `json:"rule"`
	Error        *string   `json:"error"`        // set when Kafka threw during an append
	FailedAppend int       `json:"failedAppend"` // 0-based append index of that throw, else -1
	Segments     []Segment `json:"segments"`
}

// Segment is one segment of Output.
type Segment struct {
	BaseOffset  int64     `json:"baseOffset"`
	LogFile     string    `json:"logFile"`
	LogSize     int64     `json:"logSize"`
	Batches     [][]int64 `json:"batches"`     // baseOffset, lastOffset, position, sizeInBytes, maxTimestamp, records, crcValid
	OffsetIndex [][]int64 `json:"offsetIndex"` // offset, position
	TimeIndex   [][]int64 `json:"timeIndex"`   // timestamp, offset
	Lookups     [][]int64 `json:"lookups"`     // target, indexOffset, indexPosition, hitPosition, hitLastOffset, hitSize, batchesScanned
	TimeLookups [][]int64 `json:"timeLookups"` // target, indexTimestamp, indexOffset, startPosition, foundTimestamp, foundOffset
}

// Lookup columns.
const (
	LookupTarget = iota
	LookupIndexOffset
	LookupIndexPosition
	LookupHitPosition
	LookupHitLastOffset
	LookupHitSize
	LookupBatchesScanned
)

// Cases lists the case names under dir (the path of testdata/kafka-golden from the test's
// package), sorted; it fails the test unless all CaseCount cases are there.
func Cases(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*", "kafka-output.json"))
	if err != nil || len(paths) != CaseCount {
		t.Fatalf("want the %d golden cases under %s, found %d (%v)", CaseCount, dir, len(paths), err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(filepath.Dir(p))
	}
	sort.Strings(names)
	return names
}

// Load reads case name's kafka-output.json.
func Load(t testing.TB, dir, name string) Output {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name, "kafka-output.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o Output
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatalf("%s/kafka-output.json: %v", name, err)
	}
	return o
}

// ReadFile reads one file of case name (e.g. "workload.json", "files/00000000000000000000.log").
func ReadFile(t testing.TB, dir, name, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name, file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
