package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kidx/internal/printsafe"
)

// Config holds the topic configs that shape a partition's segments and indexes. Field
// names follow Kafka's topic-config names (docs/contract.md §2); values are bytes or milliseconds.
type Config struct {
	IndexIntervalBytes int64 // index.interval.bytes
	SegmentBytes       int64 // segment.bytes
	SegmentIndexBytes  int64 // segment.index.bytes
	MaxMessageBytes    int64 // max.message.bytes (recorded, not enforced: see docs/model.md)
	SegmentMs          int64 // segment.ms
	SegmentJitterMs    int64 // segment.jitter.ms (the model draws no jitter: see docs/model.md)
	// FlushMessages is flush.messages: the file writer syncs the log once this many messages
	// are unflushed (docs/crash.md). It changes what a crash can lose, never an index, so the
	// model only carries it.
	FlushMessages int64
}

// Kafka's defaults (LogConfig / ServerLogConfigs, docs/kafka.md §9).
const (
	DefaultIndexIntervalBytes = 4096
	DefaultSegmentBytes       = 1 << 30
	DefaultSegmentIndexBytes  = 10 * 1024 * 1024
	DefaultMaxMessageBytes    = 1024*1024 + 12
	DefaultSegmentMs          = 7 * 24 * 60 * 60 * 1000
	DefaultSegmentJitterMs    = 0
	DefaultFlushMessages      = math.MaxInt64
)

// DefaultConfig returns Kafka's default topic configuration.
func DefaultConfig() Config {
	return Config{
		IndexIntervalBytes: DefaultIndexIntervalBytes,
		SegmentBytes:       DefaultSegmentBytes,
		SegmentIndexBytes:  DefaultSegmentIndexBytes,
		MaxMessageBytes:    DefaultMaxMessageBytes,
		SegmentMs:          DefaultSegmentMs,
		SegmentJitterMs:    DefaultSegmentJitterMs,
		FlushMessages:      DefaultFlushMessages,
	}
}

// configKey describes one topic config: its name, where it lives in Config and the range
// Kafka's ConfigDef accepts (docs/kafka.md §9; all of these are INT or LONG configs).
type configKey struct {
	name     string
	field    func(*Config) *int64
	min, max int64
}

var configKeys = []configKey{
	{"index.interval.bytes", func(c *Config) *int64 { return &c.IndexIntervalBytes }, 0, math.MaxInt32},
	{"segment.bytes", func(c *Config) *int64 { return &c.SegmentBytes }, 14, math.MaxInt32},
	{"segment.index.bytes", func(c *Config) *int64 { return &c.SegmentIndexBytes }, 4, math.MaxInt32},
	{"max.message.bytes", func(c *Config) *int64 { return &c.MaxMessageBytes }, 0, math.MaxInt32},
	{"segment.ms", func(c *Config) *int64 { return &c.SegmentMs }, 1, math.MaxInt64},
	{"segment.jitter.ms", func(c *Config) *int64 { return &c.SegmentJitterMs }, 0, math.MaxInt64},
	{"flush.messages", func(c *Config) *int64 { return &c.FlushMessages }, 1, math.MaxInt64},
}

// ConfigKeys lists the config names the model understands, sorted.
func ConfigKeys() []string {
	names := make([]string, len(configKeys))
	for i, k := range configKeys {
		names[i] = k.name
	}
	sort.Strings(names)
	return names
}

func lookupConfigKey(name string) (configKey, error) {
	for _, k := range configKeys {
		if k.name == name {
			return k, nil
		}
	}
	return configKey{}, fmt.Errorf("unknown config key %s (known: %s)", printsafe.QuotedExcerpt(name), strings.Join(ConfigKeys(), ", "))
}

// SetInt sets the config named name to v, checking the range Kafka's ConfigDef accepts.
func (c *Config) SetInt(name string, v int64) error {
	k, err := lookupConfigKey(name)
	if err != nil {
		return err
	}
	if v < k.min || v > k.max {
		return fmt.Errorf("%s=%d is out of Kafka's valid range [%d, %d]", name, v, k.min, k.max)
	}
	*k.field(c) = v
	return nil
}

