package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kidx/against"
	"kidx/corpus"
	"kidx/logdir"
	"kidx/model"
	"kidx/props"
	"kidx/reports"
	"kidx/segment"
)

// Shell completion of flag values and arguments (docs/cli.md, "Shell completion"). The scripts
// `kidx completion bash|zsh|fish|powershell` prints call cobra's hidden `kidx __complete ARGS...
// PREFIX`, which answers with one candidate a line (value, a tab, a description where there is
// one) and a last line ":N", N the cobra.ShellCompDirective. The candidates come from the lists
// the commands validate against (formatFlag's values, model.ParseRule's names, the release lines
// model.ParseKafkaVersion accepts, model.ConfigKeys, ...), so that what completes is what runs.
// Completion reads directories (to list Kafka's files, or a log directory's topics) and never
// writes, creates or locks anything.

// registerCompletions gives every flag with a closed set of values, and every file or directory
// argument, its completion. It runs on a completion request, once every command is built
// (newRootCmd), and looks the flags up by name, so a command file only declares its flags.
func registerCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		for name, complete := range flagCompletions(c) {
			if c.Flags().Lookup(name) == nil {
				continue
			}
			if err := c.RegisterFlagCompletionFunc(name, complete); err != nil {
				panic(fmt.Sprintf("kidx %s --%s: %v", c.Name(), name, err)) // registered twice: a kidx bug
			}
		}
		if complete := argCompletion(c); complete != nil {
			c.ValidArgsFunction = complete
		}
		// The other flags: a number, a count, a duration or a free-form spec completes nothing
		// (not the shell's file list); a string flag not named here may be a path and keeps the
		// shell's file completion (--config-file, a report's --out, --against's command).
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, done := c.GetFlagCompletionFunc(f.Name); done || f.Value.Type() == "bool" {
				return
			}
			if f.Value.Type() != "string" || slices.Contains(freeFormFlags, f.Name) {
				if err := c.RegisterFlagCompletionFunc(f.Name, cobra.NoFileCompletions); err != nil {
					panic(fmt.Sprintf("kidx %s --%s: %v", c.Name(), f.Name, err))
				}
			}
		})
	}
}

// freeFormFlags are the string flags whose value is a spec or a list of numbers, never a path:
// --gen's generator spec (kidx help workloads), prove's and check's value lists, analyze's
// --broker name.
var freeFormFlags = []string{"gen", "alphabet", "intervals", "segments", "index-bytes", "broker"}

// completeFunc is cobra's completion function of a flag's value or of an argument.
type completeFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective)

// flagCompletions are the completions of c's flags, by flag name; a name c has no flag of is
// skipped.
func flagCompletions(c *cobra.Command) map[string]completeFunc {
	dirs := filterDirs // the shell's own directory completion
	m := map[string]completeFunc{
		"format":        completeFormat,
		"rule":          completeRule(c.Name()),
		"kafka-version": completeKafkaVersion(c.Name()),
		"config":        completeConfigKeys,
		"property":      completeProperty,
		"content":       fixedValues(corpus.Contents...),
		"damage":        completeCommaList(append([]string{"none"}, corpus.DamageKinds...), "none"),
		"index-view":    fixedValues(segment.ViewRunning.String(), segment.ViewReopened.String()),
		"compare":       completeCommaList(strings.Split(against.Fields(0xff).String(), ","), ""), // every field's bit set
		"protocol":      fixedValues(strconv.Itoa(against.ProtocolVersion), strconv.Itoa(against.ProtocolVersion2)),
		"sweep":         completeSweepKeys,
		"era-spec":      jsonFiles,
		"workload":      jsonFiles,
		"from-logdir":   dirs,
		"topic":         completeTopic,
		"partition":     completePartition,
		"dir":           dirs,
		"corpus":        dirs,
		"emit-smt":      dirs,
		"files":         completeKafkaFiles(c.Name(), true),
	}
	// --out is a directory of workload files for these commands, a report file (any name) for
	// analyze and whatif.
	if slices.Contains([]string{"check", "prove", "corpus", "diff"}, c.Name()) {
		m["out"] = dirs
	}
	return m
}

