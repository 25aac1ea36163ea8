//go:build !unix

package against

import "os/exec"

// inProcessGroup leaves cmd as it is: without process groups a cancel kills the shell only.
func inProcessGroup(*exec.Cmd) {}
