//go:build unix

package mcpconn

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcAttr puts the child in its own process group, so that signals reach
// the programs it starts too (npx, uv, shells).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func signalTerm(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

func signalKill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}

// stopGroup stops what is left of the child's process group once the child
// itself has exited and been reaped: programs it started in the background
// would otherwise outlive Close. The group is sent SIGTERM, and SIGKILL if
// any member is still there after grace. A group id stays reserved while
// the group has members, so it cannot name an unrelated process group.
func stopGroup(cmd *exec.Cmd, grace time.Duration) {
	if cmd.Process == nil {
		return
	}
	pgid := -cmd.Process.Pid
	if syscall.Kill(pgid, syscall.SIGTERM) != nil {
		return // no member left
	}
	for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pgid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}
