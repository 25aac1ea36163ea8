package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/reports"
	"kidx/sim"
)

// whatIfWorkload is what the workload flags tell a what-if beyond its source: the config it
// starts from, the workload file's config and era, and the sweeps to run.
type whatIfWorkload struct {
	base                  model.Config
	fileConfig            map[string]int64
	fileRule, fileVersion string
	sweeps                []string
}

// sweepOptions turns the flags into the sweep to run: the workload, the config and eras of
// every point, the sweeps and the scale. Its usage checks come after the workload is read, so
// an unreadable workload is reported first.
func (o *whatIfOptions) sweepOptions(stderr io.Writer) (reports.WhatIfOptions, error) {
	var opts reports.WhatIfOptions
	in, err := o.workload(&opts, stderr)
	if err != nil {
		return opts, err
	}
	if o.compareRules && (o.model.rule != "" || o.model.kafkaVersion != "") {
		return opts, usageErr("--compare-rules shows both rules: drop --rule/--kafka-version")
	}
	if err := o.resolveEras(&opts, in, stderr); err != nil {
		return opts, err
	}
	if err := o.addSweeps(&opts, in.sweeps); err != nil {
		return opts, err
	}
	if o.maxMapCount < 1 {
		return opts, usageErr("--max-map-count %d: must be > 0 (vm.max_map_count is a count of mappings)", o.maxMapCount)
	}
	opts.Scale = reports.Scale{Partitions: o.partitions, RetainedSegments: o.retained, MaxMapCount: o.maxMapCount}
	return opts, nil
}

// workload sets the source of opts from --gen, --workload or --from-logdir, else the seed
// post's experiment (docs/background.md) with its sweep unless --sweep is given.
func (o *whatIfOptions) workload(opts *reports.WhatIfOptions, stderr io.Writer) (whatIfWorkload, error) {
	in := whatIfWorkload{base: model.DefaultConfig(), sweeps: o.sweeps}
	switch {
	case o.gen != "":
		opts.Factory = o.generator()
	case o.workloadPath != "":
		w, err := readWorkload(o.workloadPath)
		if err != nil {
			return in, err
		}
		in.fileConfig, in.fileRule, in.fileVersion = w.Config, w.Rule, w.KafkaVersion
		opts.Source = &sim.WorkloadSource{Name: printsafe.Name(o.workloadPath), Workload: w}
	case o.from.logDir != "":
		r, b, err := o.replay(stderr)
		if err != nil {
			return in, err
		}
		in.fileConfig, in.fileVersion = r.Workload.Config, r.Workload.KafkaVersion
		opts.Source = r.Source()
		opts.Baseline = b
	default:
		in.base.SegmentBytes = defaultSimSegment
		// The label names seed post 000 (docs/background.md).
		opts.Source = &sim.WorkloadSource{Name: fmt.Sprintf("seed post 000: %d records, %d per batch, %d-byte batches",
			defaultRecords, defaultBatchRecords, defaultBatchBytes),
			Workload: generatedWorkload(defaultBatchBytes, defaultBatchRecords, defaultRecords)}
		if len(o.sweeps) == 0 {
			// The seed post's question (docs/background.md), answered whole: its four values, and one point
			// on every piece of the interval axis where the index is different.
			in.sweeps = []string{seedIntervals}
			opts.ExactIntervals = !o.compareRules
			if o.compareRules {
				fmt.Fprintln(stderr, "kidx: note: with --compare-rules the default sweep is the seed's four values only: the exact interval sweep runs one era at a time")
			}
		}
	}
	return in, nil
}

// generator builds the --gen source of a point, the sweep's producer settings overriding the
// spec's.
func (o *whatIfOptions) generator() func(over map[string]string) (sim.Source, error) {
	limits := sim.Limits{Records: o.records, Batches: o.batches, Duration: o.duration}
	return func(over map[string]string) (sim.Source, error) {
		src, err := sim.NewGenerator(o.gen, limits, o.seed, over)
		if err != nil {
			return nil, usageErr("--gen %q: %v", o.gen, err)
		}
		return src, nil
	}
}

// replay replays --from-logdir. The replay reproduces today's files (docs/explain.md); a sweep
// or a --config of segment.bytes/segment.ms makes the segments its own.
func (o *whatIfOptions) replay(stderr io.Writer) (*sim.LogDirReplay, *reports.Baseline, error) {
	var swept []string
	for _, sw := range o.sweeps {
		if k, _, ok := strings.Cut(sw, "="); ok {
			swept = append(swept, k)
		}
	}
	keep := true
	for _, k := range []string{"segment.bytes", "segment.ms"} {
		if o.model.hasConfig(k) || slices.Contains(swept, k) {
			keep = false
		}
	}
	r, b, err := o.model.logDirReplay(o.from.logDir, o.from.topic, o.from.partition, keep, swept...)
	if err != nil {
		return nil, nil, err
	}
	if err := cleanedNotes(r, b, o.sweeps); err != nil {
		return nil, nil, err
	}
	warnReplay(stderr, b)
	return r, b, nil
}

// resolveEras sets the config every point starts from and the eras it runs in: the flags',
// else the workload's, else per-batch; with --compare-rules both current eras, whatever the
// workload names.
func (o *whatIfOptions) resolveEras(opts *reports.WhatIfOptions, in whatIfWorkload, stderr io.Writer) error {
	fileRule, fileVersion := in.fileRule, in.fileVersion
	if o.compareRules {
		fileRule, fileVersion = "", ""
	}
	cfg, era, err := o.model.resolve(in.base, in.fileConfig, fileRule, fileVersion, stderr)
	if err != nil {
		return err
	}
	opts.Base, opts.Eras = cfg, []model.Era{era}
	opts.KafkaVersion = o.model.version(fileRule, fileVersion)
	if o.compareRules {
		opts.Eras = []model.Era{model.EraForRule(model.PerBatch), model.EraForRule(model.PerAppend)}
	}
	return nil
}

// addSweeps parses the sweeps into opts, in the order given.
func (o *whatIfOptions) addSweeps(opts *reports.WhatIfOptions, sweeps []string) error {
	for _, s := range sweeps {
		if given, ok := strings.CutPrefix(s, "index.interval.bytes=exact"); ok {
			// "exact" or "exact,v1,v2,...": every piece, plus the values given.
			if o.compareRules {
				return usageErr("--sweep index.interval.bytes=exact runs one era: drop --compare-rules")
			}
			opts.ExactIntervals = true
			given = strings.TrimPrefix(given, ",")
			if given == "" {
				continue
			}
			s = "index.interval.bytes=" + given
		}
		sw, err := reports.ParseSweep(s)
		if err != nil {
			return usageErr("--sweep: %v", err)
		}
		if reports.IsProducerKey(sw.Key) && opts.Factory == nil {
			return usageErr("--sweep %s: producer settings can only be swept with --gen producer:...", sw.Key)
		}
		for _, prev := range opts.Sweeps {
			if prev.Key == sw.Key {
				return usageErr("--sweep %s given twice", sw.Key)
			}
		}
		opts.Sweeps = append(opts.Sweeps, sw)
	}
	return nil
}
