package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
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

// Main is the TestMain of a package whose tests start the stdio test
// server: it builds the program into a temporary directory, sets *path
// to it, runs the tests with goleak's check (genai's imports start one
// goroutine that never ends) and exits with their status, the directory
// removed.
func Main(m *testing.M, path *string) {
	dir, err := os.MkdirTemp("", "mcptest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *path, err = BuildStdio(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, append(IgnoreServerGoroutines(),
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
		goleak.Cleanup(func(code int) { _ = os.RemoveAll(dir); os.Exit(code) }))...)
}

// IgnoreServerGoroutines are goleak options for the goroutines that
// mcp-go's own server (the in-process test servers) leaves behind by
// design, not the client's: a task's clean-up sleeps out the task's time
// to live, and a subscriptions/listen handler waits for its session's
// end, which an SSE session that its client left never reaches.
func IgnoreServerGoroutines() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup"),
		goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).handleSubscriptionsListen"),
	}
}
