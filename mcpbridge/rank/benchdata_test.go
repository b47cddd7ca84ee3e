package rank_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/livemcpbench"
)

// loadBenchTools reads testdata/livemcpbench/tools.json: 70 servers, 527
// tools, in file order.
func loadBenchTools(t testing.TB) []livemcpbench.Tool {
	t.Helper()
	tools, err := livemcpbench.Tools(filepath.Join("testdata", "livemcpbench", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// loadBenchTasks reads testdata/livemcpbench/all_annotations.json: 95
// tasks, in file order.
func loadBenchTasks(t testing.TB) []livemcpbench.Task {
	t.Helper()
	tasks, err := livemcpbench.Tasks(filepath.Join("testdata", "livemcpbench", "all_annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}
