package segment

// Internals that the external tests (package segment_test) reach, the export_test.go idiom:
// this file is compiled only into the package's tests.

// RecordSize is recordSize: a DefaultRecord's size in bytes.
var RecordSize = recordSize

// SetWriteStepHook makes WriteWorkloadDir and WriteRecipeDir call f before each step (nil: no
// hook), so that a test can fail a write in its middle.
func SetWriteStepHook(f func(step int) error) { writeStepHook = f }
