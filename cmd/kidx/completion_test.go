package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// completeWith runs cobra's hidden `kidx __complete ARGS...` (what the scripts of `kidx
// completion SHELL` call) and splits its answer into the candidate lines and the directive line.
func completeWith(t *testing.T, args ...string) (candidates []string, directive string) {
	t.Helper()
	out, errOut, code := runKidx(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("kidx __complete %q: exit %d: %s", args, code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	directive = lines[len(lines)-1]
	if !strings.HasPrefix(directive, ":") {
		t.Fatalf("kidx __complete %q: last line %q is no directive", args, directive)
	}
	return lines[:len(lines)-1], directive
}

// Cobra's ShellCompDirective values, as `__complete` prints them (":N"), written out.
const (
	dirDefault   = ":0"  // the shell's own completion of files
	dirNoFile    = ":4"  // ShellCompDirectiveNoFileComp
	dirKeyEquals = ":6"  // ShellCompDirectiveNoSpace | NoFileComp: "key=" then the value
	dirFileExt   = ":8"  // ShellCompDirectiveFilterFileExt: the candidates are extensions
	dirDirs      = ":16" // ShellCompDirectiveFilterDirs
)

func checkCompletion(t *testing.T, args []string, want []string, wantDirective string) {
	t.Helper()
	got, directive := completeWith(t, args...)
	if !slices.Equal(got, want) || directive != wantDirective {
		t.Errorf("kidx __complete %q:\n got %q %s\nwant %q %s", args, got, directive, want, wantDirective)
	}
}

// Issue 26, "Shell completion of values: --format": each command's formats, as its help and
// docs/cli.md list them; diff's junit only with --against (docs/against.md).
func TestCompletionFormatValues(t *testing.T) {
	textJSON := []string{"text", "json"}
	report := []string{"text", "markdown", "json", "html"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check"}, textJSON},
		{[]string{"dump"}, textJSON},
		{[]string{"explain"}, textJSON},
		{[]string{"prove"}, textJSON},
		{[]string{"sim"}, textJSON},
		{[]string{"verify"}, textJSON},
		{[]string{"write"}, textJSON},
		{[]string{"diff"}, textJSON},
		{[]string{"diff", "--against", "./reader"}, []string{"text", "json", "junit"}},
		{[]string{"whatif"}, report},
		{[]string{"analyze"}, append(report, "openmetrics")},
	} {
		checkCompletion(t, append(c.args, "--format", ""), c.want, dirNoFile)
	}
	// The prefix typed so far narrows the list.
	checkCompletion(t, []string{"analyze", "--format", "m"}, []string{"markdown"}, dirNoFile)
}

// formatPastTheCheck is, per command with --format, flags and arguments that fail cheaply in
// Validate after the --format check (so nothing runs), and a piece of that later error.
var formatPastTheCheck = map[string]struct {
	args []string
	says string
}{
	"analyze": {[]string{"--top", "-1", "x"}, "--top -1"},
	"check":   {[]string{"--rule", "bogus"}, "--rule"},
	"diff":    {[]string{"--against", "./reader", "--duration", "-1s"}, "must not be negative"},
	"dump":    {[]string{"--max-message-size", "0", "x"}, "--max-message-size 0"},
	"explain": {[]string{"--rule", "bogus", "x"}, "--rule"},
	"prove":   {[]string{"--rule", "bogus"}, "--rule"},
	"sim":     {[]string{"--batches", "5"}, "bound a --gen generator"},
	"verify":  {[]string{"--rule", "bogus", "x"}, "--rule"},
	"whatif":  {[]string{"--partitions", "0"}, "--partitions 0"},
	"write":   {[]string{}, "write needs --workload FILE and --dir DIR"},
}

// Issue 26: what --format completes is what the command accepts. Every command with a --format
// flag is walked: the flag carries its values (registerFormat), the command accepts each value
// completion offers (it gets past the --format check to a later usage error) and refuses one
// that is not offered.
func TestCompletionFormatIsWhatTheCommandAccepts(t *testing.T) {
	root := newRootCmd(nil, nil)
	seen := 0
	for _, c := range root.Commands() {
		if c.Flags().Lookup("format") == nil {
			continue
		}
		seen++
		name := c.Name()
		if len(formatValues(c)) == 0 {
			t.Errorf("kidx %s --format: registered without registerFormat: completion cannot offer its values", name)
			continue
		}
		past, ok := formatPastTheCheck[name]
		if !ok {
			t.Errorf("kidx %s --format: add the command to formatPastTheCheck", name)
			continue
		}
		completeArgs := []string{name, "--format", ""}
		if name == "diff" {
			completeArgs = []string{name, "--against", "./reader", "--format", ""}
		}
		offered, _ := completeWith(t, completeArgs...)
		if len(offered) == 0 {
			t.Errorf("kidx %s --format: nothing offered", name)
		}
		for _, v := range append(offered, "bogus") {
			args := append([]string{name, "--format", v}, past.args...)
			_, errOut, code := runKidx(t, args...)
			refused := strings.Contains(errOut, `--format "`+v+`"`)
			switch {
			case code != 2:
				t.Errorf("kidx %q: exit %d (%s), want 2 (a usage error)", args, code, errOut)
			case v == "bogus" && !refused:
				t.Errorf("kidx %q: accepted a format completion does not offer: %s", args, errOut)
			case v != "bogus" && (refused || !strings.Contains(errOut, past.says)):
				t.Errorf("kidx %q: a format completion offers is refused, or the later check %q was not reached: %s", args, past.says, errOut)
			}
		}
	}
	if seen != len(formatPastTheCheck) {
		t.Errorf("%d commands have --format, formatPastTheCheck names %d", seen, len(formatPastTheCheck))
	}
	// diff's junit is --against's only: not offered, and refused, without it.
	if got, _ := completeWith(t, "diff", "--format", ""); slices.Contains(got, "junit") {
		t.Errorf("diff --format offers junit without --against: %q", got)
	}
	if _, errOut, code := runKidx(t, "diff", "--format", "junit", "--duration", "-1s"); code != 2 || !strings.Contains(errOut, `--format "junit"`) {
		t.Errorf("diff --format junit without --against: exit %d: %s", code, errOut)
	}
}

// Issue 26, "--rule": the two rule names of model.AppendRule (and prove's both), each with the
// era it names (kidx help versions: per-batch is era 4.1-4.4, per-append era 3.7-4.0.0).
func TestCompletionRule(t *testing.T) {
	rules := []string{"per-batch\tera 4.1-4.4", "per-append\tera 3.7-4.0.0"}
	for _, cmd := range []string{"check", "diff", "sim", "whatif", "write", "verify", "analyze", "explain"} {
		checkCompletion(t, []string{cmd, "--rule", ""}, rules, dirNoFile)
	}
	checkCompletion(t, []string{"prove", "--rule", ""}, append(rules, "both\teach rule in turn"), dirNoFile)
	checkCompletion(t, []string{"sim", "--rule", "per-a"}, rules[1:], dirNoFile)
}

// Issue 26, "--kafka-version (the release lines)": model.ReleaseLines' lines (0.8-0.11,
// 1.0-1.1, 2.0-2.8, 3.0-3.9, 4.0-4.5) and the releases inside a line where the era changes
// (docs/kafka.md §13's table: 0.8.2, 0.10.1, 0.10.2, 3.9.1 and 4.0.1; 3.8.2, which kidx maps to
// the 3.8 branch's code), each with its era. corpus and write take only the releases their two
// rules write (3.7 and later).
func TestCompletionKafkaVersion(t *testing.T) {
	all := []string{
		"0.8\tera 0.8.0-0.8.1", "0.8.2\tera 0.8.2-0.9.0", "0.9\tera 0.8.2-0.9.0",
		"0.10\tera 0.10.0", "0.10.1\tera 0.10.1", "0.10.2\tera 0.10.2", "0.11\tera 0.11-1.1",
		"1.0\tera 0.11-1.1", "1.1\tera 0.11-1.1",
		"2.0\tera 2.0-3.6", "2.1\tera 2.0-3.6", "2.2\tera 2.0-3.6", "2.3\tera 2.0-3.6", "2.4\tera 2.0-3.6",
		"2.5\tera 2.0-3.6", "2.6\tera 2.0-3.6", "2.7\tera 2.0-3.6", "2.8\tera 2.0-3.6",
		"3.0\tera 2.0-3.6", "3.1\tera 2.0-3.6", "3.2\tera 2.0-3.6", "3.3\tera 2.0-3.6", "3.4\tera 2.0-3.6",
		"3.5\tera 2.0-3.6", "3.6\tera 2.0-3.6", "3.7\tera 3.7-4.0.0", "3.8\tera 3.7-4.0.0",
		"3.8.2\tera 3.9.1-4.0.x", "3.9\tera 3.7-4.0.0", "3.9.1\tera 3.9.1-4.0.x",
		"4.0\tera 3.7-4.0.0", "4.0.1\tera 3.9.1-4.0.x",
		"4.1\tera 4.1-4.4", "4.2\tera 4.1-4.4", "4.3\tera 4.1-4.4", "4.4\tera 4.1-4.4", "4.5\tera 4.5-trunk",
	}
	for _, cmd := range []string{"sim", "whatif", "diff", "verify", "analyze", "explain"} {
		checkCompletion(t, []string{cmd, "--kafka-version", ""}, all, dirNoFile)
	}
	from37 := all[slices.Index(all, "3.7\tera 3.7-4.0.0"):]
	for _, cmd := range []string{"corpus", "write"} {
		checkCompletion(t, []string{cmd, "--kafka-version", ""}, from37, dirNoFile)
	}
	checkCompletion(t, []string{"verify", "--kafka-version", "0.1"},
		[]string{"0.10\tera 0.10.0", "0.10.1\tera 0.10.1", "0.10.2\tera 0.10.2", "0.11\tera 0.11-1.1"}, dirNoFile)
	// Every candidate is accepted by the command (a usage error only from what follows).
	for _, c := range all {
		v, _, _ := strings.Cut(c, "\t")
		if _, errOut, _ := runKidx(t, "verify", "--kafka-version", v, "--max-findings", "-1", "x"); strings.Contains(errOut, "--kafka-version") {
			t.Errorf("verify --kafka-version %s refused: %s", v, errOut)
		}
	}
}

// Issue 26, "--config keys": key= with no space after it (the value follows), the topic
// configs of docs/contract.md §2 and their broker-level names, the last key of a k=v,k=v list.
func TestCompletionConfigKeys(t *testing.T) {
	checkCompletion(t, []string{"sim", "--config", "segment."},
		[]string{"segment.bytes=", "segment.index.bytes=", "segment.jitter.ms=", "segment.ms="}, dirKeyEquals)
	checkCompletion(t, []string{"verify", "--config", "index"}, []string{"index.interval.bytes="}, dirKeyEquals)
	checkCompletion(t, []string{"write", "--config", "segment.bytes=1000,log.index."},
		[]string{"segment.bytes=1000,log.index.interval.bytes=", "segment.bytes=1000,log.index.size.max.bytes="}, dirKeyEquals)
	checkCompletion(t, []string{"whatif", "--config", "segment.bytes="}, nil, dirNoFile)
	all := []string{"flush.messages=", "index.interval.bytes=", "max.message.bytes=", "segment.bytes=",
		"segment.index.bytes=", "segment.jitter.ms=", "segment.ms=",
		"log.flush.interval.messages=", "log.index.interval.bytes=", "log.index.size.max.bytes=", "log.roll.hours=",
		"log.roll.jitter.hours=", "log.roll.jitter.ms=", "log.roll.ms=", "log.segment.bytes=", "message.max.bytes="}
	for _, cmd := range []string{"sim", "whatif", "write", "verify", "analyze", "explain"} {
		checkCompletion(t, []string{cmd, "--config", ""}, all, dirKeyEquals)
	}
	// whatif --sweep: the topic configs and the producer settings (docs/whatif.md).
	checkCompletion(t, []string{"whatif", "--sweep", ""},
		[]string{"flush.messages=", "index.interval.bytes=", "max.message.bytes=", "segment.bytes=",
			"segment.index.bytes=", "segment.jitter.ms=", "segment.ms=", "batch.size=", "linger.ms="}, dirKeyEquals)
}

// Issue 26: the other flags with a closed set of values (docs/cli.md, "Shell completion").
func TestCompletionClosedSets(t *testing.T) {
	kinds := []string{"log-truncated-in-batch", "index-truncated-mid-entry", "live-index-zero-tail",
		"batch-header-byte-flip", "hostile-length", "index-out-of-order"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--property", ""}, []string{"FirstBatchNeverIndexed", "ScanBound", "Plateau",
			"EmptyAboveSegment", "EntriesAtBatchBoundaries", "StrictlyIncreasing", "DensityMonotone",
			"LookupHitsTarget", "WarmSearchAgrees", "RecoveryRebuildsSameIndex", "NoIndexOverflowMidAppend",
			"MaxScanMonotoneInInterval"}},
		{[]string{"check", "--clean", "--property", ""}, []string{"CleanedFirstBatchNeverIndexed",
			"CleanedScanBound", "CleanedIndexIgnoresChunks", "CleanedIndexNeverOverflows"}},
		{[]string{"corpus", "--content", ""}, []string{"realistic", "plain"}},
		{[]string{"corpus", "--index-view", ""}, []string{"running", "reopened"}},
		{[]string{"diff", "--index-view", "r"}, []string{"running", "reopened"}},
		{[]string{"corpus", "--damage", ""}, append([]string{"none"}, kinds...)},
		{[]string{"diff", "--damage", "hostile-length,index-"},
			[]string{"hostile-length,index-truncated-mid-entry", "hostile-length,index-out-of-order"}},
		{[]string{"corpus", "--damage", "none,"}, nil},
		{[]string{"diff", "--compare", ""}, []string{"start", "hit", "hops"}},
		{[]string{"diff", "--compare", "start,h"}, []string{"start,hit", "start,hops"}},
		{[]string{"diff", "--protocol", ""}, []string{"1", "2"}},
	} {
		checkCompletion(t, c.args, c.want, dirNoFile)
	}
}

