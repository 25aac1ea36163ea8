package sim

import "math/rand/v2"

// Every random part of a generator tree draws from its own PCG stream, numbered in the order
// the spec is read (1, 2, ...), so the output is a function of (spec, seed) alone:
// rand.New(rand.NewPCG(seed, n)) reproduces part n's draws.

// streams hands out stream numbers while a generator tree is built.
type streams struct {
	seed uint64
	next uint64
}

func (s *streams) take() (*rand.PCG, *rand.Rand) {
	s.next++
	pcg := rand.NewPCG(s.seed, s.next)
	return pcg, rand.New(pcg)
}
