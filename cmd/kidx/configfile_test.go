package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// simConfig runs `kidx sim --format json` with args and returns the config it used.
func simConfig(t *testing.T, args ...string) (map[string]int64, string) {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"sim", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var doc struct {
		Config map[string]int64 `json:"config"`
	}
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Config, errOut
}

// Issue 11, build: Kafka users' broker-level names beside the topic names. Expected values by
// hand: log.roll.hours=2 is 7,200,000 ms.
func TestConfigBrokerNames(t *testing.T) {
	cfg, errOut := simConfig(t, "--config", "log.segment.bytes=131072,log.index.interval.bytes=8192", "--config", "log.roll.hours=2,log.index.size.max.bytes=4096",
		"--config", "log.segment.delete.delay.ms=60000")
	if cfg["segment.bytes"] != 131072 || cfg["index.interval.bytes"] != 8192 || cfg["segment.ms"] != 7_200_000 || cfg["segment.index.bytes"] != 4096 {
		t.Errorf("config %v", cfg)
	}
	if !strings.Contains(errOut, "kidx: note: --config: log.segment.delete.delay.ms=60000 ignored: ") || !strings.Contains(errOut, "does not affect the index") {
		t.Errorf("stderr %q", errOut)
	}
	cfg, errOut = simConfig(t, "--config", "log.segment.bytes=131072,segment.bytes=65536")
	if cfg["segment.bytes"] != 65536 || !strings.Contains(errOut, "kidx: note: --config: segment.bytes=65536 is used, not log.segment.bytes=131072: a topic config overrides its broker-level default") {
		t.Errorf("config %v, stderr %q", cfg, errOut)
	}
	if _, errOut, code := runKidx(t, "sim", "--config", "log.roll.hours=0"); code != 2 || !strings.Contains(errOut, "log.roll.hours=0 is out of Kafka's valid range") {
		t.Errorf("log.roll.hours=0: exit %d, %q", code, errOut)
	}
}

// Issue 11, build: --config-file reads a server.properties or kafka-configs.sh --describe
// --all output; unknown keys are ignored with one note counting them; --config overrides the
// file.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	props := writeFile(t, dir, "server.properties", "# a broker\nbroker.id=1\nlog.dirs=/var/lib/kafka\nlog.segment.bytes : 131072\nlog.index.interval.bytes 8192\nnum.partitions=3\nlog.retention.hours=168\n")
	cfg, errOut := simConfig(t, "--config-file", props)
	if cfg["segment.bytes"] != 131072 || cfg["index.interval.bytes"] != 8192 {
		t.Errorf("config %v", cfg)
	}
	if want := "kidx: note: --config-file " + props + " (a Java properties file): ignored 4 keys kidx does not model (broker.id, log.dirs, num.partitions and 1 more)\n"; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	cfg, _ = simConfig(t, "--config-file", props, "--config", "segment.bytes=65536")
	if cfg["segment.bytes"] != 65536 || cfg["index.interval.bytes"] != 8192 {
		t.Errorf("--config over the file: %v", cfg)
	}
	describe := writeFile(t, dir, "blog.txt", "All configs for topic blog are:\n"+
		"  compression.type=producer sensitive=false synonyms={DEFAULT_CONFIG:compression.type=producer}\n"+
		"  segment.bytes=65536 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=65536, DEFAULT_CONFIG:log.segment.bytes=1073741824}\n"+
		"  index.interval.bytes=20000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:index.interval.bytes=20000, DEFAULT_CONFIG:log.index.interval.bytes=4096}\n")
	cfg, errOut = simConfig(t, "--config-file", describe)
	if cfg["segment.bytes"] != 65536 || cfg["index.interval.bytes"] != 20000 {
		t.Errorf("describe: config %v", cfg)
	}
	if !strings.Contains(errOut, "(kafka-configs.sh output for topic blog): ignored 1 key kidx does not model (compression.type)") {
		t.Errorf("describe: stderr %q", errOut)
	}
	// verify takes the file's index.interval.bytes: blog-i4096's entries are 16350 bytes
	// apart, so 4096 passes and 20000 is a problem found.
	if _, errOut, code := runKidx(t, "verify", "--config-file", props, "--config", "log.index.interval.bytes=4096", blogFiles); code != 0 {
		t.Errorf("verify at 4096: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runKidx(t, "verify", "--config-file", describe, blogFiles); code != 1 {
		t.Errorf("verify at 20000: exit %d: %s", code, errOut)
	}
	for _, bad := range []string{writeFile(t, dir, "two.txt", "All configs for topic a are:\nAll configs for topic b are:\n"), dir, dir + "/missing"} {
		if _, errOut, code := runKidx(t, "sim", "--config-file", bad); code != 2 || !strings.HasPrefix(errOut, "kidx: --config-file") {
			t.Errorf("%s: exit %d, %q", bad, code, errOut)
		}
	}
}
