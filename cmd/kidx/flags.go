package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"kidx/model"
)

// modelFlags are the flags every command that runs the model or writes files shares (SPEC
// §2): --config k=v[,k=v...] (repeatable), --rule, --kafka-version.
type modelFlags struct {
	configs      []string
	rule         string
	kafkaVersion string
}

func (f *modelFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.configs, "config", nil,
		"topic config k=v[,k=v...] (repeatable); keys: "+strings.Join(model.ConfigKeys(), ", "))
	cmd.Flags().StringVar(&f.rule, "rule", "", "append rule: per-batch (Kafka 3.9.1+, 4.0.1+, 4.1+) or per-append (older)")
	cmd.Flags().StringVar(&f.kafkaVersion, "kafka-version", "", "Kafka release X.Y.Z: picks its append rule and warns about values it rejects")
}

// resolve applies, in order: base, the workload file's config, then --config; and picks the
// rule from --rule or --kafka-version, else the file's, else per-batch. Warnings (values a
// given Kafka release would reject) go to stderr.
func (f *modelFlags) resolve(base model.Config, fileConfig map[string]int64, fileRule string, stderr io.Writer) (model.Config, model.AppendRule, error) {
	cfg := base
	if err := (model.Workload{Config: fileConfig}).ApplyTo(&cfg); err != nil {
		return cfg, 0, usageErr("workload %v", err)
	}
	for _, group := range f.configs {
		for _, kv := range strings.Split(group, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return cfg, 0, usageErr("--config %q: want key=value", kv)
			}
			if err := cfg.Set(strings.TrimSpace(k), v); err != nil {
				return cfg, 0, usageErr("--config: %v", err)
			}
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, 0, usageErr("config: %v", err)
	}
	rule := model.PerBatch
	if fileRule != "" {
		r, err := model.ParseRule(fileRule)
		if err != nil {
			return cfg, 0, usageErr("workload rule: %v", err)
		}
		rule = r
	}
	if f.rule != "" && f.kafkaVersion != "" {
		return cfg, 0, usageErr("--rule and --kafka-version both pick the rule: give one")
	}
	if f.rule != "" {
		r, err := model.ParseRule(f.rule)
		if err != nil {
			return cfg, 0, usageErr("--rule: %v", err)
		}
		rule = r
	}
	if f.kafkaVersion != "" {
		r, err := model.RuleForKafkaVersion(f.kafkaVersion)
		if err != nil {
			return cfg, 0, usageErr("--kafka-version: %v", err)
		}
		rule = r
		warnings, _ := model.VersionWarnings(cfg, f.kafkaVersion)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "kidx: warning: %s\n", w)
		}
	}
	return cfg, rule, nil
}

// formatFlag validates --format against the allowed values.
func formatFlag(value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageErr("--format %q: want one of %s", value, strings.Join(allowed, ", "))
}

func splitComma(s string) []string { return strings.Split(s, ",") }

func cutEq(kv string) (string, string, bool) {
	k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
	return strings.TrimSpace(k), v, ok
}

// hasConfig reports whether --config sets key.
func (f *modelFlags) hasConfig(key string) bool { return hasKey(f.configs, key) }

// countValue is an int64 flag that takes a count with an optional decimal suffix: 10K, 10M,
// 1G (10^3, 10^6, 10^9), as in `--records 10M`.
type countValue struct{ v *int64 }

func newCountValue(p *int64, def int64) countValue {
	*p = def
	return countValue{p}
}

func (c countValue) String() string {
	if c.v == nil {
		return "0"
	}
	return strconv.FormatInt(*c.v, 10)
}

func (c countValue) Set(s string) error {
	n, err := parseCount(s)
	if err != nil {
		return err
	}
	*c.v = n
	return nil
}

func (c countValue) Type() string { return "count" }

func parseCount(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1_000
		case 'm', 'M':
			mult = 1_000_000
		case 'g', 'G':
			mult = 1_000_000_000
		}
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a count (a whole number, optionally with K, M or G)", s)
	}
	return n * mult, nil
}
