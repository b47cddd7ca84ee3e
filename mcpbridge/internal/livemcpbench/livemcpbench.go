// Package livemcpbench reads the files of the public benchmark LiveMCPBench
// that mcpbridge/rank/testdata/livemcpbench keeps: its tools and its tasks,
// for the tests that measure the ranker and check how a Bridge uses it.
package livemcpbench

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Tool is one tool of tools.json.
type Tool struct {
	Server      string // the key of the server's entry
	Name        string
	Description string
	InputSchema json.RawMessage
	Annotations json.RawMessage // "null" when the tool has none
}

// Task is one task of all_annotations.json.
type Task struct {
	ID       string
	Question string
	Tools    []string // the names of the tools a solution used
}

// Tools reads the tools of a tools.json, in the file's order (a server's
// entries by name).
func Tools(path string) ([]Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
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
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var out []Tool
	for _, s := range servers {
		for _, server := range slices.Sorted(maps.Keys(s.Tools)) {
			for _, t := range s.Tools[server].Tools {
				out = append(out, Tool{Server: server, Name: t.Name, Description: t.Description,
					InputSchema: t.InputSchema, Annotations: t.Annotations})
			}
		}
	}
	return out, nil
}

var numbered = regexp.MustCompile(`^\s*\d+\.\s*`)

// Tasks reads the tasks of an all_annotations.json, in the file's order.
func Tasks(path string) ([]Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		ID       string `json:"task_id"`
		Question string `json:"Question"`
		Meta     struct {
			Tools string `json:"Tools"`
		} `json:"Annotator Metadata"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := make([]Task, len(raw))
	for i, r := range raw {
		out[i] = Task{ID: r.ID, Question: r.Question}
		for _, line := range strings.Split(r.Meta.Tools, "\n") {
			if name := strings.TrimSpace(numbered.ReplaceAllString(line, "")); name != "" {
				out[i].Tools = append(out[i].Tools, name)
			}
		}
	}
	return out, nil
}
