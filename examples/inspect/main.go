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
//	go run ./examples/inspect -budget 8000          # a smaller size budget per declaration (bytes)
//
// Each declaration's size is shown (bytes of compact JSON, and about a
// quarter as many tokens), with the total of a request carrying them all,
// and a warning for a tool whose schema was cut to its size budget.
//
// A remote server that asks for an OAuth login gets one: the URL is printed
// on stderr (and opened in a browser when one is available), and the
// inspector waits up to 5 minutes for the login to finish before printing.
//
// After the text output a line on stderr says how many servers connected and
// how many tools they gave. The exit status is 0 when discovery completes
// and at least one server connected (those that failed are shown
// DISCONNECTED with their error); 1 when servers are configured and none
// connected, or discovery could not finish; and 2 with a one-line reason
// for a bad flag or an unreadable settings file. More tools than the
// target's request limit (Vertex AI: 128) are all shown, with a warning
// saying the limit is exceeded.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
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
	budget     int
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
	fs.IntVar(&o.budget, "budget", 0, "size budget of each declaration's schema in bytes (0: the default, 16384; -1: none)")
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
		Target: o.target, Logger: logger, DeclarationBudget: schema.Size(o.budget),
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
	return summarize(stderr, b, !o.json)
}

// summarize says on w how many servers connected and how many tools they
// gave (with verbose, or when none connected), and returns the exit status:
// 1 when servers are configured and none connected, else 0.
func summarize(w io.Writer, b *mcpbridge.Bridge, verbose bool) int {
	st := b.Status()
	connected := 0
	for _, s := range st.Servers {
		if s.State == mcpbridge.Connected {
			connected++
		}
	}
	none := len(st.Servers) > 0 && connected == 0
	if verbose || none {
		fmt.Fprintf(w, "inspect: %d of %d servers connected, %d tools\n", connected, len(st.Servers), len(b.Tools()))
	}
	if none {
		fmt.Fprintln(w, "inspect: no server could be reached; each one's error is in the status above")
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
	var total schema.Size
	for _, t := range tools {
		total += t.Size
	}
	fmt.Fprintf(&sb, "\nFunction declarations (%d, %s together):\n", len(tools), sizeText(total))
	over, err := overLimit(b)
	if err != nil {
		return err
	}
	if over != "" {
		fmt.Fprintf(&sb, "  warning: more than one request carries: %s\n", over)
	}
	common := commonChanges(tools)
	for _, c := range slices.Sorted(maps.Keys(common)) {
		fmt.Fprintf(&sb, "  schema, in %d tools: %s\n", common[c], c)
	}
	for _, t := range tools {
		fmt.Fprintf(&sb, "\n▶ %s  (server %q, tool %q)  %s\n", t.Name, t.Server, t.ServerTool, sizeText(t.Size))
		if t.BudgetCuts > 0 {
			fmt.Fprintf(&sb, "  warning: cut to its size budget: %d nested parts are described as JSON text\n", t.BudgetCuts)
		}
		if t.Renamed != "" {
			fmt.Fprintf(&sb, "  renamed (%s)\n", t.Renamed)
		}
		for _, c := range t.Changes {
			if _, ok := common[c.String()]; !ok {
				fmt.Fprintf(&sb, "  schema: %s\n", c)
			}
		}
		decl, err := json.MarshalIndent(t.Declaration, "  ", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "  %s\n", decl)
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// commonChanges returns the changes made at the root of at least
// minCommon tools' schemas (such as "$schema: dropped"), with how many
// tools each was made to: they are said once, above the tools, so that
// each tool lists only what is particular to it.
func commonChanges(tools []*mcpbridge.Tool) map[string]int {
	counts := map[string]int{}
	for _, t := range tools {
		for _, c := range t.Changes {
			if c.Path == "" {
				counts[c.String()]++
			}
		}
	}
	for c, n := range counts {
		if n < minCommon {
			delete(counts, c)
		}
	}
	return counts
}

// minCommon is how many tools must share a root change for it to be said once.
const minCommon = 3

// sizeText shows a declaration size in bytes and estimated tokens.
func sizeText(s schema.Size) string {
	return fmt.Sprintf("%d bytes, ~%d tokens", int(s), s.Tokens())
}

// The -json document.
type (
	jsonDoc struct {
		Discovered bool          `json:"discovered"`
		Servers    []jsonServer  `json:"servers"`
		Tools      []*genai.Tool `json:"tools"`
		// Warnings say that the tools are more than one request carries
		// (the target's limit of declarations); empty otherwise.
		Warnings []string `json:"warnings"`
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
		// DeclarationBytes is the size of the tool's declaration (compact
		// JSON), EstimatedTokens about a quarter of it.
		DeclarationBytes int `json:"declarationBytes"`
		EstimatedTokens  int `json:"estimatedTokens"`
		// BudgetCuts counts the parts of its schema cut to the size
		// budget.
		BudgetCuts int `json:"budgetCuts,omitempty"`
	}
)

// overLimit says, when the tools are more than one request may carry,
// how many fit: each request then carries those its conversation needs
// most (Bridge.Declare). It returns "" when they all fit.
func overLimit(b *mcpbridge.Bridge) (string, error) {
	d, err := b.Declare(context.Background(), nil, nil)
	if err != nil {
		return "", err
	}
	r := d.Report
	if len(r.Omitted) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d tools are registered, at most %d fit in one request; each request carries those its conversation needs most",
		r.Declared+len(r.Omitted), r.Declared), nil
}

func writeJSON(w io.Writer, b *mcpbridge.Bridge) error {
	st := b.Status()
	doc := jsonDoc{Discovered: st.Discovered, Servers: []jsonServer{}, Tools: []*genai.Tool{}, Warnings: []string{}}
	over, err := overLimit(b)
	if err != nil {
		return err
	}
	if over != "" {
		doc.Warnings = append(doc.Warnings, over)
	}
	// Every declaration, as one request would carry them were there room.
	if tools := b.Tools(); len(tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(tools))
		for _, t := range tools {
			decls = append(decls, t.Declaration)
		}
		doc.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	byServer := map[string][]jsonTool{}
	for _, t := range b.Tools() {
		byServer[t.Server] = append(byServer[t.Server], jsonTool{Name: t.Name, ServerToolName: t.ServerTool,
			DeclarationBytes: int(t.Size), EstimatedTokens: t.Size.Tokens(), BudgetCuts: t.BudgetCuts})
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
