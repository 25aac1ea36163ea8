package main

import (
	"io"

	"github.com/spf13/cobra"
)

// commandOptions is one command's flags and what they mean, in the shape of kubectl's
// commands: Complete derives what the flags and arguments imply (defaults, parsed values,
// files read), Validate refuses what cannot run (a usage error, exit 2), Run does the work and
// hands the result to the command's renderer. Each command keeps its cobra definition (the
// help text and the flags' registration) in new<Name>Cmd, its options and Run in the same file,
// and its rendering apart (docs/cli.md, "How a command is built").
type commandOptions interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(stdout, stderr io.Writer) error
}

// runOptions is a command's RunE: Complete, Validate, then Run.
func runOptions(o commandOptions, stdout, stderr io.Writer) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(stdout, stderr)
	}
}
