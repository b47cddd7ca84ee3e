package testserver

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildStdio builds the stdio test server program (cmd/mcptest) into dir
// and returns its path.
func BuildStdio(dir string) (string, error) {
	path := filepath.Join(dir, "mcptest")
	cmd := exec.Command("go", "build", "-o", path, "github.com/mcpgenai/bridge/mcpbridge/internal/testserver/cmd/mcptest")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the stdio test server: %v\n%s", err, out)
	}
	return path, nil
}
