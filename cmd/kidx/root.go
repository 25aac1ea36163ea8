package main

import (
	"fmt"
	"io"
	"strings"

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
	// commands and flags is the Go CLI convention; registerCompletions (completion.go) adds the
	// flags' values and the file arguments.
	root.Version = readBuildVersion().String()
	root.SetVersionTemplate("{{.Version}}\n")
	for _, f := range commandFactories {
		root.AddCommand(f(stdout, stderr))
	}
	// Cobra's completion command prints its help and succeeds on a missing or unknown shell,
	// and `help` on an unknown topic likewise: both are usage errors (exit 2) here.
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Args = cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)
			c.ValidArgs = []string{"bash", "zsh", "fish", "powershell"}
			c.RunE = func(cmd *cobra.Command, args []string) error {
				return fmt.Errorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
			}
		case "help":
			run := c.Run
			c.Run = nil
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					if found, _, err := root.Find(args); err != nil || found == root {
						return fmt.Errorf("unknown help topic %q: kidx help lists the commands and topics", strings.Join(args, " "))
					}
				}
				run(cmd, args)
				return nil
			}
		}
	}
	// Cobra keeps completion functions in a package-wide table keyed by flag that nothing
	// empties: they are registered only when the command is a completion request (cobra's
	// __complete, a child of root), so that building the commands for a run, many times over in
	// the tests, keeps no flag (and no options struct) alive.
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd {
			registerCompletions(root)
		}
	}
	return root
}
