//go:build !unix

package mcpconn

import "os/exec"

func setProcAttr(*exec.Cmd) {}

// signalTerm is not available: the kill that follows the grace period ends
// the process.
func signalTerm(*exec.Cmd) {}

func signalKill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