// Set parses value as a decimal integer and sets the config named name.
func (c *Config) Set(name, value string) error {
	if _, err := lookupConfigKey(name); err != nil {
		return err
	}
	v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return fmt.Errorf("%s=%s is not an integer", name, printsafe.QuotedExcerpt(value))
	}
	return c.SetInt(name, v)
}

// Get returns the value of the config named name.
func (c Config) Get(name string) (int64, error) {
	k, err := lookupConfigKey(name)
	if err != nil {
		return 0, err
	}
	return *k.field(&c), nil
}

// Map returns every config as name → value, the form used in JSON output.
func (c Config) Map() map[string]int64 {
	m := make(map[string]int64, len(configKeys))
	for _, k := range configKeys {
		m[k.name] = *k.field(&c)
	}
	return m
}

// Validate checks every value against Kafka's ranges and against what a segment can be
// built with. segment.index.bytes 4..11 passes Kafka's config validation but
// AbstractIndex.createAndAssignMmap refuses a new index smaller than one entry
// ("Invalid max index size"), and the time index entry is 12 bytes.
func (c Config) Validate() error {
	for _, k := range configKeys {
		v := *k.field(&c)
		if v < k.min || v > k.max {
			return fmt.Errorf("%s=%d is out of Kafka's valid range [%d, %d]", k.name, v, k.min, k.max)
		}
	}
	if c.SegmentIndexBytes < TimeIndexEntrySize {
		return fmt.Errorf("segment.index.bytes=%d: Kafka accepts the config but cannot create a segment with it "+
			"(AbstractIndex.createAndAssignMmap: \"Invalid max index size\", a time-index entry is %d bytes)",
			c.SegmentIndexBytes, TimeIndexEntrySize)
	}
	return nil
}

// brokerSynonym is a broker-level name of a topic config: the broker's default for every
// topic that does not override it. Kafka's ServerTopicConfigSynonyms lists them per topic
// config, first name first: log.roll.ms is read before log.roll.hours (KafkaConfig reads the
// hours only when the milliseconds are unset).
type brokerSynonym struct {
	name  string
	topic string
	// factor converts the broker value into the topic config's unit (hours to ms).
	factor   int64
	min, max int64 // the broker config's own ConfigDef range, before factor
}

const hourMs = 60 * 60 * 1000

var brokerSynonyms = []brokerSynonym{
	{"log.index.interval.bytes", "index.interval.bytes", 1, 0, math.MaxInt32},
	{"log.segment.bytes", "segment.bytes", 1, 14, math.MaxInt32},
	{"log.index.size.max.bytes", "segment.index.bytes", 1, 4, math.MaxInt32},
	{"message.max.bytes", "max.message.bytes", 1, 0, math.MaxInt32},
	{"log.roll.ms", "segment.ms", 1, 1, math.MaxInt64},
	{"log.roll.hours", "segment.ms", hourMs, 1, math.MaxInt32},
	{"log.roll.jitter.ms", "segment.jitter.ms", 1, 0, math.MaxInt64},
	{"log.roll.jitter.hours", "segment.jitter.ms", hourMs, 0, math.MaxInt32},
	{"log.flush.interval.messages", "flush.messages", 1, 1, math.MaxInt64},
}

// ignoredConfigs are names an operator's config holds that do not shape the index: accepted,
// with a note, so that a broker's or a topic's real config can be given whole.
var ignoredConfigs = map[string]string{
	"log.segment.delete.delay.ms": "how long a deleted segment's files wait before removal",
	"file.delete.delay.ms":        "how long a deleted segment's files wait before removal",
}

// BrokerConfigNames lists the broker-level names the model accepts beside the topic names,
// sorted.
func BrokerConfigNames() []string {
	names := make([]string, len(brokerSynonyms))
	for i, s := range brokerSynonyms {
		names[i] = s.name
	}
	sort.Strings(names)
	return names
}

// TopicConfigName is the topic config that name sets: name itself for a topic config, the
// topic config of a broker-level synonym (log.segment.bytes: segment.bytes), "" otherwise.
func TopicConfigName(name string) string {
	if _, err := lookupConfigKey(name); err == nil {
		return name
	}
	for _, s := range brokerSynonyms {
		if s.name == name {
			return s.topic
		}
	}
	return ""
}

