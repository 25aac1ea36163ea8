package model

import (
	"reflect"
	"strings"
	"testing"
)

// A server.properties as Kafka's distribution ships it, trimmed, with the index settings set
// in each of Properties.load's separator styles. Issue 11, build: --config-file.
const serverProperties = `# Licensed to the Apache Software Foundation (ASF) under one or more
############################# Server Basics #############################
process.roles=broker,controller
node.id=1
! a "!" comment, and a continued value:
log.dirs=/tmp/kraft-combined-logs,\
         /tmp/second-dir
num.partitions=1
log.segment.bytes=1073741824
log.index.interval.bytes : 8192
log.roll.hours   168
log.retention.check.interval.ms=300000
   log.index.size.max.bytes=10485760
`

func TestParseConfigFileServerProperties(t *testing.T) {
	cf, err := ParseConfigFile([]byte(serverProperties))
	if err != nil {
		t.Fatal(err)
	}
	want := []ConfigSetting{
		{"log.segment.bytes", "1073741824"},
		{"log.index.interval.bytes", "8192"},
		{"log.roll.hours", "168"},
		{"log.index.size.max.bytes", "10485760"},
	}
	if cf.Format != "properties" || cf.Entity != "" || !reflect.DeepEqual(cf.Settings, want) {
		t.Errorf("got %+v", cf)
	}
	if wantIgnored := []string{"process.roles", "node.id", "log.dirs", "num.partitions", "log.retention.check.interval.ms"}; !reflect.DeepEqual(cf.Ignored, wantIgnored) {
		t.Errorf("ignored %v, want %v", cf.Ignored, wantIgnored)
	}
}

