//go:build !unix

package target

import "os/exec"

// setGroup does nothing where process groups are not available.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the process (its children may survive on this system).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
