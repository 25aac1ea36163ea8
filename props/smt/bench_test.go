package smt

import (
	"context"
	"testing"

	"kidx/model"
)

// BenchmarkProve times each parametric proof (issue 12's performance target: under 5 s
// each), reporting seconds per proof: every k tried, z3's start included; with candidate fix
// (a)'s invariant (issue 23) last.
func BenchmarkProve(b *testing.B) {
	z := needZ3(b)
	for _, o := range append(obligations(model.Exact), fixANeverOverflows(model.Exact)) {
		name := o.name
		if o.variant != "" {
			name += "." + o.variant
		}
		b.Run(name, func(b *testing.B) {
			var secs float64
			for range b.N {
				r, err := o.prove(context.Background(), z)
				if err != nil {
					b.Fatal(err)
				}
				secs += r.Seconds
			}
			b.ReportMetric(secs/float64(b.N), "s/proof")
		})
	}
}
