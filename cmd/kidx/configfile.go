package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"kidx/model"
)

// configFlagSettings splits --config values (k=v[,k=v...], repeatable) into settings.
func configFlagSettings(groups []string) ([]model.ConfigSetting, error) {
	var out []model.ConfigSetting
	for _, group := range groups {
		for _, kv := range splitComma(group) {
			k, v, ok := cutEq(kv)
			if !ok {
				return nil, usageErr("--config %q: want key=value", kv)
			}
			out = append(out, model.ConfigSetting{Name: k, Value: v})
		}
	}
	return out, nil
}

// configFileSettings reads --config-file (a server.properties or kafka-configs.sh --describe
// output, model.ParseConfigFile) and says on stderr which keys it ignored.
func configFileSettings(path string, stderr io.Writer) ([]model.ConfigSetting, error) {
	if path == "" {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, usageErr("--config-file: %v", err)
	}
	if !st.Mode().IsRegular() {
		return nil, usageErr("--config-file %s: not a regular file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--config-file: %v", err)
	}
	cf, err := model.ParseConfigFile(data)
	if err != nil {
		return nil, usageErr("--config-file %s: %v", path, err)
	}
	if n := len(cf.Ignored); n > 0 {
		what := "a Java properties file"
		if cf.Format == "kafka-configs" {
			what = "kafka-configs.sh output for " + cf.Entity
		}
		keys := "1 key"
		if n > 1 {
			keys = fmt.Sprintf("%d keys", n)
		}
		fmt.Fprintf(stderr, "kidx: note: --config-file %s (%s): ignored %s kidx does not model (%s)\n",
			path, what, keys, examples(cf.Ignored, 3))
	}
	return cf.Settings, nil
}

// examples names the first n items and how many more there are.
func examples(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// applyConfigSources applies the config file, then the --config flags, to cfg: each source
// resolved on its own (a topic name beats its broker synonym within a file, or within the
// flags), the flags applied last so that they override the file.
func applyConfigSources(cfg *model.Config, file, flags []model.ConfigSetting, stderr io.Writer) error {
	for _, src := range []struct {
		what     string
		settings []model.ConfigSetting
	}{{"--config-file", file}, {"--config", flags}} {
		notes, err := cfg.ApplySettings(src.settings)
		for _, n := range notes {
			fmt.Fprintf(stderr, "kidx: note: %s: %s\n", src.what, n)
		}
		if err != nil {
			return usageErr("%s: %v", src.what, err)
		}
	}
	return nil
}

// setsConfig reports whether settings set the topic config key, by its name or a broker
// synonym.
func setsConfig(settings []model.ConfigSetting, key string) bool {
	for _, s := range settings {
		if model.TopicConfigName(s.Name) == key {
			return true
		}
	}
	return false
}
