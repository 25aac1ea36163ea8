package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"kidx/fuzz"
	"kidx/internal/english"
	"kidx/internal/printsafe"
	"kidx/model"
	"kidx/segment"
)

func init() { registerCommand(newWriteCmd) }

// writeOptions is kidx write's flags.
type writeOptions struct {
	model             modelFlags
	workloadPath, dir string
	format            string
	force             bool

	workload []byte // Validate: the --workload file, a workload or a recipe
}

func newWriteCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &writeOptions{}
	cmd := &cobra.Command{
		Use:   "write --workload FILE --dir DIR",
		Short: "Materialize a workload as a real Kafka log directory (.log, .index, .timeindex)",
		Long: `write runs Kafka's append loop on real files: v2 record batches with CRC-32C, indexes
preallocated to segment.index.bytes while active and trimmed on roll and close, 20-digit
file names. It takes a docs/contract.md §3 workload (each batch built to its exact sizeInBytes) or a
record-level recipe (kafka-input.json: keys, values and timestamps as Kafka's
MemoryRecordsBuilder wrote them).

--era-spec FILE writes a candidate era (a proposed patch, docs/model.md "Candidate eras") whose
base era is written as one of the two current eras: the writer applies its knobs (the two fixes
of the follower index overflow, docs/kafka-hazards.md §6); any other base is refused as
--kafka-version's release would be.

The whole workload is checked before any file is created: a batch no file can hold (fewer
bytes than the 61-byte header and the smallest records of its count, kidx help workloads),
or one the writer does not write (legacy magic, compressed, an offset gap, a roll step), is
an error (exit 2). The files are written into a temporary directory beside DIR, fsynced and
renamed into place, so DIR never holds half a log; on any error nothing is left. A non-empty
DIR is refused unless --force, which replaces it as a whole (it must hold only segment files,
as an earlier kidx write left it): the old directory is renamed aside, the new one renamed
in, the old one removed; between the two renames DIR does not exist.

A replicated workload (docs/contract.md §3.1, "replicas": a leader, followers that fetch
from it, restarts and elections) is written as DIR holding one partition directory per
replica, DIR/replica-0, DIR/replica-1, ..., all or nothing; --force replaces such a
directory too. Each replica's log runs Kafka's single-log rules; a follower's fetch reads
the leader's files and appends the chunk as one append, keeping the leader's offsets. A
follower whose append throws (an index overflow, issue 23) keeps its files as Kafka leaves
them, closed as a clean shutdown closes them, and fetches nothing more. The output gives per
replica its segments, next offset and events, and the steps that did nothing (a caught-up
or failed follower's fetch). A step the replicas cannot take (an election of a replica that
is behind, a fetch from inside a batch) is an error (exit 2), and nothing is written.`,
		Args: cobra.NoArgs,
		RunE: runOptions(o, stdout, stderr),
	}
	o.model.register(cmd)
	cmd.Flags().StringVar(&o.workloadPath, "workload", "", "workload file (docs/contract.md §3) or record-level recipe (kafka-input.json)")
	cmd.Flags().StringVar(&o.dir, "dir", "", "directory to write the partition's files into")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace a non-empty directory of segment files as a whole")
	registerFormat(cmd.Flags(), &o.format, textOrJSON, "")
	return cmd
}

// Complete has nothing to derive: the flags are used as given.
func (o *writeOptions) Complete(*cobra.Command, []string) error { return nil }

func (o *writeOptions) Validate() error {
	if err := formatFlag(o.format, textOrJSON...); err != nil {
		return err
	}
	if o.workloadPath == "" || o.dir == "" {
		return usageErr("write needs --workload FILE and --dir DIR")
	}
	// Read here, not in Complete: a missing flag is reported before an unreadable file.
	data, err := os.ReadFile(o.workloadPath)
	if err != nil {
		return usageErr("%v", err)
	}
	o.workload = data
	return nil
}

func (o *writeOptions) Run(stdout, stderr io.Writer) error {
	var res *segment.WriteResult
	var err error
	switch {
	case isRecipe(o.workload):
		res, err = writeRecipe(o.workload, o.workloadPath, o.dir, &o.model, o.force)
	case hasTopLevelKey(o.workload, "replicas"):
		res, err = writeReplicated(o.workload, o.workloadPath, o.dir, &o.model, stderr, o.force)
	default:
		res, err = writeWorkload(o.workloadPath, o.dir, &o.model, stderr, o.force)
	}
	if err != nil {
		return err
	}
	return renderWrite(stdout, o.format, o.dir, res)
}

