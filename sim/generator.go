package sim

import (
	"errors"
	"time"
)

// Limits bound a generated workload; the first limit reached ends it. At least one must be
// set for an endless generator.
type Limits struct {
	Records  int64         // total records (0: no limit)
	Batches  int64         // total batches (0: no limit)
	Duration time.Duration // simulated producer time (0: no limit)
}

// NewGenerator parses a generator spec (`kidx help workloads`), e.g.
// "lognormal:median=16384,sigma=0.6" or
// "producer:rate=2000/s,record=lognormal:median=300,batch.size=16384,linger.ms=5",
// bounded by limits, deterministic from seed. overrides replace top-level parameters of the
// spec (e.g. {"batch.size": "32768"}), which is how sweeps vary producer settings.
func NewGenerator(spec string, limits Limits, seed uint64, overrides map[string]string) (Source, error) {
	return nil, errors.New("generators are not implemented yet")
}
