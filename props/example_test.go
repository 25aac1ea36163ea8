package props_test

import (
	"fmt"

	"kidx/model"
	"kidx/props"
)

// A clean restart mid-segment resets the live byte counter; recover() counts from the
// segment's start, so it rebuilds a different index (docs/kafka.md §2.3).
func ExampleRecoveryRebuildsSameIndex() {
	b := model.Batch{Records: 1, Bytes: 68, MaxTimestamp: -1}
	cfg := model.DefaultConfig()
	cfg.IndexIntervalBytes = 0
	c := &props.Case{Steps: []model.Step{model.AppendStep(b), {Restart: true}, model.AppendStep(b)},
		Config: cfg, Rule: model.PerBatch}
	fmt.Println(props.RecoveryRebuildsSameIndex.Check(c) != nil)
	// Output: true
}