// KnownConfigName reports whether ApplySettings accepts name: a topic config, a broker
// synonym, or a name accepted and ignored (log.segment.delete.delay.ms).
func KnownConfigName(name string) bool {
	_, ignored := ignoredConfigs[name]
	return ignored || TopicConfigName(name) != ""
}

// ConfigSetting is one name=value as an operator wrote it.
type ConfigSetting struct {
	Name, Value string
}

// ApplySettings sets c from one source's settings (one --config-file, or the --config flags),
// resolved as Kafka resolves a topic's effective config: a topic name overrides its broker
// synonyms, and among the synonyms the first of ServerTopicConfigSynonyms' list wins
// (log.roll.ms over log.roll.hours). Hours convert to milliseconds. A name given twice keeps
// its last value, as in a properties file. The notes say which settings lost, and which were
// accepted and ignored; an unknown name or a value out of Kafka's range is an error.
func (c *Config) ApplySettings(settings []ConfigSetting) (notes []string, err error) {
	type choice struct {
		set    ConfigSetting
		rank   int // 0: the topic name; 1 + position in brokerSynonyms
		factor int64
		min    int64
		max    int64
	}
	chosen := map[string]choice{}
	var lost []string
	for _, s := range settings {
		if why, ok := ignoredConfigs[s.Name]; ok {
			notes = append(notes, fmt.Sprintf("%s=%s ignored: it sets %s, which does not affect the index", s.Name, strings.TrimSpace(s.Value), why))
			continue
		}
		var ch choice
		topic := ""
		if k, err := lookupConfigKey(s.Name); err == nil {
			topic, ch = s.Name, choice{set: s, rank: 0, factor: 1, min: k.min, max: k.max}
		} else {
			for i, b := range brokerSynonyms {
				if b.name == s.Name {
					topic, ch = b.topic, choice{set: s, rank: 1 + i, factor: b.factor, min: b.min, max: b.max}
					break
				}
			}
		}
		if topic == "" {
			return notes, fmt.Errorf("unknown config key %s (topic configs: %s; broker configs: %s)", printsafe.QuotedExcerpt(s.Name),
				strings.Join(ConfigKeys(), ", "), strings.Join(BrokerConfigNames(), ", "))
		}
		prev, had := chosen[topic]
		switch {
		case !had || prev.set.Name == s.Name:
			chosen[topic] = ch
		case ch.rank < prev.rank:
			lost = append(lost, winsNote(ch.set, prev.set, ch.rank))
			chosen[topic] = ch
		default:
			lost = append(lost, winsNote(prev.set, ch.set, prev.rank))
		}
	}
	for _, t := range slices.Sorted(maps.Keys(chosen)) {
		ch := chosen[t]
		v, perr := strconv.ParseInt(strings.TrimSpace(ch.set.Value), 10, 64)
		if perr != nil {
			return notes, fmt.Errorf("%s=%s is not an integer", printsafe.Excerpt(ch.set.Name), printsafe.QuotedExcerpt(ch.set.Value))
		}
		if v < ch.min || v > ch.max {
			return notes, fmt.Errorf("%s=%d is out of Kafka's valid range [%d, %d]", ch.set.Name, v, ch.min, ch.max)
		}
		if err := c.SetInt(t, v*ch.factor); err != nil {
			return notes, fmt.Errorf("%s=%d: %w", ch.set.Name, v, err)
		}
	}
	return append(lost, notes...), nil
}

// winsNote says which of two settings of one topic config is used, and why.
func winsNote(winner, loser ConfigSetting, winnerRank int) string {
	why := "a topic config overrides its broker-level default, as in Kafka"
	if winnerRank > 0 {
		why = "Kafka reads " + loser.Name + " only when " + winner.Name + " is unset"
	}
	return fmt.Sprintf("%s=%s is used, not %s=%s: %s", winner.Name, strings.TrimSpace(winner.Value), loser.Name, strings.TrimSpace(loser.Value), why)
}
