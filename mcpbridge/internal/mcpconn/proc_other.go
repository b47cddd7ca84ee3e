//go:build !unix

package mcpconn

import (
	"os/exec"
	"time"
)

func setProcAttr(*exec.Cmd) {}

// signalTerm is not available: the kill that follows the grace period ends
// the process.
func signalTerm(*exec.Cmd) {}

func signalKill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// stopGroup does nothing: there are no process groups to stop.
func stopGroup(*exec.Cmd, time.Duration) {}
