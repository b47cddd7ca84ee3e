// Command inspect discovers the tools of MCP servers and prints what Gemini
// would be given: the /mcp status of every server, then each tool's function
// declaration, with what was renamed and what its schema conversion changed.
//
// With no flags it runs on built-in demo servers (the inspector starts
// itself as two small stdio MCP servers whose tools show the bridge at
// work), unless a Gemini CLI settings file exists at ~/.gemini/settings.json
// or .gemini/settings.json, in which case it reads those and says so.
//
//	go run ./examples/inspect                       # demo servers, or your settings
//	go run ./examples/inspect -config settings.json # a settings file
//	go run ./examples/inspect -target vertex        # Vertex AI's schema rules
//	go run ./examples/inspect -desc                 # tool descriptions in the status
//	go run ./examples/inspect -json                 # one JSON document for machines
//
// A remote server that asks for an OAuth login gets one: the URL is printed
// on stderr (and opened in a browser when one is available), and the
// inspector waits up to 5 minutes for the login to finish before printing.
//
// The exit status is 0 when discovery completes, even when some servers
// failed (they are shown DISCONNECTED with their error), and 2 with a
// one-line reason for a bad flag or an unreadable settings file.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/examples/internal/hostlogin"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/schema"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the parsed command line.
type options struct {
	config     string
	target     schema.Target
	json       bool
	desc       bool
	timeout    time.Duration
	demoServer string
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	target := fs.String("target", "gemini", "schema target: gemini, vertex or jsonschema")
	fs.StringVar(&o.config, "config", "", "a Gemini CLI settings.json to read (default: ~/.gemini/settings.json and .gemini/settings.json if they exist, else the built-in demo servers)")
	fs.BoolVar(&o.json, "json", false, "print one JSON document to stdout and nothing else")
	fs.BoolVar(&o.desc, "desc", false, "list each server's tools with their descriptions in the status, as Gemini CLI's /mcp desc (the -json document always has them)")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "give up on discovery after this long")
	fs.StringVar(&o.demoServer, "demo-server", "", "run the named built-in demo server over stdio (used by the inspector itself)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	t, err := schema.ParseTarget(*target)
	if err != nil {
		return nil, err
	}
	o.target = t
	return &o, nil
}

// run is the program; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "inspect: %v\n", err)
		return 2
	}
	if o.demoServer != "" {
		if err := serveDemo(ctx, o.demoServer, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "inspect: demo server: %v\n", err)
			return 1
		}
		return 0
	}
	cfg, source, err := loadConfig(o.config)
	if err != nil {
		fmt.Fprintf(stderr, "inspect: %v\n", err)
		return 2
	}
	// Logs go to stderr and only when something is wrong, so that stdout
	// stays clean for -json.
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	for _, w := range cfg.Warnings {
		fmt.Fprintf(stderr, "inspect: warning: %s\n", w)
	}
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{
		Target: o.target, Logger: logger,
		LoginURL: hostlogin.ShowURL(stderr, hostlogin.BrowserAvailable()),
	})
	if err != nil {
		fmt.Fprintf(stderr, "inspect: %v\n", err)
		return 2
	}
	defer b.Close()
	dctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := b.Discover(dctx); err != nil {
		fmt.Fprintf(stderr, "inspect: discovery: %v\n", err)
		return 1
	}
	// Servers that answered 401 wait for a login; the URL goes to stderr.
	hostlogin.LoginAll(ctx, b, stderr)
	if o.json {
		err = writeJSON(stdout, b)
	} else {
		err = writeText(stdout, b, source, o.target, &mcpbridge.TextOptions{Descriptions: o.desc})
	}
	if err != nil {
		fmt.Fprintf(stderr, "inspect: %v\n", err)
		return 1
	}
	return 0
}

