//go:build unix

package against

import (
	"os/exec"
	"syscall"
)

// inProcessGroup starts cmd in a process group of its own and makes a cancel kill the whole
// group: a reader run through a shell or wrapper script leaves no process behind.
func inProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
