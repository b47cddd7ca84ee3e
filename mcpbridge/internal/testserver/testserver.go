// Package testserver builds small MCP servers for the tests of mcpbridge: the
// same server runs in-process behind SSE or streamable HTTP, and as a stdio
// child process through cmd/mcptest.
package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// RawSchema is the input schema of the "raw" tool: keywords that mcp-go's
// client struct drops (top-level anyOf, description, $schema) are present.
const RawSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","description":"either a or b","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`

// LogLines are the lines the stdio test server writes to stderr before
// serving when run with -log-lines: info, warning, error and debug records
// in a few common layouts, and a line that names no level.
var LogLines = []string{
	"INFO: ready for requests",
	"2024-05-01 10:00:00,000 - mcptest.store - WARNING - cache directory missing, using a temporary one",
	`{"level":"error","msg":"upstream refused the request"}`,
	"[mcptest] DEBUG cache miss",
	"mcptest: plain line without a level",
}

// Options choose which tools a server offers.
type Options struct {
	// Tools is the number of numbered tools "tool_00", "tool_01", ...
	Tools int
	// PageSize, when positive, makes tools/list return pages of that size.
	PageSize int
	// OnCrash is called by the "crash" tool. Nil means the tool is not offered.
	OnCrash func()
	// Name is the server's name in initialize ("" = "mcptest").
	Name string
	// Exec adds the tools lookup, profile, pick, image, fail and loose
	// (see addExecTools).
	Exec bool
	// Described adds one tool per entry, named by the key and described by
	// the value, with an optional string parameter "query"; it returns its
	// name.
	Described map[string]string
	// Ask adds the tools ask and ask_url (see addAskTools).
	Ask bool
	// Sample adds the tools sample and sample_flood (see addSampleTools).
	Sample bool
	// Hostile adds tools that behave as a hostile server would (see
	// addHostileTools); with Tasks.On, shout_task too.
	Hostile bool
	// OnSleepCancelled is called when a "sleep" call ends because its
	// request was cancelled, as the server saw it.
	OnSleepCancelled func()
	// OnSleepStarted, if not nil, is called when a "sleep" call begins.
	OnSleepStarted func()
	// Era chooses the protocol revisions the server accepts over stdio
	// (cmd/mcptest's -era flag), streamable HTTP and SSE (there a refusal
	// is an HTTP 400); the zero value serves both.
	Era Era
	// Blob adds the resource "test://blob" (image/png, BlobBase64) beside
	// "test://hello".
	Blob bool
	// Offers adds prompts (announcing prompts/list_changed), a resource
	// template, the "add_prompt" and "progress" tools and tools with an
	// output schema (see addOffers).
	Offers bool
	// Bare leaves out the resources (and their capability).
	Bare bool
	// Gather adds the tool "gather", which returns once "n" calls of it
	// are in flight (see addGather).
	Gather bool
	// Features adds logging, resource subscriptions, completions, icons
	// and the tools that exercise them (see addFeatures).
	Features bool
	// Tasks adds tools that run as tasks (see [Tasks]).
	Tasks Tasks
	// Shapes adds the tool "orders/place", whose arguments nest (see
	// addShapeTools).
	Shapes bool
	// Fixture adds tools of published servers (see [ReadFixture]): their
	// names and input schemas, each answering with its name and
	// arguments.
	Fixture []FixtureTool
	// ToolsTTL, when positive, is the ttlMs of tools/list results on
	// 2026-07-28, with cacheScope "public" when ToolsPublic is set and
	// "private" otherwise.
	ToolsTTL    time.Duration
	ToolsPublic bool
	// Skills, when not nil, declares the Skills extension and serves its
	// skill (see [Skills]; over streamable HTTP only).
	Skills *Skills
	// DiscoverDelay, over HTTP, holds each server/discover request that
	// long before the server sees it: a server slow to answer the probe.
	DiscoverDelay time.Duration
	// Headers adds the x-mcp-header tools header_ok and header_bad (see
	// addHeaderTools); header_bad's annotation is invalid only over HTTP.
	Headers bool
}

// New returns a server offering:
//   - tool_NN: Tools numbered tools returning their own name;
//   - echo: returns its arguments as JSON text;
//   - raw: a tool whose input schema is RawSchema;
//   - add_tool: adds a tool named by argument "name" (sends tools/list_changed);
//   - env: returns the working directory and the value of the variable "var";
//   - sleep: waits "ms" milliseconds or until the request is cancelled;
//   - weird: returns a content block of an unknown type;
//   - crash: calls OnCrash (only when set);
//   - with Ask: ask and ask_url, which ask the user for input (see
//     addAskTools);
//   - with Exec: lookup, profile, pick, image, fail and loose (see
//     addExecTools).
//   - with Gather: gather, which returns once "n" calls of it are in
//     flight (see addGather).
func New(o Options) *server.MCPServer {
	name := o.Name
	if name == "" {
		name = "mcptest"
	}
	opts := []server.ServerOption{server.WithToolCapabilities(true), server.WithInstructions("test server " + name), server.WithElicitation()}
	if !o.Bare {
		opts = append(opts, server.WithResourceCapabilities(false, false))
	}
	if o.Offers {
		opts = append(opts, server.WithPromptCapabilities(true))
	}
	if o.PageSize > 0 {
		opts = append(opts, server.WithPaginationLimit(o.PageSize))
	}
	var listening *listeners
	if o.Features {
		listening = &listeners{}
		opts = append(opts, featureOptions(listening)...)
	}
	opts = append(opts, taskOptions(o.Tasks)...)
	if o.ToolsTTL > 0 {
		scope := mcp.CacheScopePrivate
		if o.ToolsPublic {
			scope = mcp.CacheScopePublic
		}
		opts = append(opts, server.WithMethodCacheHints(mcp.MethodToolsList, o.ToolsTTL.Milliseconds(), scope))
	}
	if o.Skills != nil {
		opts = append(opts, server.WithExtensions(map[string]any{"io.modelcontextprotocol/skills": map[string]any{}}))
	}
	s := server.NewMCPServer(name, "1.2.3", opts...)
	for i := range o.Tools {
		n := fmt.Sprintf("tool_%02d", i)
		s.AddTool(mcp.NewTool(n, mcp.WithDescription("numbered tool "+n)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(n), nil
		})
	}
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("echoes its arguments"), mcp.WithString("text"),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithTitleAnnotation("Echo")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(r.GetArguments())
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("raw", "tool with a raw schema", json.RawMessage(RawSchema)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("raw"), nil
		})
	var mu sync.Mutex
	s.AddTool(mcp.NewTool("add_tool", mcp.WithString("name", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := r.GetString("name", "added")
			mu.Lock()
			defer mu.Unlock()
			s.AddTool(mcp.NewTool(n, mcp.WithDescription("added at run time")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(n), nil
			})
			return mcp.NewToolResultText("added " + n), nil
		})
	s.AddTool(mcp.NewTool("env", mcp.WithString("var")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wd, err := os.Getwd()
			if err != nil {
				return nil, err
			}
			v := r.GetString("var", "")
			val, ok := os.LookupEnv(v)
			names := make([]string, 0)
			for _, kv := range os.Environ() {
				k, _, _ := strings.Cut(kv, "=")
				names = append(names, k)
			}
			sort.Strings(names)
			out, err := json.Marshal(map[string]any{"cwd": wd, "value": val, "set": ok, "names": names})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(out)), nil
		})
	s.AddTool(mcp.NewTool("sleep", mcp.WithNumber("ms")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			d := time.Duration(r.GetFloat("ms", 1000)) * time.Millisecond
			if o.OnSleepStarted != nil {
				o.OnSleepStarted()
			}
			select {
			case <-time.After(d):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				if o.OnSleepCancelled != nil {
					o.OnSleepCancelled()
				}
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcp.NewTool("weird"),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("before"), hologram{}}}, nil
		})
	if o.Exec {
		addExecTools(s)
	}
	if o.Shapes {
		addShapeTools(s)
	}
	described := make([]string, 0, len(o.Described))
	for n := range o.Described {
		described = append(described, n)
	}
	sort.Strings(described)
	for _, n := range described {
		s.AddTool(mcp.NewTool(n, mcp.WithDescription(o.Described[n]), mcp.WithString("query")),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(n), nil
			})
	}
	addFixtureTools(s, o.Fixture)
	if o.Offers {
		addOffers(s)
	}
	if o.Ask {
		addAskTools(s)
	}
	if o.Sample {
		addSampleTools(s)
	}
	if o.Hostile {
		addHostileTools(s, o.Tasks.On)
	}
	if o.Features {
		addFeatures(s, listening)
	}
	if o.Tasks.On {
		addTaskTools(s, o.Tasks)
	}
	if o.OnCrash != nil {
		s.AddTool(mcp.NewTool("crash"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			o.OnCrash()
			return mcp.NewToolResultText("crashed"), nil
		})
	}
	if o.Bare {
		return s
	}
	s.AddResource(mcp.NewResource("test://hello", "hello", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://hello", MIMEType: "text/plain", Text: "hello world"}}, nil
		})
	if o.Headers {
		addHeaderTools(s)
	}
	if o.Skills != nil {
		addSkills(s, o.Skills)
	}
	if o.Gather {
		addGather(s)
	}
	if o.Blob {
		s.AddResource(mcp.NewResource("test://blob", "blob", mcp.WithMIMEType("image/png")),
			func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "test://blob", MIMEType: "image/png", Blob: BlobBase64}}, nil
			})
	}
	return s
}

// BlobBase64 is the base64 content of the resource "test://blob": the
// bytes "\x89PNG\r\n".
const BlobBase64 = "iVBORw0K"

// hologram is a content block of a type no MCP client knows.
type hologram struct{ mcp.TextContent }

// MarshalJSON writes the unknown block.
func (hologram) MarshalJSON() ([]byte, error) {
	return []byte(`{"type":"hologram","data":"3d"}`), nil
}