// Issue 26, "file arguments filtered to Kafka's files": dump and verify offer the files
// kidx reads (the segment files, snapshots, checkpoints, the log directory's fixed names) and the
// directories to descend into; verify also the files Kafka is deleting, cleaning or swapping.
// Hidden files only once a dot is typed. Completion only lists the directory: it works in a
// read-only one.
func TestCompletionKafkaFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "orders-0")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"00000000000000000000.log", "00000000000000000000.index",
		"00000000000000000000.timeindex", "00000000000000000000.txnindex", "00000000000000000042.snapshot",
		"00000000000000000000.log.deleted", "00000000000000000042.log.swap",
		"leader-epoch-checkpoint", "partition.metadata", ".kafka_cleanshutdown", "notes.txt", "core"} {
		writeFile(t, p, name, "")
	}
	if err := os.Mkdir(filepath.Join(p, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(p, 0o755) })
	before, _ := os.ReadDir(p)

	pre := p + "/"
	dumped := []string{pre + "00000000000000000000.index", pre + "00000000000000000000.log",
		pre + "00000000000000000000.timeindex", pre + "00000000000000000000.txnindex",
		pre + "00000000000000000042.snapshot", pre + "leader-epoch-checkpoint", pre + "partition.metadata", pre + "sub/"}
	// A directory among them: no space after the candidate, so that the path goes on.
	checkCompletion(t, []string{"dump", pre}, dumped, ":6")
	checkCompletion(t, []string{"verify", pre}, []string{pre + "00000000000000000000.index", pre + "00000000000000000000.log",
		pre + "00000000000000000000.log.deleted", pre + "00000000000000000000.timeindex", pre + "00000000000000000000.txnindex",
		pre + "00000000000000000042.log.swap", pre + "00000000000000000042.snapshot",
		pre + "leader-epoch-checkpoint", pre + "partition.metadata", pre + "sub/"}, ":6")
	checkCompletion(t, []string{"dump", pre + "0000000000000000000"}, dumped[:4], dirNoFile) // 19 zeros: not 00000000000000000042
	checkCompletion(t, []string{"dump", pre + "."}, []string{pre + ".kafka_cleanshutdown"}, dirNoFile)
	checkCompletion(t, []string{"dump", pre + "00000000000000000000.log", pre + "l"}, []string{pre + "leader-epoch-checkpoint"}, dirNoFile)
	// --files a,b: the last path of the list.
	checkCompletion(t, []string{"dump", "--files", pre + "00000000000000000000.log," + pre + "p"},
		[]string{pre + "00000000000000000000.log," + pre + "partition.metadata"}, dirNoFile)
	checkCompletion(t, []string{"dump", filepath.Join(dir, "missing") + "/"}, nil, dirNoFile)
	checkCompletion(t, []string{"dump", filepath.Join(dir, "or")}, []string{pre}, ":6")

	after, _ := os.ReadDir(p)
	if len(after) != len(before) {
		t.Errorf("completion changed the directory: %d entries, was %d", len(after), len(before))
	}
}