// The schemas of write's two documents (docs/schema/README.md): one log, or the partition
// directories of a replicated workload.
const (
	writeSchema         = "kidx.write/1"
	writeReplicasSchema = "kidx.write.replicas/1"
)

// writeDocument is res as write --format json prints it, its schema's name first; the keys
// are segment.WriteResult's.
func writeDocument(res *segment.WriteResult) any {
	if res.Replicas != nil {
		notes := res.Notes
		if notes == nil {
			notes = []segment.ReplicaNote{}
		}
		return struct {
			Schema   string                  `json:"schema"`
			Leader   int                     `json:"leader"`
			Replicas []segment.ReplicaResult `json:"replicas"`
			Notes    []segment.ReplicaNote   `json:"notes"`
		}{writeReplicasSchema, res.Leader, res.Replicas, notes}
	}
	events := res.Events
	if events == nil {
		events = []segment.Event{}
	}
	return struct {
		Schema     string          `json:"schema"`
		Segments   []int64         `json:"segments"`
		NextOffset int64           `json:"nextOffset"`
		Events     []segment.Event `json:"events"`
	}{writeSchema, res.Segments, res.NextOffset, events}
}

// renderWrite writes what was written: JSON, or the segments and the events in words.
func renderWrite(w io.Writer, format, dir string, res *segment.WriteResult) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(writeDocument(res))
	}
	if res.Replicas != nil {
		renderReplicatedWrite(w, dir, res)
		return nil
	}
	fmt.Fprintf(w, "wrote %s to %s, next offset %d\n", english.Plural(int64(len(res.Segments)), "segment"), printsafe.Name(dir), res.NextOffset)
	for _, b := range res.Segments {
		fmt.Fprintf(w, "  %s.log\n", segment.FilenamePrefixFromOffset(b))
	}
	for _, e := range res.Events {
		fmt.Fprintf(w, "event at step %d: %s: %s\n", e.Step, e.Kind, e.Message)
	}
	return nil
}

// renderReplicatedWrite is renderWrite's text for a replicated workload: per replica its
// directory, segments and events, then the steps that did nothing.
func renderReplicatedWrite(w io.Writer, dir string, res *segment.WriteResult) {
	fmt.Fprintf(w, "wrote %s to %s (leader at the end: replica %d)\n", english.Plural(int64(len(res.Replicas)), "replica"), printsafe.Name(dir), res.Leader)
	for _, r := range res.Replicas {
		failed := ""
		if r.FailedAt >= 0 {
			failed = fmt.Sprintf(", failed at step %d", r.FailedAt)
		}
		fmt.Fprintf(w, "%s: %s, next offset %d%s\n", r.Dir, english.Plural(int64(len(r.Segments)), "segment"), r.NextOffset, failed)
		for _, b := range r.Segments {
			fmt.Fprintf(w, "  %s.log\n", segment.FilenamePrefixFromOffset(b))
		}
		for _, e := range r.Events {
			fmt.Fprintf(w, "  event at step %d: %s: %s\n", e.Step, e.Kind, e.Message)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "step %d did nothing: %s\n", n.Step, n.Message)
	}
}

// isRecipe tells a kafka-input.json recipe (it has "appends") from a docs/contract.md §3 workload.
func isRecipe(data []byte) bool { return hasTopLevelKey(data, "appends") }

// hasTopLevelKey reports a JSON object holding key.
func hasTopLevelKey(data []byte, key string) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, ok := probe[key]
	return ok
}

