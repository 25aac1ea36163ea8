package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kidx/internal/printsafe"
	"kidx/model"
)

// modelFlags are the flags every command that runs the model or writes files shares (docs/contract.md
// §2): --config k=v[,k=v...] (repeatable), --rule, --kafka-version.
type modelFlags struct {
	configs      []string
	configFile   string
	rule         string
	kafkaVersion string
	eraSpec      string
}

func (f *modelFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.configs, "config", nil,
		"config k=v[,k=v...] (repeatable); topic names: "+strings.Join(model.ConfigKeys(), ", ")+
			"; broker names: "+strings.Join(model.BrokerConfigNames(), ", ")+" (a topic name beats its broker name)")
	cmd.Flags().StringVar(&f.configFile, "config-file", "", "read configs from a server.properties (Java properties) or kafka-configs.sh --describe [--all] output; --config overrides it")
	cmd.Flags().StringVar(&f.rule, "rule", "", "one of the two current eras: per-batch (Kafka 4.1-4.4) or per-append (3.7-4.0.0); kidx help versions")
	cmd.Flags().StringVar(&f.kafkaVersion, "kafka-version", "", "Kafka release X.Y.Z: picks its era (kidx help versions) and warns about values it rejects")
	registerEraSpec(cmd, &f.eraSpec)
}

// registerEraSpec adds --era-spec, which every command that picks an era shares.
func registerEraSpec(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "era-spec", "", "a candidate era: a JSON era spec naming a base era and the patch's knobs (docs/model.md, \"Candidate eras\"); replaces --rule and --kafka-version")
}

// maxEraSpecBytes bounds an era spec file: a spec is a few hundred bytes.
const maxEraSpecBytes = 64 << 10

