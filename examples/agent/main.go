// Command agent is a Gemini chat that uses the tools of the MCP servers a
// Gemini CLI settings file configures, asking in the terminal before a tool
// runs.
//
//	go run ./examples/agent                                  # interactive chat
//	go run ./examples/agent -prompt "What is in README.md?"  # one request, answer on stdout
//	go run ./examples/agent -config settings.json -yes       # run every tool without asking
//
// Flags:
//
//	-config FILE    a settings.json to read (default: ~/.gemini/settings.json and
//	                .gemini/settings.json, those that exist; with none, the chat
//	                has no tools and says so on stderr)
//	-model NAME     the model (default gemini-2.5-flash)
//	-target T       the schema rules of the declarations: gemini, vertex or
//	                jsonschema (default: vertex when the client uses Vertex AI,
//	                else gemini)
//	-prompt TEXT    run one request, print the final answer to stdout and exit
//	-yes            run every tool call without asking
//	-max-turns N    model requests per user message at most (default 10)
//	-log FILE       write the library's log (connections, renames, servers'
//	                stderr) to FILE; without it nothing is logged, so the
//	                conversation is not interleaved with log lines
//	-live           talk over the Live API (text in, text out) instead of
//	                generateContent; -model must name a Live model
//
// The client is created by genai from its own environment variables: the
// API key from GEMINI_API_KEY or GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL for
// another endpoint, GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_CLOUD_PROJECT and
// GOOGLE_CLOUD_LOCATION for Vertex AI.
//
// A remote server that asks for an OAuth login (it answers 401) gets one
// after discovery: the authorization URL is printed on stderr and opened in
// a browser when one is available, and the agent waits up to 5 minutes for
// the redirect before the chat starts. Tokens are kept in the user's config
// directory (mcpbridge/oauth-tokens.json, mode 0600) for the next run.
//
// Without -prompt the chat reads one message per line from stdin and keeps
// the conversation across messages; /mcp prints the status of the servers,
// /quit or the end of input ends the chat. Ctrl-C cancels the request in
// progress (the message is then forgotten); at the prompt it ends the chat.
//
// Every tool call is shown on stderr as it starts, its progress while it
// runs (when the server reports any), and its result (what a person should
// see, not what the model reads) once it ends; the model's text goes to
// stdout as it is written, so that with -prompt stdout holds the model's
// words alone. A call that is not trusted or allow-listed is put to the user on
// stderr with its server, tool, arguments, description and annotations:
//
//	[o]nce / [t]ool always / [s]erver always / [c]ancel
//
// Anything else, or the end of input, cancels the call, and the model is
// told the user refused it. With -prompt and no terminal on stdin nobody can
// be asked, so such calls are refused unless -yes is given.
//
// A server may ask the chat's model for a completion (MCP sampling): the
// request (server, model, messages, tools) is shown on stderr with "Send
// this to the model? [y]es / [n]o", and the model's answer with "Give this
// answer to the server? [y]es / [n]o"; n, or the end of input, refuses. With -prompt
// and no terminal nobody can be asked, and sampling is not offered.
//
// A server may ask the person something while its tool runs (MCP
// elicitation): the question is shown on stderr and answered field by
// field, or, for a page to visit, its URL is shown and the agent waits for
// Enter. With -prompt and no terminal nobody is asked and servers are told
// so (-yes does not answer questions). The agent offers the servers its
// working directory as their root, and logs their messages of warning
// level and above (see -log).
//
// The exit status is 0 on success, 1 when the request fails (a missing API
// key, an API error, the turn limit, Ctrl-C with -prompt) and 2 for a bad
// command line or an unreadable settings file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/examples/internal/genaienv"
	"github.com/mcpgenai/bridge/examples/internal/hostlogin"
	"github.com/mcpgenai/bridge/mcpbridge"
	mcpagent "github.com/mcpgenai/bridge/mcpbridge/agent"
	"github.com/mcpgenai/bridge/schema"
)

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// runMain is the program on the process's own console: args, stdin, stdout,
// stderr and the signals. It returns the exit status.
func runMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	return run(ctx, args, &console{
		stdin:      os.Stdin,
		isTerminal: isTerminal(os.Stdin),
		person:     isTerminal(os.Stdin),
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		interrupt:  interrupt,
	})
}

// console is where the program talks to its user.
type console struct {
	stdin      io.Reader
	isTerminal bool // stdin is a terminal: a person can answer questions even with -prompt
	person     bool // a person types stdin: lines typed ahead of a question are not its answer
	stdout     io.Writer
	stderr     io.Writer
	// interrupt delivers Ctrl-C; nil means it never arrives.
	interrupt <-chan os.Signal
}

// isTerminal reports whether f is a terminal: a person may be there to
// answer. /dev/null is a character device but no terminal.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// options are the parsed command line.
type options struct {
	config    string
	model     string
	target    string // "" means by backend
	prompt    string
	hasPrompt bool
	yes       bool
	maxTurns  int
	logFile   string
	live      bool
}