// argCompletion is the completion of c's positional arguments, nil where the shell's own file
// completion fits (or the command takes none and cobra already completes nothing).
func argCompletion(c *cobra.Command) completeFunc {
	switch c.Name() {
	case "dump", "verify":
		return completeKafkaFiles(c.Name(), false)
	case "explain":
		return filterDirs
	case "analyze":
		// DIR..., or with --merge the JSON reports of `kidx analyze --format json`.
		return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if merge, _ := cmd.Flags().GetBool("merge"); merge {
				return jsonFiles(cmd, args, toComplete)
			}
			return filterDirs(cmd, args, toComplete)
		}
	case "help":
		return completeHelpTopics(c)
	}
	return nil
}

// fixedValues completes one of values.
func fixedValues(values ...string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// withPrefix keeps the candidates that start with prefix (what the shell would show anyway;
// cobra's own completions filter the same way).
func withPrefix(values []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// completeFormat offers the values the command's Validate accepts: the slice registerFormat
// kept on the flag; diff adds diffAgainstFormats once --against is given, as its Validate does.
func completeFormat(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	values := formatValues(cmd)
	if cmd.Name() == "diff" && cmd.Flags().Changed("against") {
		values = slices.Concat(values, diffAgainstFormats)
	}
	return withPrefix(values, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// formatValues are the values registerFormat kept on cmd's --format (nil without one).
func formatValues(cmd *cobra.Command) []string {
	f := cmd.Flags().Lookup("format")
	if f == nil {
		return nil
	}
	return f.Annotations[formatValuesAnnotation]
}

// ruleParser is the parser the command checks --rule with: kidx prove also takes both; the
// commands that judge files (verify, analyze, explain) use segment.ParseRule.
func ruleParser(command string) func(string) error {
	switch command {
	case "prove":
		return func(s string) error { _, err := parseProveRules(s); return err }
	case "verify", "analyze", "explain":
		return func(s string) error { _, err := segment.ParseRule(s); return err }
	}
	return func(s string) error { _, err := model.ParseRule(s); return err }
}

// completeRule offers the rule names (model.AppendRule's, and prove's both) that the command's
// parser accepts, each described by the era it names (kidx help versions).
func completeRule(command string) completeFunc {
	parse := ruleParser(command)
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, r := range []model.AppendRule{model.PerBatch, model.PerAppend} {
			if parse(r.String()) == nil && strings.HasPrefix(r.String(), toComplete) {
				out = append(out, cobra.CompletionWithDesc(r.String(), "era "+model.EraForRule(r).ID))
			}
		}
		if parse("both") == nil && strings.HasPrefix("both", toComplete) {
			out = append(out, cobra.CompletionWithDesc("both", "each rule in turn"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// maxProbedMinor and maxProbedPatch bound the numbers probed for release lines and eras:
// Kafka's highest minor is 11 (0.11), and every era starts at a patch below 3.
const (
	maxProbedMinor = 99
	maxProbedPatch = 20
)

// kafkaVersionCandidates are the releases --kafka-version offers, in release order: each
// release line X.Y that model.ParseKafkaVersion accepts, and inside a line each release whose
// era differs from the release before it (model.EraForKafkaVersion: 0.8.2, 0.10.1, 0.10.2,
// 3.8.2, 3.9.1, 4.0.1), so that every era is one candidate away. Both are probed, so that the
// list is the parser's and the era table's, not a copy of them.
func kafkaVersionCandidates() []model.KafkaVersion {
	var out []model.KafkaVersion
	for major := 0; major <= 9; major++ {
		for minor := 0; minor <= maxProbedMinor; minor++ {
			line := fmt.Sprintf("%d.%d", major, minor)
			v, err := model.ParseKafkaVersion(line)
			if err != nil {
				continue
			}
			out = append(out, v)
			prev, err := model.EraForKafkaVersion(line)
			if err != nil {
				continue
			}
			for patch := 1; patch <= maxProbedPatch; patch++ {
				e, err := model.EraForKafkaVersion(fmt.Sprintf("%s.%d", line, patch))
				if err != nil {
					break
				}
				if e.ID != prev.ID {
					out = append(out, model.KafkaVersion{Major: v.Major, Minor: v.Minor, Patch: patch})
				}
				prev = e
			}
		}
	}
	return out
}

// versionText is a release as --kafka-version takes it: the line "3.6" for 3.6.0, else
// "3.9.1" (the 0.x releases as 0.10.1, which ParseKafkaVersion reads as 0.10.1.0).
func versionText(v model.KafkaVersion) string {
	if v.Patch == 0 {
		return fmt.Sprintf("%d.%d", v.Major, v.Minor)
	}
	return v.String()
}

// kafkaVersionParser is the check the command gives --kafka-version: the commands that judge
// files read it with logdir.ParseRelease; corpus and write write files, and refuse a release
// whose era their two rules do not write (corpusRule, writerRule); the rest run the model.
func kafkaVersionParser(command string) func(string) error {
	switch command {
	case "verify", "analyze", "explain":
		return func(s string) error { _, err := logdir.ParseRelease(s); return err }
	case "corpus", "write":
		return func(s string) error { _, err := corpusRule(s); return err }
	}
	return func(s string) error { _, err := model.EraForKafkaVersion(s); return err }
}

// completeKafkaVersion offers the releases the command accepts, each described by its era.
func completeKafkaVersion(command string) completeFunc {
	parse := kafkaVersionParser(command)
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range kafkaVersionCandidates() {
			s := versionText(v)
			if !strings.HasPrefix(s, toComplete) || parse(s) != nil {
				continue
			}
			e, err := model.EraForKafkaVersion(s)
			if err != nil {
				out = append(out, s)
				continue
			}
			out = append(out, cobra.CompletionWithDesc(s, "era "+e.ID))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeKeys completes the key of the last key=value of a comma-separated list: "KEY=" with
// no space after it, so that the value follows. After the "=" nothing is offered.
func completeKeys(keys []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	head, last := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		head, last = toComplete[:i+1], toComplete[i+1:]
	}
	if strings.Contains(last, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, k := range keys {
		if strings.HasPrefix(k, last) {
			out = append(out, head+k+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeConfigKeys completes --config's keys: the topic configs the model knows
// (model.ConfigKeys) and the broker-level names it maps to them (model.BrokerConfigNames).
func completeConfigKeys(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return completeKeys(slices.Concat(model.ConfigKeys(), model.BrokerConfigNames()), toComplete)
}

// completeSweepKeys completes --sweep's key: the topic configs and the producer settings
// reports.ParseSweep accepts. A sweep is one key, so a comma separates values, not keys.
func completeSweepKeys(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, k := range slices.Concat(model.ConfigKeys(), reports.ProducerKeys) {
		if strings.HasPrefix(k, toComplete) {
			out = append(out, k+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeProperty offers check's property names: props.Names, or with --clean the cleaned
// segments' (props.CleanPropertyNames), as check validates them.
func completeProperty(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	names := props.Names()
	if clean, _ := cmd.Flags().GetBool("clean"); clean {
		names = props.CleanPropertyNames()
	}
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeCommaList completes the last word of a comma-separated list of words (--damage,
// --compare): a word already in the list is not offered again, and alone (none) is offered only
// as the whole list.
func completeCommaList(words []string, alone string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		head, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head, last = toComplete[:i+1], toComplete[i+1:]
		}
		given := strings.Split(head, ",")
		if alone != "" && slices.Contains(given, alone) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, w := range words {
			if (w == alone && head != "") || slices.Contains(given, w) || !strings.HasPrefix(w, last) {
				continue
			}
			out = append(out, head+w)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// filterDirs completes directories only (the shell's own directory completion).
func filterDirs(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// jsonFiles completes .json files and the directories on the way (the shell's own completion).
func jsonFiles(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{"json"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeTopic offers the topics of --from-logdir's log directory: the names of its
// topic-partition directories (segment.ParsePartitionDirName).
func completeTopic(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var topics []string
	for _, tp := range partitionDirs(cmd) {
		if !slices.Contains(topics, tp.topic) {
			topics = append(topics, tp.topic)
		}
	}
	slices.Sort(topics)
	return withPrefix(topics, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completePartition offers the partitions of --topic in --from-logdir's log directory.
func completePartition(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	topic, _ := cmd.Flags().GetString("topic")
	var parts []int
	for _, tp := range partitionDirs(cmd) {
		if tp.topic == topic && !slices.Contains(parts, tp.partition) {
			parts = append(parts, tp.partition)
		}
	}
	slices.Sort(parts)
	var out []string
	for _, p := range parts {
		out = append(out, strconv.Itoa(p))
	}
	return withPrefix(out, toComplete), cobra.ShellCompDirectiveNoFileComp
}

type topicPartition struct {
	topic     string
	partition int
}

// partitionDirs are the topic-partition directories of --from-logdir (none when it is not
// given or cannot be read).
func partitionDirs(cmd *cobra.Command) []topicPartition {
	dir, _ := cmd.Flags().GetString("from-logdir")
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(expandHome(dir))
	if err != nil {
		return nil
	}
	var out []topicPartition
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if t, p, ok := segment.ParsePartitionDirName(e.Name()); ok {
			out = append(out, topicPartition{t, p})
		}
	}
	return out
}

// kafkaFileSuffixes are the suffixes of the files kidx dump decodes (dump.File: the segment
// files, producer snapshots, KRaft snapshots).
var kafkaFileSuffixes = []string{segment.LogSuffix, segment.IndexSuffix, segment.TimeIndexSuffix,
	segment.TxnIndexSuffix, segment.SnapshotSuffix, segment.KRaftSnapshotSuffix}

// kafkaFileNames are the fixed names of a log directory's other files, which kidx dump decodes
// in its own words and kidx verify judges (docs/logdir-files.md).
var kafkaFileNames = []string{segment.LeaderEpochCheckpointName, segment.RecoveryPointCheckpointName,
	segment.ReplicationCheckpointName, segment.LogStartOffsetCheckpointName, segment.CleanerOffsetCheckpointName,
	segment.PartitionMetadataName, segment.QuorumStateName, segment.MetaPropertiesName,
	segment.CleanShutdownName, segment.LockFileName}

// transitionalSuffixes are appended to a segment file's name while Kafka deletes, cleans or
// swaps it (LogFileUtils): kidx verify judges those files, kidx dump ignores them as
// kafka-dump-log does.
var transitionalSuffixes = []string{segment.DeletedSuffix, segment.CleanedSuffix, segment.SwapSuffix}

// isKafkaFile reports whether name is a file the command reads: one of kafkaFileNames, a name
// ending in one of kafkaFileSuffixes, and for verify also one with a transitional suffix after
// it.
func isKafkaFile(command, name string) bool {
	if slices.Contains(kafkaFileNames, name) {
		return true
	}
	if command == "verify" {
		for _, t := range transitionalSuffixes {
			if trimmed, ok := strings.CutSuffix(name, t); ok {
				name = trimmed
				break
			}
		}
	}
	for _, s := range kafkaFileSuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// completeKafkaFiles completes kidx dump's and verify's paths (commaList: the last path of
// dump's comma-separated --files): Kafka's files in the directory typed so far, and its
// subdirectories to descend into ("DIR/", no space after it). The directory is only listed.
func completeKafkaFiles(command string, commaList bool) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		head, typed := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); commaList && i >= 0 {
			head, typed = toComplete[:i+1], toComplete[i+1:]
		}
		dir, base := filepath.Split(typed)
		listed := dir
		if listed == "" {
			listed = "."
		}
		ents, err := os.ReadDir(expandHome(listed))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		anyDir := false
		for _, e := range ents {
			name := e.Name()
			// Hidden entries only when a dot is typed, as the shells do.
			if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
				continue
			}
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				if st, err := os.Stat(filepath.Join(expandHome(listed), name)); err == nil {
					isDir = st.IsDir()
				}
			}
			switch {
			case isDir:
				out = append(out, head+dir+name+string(filepath.Separator))
				anyDir = true
			case isKafkaFile(command, name):
				out = append(out, head+dir+name)
			}
		}
		d := cobra.ShellCompDirectiveNoFileComp
		if anyDir {
			d |= cobra.ShellCompDirectiveNoSpace
		}
		return out, d
	}
}

// expandHome reads a leading "~/" as the home directory, as the shell would have had it been
// expanded before completion.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// completeHelpTopics completes `kidx help`'s argument: the commands, as cobra's help does, and
// the help topics (kidx help versions, workloads), which cobra leaves out.
func completeHelpTopics(help *cobra.Command) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, c := range help.Root().Commands() {
			if (c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand()) && strings.HasPrefix(c.Name(), toComplete) {
				out = append(out, cobra.CompletionWithDesc(c.Name(), c.Short))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
