package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// The files of real servers' tools the example serves, relative to the
// repository's root.
const (
	// benchTools holds the 527 tools of LiveMCPBench's 70 servers, with
	// their descriptions.
	benchTools = "mcpbridge/rank/testdata/livemcpbench/tools.json"
	// fixtureDir holds the tools/list answers of seven published servers
	// (names and input schemas only).
	fixtureDir = "schema/testdata/servers"
)

// fixtures are the files of fixtureDir served, each under a server name
// of its own (LiveMCPBench has servers of the same packages).
var fixtures = []struct{ file, server string }{
	{"ms-365-mcp-server.json", "ms-365"},
	{"line-bot-mcp-server.json", "line-bot"},
	{"playwright-mcp.json", "playwright-mcp"},
	{"server-everything.json", "everything"},
	{"server-filesystem.json", "server-filesystem"},
	{"server-memory.json", "server-memory"},
	{"server-sequential-thinking.json", "server-sequential-thinking"},
}

// toolSpec is one tool as a real server listed it.
type toolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// serverSpec is one server and the tools it lists, in its order.
type serverSpec struct {
	Name  string
	Tools []toolSpec
}

// findRoot returns dir, or when dir is "" the nearest directory at or
// above the working directory that holds the example's data files (the
// repository's root, whether the program runs from there or from its own
// directory, as its test does).
func findRoot(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(benchTools))); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s at or above %s: run the example inside the repository, or give -data", benchTools, wd)
		}
	}
}

// readServers reads the servers of LiveMCPBench's tools.json, then the
// published servers' fixtures, under root.
func readServers(root string) ([]serverSpec, error) {
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(benchTools)))
	if err != nil {
		return nil, err
	}
	// tools.json is a list of entries, each with a map of server name to
	// that server's tools/list.
	var entries []struct {
		Tools map[string]struct {
			Tools []toolSpec `json:"tools"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", benchTools, err)
	}
	var out []serverSpec
	for _, e := range entries {
		for _, name := range slices.Sorted(maps.Keys(e.Tools)) {
			out = append(out, serverSpec{Name: name, Tools: e.Tools[name].Tools})
		}
	}
	for _, f := range fixtures {
		path := filepath.Join(root, filepath.FromSlash(fixtureDir), f.file)
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var list struct {
			Tools []toolSpec `json:"tools"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, serverSpec{Name: f.server, Tools: list.Tools})
	}
	return out, nil
}

// answer is what the example's servers answer a call of tool on server
// with: a weather report for the weather server's tools, else a line
// saying that the stand-in did nothing.
func answer(server, tool string, args map[string]any) *mcp.CallToolResult {
	if server == "weather" {
		report, _ := json.Marshal(map[string]any{
			"location":    args["city"],
			"temperature": 18.5,
			"unit":        "celsius",
			"conditions":  "light rain",
			"wind_kmh":    9,
		})
		return mcp.NewToolResultText(string(report))
	}
	return mcp.NewToolResultText(fmt.Sprintf("(%s/%s is a stand-in of the example: it did nothing)", server, tool))
}

// servers are the example's MCP servers: one mcp-go server per
// serverSpec, all on one loopback HTTP listener, each at a path of its
// own, over streamable HTTP.
type servers struct {
	srv    *http.Server
	done   chan error
	config []mcpbridge.ServerConfig
}

// startServers serves specs on 127.0.0.1 and returns them with the
// Bridge's configuration for them.
func startServers(specs []serverSpec) (*servers, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	s := &servers{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, done: make(chan error, 1)}
	for i, spec := range specs {
		m := server.NewMCPServer(spec.Name, "1.0.0", server.WithToolCapabilities(false))
		for _, t := range spec.Tools {
			name := t.Name
			m.AddTool(mcp.NewToolWithRawSchema(name, t.Description, t.InputSchema),
				func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return answer(spec.Name, name, req.GetArguments()), nil
				})
		}
		path := fmt.Sprintf("/%d/mcp", i)
		mux.Handle(path, server.NewStreamableHTTPServer(m, server.WithEndpointPath(path)))
		s.config = append(s.config, mcpbridge.ServerConfig{
			Name:    spec.Name,
			HTTPURL: "http://" + ln.Addr().String() + path,
			// The example's own stand-ins: their tools run without
			// asking. A host trusts only servers it vouches for and
			// gives a confirm.Policy for the others.
			Trust:   true,
			Timeout: 30 * time.Second,
		})
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the listener and waits for its goroutine.
func (s *servers) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