// parseFlags parses args. Errors are returned, not printed, except that -h
// prints the usage to stderr and returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.StringVar(&o.config, "config", "", "a Gemini CLI settings.json to read (default: ~/.gemini/settings.json and .gemini/settings.json if they exist)")
	fs.StringVar(&o.model, "model", "gemini-2.5-flash", "the Gemini model")
	fs.StringVar(&o.target, "target", "", "schema target: gemini, vertex or jsonschema (default: vertex for Vertex AI, else gemini)")
	fs.StringVar(&o.prompt, "prompt", "", "run this one request, print the final answer to stdout and exit")
	fs.BoolVar(&o.yes, "yes", false, "run every tool call without asking")
	fs.IntVar(&o.maxTurns, "max-turns", mcpagent.DefaultMaxTurns, "model requests per message at most")
	fs.StringVar(&o.logFile, "log", "", "write the library's log to this file (default: no log)")
	fs.BoolVar(&o.live, "live", false, "talk over the Live API (text in, text out)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) { o.hasPrompt = o.hasPrompt || f.Name == "prompt" })
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q (quote the prompt: -prompt %q)", fs.Arg(0), strings.Join(fs.Args(), " "))
	case o.maxTurns < 1:
		return nil, fmt.Errorf("-max-turns %d: must be at least 1", o.maxTurns)
	case o.hasPrompt && strings.TrimSpace(o.prompt) == "":
		return nil, errors.New("-prompt is empty")
	case o.model == "":
		return nil, errors.New("-model is empty")
	}
	if o.target != "" {
		if _, err := schema.ParseTarget(o.target); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// run is the program; it returns the exit status.
func run(ctx context.Context, args []string, con *console) int {
	o, err := parseFlags(args, con.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(con.stderr, "agent: %v\n", err)
		return 2
	}
	cfg, err := loadConfig(o.config)
	if err != nil {
		fmt.Fprintf(con.stderr, "agent: %v\n", err)
		return 2
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(con.stderr, "agent: warning: %s\n", w)
	}
	if len(cfg.Servers) == 0 {
		fmt.Fprintln(con.stderr, "agent: no MCP servers configured (no settings file found; use -config FILE): chatting without tools")
	}
	client, err := genaienv.NewClient(ctx, " (or GOOGLE_GENAI_USE_VERTEXAI=true for Vertex AI)")
	if err != nil {
		fmt.Fprintf(con.stderr, "agent: %v\n", err)
		return 1
	}
	target := schema.Gemini
	if client.ClientConfig().Backend == genai.BackendVertexAI {
		target = schema.Vertex
	}
	if o.target != "" {
		target, _ = schema.ParseTarget(o.target) // checked by parseFlags
	}

	lines := newLineReader(con.stdin)
	defer lines.stop()
	tty := &sync.Mutex{} // one question to the person at a time
	policy := &confirm.Policy{Confirmer: approveAll}
	if !o.yes {
		if o.hasPrompt && !con.isTerminal {
			policy.Confirmer = nil // nobody to ask: the bridge refuses, and the model is told
		} else {
			policy.Confirmer = &terminalConfirmer{lines: lines, out: con.stderr, drain: con.person, mu: tty}
		}
	}
	// The library's log goes to -log FILE or nowhere: the conversation on
	// the terminal is not interleaved with it. What the user must know
	// (servers that failed, calls and their results) the agent says itself.
	logger, closeLog, err := openLog(o.logFile)
	if err != nil {
		fmt.Fprintf(con.stderr, "agent: %v\n", err)
		return 2
	}
	defer closeLog()
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{
		Target: target, Logger: logger, Policy: policy,
		LoginURL: hostlogin.ShowURL(con.stderr, hostlogin.BrowserAvailable()),
		Client:   withSampling(clientFeatures(lines, con.stderr, !o.hasPrompt || con.isTerminal, con.person, tty), samplingFeatures(o, con, lines, client.Models), tty),
	})
	if err != nil {
		fmt.Fprintf(con.stderr, "agent: %v\n", err)
		return 2
	}
	defer b.Close()

	loop := mcpagent.New(b, &mcpagent.Options{MaxTurns: o.maxTurns})
	defer loop.Close()
	a := &agent{
		bridge: b,
		gen:    client.Models,
		model:  o.model,
		loop:   loop,
		con:    con,
		lines:  lines,
	}
	if err := a.discover(ctx); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(con.stderr, "agent: stopped while connecting the servers (Ctrl-C)")
		} else {
			fmt.Fprintf(con.stderr, "agent: connecting the servers: %v\n", err)
		}
		return 1
	}
	if o.live {
		return a.liveChat(ctx, client, o.prompt, o.hasPrompt)
	}
	if o.hasPrompt {
		return a.once(ctx, o.prompt)
	}
	return a.chat(ctx)
}

// loadConfig reads the settings file named by path or, with no path, the
// default settings files that exist (none is no servers).
func loadConfig(path string) (*mcpbridge.Config, error) {
	if path == "" {
		return mcpbridge.LoadSettings(nil, nil)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("reading settings: %w", err)
	}
	return mcpbridge.LoadSettings([]string{path}, nil)
}

// approveAll is the confirmer of -yes.
var approveAll = confirm.ConfirmerFunc(func(context.Context, confirm.Request) (confirm.Answer, error) {
	return confirm.ProceedOnce, nil
})

// openLog returns the logger of the library: every level to path, or
// nothing when path is "".
func openLog(path string) (*slog.Logger, func(), error) {
	if path == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("-log: %w", err)
	}
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), func() { _ = f.Close() }, nil
}
