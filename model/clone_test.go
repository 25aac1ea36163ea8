package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A clone taken mid-workload and the original, each given the rest of the steps, end where
// one log given every step ends; and working on the clone leaves the original untouched.
func TestCloneIsIndependent(t *testing.T) {
	for seed := uint64(1); seed <= 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 41))
		cfg, steps := randomSteps(r)
		cut := r.IntN(len(steps) + 1)
		whole, err := Simulate(cfg, PerBatch, 0, steps, true)
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewLog(cfg, PerBatch, LogOptions{KeepSegments: true})
		if err != nil {
			t.Fatal(err)
		}
		apply := func(l *Log, steps []Step) {
			for _, s := range steps {
				if l.Stopped() {
					break
				}
				if err := l.Apply(s); err != nil {
					t.Fatal(err)
				}
			}
		}
		apply(l, steps[:cut])
		before := l.Summaries()
		c := l.Clone()
		apply(c, steps[cut:])
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if got := l.Summaries(); !slices.Equal(got, before) {
			t.Fatalf("seed %d: the clone's steps changed the original:\n%+v\n%+v", seed, got, before)
		}
		if got, want := c.Summaries(), whole.Summaries(); !slices.Equal(got, want) || c.Scan() != whole.Scan() || len(c.Events()) != len(whole.Events()) {
			t.Fatalf("seed %d cut %d: clone %+v, whole %+v", seed, cut, got, want)
		}
		for i, s := range c.Segments() {
			if !slices.Equal(s.OffsetIndex().All(), whole.Segments()[i].OffsetIndex().All()) ||
				!slices.Equal(s.TimeIndex().All(), whole.Segments()[i].TimeIndex().All()) {
				t.Fatalf("seed %d: segment %d indexes differ", seed, i)
			}
		}
	}
}
