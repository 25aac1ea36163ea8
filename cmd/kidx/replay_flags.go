package main

import "github.com/spf13/cobra"

// replayFlags name a real partition to replay (sim and whatif --from-logdir): a partition
// directory, or a log.dirs entry with --topic and --partition.
type replayFlags struct {
	logDir, topic string
	partition     int
	named         bool // Complete: --topic or --partition given
}

// register adds --from-logdir (what is replayed, in the command's words), --topic and
// --partition.
func (r *replayFlags) register(f interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
}, what string) {
	f.StringVar(&r.logDir, "from-logdir", "", what+": a partition dir, or a log.dirs entry with --topic/--partition")
	f.StringVar(&r.topic, "topic", "", "with --from-logdir: the topic to replay")
	f.IntVar(&r.partition, "partition", 0, "with --from-logdir: the partition to replay")
}

func (r *replayFlags) complete(cmd *cobra.Command) {
	r.named = cmd.Flags().Changed("topic") || cmd.Flags().Changed("partition")
}

func (r *replayFlags) validate() error {
	if r.partition < 0 {
		return usageErr("--partition %d: a partition number is 0 or more", r.partition)
	}
	if r.logDir == "" && r.named {
		return usageErr("--topic and --partition name the partition to replay: they need --from-logdir")
	}
	return nil
}