// Issue 26: the directory and JSON-file flags and arguments use the shell's own completion with
// cobra's filters (directories only; .json files).
func TestCompletionDirectoriesAndJSON(t *testing.T) {
	for _, args := range [][]string{
		{"explain", ""}, {"analyze", ""}, {"sim", "--from-logdir", ""}, {"whatif", "--from-logdir", ""},
		{"write", "--dir", ""}, {"diff", "--dir", ""}, {"diff", "--corpus", ""}, {"prove", "--emit-smt", ""},
		{"check", "--out", ""}, {"prove", "--out", ""}, {"corpus", "--out", ""}, {"diff", "--out", ""},
	} {
		checkCompletion(t, args, nil, dirDirs)
	}
	for _, args := range [][]string{
		{"analyze", "--merge", ""}, {"sim", "--workload", ""}, {"whatif", "--workload", ""}, {"write", "--workload", ""},
		{"diff", "--workload", ""}, {"sim", "--era-spec", ""}, {"check", "--era-spec", ""}, {"prove", "--era-spec", ""},
	} {
		checkCompletion(t, args, []string{"json"}, dirFileExt)
	}
	// Numbers, counts, durations and free-form specs complete nothing (not the shell's files).
	for _, args := range [][]string{{"sim", "--records", ""}, {"diff", "--timeout", ""}, {"check", "--seed", ""},
		{"whatif", "--gen", ""}, {"prove", "--alphabet", ""}, {"analyze", "--broker", ""}, {"dump", "--max-bytes", ""}} {
		checkCompletion(t, args, nil, dirNoFile)
	}
	// A report file and a config file may have any name: the shell completes files.
	for _, args := range [][]string{{"whatif", "--out", ""}, {"analyze", "--out", ""}, {"sim", "--config-file", ""}} {
		checkCompletion(t, args, nil, dirDefault)
	}
}

