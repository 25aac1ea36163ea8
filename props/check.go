package props

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"kidx/model"
)

// Result is one property's outcome, as `kidx check` prints it (docs/contract.md §9).
type Result struct {
	Property string
	Kind     Kind
	// Cases is the number of cases tried (rapid: up to the first failure); States the
	// number of states an exhaustive run checked.
	Cases   int
	States  int64
	Outcome string // "holds", "violated" or "finding"
	// Counterexample is the minimal (shrunk) failing case, when there is one.
	Counterexample *Counterexample
	Elapsed        time.Duration
}

// Counterexample is a failing case with its explanation; Workload replays it.
type Counterexample struct {
	Workload    model.Workload
	Explanation string
	Compare     map[string][2]int64
}

// Outcomes.
const (
	Holds    = "holds"
	Violated = "violated"
	Finding  = "finding"
)

func outcome(k Kind, failed bool) string {
	switch {
	case !failed:
		return Holds
	case k == Invariant:
		return Violated
	}
	return Finding
}

// Options tune a rapid check.
type Options struct {
	Rule model.AppendRule
	// Era, when set, is a candidate era (model.ParseEraSpec) checked in place of Rule's era;
	// Rule is then taken as Era.Rule(), and the kinds are KindUnder's.
	Era    *model.Era
	Checks int    // 0: rapid's default (RAPID_CHECKS, else 100)
	Seed   uint64 // 0: rapid's default (RAPID_SEED, else random)
	Gen    GenOptions
	// OnCase, if set, is called after every case (progress bars).
	OnCase func()
}

// GenFor picks the workloads a property is checked on: the questions need what makes them
// fail (restarts for RecoveryRebuildsSameIndex, multi-batch appends for the overflow), and
// every property sees restarts and multi-batch appends.
func GenFor(p *Property, o Options) GenOptions {
	g := o.Gen
	g.Rule, g.Era, g.Restarts, g.Recovers = o.Rule, o.Era, true, true
	if o.Era != nil {
		g.Rule = o.Era.Rule()
	}
	if p == RecoveryRebuildsSameIndex {
		// The question is about the live index after clean restarts; a recovery in the
		// workload would rebuild the index it compares.
		g.Recovers = false
	}
	return g
}

var rapidInit sync.Once

// rapidFlags sets rapid's process-wide settings for a run outside `go test`. rapid reads
// them from its command-line flags (registered on flag.CommandLine, defaulting to the
// RAPID_* environment); testing.Short, which rapid consults, needs testing.Init and parsed
// flags.
func rapidFlags(checks int, seed uint64) error {
	rapidInit.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
		_ = flag.Set("rapid.nofailfile", "true")
	})
	if checks > 0 {
		if err := flag.Set("rapid.checks", strconv.Itoa(checks)); err != nil {
			return err
		}
	}
	if seed != 0 {
		if err := flag.Set("rapid.seed", strconv.FormatUint(seed, 10)); err != nil {
			return err
		}
	}
	return nil
}

// Check runs one property through rapid with kidx's own rapid.TB and returns its outcome
// with the shrunk counterexample. The seed makes it replayable.
func Check(p *Property, o Options) (Result, error) {
	if err := rapidFlags(o.Checks, o.Seed); err != nil {
		return Result{}, err
	}
	if o.Era != nil {
		o.Rule = o.Era.Rule()
	}
	res := Result{Property: p.Name, Kind: KindUnder(p, o.Rule, o.Era)}
	return runRapid(res, CaseGen(GenFor(p, o)), o.OnCase, func(c *Case) *Counterexample {
		if v := evaluate(p, c); v != nil {
			return &Counterexample{Workload: c.Workload(), Explanation: v.Explanation, Compare: v.Compare}
		}
		return nil
	})
}

// runRapid draws cases from gen through rapid with kidx's own rapid.TB until check returns a
// counterexample; rapid shrinks it and replays the minimal case last, so the last
// counterexample seen is the shrunk one. res names the property and its kind.
func runRapid[C any](res Result, gen *rapid.Generator[C], onCase func(), check func(C) *Counterexample) (Result, error) {
	var last *Counterexample
	failing := false
	tb := &kidxTB{name: res.Property}
	start := time.Now()
	func() {
		defer func() {
			if r := recover(); r != nil && r != errFailNow {
				panic(r)
			}
		}()
		rapid.Check(tb, func(t *rapid.T) {
			c := gen.Draw(t, "case")
			if !failing {
				res.Cases++
			}
			if onCase != nil {
				onCase()
			}
			if cx := check(c); cx != nil {
				failing, last = true, cx
				t.Fatalf("%s", cx.Explanation)
			}
		})
	}()
	res.Elapsed = time.Since(start)
	if tb.failed && last == nil {
		return res, fmt.Errorf("%s: rapid failed without a counterexample: %s", res.Property, strings.Join(tb.log, "\n"))
	}
	res.Outcome = outcome(res.Kind, tb.failed)
	if tb.failed {
		res.Counterexample = last
	}
	return res, nil
}

// evaluate runs a property on a case; a model error (invalid input) is a violation too.
func evaluate(p *Property, c *Case) *Violation {
	if r := c.Run(); r.Err != nil {
		return &Violation{Explanation: "the model refused the case: " + r.Err.Error()}
	}
	return p.Check(c)
}

// CheckCase evaluates every given property on one case and returns the violated ones.
func CheckCase(ps []*Property, c *Case) map[string]*Violation {
	out := map[string]*Violation{}
	for _, p := range ps {
		if v := evaluate(p, c); v != nil {
			out[p.Name] = v
		}
	}
	return out
}

// kidxTB is the rapid.TB of kidx check: it records rapid's log and failure instead of
// failing a Go test. FailNow unwinds to Check.
type kidxTB struct {
	name   string
	failed bool
	log    []string
}

var errFailNow = fmt.Errorf("rapid: FailNow")

func (t *kidxTB) Helper()      {}
func (t *kidxTB) Name() string { return t.name }
func (t *kidxTB) Logf(format string, args ...any) {
	t.log = append(t.log, fmt.Sprintf(format, args...))
}
func (t *kidxTB) Log(args ...any)                   { t.log = append(t.log, fmt.Sprint(args...)) }
func (t *kidxTB) Skipf(format string, args ...any)  { t.Logf(format, args...); t.SkipNow() }
func (t *kidxTB) Skip(args ...any)                  { t.Log(args...); t.SkipNow() }
func (t *kidxTB) SkipNow()                          { panic(errFailNow) }
func (t *kidxTB) Errorf(format string, args ...any) { t.Logf(format, args...); t.failed = true }
func (t *kidxTB) Error(args ...any)                 { t.Log(args...); t.failed = true }
func (t *kidxTB) Fatalf(format string, args ...any) { t.Errorf(format, args...); t.FailNow() }
func (t *kidxTB) Fatal(args ...any)                 { t.Error(args...); t.FailNow() }
func (t *kidxTB) FailNow()                          { t.failed = true; panic(errFailNow) }
func (t *kidxTB) Fail()                             { t.failed = true }
func (t *kidxTB) Failed() bool                      { return t.failed }
