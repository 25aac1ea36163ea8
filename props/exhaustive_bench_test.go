package props

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"kidx/model"
)

// exhaustiveStates is the size of an exhaustive space: sum over n <= L of |A|^n sequences
// times 2^(n-1) groupings, times the configs.
func exhaustiveStates(alphabet, maxLen, configs int) int64 {
	var total, seqs, groupings int64 = 0, 1, 1
	for n := 1; n <= maxLen; n++ {
		seqs *= int64(alphabet)
		if n > 1 {
			groupings *= 2
		}
		total += seqs * groupings
	}
	return total * int64(configs)
}

// BenchmarkExhaustive measures states/s of the default space cut at L = 4 (for both rules;
// every property stays open until its counterexample), for the optimized walk and, as the
// before figure, the reference. states/s/core divides by the cores used (GOMAXPROCS; 1 for the sequential reference),
// the target unit.
func BenchmarkExhaustive(b *testing.B) {
	impls := []struct {
		name  string
		fn    func([]*Property, ExhaustiveOptions) []Result
		cores int
	}{{"optimized", Exhaustive, runtime.GOMAXPROCS(0)}, {"reference", exhaustiveReference, 1}}
	for _, impl := range impls {
		for _, rule := range []model.AppendRule{model.PerBatch, model.PerAppend} {
			b.Run(impl.name+"/"+rule.String(), func(b *testing.B) {
				states := exhaustiveStates(len(DefaultAlphabet), 4, len(DefaultIntervals)*len(DefaultSegments))
				cpu0 := cpuTime()
				for b.Loop() {
					impl.fn(All(), ExhaustiveOptions{Rule: rule, MaxLen: 4})
				}
				rate := float64(states) * float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(rate, "states/s")
				b.ReportMetric(rate/float64(impl.cores), "states/s/core")
				// On a shared machine wall time depends on the neighbours; CPU time less so.
				b.ReportMetric(float64(states)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "states/cpu-s")
			})
		}
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
