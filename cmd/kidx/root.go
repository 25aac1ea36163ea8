package main

import (
	"io"

	"github.com/spf13/cobra"
)

// commandFactories are the subcommands; each file registers its own in init.
var commandFactories []func(stdout, stderr io.Writer) *cobra.Command

func registerCommand(f func(stdout, stderr io.Writer) *cobra.Command) {
	commandFactories = append(commandFactories, f)
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "kidx",
		Short: "Model, check and tune Apache Kafka's per-segment offset index",
		Long: `kidx models Apache Kafka's per-segment offset index exactly: the append rule
(per-batch since Kafka 3.9.1/4.0.1/4.1.0, per-append before), segment rolling, the offset
and time indexes and the two-phase lookup, with the exact lookup cost of every offset.
It also writes, dumps and verifies real segment files.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Cobra's `kidx completion bash|zsh|fish|powershell` stays enabled: shell completion of the
	// commands and flags is the Go CLI convention. Files are left to the shell to complete.
	root.Version = readBuildVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
	for _, f := range commandFactories {
		root.AddCommand(f(stdout, stderr))
	}
	return root
}
