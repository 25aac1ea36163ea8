package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { registerCommand(newVersionCmd) }

// buildVersion describes this binary from its build info (runtime/debug.ReadBuildInfo): the
// module version ("(devel)" for a build from a work tree, as the go command records it), and
// the VCS revision, commit time and whether the tree had local changes, when the go command
// stamped them (go build in a git checkout; not go run or go test).
type buildVersion struct {
	Module, Version, Revision, Time, GoVersion string
	Modified                                   bool
	HaveVCS                                    bool
}

func readBuildVersion() buildVersion {
	v := buildVersion{Module: "kidx", Version: "(devel)", GoVersion: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Path != "" {
		v.Module = info.Main.Path
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	if info.GoVersion != "" {
		v.GoVersion = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision, v.HaveVCS = s.Value, true
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is one line: "kidx (devel) rev 1a2b3c4d5e6f (2026-12-01T11:55:06Z, modified) go1.26".
func (v buildVersion) String() string {
	s := v.Module + " " + v.Version
	if v.HaveVCS {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " rev " + rev
		switch {
		case v.Time != "" && v.Modified:
			s += " (" + v.Time + ", modified)"
		case v.Time != "":
			s += " (" + v.Time + ")"
		case v.Modified:
			s += " (modified)"
		}
	} else {
		s += " (no VCS information: built without a git checkout, or by go run/go test)"
	}
	return s + " " + v.GoVersion
}

func newVersionCmd(stdout, _ io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print kidx's module version and the VCS revision it was built from",
		Long: `version prints the module version ("(devel)" when built from a work tree rather than a
tagged module), the git revision, its commit time and "modified" when the tree had local
changes, then the Go release. The revision is recorded by go build in a git checkout
(-buildvcs); go run and go test record none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(stdout, readBuildVersion())
			return nil
		},
	}
}
