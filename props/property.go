package props

import (
	"fmt"

	"kidx/model"
)

// Kind separates docs/contract.md §6's two kinds of property.
type Kind string

const (
	// Invariant must hold for Kafka's rules: a counterexample is a bug in kidx or in the
	// theory, and `kidx check` exits 1.
	Invariant Kind = "invariant"
	// Question is a claim people make that can be false: a counterexample is a finding.
	Question Kind = "question"
)

// A Case is what every property looks at: a workload (docs/contract.md §3), the config and rule it runs
// under, and, for mutation tests, a deliberately broken model. Compare is a second
// index.interval.bytes, larger than the case's, for properties that compare two intervals.
type Case struct {
	Steps       []model.Step
	StartOffset int64
	Config      model.Config
	Rule        model.AppendRule
	// Era, when set, is a candidate era (model.ParseEraSpec) whose rules the case runs under
	// in place of Rule's era; Rule is then Era.Rule().
	Era     *model.Era
	Mutant  model.Mutant
	Compare int64

	run *Run
}

// Violation is a counterexample with a human explanation. Compare, when set, names the
// configurations compared (docs/contract.md §9 "compare"), in the workload's order.
type Violation struct {
	Explanation string
	Compare     map[string][2]int64
}

// A Property is one named claim of docs/contract.md §6 over (workload, config, rule, model result).
// Kafka names the rule of Kafka it rests on, cited in the explanation of a violation.
type Property struct {
	Name  string
	Kafka string
	// KindFor is the property's kind under a rule (EntriesAtBatchBoundaries is an invariant
	// under per-batch and a question under per-append, where kidx must show it fails).
	KindFor func(model.AppendRule) Kind
	Check   func(c *Case) *Violation
}

func always(k Kind) func(model.AppendRule) Kind { return func(model.AppendRule) Kind { return k } }

// KindUnder is the property's kind under the rule, or under a candidate era when era is set
// (docs/proofs.md, "Candidate eras"). A candidate with either fix of the follower overflow
// (docs/kafka-hazards.md) claims that no append overflows an index, so
// NoIndexOverflowMidAppend is an invariant there: under fix (a) within its assumption
// (RollOnRoomMaxBatches), under fix (b) for every append. Fix (b) skips entries that
// Kafka's counter says are due, so ScanBound's bound, which rests on every due entry being
// added, is a question under it: its counterexample is what the fix costs.
func KindUnder(p *Property, rule model.AppendRule, era *model.Era) Kind {
	if era == nil {
		return p.KindFor(rule)
	}
	switch {
	case p == NoIndexOverflowMidAppend && (era.RollWhenAppendLacksIndexRoom || era.SkipEntryWhenIndexFull):
		return Invariant
	case p == ScanBound && era.SkipEntryWhenIndexFull:
		return Question
	}
	return p.KindFor(era.Rule())
}

// Workload returns the case as a complete docs/contract.md §3 workload, config and rule included, that
// `kidx sim --workload` replays.
func (c *Case) Workload() model.Workload {
	return model.Workload{Config: c.Config.Map(), Rule: c.Rule.String(), StartOffset: c.StartOffset, Steps: c.Steps}
}

// Run returns the case's model run, computed once.
func (c *Case) Run() *Run {
	if c.run == nil {
		c.run = simulate(c.Steps, c.StartOffset, c.Config, c.Rule, c.Era, c.Mutant)
	}
	return c.run
}

// with returns the run of the same workload under another interval.
func (c *Case) with(interval int64) *Run {
	cfg := c.Config
	cfg.IndexIntervalBytes = interval
	return simulate(c.Steps, c.StartOffset, cfg, c.Rule, c.Era, c.Mutant)
}

func violation(p string, format string, args ...any) *Violation {
	return &Violation{Explanation: fmt.Sprintf(format, args...) + " [" + p + "]"}
}

// All lists every property in docs/contract.md §6's order, then the questions kidx adds.
func All() []*Property {
	return []*Property{
		FirstBatchNeverIndexed, ScanBound, Plateau, EmptyAboveSegment, EntriesAtBatchBoundaries,
		StrictlyIncreasing, DensityMonotone, LookupHitsTarget, WarmSearchAgrees,
		RecoveryRebuildsSameIndex, NoIndexOverflowMidAppend, MaxScanMonotoneInInterval,
	}
}

// ByName finds a property.
func ByName(name string) (*Property, bool) {
	for _, p := range All() {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// Names lists every property name.
func Names() []string {
	var out []string
	for _, p := range All() {
		out = append(out, p.Name)
	}
	return out
}
