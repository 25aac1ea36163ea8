package main

import (
	"runtime"
	"strings"
	"testing"
)

// Issue 11, build: `kidx version` from the build info. A test binary carries no VCS stamp, so
// it prints the development version and says why there is no revision.
func TestVersionCommand(t *testing.T) {
	out, errOut, code := runKidx(t, "version")
	want := "kidx (devel) (no VCS information: built without a git checkout, or by go run/go test) " + runtime.Version() + "\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout %q (want %q), stderr %q", code, out, want, errOut)
	}
	if out2, _, code := runKidx(t, "--version"); code != 0 || out2 != out {
		t.Errorf("--version: exit %d, %q", code, out2)
	}
	if _, _, code := runKidx(t, "version", "extra"); code != 2 {
		t.Errorf("version extra: exit %d, want 2", code)
	}
}

// The line a stamped build prints, by hand for each combination of what go build records.
func TestBuildVersionString(t *testing.T) {
	for _, c := range []struct {
		v    buildVersion
		want string
	}{
		{buildVersion{Module: "kidx", Version: "v0.0.0-20261201120341-cca3648ad42a+dirty", Revision: "cca3648ad42ad5dff9053324e242affdcfd53793",
			Time: "2026-12-01T12:03:41Z", Modified: true, HaveVCS: true, GoVersion: "go1.26.8"},
			"kidx v0.0.0-20261201120341-cca3648ad42a+dirty rev cca3648ad42a (2026-12-01T12:03:41Z, modified) go1.26.8"},
		{buildVersion{Module: "kidx", Version: "v1.2.0", Revision: "cca3648ad42ad5dff9053324e242affdcfd53793", Time: "2026-12-01T12:03:41Z", HaveVCS: true, GoVersion: "go1.26.8"},
			"kidx v1.2.0 rev cca3648ad42a (2026-12-01T12:03:41Z) go1.26.8"},
		{buildVersion{Module: "kidx", Version: "(devel)", Revision: "abc", Modified: true, HaveVCS: true, GoVersion: "go1.26.8"},
			"kidx (devel) rev abc (modified) go1.26.8"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// Issue 11, build: shell completion is enabled (root.go disabled cobra's completion command).
func TestCompletionCommand(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "bash completion V2 for kidx", "zsh": "#compdef kidx", "fish": "fish completion for kidx"} {
		out, errOut, code := runKidx(t, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(out), errOut)
		}
	}
}

// Issue 11 review: cobra's completion command and `help` succeeded on a missing or unknown
// shell or topic (exit 0 with a help page). They are usage errors; the known ones still work.
func TestCompletionAndHelpExitCodes(t *testing.T) {
	for args, want := range map[string]int{
		"completion tcsh": 2, "completion": 2, "help bogus": 2,
		"completion bash": 0, "completion zsh": 0, "help whatif": 0, "help workloads": 0, "help": 0,
	} {
		if _, errOut, code := runKidx(t, strings.Fields(args)...); code != want {
			t.Errorf("kidx %s: exit %d (%q), want %d", args, code, errOut, want)
		}
	}
}
