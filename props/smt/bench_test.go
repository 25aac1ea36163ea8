package smt

import (
	"context"
	"testing"
)

// BenchmarkProve times each parametric proof (issue 12's performance target: under 5 s
// each), reporting seconds per proof.
func BenchmarkProve(b *testing.B) {
	z := needZ3(b)
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			var secs float64
			for range b.N {
				rep, err := Prove(context.Background(), Options{Solver: z, Properties: []string{name}})
				if err != nil {
					b.Fatal(err)
				}
				secs += rep.Properties[0].Seconds
			}
			b.ReportMetric(secs/float64(b.N), "s/proof")
		})
	}
}