// readEraSpec reads and parses an --era-spec file (model.ParseEraSpec); errors are usage
// errors naming the file.
func readEraSpec(path string) (model.Era, error) {
	f, err := os.Open(path)
	if err != nil {
		return model.Era{}, usageErr("--era-spec: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEraSpecBytes+1))
	if err != nil {
		return model.Era{}, usageErr("--era-spec %s: %v", printsafe.Name(path), err)
	}
	if len(data) > maxEraSpecBytes {
		return model.Era{}, usageErr("--era-spec %s: larger than %d bytes: not an era spec", printsafe.Name(path), maxEraSpecBytes)
	}
	e, err := model.ParseEraSpec(data)
	if err != nil {
		return model.Era{}, usageErr("--era-spec %s: %v", printsafe.Name(path), err)
	}
	return e, nil
}

// resolve applies, in order: base, the workload file's config, --config-file, then --config
// (broker-level names beside topic names, model.Config.ApplySettings), and picks the
// Kafka era (model.Era) from --rule (a name of one of the two current eras, model.EraForRule)
// or --kafka-version (the release's exact era, model.EraForKafkaVersion), else from the
// file's "rule" or "kafkaVersion", else per-batch (4.1-4.4). Flags override the file; --rule
// and --kafka-version together are a usage error. Warnings go to stderr: values the release
// would reject, an era only derived from Kafka's code.
func (f *modelFlags) resolve(base model.Config, fileConfig map[string]int64, fileRule, fileVersion string, stderr io.Writer) (model.Config, model.Era, error) {
	cfg := base
	if err := (model.Workload{Config: fileConfig}).ApplyTo(&cfg); err != nil {
		return cfg, model.Era{}, usageErr("workload %v", err)
	}
	fileSettings, err := configFileSettings(f.configFile, stderr)
	if err != nil {
		return cfg, model.Era{}, err
	}
	flagSettings, err := configFlagSettings(f.configs)
	if err != nil {
		return cfg, model.Era{}, err
	}
	if err := applyConfigSources(&cfg, fileSettings, flagSettings, stderr); err != nil {
		return cfg, model.Era{}, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, model.Era{}, usageErr("config: %v", err)
	}
	if f.rule != "" && f.kafkaVersion != "" {
		return cfg, model.Era{}, usageErr("--rule and --kafka-version both pick the rule: give one")
	}
	if f.eraSpec != "" && (f.rule != "" || f.kafkaVersion != "") {
		return cfg, model.Era{}, usageErr("--era-spec and --rule/--kafka-version both pick the era: give one")
	}
	era := model.EraForRule(model.PerBatch)
	switch {
	case f.eraSpec != "":
		e, err := readEraSpec(f.eraSpec)
		if err != nil {
			return cfg, model.Era{}, err
		}
		fmt.Fprintf(stderr, "kidx: note: %s: %s\n", e, e.Derived)
		return cfg, e, nil
	case f.rule != "":
		r, err := model.ParseRule(f.rule)
		if err != nil {
			return cfg, model.Era{}, usageErr("--rule: %v", err)
		}
		era = model.EraForRule(r)
	case f.kafkaVersion != "":
		e, err := model.EraForKafkaVersion(f.kafkaVersion)
		if err != nil {
			return cfg, model.Era{}, usageErr("--kafka-version: %v", err)
		}
		era = e
	case fileRule != "":
		r, err := model.ParseRule(fileRule)
		if err != nil {
			return cfg, model.Era{}, usageErr("workload rule: %v", err)
		}
		era = model.EraForRule(r)
	case fileVersion != "":
		e, err := model.EraForKafkaVersion(fileVersion)
		if err != nil {
			return cfg, model.Era{}, usageErr("workload kafkaVersion: %v", err)
		}
		era = e
	}
	if v := f.version(fileRule, fileVersion); v != "" {
		for _, w := range eraWarnings(cfg, v) {
			fmt.Fprintf(stderr, "kidx: warning: %s\n", w)
		}
		// What docs/kafka.md §13 reads from Kafka's code without running it is said, not warned.
		if era.Derived != "" {
			fmt.Fprintf(stderr, "kidx: note: %s: %s\n", era, era.Derived)
		}
	}
	return cfg, era, nil
}

// version is the Kafka release that picks the era: --kafka-version, else (with no --rule) the
// workload file's "kafkaVersion"; "" when a rule name or the default picks it.
func (f *modelFlags) version(fileRule, fileVersion string) string {
	switch {
	case f.eraSpec != "":
		return "" // a candidate is no release
	case f.kafkaVersion != "":
		return f.kafkaVersion
	case f.rule == "" && fileRule == "":
		return fileVersion
	}
	return ""
}

// eraWarnings are the warnings a release given by version deserves: the config values it
// would reject (model.VersionWarnings). A release past the lines kidx knows is refused by
// model.ParseKafkaVersion before this.
func eraWarnings(cfg model.Config, version string) []string {
	out, _ := model.VersionWarnings(cfg, version)
	return out
}

// textOrJSON are the --format values of the commands that print text or JSON.
var textOrJSON = []string{"text", "json"}

// formatValuesAnnotation is the annotation on a --format flag that holds the values the
// command's Validate accepts (formatFlag): shell completion offers exactly them (completion.go).
const formatValuesAnnotation = "kidx_format_values"

// registerFormat adds --format: its values (the first is the default) are named in the usage,
// followed by note, and kept on the flag for completion. The command's Validate checks the
// value with formatFlag(o.format, values...), the same slice.
func registerFormat(flags *pflag.FlagSet, p *string, values []string, note string) {
	list := values[len(values)-1]
	if len(values) > 1 {
		list = strings.Join(values[:len(values)-1], ", ") + " or " + list
	}
	flags.StringVar(p, "format", values[0], "output: "+list+note)
	if err := flags.SetAnnotation("format", formatValuesAnnotation, values); err != nil {
		panic(err) // the flag was added on the line above
	}
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

// hasConfig reports whether --config or --config-file sets the topic config key, by its name
// or a broker-level synonym. A --config-file that cannot be read sets nothing here; resolve
// reports it.
func (f *modelFlags) hasConfig(key string) bool {
	flags, _ := configFlagSettings(f.configs)
	file, _ := configFileSettings(f.configFile, io.Discard)
	return setsConfig(flags, key) || setsConfig(file, key)
}

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