// Properties.load's escapes and edge cases, each written by hand from java.util.Properties'
// documentation.
func TestParseConfigFilePropertiesEscapes(t *testing.T) {
	for _, c := range []struct{ in, name, value string }{
		{"segment.bytes=65536", "segment.bytes", "65536"},
		{"segment.bytes:65536", "segment.bytes", "65536"},
		{"segment.bytes 65536", "segment.bytes", "65536"},
		{"segment.bytes = 65536", "segment.bytes", "65536"},
		{"segment.bytes\t:\t65536", "segment.bytes", "65536"},
		{"segment.bytes==65536", "segment.bytes", "=65536"}, // only one separator is skipped
		{"segment.\\u0062ytes=65536", "segment.bytes", "65536"},
		{"segment.bytes=6553\\\n   6", "segment.bytes", "65536"},
		{"segment.bytes=\\6\\5536", "segment.bytes", "65536"},
		{"segment.bytes", "segment.bytes", ""},
		{"segment.bytes=65536 ", "segment.bytes", "65536 "}, // Properties keeps trailing white space
	} {
		cf, err := ParseConfigFile([]byte(c.in))
		if err != nil || len(cf.Settings) != 1 || cf.Settings[0] != (ConfigSetting{c.name, c.value}) {
			t.Errorf("%q: %+v, %v", c.in, cf, err)
		}
	}
	// A continued comment line is still one comment; "\\" at a line's end is an escaped
	// backslash, not a continuation.
	cf, err := ParseConfigFile([]byte("# comment \\\nsegment.ms=5\nindex.interval.bytes=1\\\\\nsegment.bytes=99\n"))
	want := []ConfigSetting{{"segment.ms", "5"}, {"index.interval.bytes", "1\\"}, {"segment.bytes", "99"}}
	if err != nil || !reflect.DeepEqual(cf.Settings, want) {
		t.Errorf("got %+v, %v", cf.Settings, err)
	}
	for _, bad := range []string{"segment.bytes=\\u12", "segment.bytes=\\uzzzz", "a=\xff"} {
		if _, err := ParseConfigFile([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// The output of `kafka-configs.sh --bootstrap-server ... --entity-type topics --entity-name
// blog --describe --all` (ConfigCommand's format: a header, then "  name=value sensitive=B
// synonyms={SOURCE:name=value, ...}"), abridged by hand from a Kafka 3.7 broker.
const describeTopicAll = `All configs for topic blog are:
  compression.type=producer sensitive=false synonyms={DEFAULT_CONFIG:compression.type=producer}
  leader.replication.throttled.replicas= sensitive=false synonyms={}
  message.downconversion.enable=true sensitive=false synonyms={DEFAULT_CONFIG:log.message.downconversion.enable=true}
  min.insync.replicas=1 sensitive=false synonyms={DEFAULT_CONFIG:min.insync.replicas=1}
  segment.jitter.ms=0 sensitive=false synonyms={}
  cleanup.policy=delete sensitive=false synonyms={DEFAULT_CONFIG:log.cleanup.policy=delete}
  flush.ms=9223372036854775807 sensitive=false synonyms={}
  segment.bytes=65536 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=65536, DEFAULT_CONFIG:log.segment.bytes=1073741824}
  retention.ms=604800000 sensitive=false synonyms={}
  flush.messages=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.flush.interval.messages=9223372036854775807}
  message.format.version=3.0-IV1 sensitive=false synonyms={DEFAULT_CONFIG:log.message.format.version=3.0-IV1}
  max.compaction.lag.ms=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.max.compaction.lag.ms=9223372036854775807}
  file.delete.delay.ms=60000 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.delete.delay.ms=60000}
  max.message.bytes=1048588 sensitive=false synonyms={DEFAULT_CONFIG:message.max.bytes=1048588}
  min.compaction.lag.ms=0 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.min.compaction.lag.ms=0}
  message.timestamp.type=CreateTime sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.type=CreateTime}
  preallocate=false sensitive=false synonyms={DEFAULT_CONFIG:log.preallocate=false}
  index.interval.bytes=20000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:index.interval.bytes=20000, DEFAULT_CONFIG:log.index.interval.bytes=4096}
  min.cleanable.dirty.ratio=0.5 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.min.cleanable.ratio=0.5}
  unclean.leader.election.enable=false sensitive=false synonyms={DEFAULT_CONFIG:unclean.leader.election.enable=false}
  retention.bytes=-1 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.bytes=-1}
  delete.retention.ms=86400000 sensitive=false synonyms={DEFAULT_CONFIG:log.cleaner.delete.retention.ms=86400000}
  segment.ms=604800000 sensitive=false synonyms={}
  message.timestamp.difference.max.ms=9223372036854775807 sensitive=false synonyms={DEFAULT_CONFIG:log.message.timestamp.difference.max.ms=9223372036854775807}
  segment.index.bytes=10485760 sensitive=false synonyms={DEFAULT_CONFIG:log.index.size.max.bytes=10485760}
`

func TestParseConfigFileKafkaConfigsDescribeAll(t *testing.T) {
	cf, err := ParseConfigFile([]byte(describeTopicAll))
	if err != nil {
		t.Fatal(err)
	}
	want := []ConfigSetting{
		{"segment.jitter.ms", "0"},
		{"segment.bytes", "65536"},
		{"flush.messages", "9223372036854775807"},
		{"file.delete.delay.ms", "60000"},
		{"max.message.bytes", "1048588"},
		{"index.interval.bytes", "20000"},
		{"segment.ms", "604800000"},
		{"segment.index.bytes", "10485760"},
	}
	if cf.Format != "kafka-configs" || cf.Entity != "topic blog" || !reflect.DeepEqual(cf.Settings, want) {
		t.Errorf("got %s %q %+v", cf.Format, cf.Entity, cf.Settings)
	}
	if len(cf.Ignored) != 17 {
		t.Errorf("%d ignored, want 17: %v", len(cf.Ignored), cf.Ignored)
	}
	c := DefaultConfig()
	notes, err := c.ApplySettings(cf.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if c.SegmentBytes != 65536 || c.IndexIntervalBytes != 20000 || len(notes) != 1 || !strings.HasPrefix(notes[0], "file.delete.delay.ms=60000 ignored") {
		t.Errorf("config %+v, notes %q", c, notes)
	}
}

// A broker's --describe --all: "null" is a config without a value (log.roll.ms unset) or a
// sensitive one, and sets nothing; log.roll.hours then gives segment.ms.
func TestParseConfigFileDescribeBroker(t *testing.T) {
	in := "All configs for broker 1 are:\n" +
		"  log.roll.ms=null sensitive=false synonyms={}\n" +
		"  log.roll.hours=24 sensitive=false synonyms={STATIC_BROKER_CONFIG:log.roll.hours=24, DEFAULT_CONFIG:log.roll.hours=168}\n" +
		"  ssl.key.password=null sensitive=true synonyms={}\n" +
		"  log.segment.bytes=1048576 sensitive=false synonyms={DEFAULT_CONFIG:log.segment.bytes=1073741824}\n"
	cf, err := ParseConfigFile([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := []ConfigSetting{{"log.roll.hours", "24"}, {"log.segment.bytes", "1048576"}}; cf.Entity != "broker 1" || !reflect.DeepEqual(cf.Settings, want) {
		t.Fatalf("got %q %+v", cf.Entity, cf.Settings)
	}
	c := DefaultConfig()
	if _, err := c.ApplySettings(cf.Settings); err != nil || c.SegmentMs != 86_400_000 || c.SegmentBytes != 1_048_576 {
		t.Errorf("%+v, %v", c, err)
	}
	for _, bad := range []string{
		"All configs for topic a are:\n  segment.bytes=1 sensitive=false synonyms={}\nAll configs for topic b are:\n",
		"  segment.bytes=1 sensitive=false synonyms={}\nAll configs for topic a are:\n",
		"All configs for topic a are:\n  not a config line\n",
	} {
		if _, err := ParseConfigFile([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// Issue 11, build: broker-level names beside topic names, as Kafka resolves them
// (ServerTopicConfigSynonyms): a topic name beats its broker synonym, log.roll.ms beats
// log.roll.hours, hours become milliseconds, log.segment.delete.delay.ms is ignored with a
// note. Expected values by hand.
func TestApplySettingsBrokerNames(t *testing.T) {
	c := DefaultConfig()
	notes, err := c.ApplySettings([]ConfigSetting{
		{"log.index.interval.bytes", "100"},
		{"log.segment.bytes", "65536"},
		{"segment.bytes", "131072"},
		{"log.roll.hours", "2"},
		{"log.roll.jitter.hours", "1"},
		{"log.index.size.max.bytes", "4096"},
		{"log.segment.delete.delay.ms", "60000"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{IndexIntervalBytes: 100, SegmentBytes: 131072, SegmentIndexBytes: 4096, MaxMessageBytes: DefaultMaxMessageBytes,
		SegmentMs: 7_200_000, SegmentJitterMs: 3_600_000, FlushMessages: DefaultFlushMessages}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	wantNotes := []string{
		"segment.bytes=131072 is used, not log.segment.bytes=65536: a topic config overrides its broker-level default, as in Kafka",
		"log.segment.delete.delay.ms=60000 ignored: it sets how long a deleted segment's files wait before removal, which does not affect the index",
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes %q", notes)
	}
	c = DefaultConfig()
	notes, err = c.ApplySettings([]ConfigSetting{{"log.roll.ms", "5000"}, {"log.roll.hours", "3"}})
	if err != nil || c.SegmentMs != 5000 || len(notes) != 1 || notes[0] != "log.roll.ms=5000 is used, not log.roll.hours=3: Kafka reads log.roll.hours only when log.roll.ms is unset" {
		t.Errorf("%d %q %v", c.SegmentMs, notes, err)
	}
	for _, bad := range [][]ConfigSetting{
		{{"log.roll.hours", "0"}},
		{{"log.roll.hours", "2147483648"}},
		{{"log.segment.bytes", "13"}},
		{{"log.segment.bytes", "x"}},
		{{"log.segmnet.bytes", "65536"}},
	} {
		c := DefaultConfig()
		if _, err := c.ApplySettings(bad); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}
