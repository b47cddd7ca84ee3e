package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// weatherServer serves one MCP tool over streamable HTTP on loopback.
func weatherServer() (*httptest.Server, func()) {
	s := server.NewMCPServer("weather", "1.0.0")
	s.AddTool(mcp.NewToolWithRawSchema("get-weather", "Current weather for a city.",
		json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"enum":[1,3,7]}},"required":["city"]}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny"), nil
		})
	return serveMCP(s)
}

// serveMCP serves s over streamable HTTP on loopback at URL + "/mcp"; stop
// ends it.
func serveMCP(s *server.MCPServer) (ts *httptest.Server, stop func()) {
	h := server.NewStreamableHTTPServer(s)
	ts = httptest.NewServer(h)
	return ts, func() {
		_ = h.Shutdown(context.Background())
		ts.CloseClientConnections()
		ts.Close()
	}
}

func ExampleBridge() {
	ts, stop := weatherServer()
	defer stop()

	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "weather", HTTPURL: ts.URL + "/mcp", Timeout: 10 * time.Second},
	}}
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	if err := b.Discover(context.Background()); err != nil {
		log.Fatal(err)
	}
	for _, t := range b.Tools() {
		params, _ := json.Marshal(t.Declaration.Parameters)
		fmt.Printf("%s (server %s, tool %s): %s\n", t.Name, t.Server, t.ServerTool, params)
	}
	for _, s := range b.Status().Servers {
		fmt.Println(s.Name, s.State, s.Tools)
	}
	// Output:
	// get-weather (server weather, tool get-weather): {"properties":{"city":{"type":"STRING"},"days":{"enum":["1","3","7"],"type":"STRING"}},"required":["city"],"type":"OBJECT"}
	// weather CONNECTED [get-weather]
}