// writeReplicated writes a replicated workload (docs/contract.md §3.1): DIR holds
// replica-0, replica-1, ..., each a partition directory. Package segment parses the file (its
// replicas, fetches and elections); its config and rule or release are resolved with the flags
// as for a single log, and every replica is written by the same rule (a cluster runs one
// release).
func writeReplicated(data []byte, path, dir string, mf *modelFlags, stderr io.Writer, force bool) (*segment.WriteResult, error) {
	sw, err := segment.ParseWorkload(data)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	var settings struct {
		Config       map[string]int64 `json:"config"`
		Rule         string           `json:"rule"`
		KafkaVersion string           `json:"kafkaVersion"`
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	cfg, era, err := mf.resolve(model.DefaultConfig(), settings.Config, settings.Rule, settings.KafkaVersion, stderr)
	if err != nil {
		return nil, err
	}
	// A follower's chunk comes from one leader segment, so it is never above segment.bytes:
	// KAFKA-17375's acceptance of one does not arise (no steps to check).
	rule, err := writerRule(era, mf.version(settings.Rule, settings.KafkaVersion), cfg, nil)
	if err != nil {
		return nil, err
	}
	sw.Config, sw.Rule = segmentConfig(cfg), rule
	sw.Config.Candidate = fuzz.FileCandidate(era)
	if err := sw.Validate(); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	defer cleanOnSignal()()
	return writeDirResult(segment.WriteWorkloadDir(dir, sw, force))
}

func writeWorkload(path, dir string, mf *modelFlags, stderr io.Writer, force bool) (*segment.WriteResult, error) {
	w, err := readWorkload(path)
	if err != nil {
		return nil, err
	}
	if err := writableWorkload(w); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	cfg, era, err := mf.resolve(model.DefaultConfig(), w.Config, w.Rule, w.KafkaVersion, stderr)
	if err != nil {
		return nil, err
	}
	rule, err := writerRule(era, mf.version(w.Rule, w.KafkaVersion), cfg, w.Steps)
	if err != nil {
		return nil, err
	}
	sw := &segment.Workload{Config: segmentConfig(cfg), Rule: rule, StartOffset: w.StartOffset}
	sw.Config.Candidate = fuzz.FileCandidate(era)
	for _, s := range w.Steps {
		st := segment.Step{Restart: s.Restart, Recover: s.Recover, Clean: fuzz.FileClean(s.Clean)}
		for _, b := range s.Append {
			spec := segment.BatchSpec{Records: int(b.Records), Bytes: int(b.Bytes), MaxTimestamp: b.MaxTimestamp,
				Transactional: b.Transactional, Control: b.Control, ProducerID: b.ProducerID, BaseOffset: b.BaseOffset}
			if b.Compression != "" {
				c, err := segment.ParseCompression(b.Compression)
				if err != nil {
					return nil, usageErr("%s: %v", path, err)
				}
				spec.Compression = c
			}
			st.Append = append(st.Append, spec)
		}
		sw.Steps = append(sw.Steps, st)
	}
	if err := sw.Validate(); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	defer cleanOnSignal()()
	return writeDirResult(segment.WriteWorkloadDir(dir, sw, force))
}

// writeDirResult sorts a directory write's errors: a target that cannot be written or
// replaced is the user's input (exit 2), as is a workload the writer refuses, also when a
// replicated workload's step turns out impossible while it runs (segment.StepError: an
// election of a lagging replica, a fetch from inside a batch); a failure while
// writing (a full disk) is not.
func writeDirResult(res *segment.WriteResult, err error) (*segment.WriteResult, error) {
	var de *segment.DirError
	var se *segment.StepError
	switch {
	case errors.As(err, &de), errors.As(err, &se):
		return nil, usageErr("%v", err)
	case errors.Is(err, segment.ErrInterrupted):
		return nil, &exitError{code: int(max(interruptCode.Load(), 130)), err: err}
	}
	return res, err
}

// writableWorkload refuses, before any file exists, what kidx write cannot write as the
// workload says: a batch no file can hold (model.Batch.Possible), and what the writer does
// not write (it builds v2 batches, uncompressed or with a named codec, at the offsets the
// workload gives, gaps included, and rolls only by Kafka's own rules).
func writableWorkload(w model.Workload) error {
	for i, s := range w.Steps {
		if s.Roll {
			return fmt.Errorf("step %d is a roll: kidx write rolls only as Kafka does (size, time, a full index), and cannot replay an operator's or the cleaner's roll", i)
		}
		if s.Crash != nil {
			return fmt.Errorf("step %d is a crash: kidx write writes the files of a log that never crashed", i)
		}
		for j, b := range s.Append {
			where := fmt.Sprintf("step %d batch %d", i, j)
			switch {
			case b.Possible() != nil:
				return fmt.Errorf("%s (%s, %s): %v; no file can hold it", where, english.Plural(b.Records, "record"), english.Plural(b.Bytes, "byte"), b.Possible())
			case b.Legacy != model.NotLegacy:
				return fmt.Errorf("%s is a magic-%d message: kidx write writes v2 batches only", where, b.Legacy.Magic())
			case b.Compressed && b.Compression == "":
				return fmt.Errorf("%s is compressed without a codec: name the one kidx write is to compress with (\"compression\": \"gzip\", \"snappy\", \"lz4\" or \"zstd\")", where)
			}
		}
	}
	return nil
}

func writeRecipe(data []byte, path, dir string, mf *modelFlags, force bool) (*segment.WriteResult, error) {
	r, err := segment.ParseRecipe(data)
	if err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	// --config and --rule override the recipe's own settings, as for workloads.
	cfg := model.DefaultConfig()
	cfg.IndexIntervalBytes, cfg.SegmentBytes, cfg.SegmentIndexBytes = r.Config.IndexIntervalBytes, r.Config.SegmentBytes, r.Config.SegmentIndexBytes
	timeRollOff := r.Config.SegmentMs == 0
	cfg, era, err := mf.resolve(cfg, nil, modelRuleName(r.Rule), "", io.Discard)
	if err != nil {
		return nil, err
	}
	rule, err := writerRule(era, mf.version(modelRuleName(r.Rule), ""), cfg, nil)
	if err != nil {
		return nil, err
	}
	r.Config, r.Rule = segmentConfig(cfg), rule
	r.Config.Candidate = fuzz.FileCandidate(era)
	if timeRollOff && !mf.hasConfig("segment.ms") {
		r.Config.SegmentMs = 0 // recipes replay runs made with time-based rolling off
	}
	if err := r.Validate(); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	defer cleanOnSignal()()
	return writeDirResult(segment.WriteRecipeDir(dir, r, force))
}

func segmentConfig(c model.Config) segment.Config {
	return segment.Config{IndexIntervalBytes: c.IndexIntervalBytes, SegmentBytes: c.SegmentBytes, SegmentIndexBytes: c.SegmentIndexBytes,
		SegmentMs: c.SegmentMs, MaxMessageBytes: c.MaxMessageBytes}
}

func segmentRule(r model.AppendRule) segment.Rule {
	if r == model.PerAppend {
		return segment.PerAppend
	}
	return segment.PerBatch
}

// writerRule is the rule segment's writer writes an era's files by. The writer knows the two
// current eras (model.EraForRule); an era is written by one of them when it writes files the
// same way: the same offset-index and time-index offsets, recover(), rolls and oversize
// rejection. Header reads (phase 2) change no byte. Trunk's acceptance of a follower's append
// larger than segment.bytes (KAFKA-17375) matters only when the workload has one. Any other
// era is a usage error naming the rule to use.
func writerRule(era model.Era, version string, cfg model.Config, steps []model.Step) (segment.Rule, error) {
	cur := model.EraForRule(era.Rule())
	same := era.Entry == cur.Entry && era.Time == cur.Time && era.RecoverNamesBase == cur.RecoverNamesBase &&
		era.FollowerWrapperOffset == cur.FollowerWrapperOffset && era.SizeRollCountsAppend == cur.SizeRollCountsAppend &&
		era.TimeRollOnTimestamps == cur.TimeRollOnTimestamps && era.OverflowRoll == cur.OverflowRoll &&
		era.RollToFirstOffset == cur.RollToFirstOffset
	if same && era.ReplicationAcceptsOversize != cur.ReplicationAcceptsOversize {
		for i, st := range steps {
			if st.Origin == model.OriginReplication && st.AppendBytes() > cfg.SegmentBytes {
				return 0, usageErr("kidx write writes the two current eras (per-batch: Kafka 4.1-4.4, per-append: 3.7-4.0.0); "+
					"step %d is a follower's append of %d bytes, above segment.bytes=%d, which %s writes (KAFKA-17375) and they reject: "+
					"use --rule %s to write it as 4.1-4.4 does, or kidx sim to model it",
					i, st.AppendBytes(), cfg.SegmentBytes, era, era.Rule())
			}
		}
	}
	if !same {
		what := era.String()
		if version != "" {
			what = fmt.Sprintf("Kafka %s (era %s)", version, era.ID)
		}
		return 0, usageErr("kidx write writes the two current eras (per-batch: Kafka 4.1-4.4, per-append: 3.7-4.0.0) and "+
			"the releases that write files as they do; %s writes them otherwise (offset-index entries: the %s; "+
			"time index: %s): use --rule %s to write the current era of its rule, or kidx sim to model %s (kidx help versions)",
			what, era.Entry, era.Time, era.Rule(), era.ID)
	}
	return segmentRule(era.Rule()), nil
}

func modelRuleName(r segment.Rule) string {
	if r == segment.PerAppend {
		return model.PerAppend.String()
	}
	return model.PerBatch.String()
}

// cleanOnSignal makes SIGINT and SIGTERM during a write stop it at its next step
// (segment.Interrupt): its temporary directory is removed and the command fails with
// exit 130 (SIGINT) or 143 (SIGTERM), as a shell reports them; an interrupted write leaves
// nothing (issue 11 review). The returned func stops listening.
func cleanOnSignal() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			if sig == syscall.SIGTERM {
				interruptCode.Store(143)
			} else {
				interruptCode.Store(130)
			}
			segment.Interrupt()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// interruptCode is the exit code of a write stopped by a signal.
var interruptCode atomic.Int32
