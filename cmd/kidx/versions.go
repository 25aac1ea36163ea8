package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"kidx/model"
)

func init() { registerCommand(newVersionsTopic) }

// newVersionsTopic is `kidx help versions` (and `kidx versions`): the model's era table,
// model.Eras, one block per era.
func newVersionsTopic(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "versions",
		Short: "Kafka's eras: which releases share which index, recover, roll and read rules",
		Long:  versionsText(),
	}
}

// versionsWidth is the width the era table is wrapped to.
const versionsWidth = 100

func versionsText() string {
	var b strings.Builder
	b.WriteString(wrap("", "", `kidx models Kafka release by release: each release belongs to one era, a range of releases whose LogSegment.append, recover(), roll and phase-2 read rules are the same for everything the model computes (model/era.go; docs/kafka.md §13). --kafka-version X.Y.Z runs a release's exact era (sim, whatif, write; verify and analyze judge files by it). --rule names the two current eras; kidx write writes only the eras whose files are written as those two write them.`))
	b.WriteString("  --rule per-batch is Kafka 4.1-4.4 (era 4.1-4.4)\n")
	b.WriteString("  --rule per-append is 3.7-4.0.0 (era 3.7-4.0.0: Kafka 3.7.x, 3.8.0-3.8.1, 3.9.0, 4.0.0)\n")
	for _, e := range model.Eras {
		b.WriteString("\n")
		writeEra(&b, e)
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeEra(b *strings.Builder, e model.Era) {
	head := fmt.Sprintf("%s: Kafka %s", e.ID, e.Releases)
	switch {
	case e.ID == model.EraForRule(model.PerBatch).ID:
		head += " (--rule per-batch)"
	case e.ID == model.EraForRule(model.PerAppend).ID:
		head += " (--rule per-append)"
	}
	b.WriteString(head + "\n")
	yes := func(v bool, y, n string) string {
		if v {
			return y
		}
		return n
	}
	recoverEntry := "each batch's last offset"
	if e.RecoverNamesBase {
		recoverEntry = "each batch's first offset"
	}
	entry := e.Entry.String()
	if e.FollowerWrapperOffset {
		entry += "; a follower's legacy compressed wrapper: its own offset (KAFKA-3047)"
	}
	rows := [][2]string{
		{"offset-index entry", entry},
		{"time-index entry", e.Time.String()},
		{"recover()'s entry", recoverEntry},
		{"size roll", yes(e.SizeRollCountsAppend,
			"counts the incoming append; an append larger than segment.bytes is rejected",
			"once the segment is past segment.bytes; any append is accepted")},
		{"time roll", yes(e.TimeRollOnTimestamps, "on the batches' timestamps (KIP-33)",
			"on the segment's wall-clock age (not modelled: no time rolls)")},
		{"overflow roll", yes(e.OverflowRoll, "yes: before a relative offset overflows (KAFKA-4451)",
			"no: an offset past the relative range stops the log")},
		{"roll to first offset", yes(e.RollToFirstOffset, "yes: max(log end offset, the append's first offset)",
			"no: the log end offset")},
		{"header reads past hit", yes(e.HeaderReadsPastHit,
			"yes: searchForOffsetFromPosition reads up to a batch whose base offset is past the target",
			"no: searchForOffsetWithSize reads exactly the hops")},
		{"KAFKA-17375", yes(e.ReplicationAcceptsOversize, "a follower's append larger than segment.bytes is written",
			"a follower's append larger than segment.bytes is rejected")},
		{"sources", e.Sources},
	}
	if e.Derived != "" {
		rows = append(rows, [2]string{"DERIVED", e.Derived})
	}
	for _, r := range rows {
		b.WriteString(wrap(fmt.Sprintf("  %-22s ", r[0]), strings.Repeat(" ", 25), r[1]))
	}
}

// wrap writes text in lines of at most versionsWidth columns, the first after first and the
// others after indent.
func wrap(first, indent, text string) string {
	var b strings.Builder
	line := first
	empty := true
	for _, w := range strings.Fields(text) {
		if !empty && len(line)+1+len(w) > versionsWidth {
			b.WriteString(line + "\n")
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += w
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
