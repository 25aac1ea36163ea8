package testfiles

import (
	"testing"

	"kidx/internal/kafkagolden"
)

// GoldenDir is the copy of Kafka's own output (testdata/kafka-golden/PROVENANCE.md).
const GoldenDir = "../testdata/kafka-golden"

func GoldenCases(t testing.TB) []string { return kafkagolden.Cases(t, GoldenDir) }

func ReadGoldenOutput(t testing.TB, name string) kafkagolden.Output {
	return kafkagolden.Load(t, GoldenDir, name)
}