// loadConfig reads the settings file named by path; with no path, the
// default settings files that exist; with none of those, the demo servers.
// source says in words where the configuration came from.
func loadConfig(path string) (cfg *mcpbridge.Config, source string, err error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, "", fmt.Errorf("reading settings: %w", err)
		}
		cfg, err := mcpbridge.LoadSettings([]string{path}, nil)
		if err != nil {
			return nil, "", err
		}
		return cfg, "settings: " + path, nil
	}
	cfg, err = mcpbridge.LoadSettings(nil, nil)
	if err != nil {
		return nil, "", err
	}
	if len(cfg.Files) > 0 {
		return cfg, "settings: " + strings.Join(cfg.Files, ", "), nil
	}
	demo, err := demoConfig()
	if err != nil {
		return nil, "", err
	}
	return demo, "built-in demo servers (no settings file found; use -config FILE)", nil
}

// demoConfig starts the demo servers as this very program with
// -demo-server, so no separate build is needed.
func demoConfig() (*mcpbridge.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locating the inspector for its demo servers: %w", err)
	}
	cfg := &mcpbridge.Config{}
	for _, d := range demoServers {
		cfg.Servers = append(cfg.Servers, mcpbridge.ServerConfig{
			Name:        d.name,
			Command:     exe,
			Args:        []string{"-demo-server", d.name},
			Timeout:     30 * time.Second,
			Description: "built-in demo server",
		})
	}
	return cfg, cfg.Validate()
}

func writeText(w io.Writer, b *mcpbridge.Bridge, source string, target schema.Target, status *mcpbridge.TextOptions) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Configuration: %s\nSchema target: %s\n\n", source, target)
	if err := b.Status().WriteText(&sb, status); err != nil {
		return err
	}
	tools := b.Tools()
	fmt.Fprintf(&sb, "\nFunction declarations (%d):\n", len(tools))
	if _, err := b.GenAITools(); err != nil {
		fmt.Fprintf(&sb, "  warning: these cannot be sent as they are: %v\n", err)
	}
	for _, t := range tools {
		fmt.Fprintf(&sb, "\n▶ %s  (server %q, tool %q)\n", t.Name, t.Server, t.ServerTool)
		if t.Entry.Renamed() {
			fmt.Fprintf(&sb, "  renamed: %s\n", t.Entry)
		}
		for _, c := range t.Changes {
			fmt.Fprintf(&sb, "  schema: %s\n", c)
		}
		decl, err := json.MarshalIndent(t.Declaration, "  ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "  %s\n", decl)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// The -json document.
type (
	jsonDoc struct {
		Discovered bool          `json:"discovered"`
		Servers    []jsonServer  `json:"servers"`
		Tools      []*genai.Tool `json:"tools"`
	}
	jsonServer struct {
		Name   string     `json:"name"`
		Status string     `json:"status"`
		Error  string     `json:"error,omitempty"`
		Tools  []jsonTool `json:"tools"`
	}
	jsonTool struct {
		Name           string `json:"name"`
		ServerToolName string `json:"serverToolName"`
		Description    string `json:"description,omitempty"`
	}
)

func writeJSON(w io.Writer, b *mcpbridge.Bridge) error {
	tools, err := b.GenAITools()
	if err != nil {
		return err
	}
	st := b.Status()
	doc := jsonDoc{Discovered: st.Discovered, Servers: []jsonServer{}, Tools: tools}
	if doc.Tools == nil {
		doc.Tools = []*genai.Tool{}
	}
	byServer := map[string][]jsonTool{}
	for _, t := range b.Tools() {
		byServer[t.Server] = append(byServer[t.Server], jsonTool{Name: t.Name, ServerToolName: t.ServerTool})
	}
	for _, s := range st.Servers {
		tools := byServer[s.Name]
		if tools == nil {
			tools = []jsonTool{}
		}
		for i := range tools {
			tools[i].Description = s.ToolDescriptions[tools[i].Name]
		}
		doc.Servers = append(doc.Servers, jsonServer{Name: s.Name, Status: s.State.String(), Error: s.Error, Tools: tools})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
