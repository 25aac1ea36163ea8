package props

import (
	"flag"
	"fmt"
	"time"

	"kidx/model"
)

// CleanOptions tune a rapid check of a cleaned-segment property (`kidx check --clean`).
type CleanOptions struct {
	Checks int    // 0: rapid's default (RAPID_CHECKS, else 100)
	Seed   uint64 // 0: rapid's default (RAPID_SEED, else random)
	OnCase func()
	// ShrinkTime bounds rapid's shrinking of a counterexample (rapid.shrinktime; 0:
	// DefaultCleanShrinkTime).
	ShrinkTime time.Duration
	// Mutant breaks one of Kafka's rules in every case's run (not in the generator's), to show
	// that an invariant's counterexample is reported as violated.
	Mutant model.Mutant
}

// DefaultCleanShrinkTime bounds the shrinking of a clean counterexample. A clean case runs
// the model twice (the generator realizes the appends, then the case's run), and the
// CleanedIndexNeverOverflows finding shrinks to its handful of steps well within it; rapid's
// own 30 s would make `kidx check --clean` slow to answer.
const DefaultCleanShrinkTime = 2 * time.Second

// CleanPropertyByName is the cleaned-segment property of that name.
func CleanPropertyByName(name string) (*CleanProperty, bool) {
	for _, p := range CleanProperties {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// CleanPropertyNames are the names of CleanProperties, in their order.
func CleanPropertyNames() []string {
	var out []string
	for _, p := range CleanProperties {
		out = append(out, p.Name)
	}
	return out
}

// CheckClean runs one cleaned-segment property through rapid over CleanCaseGen, as
// CheckReplicas does for a replicated one. The property's Kind decides the outcome: an
// invariant's counterexample is "violated", a question's a "finding". A case the model
// refuses is a bug in the generator, not a counterexample: it is returned as an error.
func CheckClean(p *CleanProperty, o CleanOptions) (Result, error) {
	if err := rapidFlags(o.Checks, o.Seed); err != nil {
		return Result{}, err
	}
	shrink := o.ShrinkTime
	if shrink <= 0 {
		shrink = DefaultCleanShrinkTime
	}
	before := flag.Lookup("rapid.shrinktime").Value.String()
	if err := flag.Set("rapid.shrinktime", shrink.String()); err != nil {
		return Result{}, err
	}
	defer func() { _ = flag.Set("rapid.shrinktime", before) }()
	// refused is the counterexample made of the last case the model refused: rapid shrinks a
	// refusal like any failure, and if the minimal failure is one, the check is in error.
	var refused *Counterexample
	res := Result{Property: p.Name, Kind: p.Kind}
	res, err := runRapid(res, CleanCaseGen(), o.OnCase, func(c *CleanCase) *Counterexample {
		c.Mutant = o.Mutant
		r, err := c.Run()
		if err != nil {
			refused = &Counterexample{Workload: c.Workload(), Explanation: "the model refused the case: " + err.Error()}
			return refused
		}
		if v := p.Check(c, r); v != nil {
			return &Counterexample{Workload: c.Workload(), Explanation: v.Explanation}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if res.Counterexample != nil && res.Counterexample == refused {
		wl, _ := refused.Workload.MarshalJSON()
		return res, fmt.Errorf("%s: %s (a bug in props.CleanCaseGen): %s", p.Name, refused.Explanation, wl)
	}
	return res, nil
}
