package rank_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// benchTool is one tool of LiveMCPBench's tools.json.
type benchTool struct {
	Server      string
	Name        string
	Description string
	InputSchema json.RawMessage
	Annotations json.RawMessage
}

// benchTask is one request and the tools a solution uses.
type benchTask struct {
	ID       string
	Question string
	Tools    []string
}

// loadBenchTools reads testdata/livemcpbench/tools.json: 70 servers, 527
// tools, in file order.
func loadBenchTools(t testing.TB) []benchTool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "livemcpbench", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var servers []struct {
		Tools map[string]struct {
			Tools []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations json.RawMessage `json:"annotations"`
			} `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		t.Fatal(err)
	}
	var out []benchTool
	for _, s := range servers {
		for _, server := range slices.Sorted(maps.Keys(s.Tools)) {
			for _, tl := range s.Tools[server].Tools {
				out = append(out, benchTool{Server: server, Name: tl.Name, Description: tl.Description,
					InputSchema: tl.InputSchema, Annotations: tl.Annotations})
			}
		}
	}
	return out
}

var numbered = regexp.MustCompile(`^\s*\d+\.\s*`)

// loadBenchTasks reads testdata/livemcpbench/all_annotations.json: 95
// tasks, in file order.
func loadBenchTasks(t testing.TB) []benchTask {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "livemcpbench", "all_annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		ID       string `json:"task_id"`
		Question string `json:"Question"`
		Meta     struct {
			Tools string `json:"Tools"`
		} `json:"Annotator Metadata"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	out := make([]benchTask, len(raw))
	for i, r := range raw {
		out[i] = benchTask{ID: r.ID, Question: r.Question}
		for _, line := range strings.Split(r.Meta.Tools, "\n") {
			if name := strings.TrimSpace(numbered.ReplaceAllString(line, "")); name != "" {
				out[i].Tools = append(out[i].Tools, name)
			}
		}
	}
	return out
}