// shellFileFlags are the flags whose value is a path the shell's own file completion fits
// (any name: a config file, a report, a command line).
var shellFileFlags = []string{"config-file", "out", "against"}

// Issue 26: every flag of every command that takes a value has its completion decided: a
// function registered by registerCompletions, or one of shellFileFlags. A new flag fails here
// until completion.go says what it completes.
func TestCompletionEveryFlagDecided(t *testing.T) {
	root := newRootCmd(nil, nil)
	registerCompletions(root)
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := c.GetFlagCompletionFunc(f.Name); ok || f.Value.Type() == "bool" || slices.Contains(shellFileFlags, f.Name) {
				return
			}
			t.Errorf("kidx %s --%s (%s): no completion decided (completion.go)", c.Name(), f.Name, f.Value.Type())
		})
	}
}

// Issue 26: --topic and --partition of --from-logdir complete from the log directory's
// topic-partition directories.
func TestCompletionTopicPartition(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"orders-0", "orders-2", "orders-10", "pay-ments-1", "__consumer_offsets-7", "not a partition"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dir, "files-9", "") // a file, not a partition directory
	checkCompletion(t, []string{"sim", "--from-logdir", dir, "--topic", ""}, []string{"__consumer_offsets", "orders", "pay-ments"}, dirNoFile)
	checkCompletion(t, []string{"whatif", "--from-logdir", dir, "--topic", "orders", "--partition", ""}, []string{"0", "2", "10"}, dirNoFile)
	checkCompletion(t, []string{"sim", "--topic", ""}, nil, dirNoFile)
}

