package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"kidx/logdir"
	"kidx/model"
	"kidx/segment"
)

// judgeFlags are the flags of the commands that judge real files (verify, analyze): which
// release wrote them, and the topic's index.interval.bytes when known.
type judgeFlags struct {
	kafkaVersion string
	rule         string
	configs      []string
	configFile   string
	maxFindings  int
	cmd          *cobra.Command // for its stderr (the notes of --config and --config-file)
}

func (f *judgeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kafkaVersion, "kafka-version", "", "judge the files by the rules of this Kafka release (X.Y.Z, e.g. 3.6.1 or 0.10.2.1); default: the releases the files themselves allow, inferred and reported")
	cmd.Flags().StringVar(&f.rule, "rule", "", "judge by one of the two current eras: per-batch (Kafka 3.9.1+, 4.0.1+, 4.1+) or per-append (3.7 to 3.9.0, 4.0.0)")
	cmd.Flags().StringArrayVar(&f.configs, "config", nil, "config k=v: index.interval.bytes=I (or the broker's log.index.interval.bytes) checks that no entry is closer than I and places byte-counter restarts exactly; segment.index.bytes gives trimmed indexes their capacity for the follower-index-overflow check (live ones show theirs), with segment.bytes for its remedy; the other configs are read from the files")
	cmd.Flags().StringVar(&f.configFile, "config-file", "", "read configs from a server.properties (Java properties) or kafka-configs.sh --describe [--all] output; --config overrides it")
	f.cmd = cmd
}

// registerFindingsCap adds --max-findings, for the commands that list findings (verify,
// analyze; explain lists none).
func (f *judgeFlags) registerFindingsCap(cmd *cobra.Command) {
	cmd.Flags().IntVar(&f.maxFindings, "max-findings", defaultMaxFindings, "list at most N findings of one check and severity per file, each with its file and byte; the rest are counted in one line \"and M more\" (JSON: \"more\") and still count as problems (0: list every one)")
}

// defaultMaxFindings is --max-findings' default: enough to see a pattern, bounded however
// damaged a file is (docs/findings.md, "Bounded findings").
const defaultMaxFindings = 20

// options resolves the flags into verify's options (era and interval).
func (f *judgeFlags) options(opts *logdir.VerifyOptions) error {
	if f.kafkaVersion != "" && f.rule != "" {
		return usageErr("--rule and --kafka-version both pick the rules: give one")
	}
	if f.maxFindings < 0 {
		return usageErr("--max-findings %d: give a count, or 0 to list every finding", f.maxFindings)
	}
	opts.MaxFindings = f.maxFindings
	if f.kafkaVersion != "" {
		r, err := logdir.ParseRelease(f.kafkaVersion)
		if err != nil {
			return usageErr("--kafka-version: %v", err)
		}
		e := logdir.EraFor(r)
		opts.Era = &e
	}
	if f.rule != "" {
		r, err := segment.ParseRule(f.rule)
		if err != nil {
			return usageErr("--rule: %v", err)
		}
		e := logdir.EraForRule(r)
		opts.Era = &e
	}
	// Every config is checked against Kafka's ranges; index.interval.bytes is used, and
	// segment.index.bytes and segment.bytes for the follower-index-overflow check (the capacity
	// of trimmed indexes, the remedy): otherwise the sizes are what the files show.
	var stderr io.Writer = io.Discard
	if f.cmd != nil {
		stderr = f.cmd.ErrOrStderr()
	}
	fileSettings, err := configFileSettings(f.configFile, stderr)
	if err != nil {
		return err
	}
	flagSettings, err := configFlagSettings(f.configs)
	if err != nil {
		return err
	}
	cfg := model.DefaultConfig()
	if err := applyConfigSources(&cfg, fileSettings, flagSettings, stderr); err != nil {
		return err
	}
	if setsConfig(fileSettings, "index.interval.bytes") || setsConfig(flagSettings, "index.interval.bytes") {
		opts.IndexIntervalBytes, opts.HaveInterval = cfg.IndexIntervalBytes, true
	}
	if setsConfig(fileSettings, "segment.index.bytes") || setsConfig(flagSettings, "segment.index.bytes") {
		opts.SegmentIndexBytes = cfg.SegmentIndexBytes
	}
	if setsConfig(fileSettings, "segment.bytes") || setsConfig(flagSettings, "segment.bytes") {
		opts.SegmentBytes = cfg.SegmentBytes
	}
	return nil
}

// headerReadsEra is the era whose phase-2 header reads analyze reports, from the flags
// options accepted: --kafka-version's exact era, --rule per-append's 3.7-4.0.0 (before 4.1);
// nil for --rule per-batch (its judging era spans 3.9.1 to 4.x, on both sides of 4.1's
// change) and with no flag, when the report gives both figures.
func (f *judgeFlags) headerReadsEra() *model.Era {
	switch {
	case f.kafkaVersion != "":
		r, err := logdir.ParseRelease(f.kafkaVersion)
		if err != nil {
			return nil
		}
		e, err := model.EraForKafkaVersion(r.String())
		if err != nil {
			return nil
		}
		return &e
	case strings.TrimSpace(f.rule) == model.PerAppend.String():
		e := model.EraForRule(model.PerAppend)
		return &e
	}
	return nil
}
