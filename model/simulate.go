package model

// Simulate runs steps through a new Log with the given config and rule, then closes it, as
// `kidx sim` does. Events (rejections, overflows) are in the log; an error means the input
// is invalid. With keep set, or when a step is a crash, every segment is kept with its
// batches and indexes.
func Simulate(cfg Config, rule AppendRule, startOffset int64, steps []Step, keep bool) (*Log, error) {
	return SimulateEra(cfg, EraForRule(rule), startOffset, steps, keep)
}

// SimulateEra is Simulate under a Kafka era's rules (docs/kafka.md §13).
func SimulateEra(cfg Config, era Era, startOffset int64, steps []Step, keep bool) (*Log, error) {
	for _, s := range steps {
		// A crash can reach back into rolled segments (docs/contract.md §3), which only a
		// log that keeps them can recover.
		// So do a clean step (it rewrites rolled segments) and a recover step from a recovery
		// point.
		keep = keep || s.Crash != nil || s.Clean != nil || s.HasRecoveryPoint
	}
	l, err := NewLog(cfg, era.Rule(), LogOptions{StartOffset: startOffset, KeepSegments: keep, Era: era})
	if err != nil {
		return nil, err
	}
	for _, s := range steps {
		if l.Stopped() {
			break
		}
		if err := l.Apply(s); err != nil {
			return nil, err
		}
	}
	if err := l.Close(); err != nil {
		return nil, err
	}
	return l, nil
}