// Issue 26: kidx help completes the help topics (versions, workloads) beside the commands.
func TestCompletionHelpTopics(t *testing.T) {
	got, directive := completeWith(t, "help", "w")
	var names []string
	for _, g := range got {
		n, _, _ := strings.Cut(g, "\t")
		names = append(names, n)
	}
	if !slices.Equal(names, []string{"whatif", "workloads", "write"}) || directive != dirNoFile {
		t.Errorf("help w: %q %s", names, directive)
	}
	if got, _ := completeWith(t, "help", "versions"); len(got) != 1 || !strings.HasPrefix(got[0], "versions\t") {
		t.Errorf("help versions: %q", got)
	}
}

// BenchmarkCompleteKafkaFiles is `kidx __complete dump DIR/` in a partition directory of 2,500
// segments (10,000 files, 2,501 of them snapshots), in process: what a TAB costs in a large
// partition, beside the process start.
func BenchmarkCompleteKafkaFiles(b *testing.B) {
	dir := b.TempDir()
	for i := range 2500 {
		for _, suffix := range []string{".log", ".index", ".timeindex", ".snapshot"} {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%020d%s", int64(i)*1000, suffix)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	var lines int
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run([]string{"__complete", "dump", dir + "/"}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		lines = strings.Count(out.String(), "\n")
	}
	b.ReportMetric(float64(lines-1), "candidates")
}

// BenchmarkCompleteKafkaVersion is `kidx __complete sim --kafka-version ""`: the release lines
// and era starts probed from model.ParseKafkaVersion and model.EraForKafkaVersion at every TAB.
func BenchmarkCompleteKafkaVersion(b *testing.B) {
	var lines int
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run([]string{"__complete", "sim", "--kafka-version", ""}, &out, &errb); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		lines = strings.Count(out.String(), "\n")
	}
	b.ReportMetric(float64(lines-1), "candidates")
}

// Completion functions live in cobra's package-wide table, which nothing empties: a run that is
// no completion request registers none (root.go), so that the commands built for it, and their
// options, are not kept alive.
func TestCompletionRegisteredOnlyForCompletion(t *testing.T) {
	registered := func(root *cobra.Command) bool {
		for _, c := range root.Commands() {
			if c.Name() == "sim" {
				_, ok := c.GetFlagCompletionFunc("format")
				return ok
			}
		}
		t.Fatal("no sim command")
		return false
	}
	for args, want := range map[string]bool{"version": false, "help sim": false, "__complete sim --format ": true, "__completeNoDesc sim --rule ": true} {
		root := newRootCmd(io.Discard, io.Discard)
		root.SetArgs(strings.Split(args, " "))
		if err := root.Execute(); err != nil {
			t.Fatalf("kidx %s: %v", args, err)
		}
		if got := registered(root); got != want {
			t.Errorf("kidx %s: completion functions registered: %v, want %v", args, got, want)
		}
	}
}
