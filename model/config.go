package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Config holds the topic configs that shape a partition's segments and indexes. Field
// names follow Kafka's topic-config names (SPEC §2); values are bytes or milliseconds.
type Config struct {
	IndexIntervalBytes int64 // index.interval.bytes
	SegmentBytes       int64 // segment.bytes
	SegmentIndexBytes  int64 // segment.index.bytes
	MaxMessageBytes    int64 // max.message.bytes (recorded, not enforced: see docs/model.md)
	SegmentMs          int64 // segment.ms
	SegmentJitterMs    int64 // segment.jitter.ms (the model draws no jitter: see docs/model.md)
}

// Kafka's defaults (LogConfig / ServerLogConfigs, semantics §9).
const (
	DefaultIndexIntervalBytes = 4096
	DefaultSegmentBytes       = 1 << 30
	DefaultSegmentIndexBytes  = 10 * 1024 * 1024
	DefaultMaxMessageBytes    = 1024*1024 + 12
	DefaultSegmentMs          = 7 * 24 * 60 * 60 * 1000
	DefaultSegmentJitterMs    = 0
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
	}
}

// configKey describes one topic config: its name, where it lives in Config and the range
// Kafka's ConfigDef accepts (semantics §9; all of these are INT or LONG configs).
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
	return configKey{}, fmt.Errorf("unknown config key %q (known: %s)", name, strings.Join(ConfigKeys(), ", "))
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
		return fmt.Errorf("%s=%q is not an integer", name, value)
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
