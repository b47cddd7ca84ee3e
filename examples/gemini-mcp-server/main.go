// Command gemini-mcp-server offers Gemini to MCP clients: an MCP server
// named "gemini-mcp-server", version 1.0.0, with two tools whose input
// schemas are exactly those of the tool specification it implements:
//
//   - chat {prompt, model?, systemPrompt?, cwd?} starts a session and
//     answers with the model's text and the session's ID in
//     _meta.sessionId (the specification's place) and again in
//     structuredContent.sessionId, where a calling model can read it;
//   - chat-reply {prompt, sessionId?, model?, systemPrompt?, cwd?}
//     continues the session sessionId, or the caller's latest one when it
//     is absent, and answers the same way.
//
// Sessions belong to the MCP client that started them (its MCP session:
// one per stdio connection, one per Mcp-Session-Id over HTTP): a client's
// latest session is the one it most recently started or continued, and
// another client's session IDs are unknown to it. The tools are described in
// English; -descriptions original serves the original documents' Korean
// descriptions instead, byte for byte.
//
// Every failure, an unknown session included, is a tool result with isError
// set and a text starting with "Error executing gemini: ", never a protocol
// error.
//
// Usage:
//
//	gemini-mcp-server [-backend api|cli] [-model NAME] [-gemini PATH]
//	                  [-timeout DURATION] [-max-sessions N] [-http ADDR]
//	                  [-descriptions english|original]
//
// It serves MCP over stdin and stdout, or over streamable HTTP at
// http://ADDR/mcp with -http ADDR (the address it listens on, useful with
// port 0, is printed to stderr). For example, in a Gemini CLI settings.json:
//
//	{"mcpServers": {"gemini": {"command": "gemini-mcp-server"}}}
//
// # Backends
//
// The default backend, -backend api, calls the Gemini API with
// google.golang.org/genai. The client is configured from genai's own
// environment variables: the key from GEMINI_API_KEY or GOOGLE_API_KEY,
// GOOGLE_GEMINI_BASE_URL for another endpoint, and GOOGLE_GENAI_USE_VERTEXAI
// with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI.
// Sessions are chat histories kept in memory: at most -max-sessions of
// them (default 100), the least recently used forgotten first, and all of
// them lost when the server exits. The model is the call's model, else for a
// reply the model the session started with, else -model (default
// gemini-2.5-flash); a model given to chat-reply applies to that turn only.
// systemPrompt becomes the system instruction; given to chat-reply, it
// replaces the session's from that turn on. cwd is ignored. Replies to one
// session are answered one at a time, each seeing the history the previous
// one left.
//
// With -backend cli the server runs the Gemini CLI (-gemini, default
// "gemini" from PATH) once per call, in headless mode:
//
//	gemini "<prompt>" --output-format json [-m <model>]
//	gemini -r <sessionId> "<prompt>" --output-format json [-m <model>]
//
// in the directory cwd (default: the server's), reading the answer from the
// JSON output's "response" and the session from its "session_id" (or, when
// that is missing, the last session of `gemini --list-sessions`; when neither
// names one, the answer has no _meta). The CLI keeps the sessions, per
// project directory, so a reply must be given the cwd of its chat. The
// prompt is passed as a separate argument, never through a shell, but one
// that starts with "-" is read by the CLI as an option. A systemPrompt is
// written to a temporary SYSTEM.md named by GEMINI_SYSTEM_MD and removed
// afterwards. A non-zero exit or output that is not the expected JSON is an error quoting
// the end of the CLI's stderr. The process is killed when the call is
// cancelled or -timeout (default 10m; 0 for none) passes; -timeout bounds
// API calls too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/examples/internal/genaienv"
)

// config holds the command line.
type config struct {
	backend     string
	model       string
	gemini      string
	timeout     time.Duration
	maxSessions int
	httpAddr    string
	wording     wording
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program: it parses args, serves until ctx is done or stdin
// ends, and returns the exit status: 0 on a clean end, 1 for a failure, 2
// for a bad command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v\n", serverName, err)
		return 2
	}
	b, err := newBackend(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", serverName, err)
		return 1
	}
	s := newServer(b, cfg.wording)
	if cfg.httpAddr != "" {
		err = serveHTTP(ctx, s, cfg.httpAddr, stderr)
	} else {
		ss := server.NewStdioServer(s)
		ss.SetErrorLogger(log.New(stderr, serverName+": ", 0))
		err = ss.Listen(ctx, stdin, stdout)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "%s: %v\n", serverName, err)
		return 1
	}
	return 0
}

// parseFlags parses the command line. Flag errors are returned, not
// printed; -h prints the usage to stderr and returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet(serverName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.backend, "backend", "api", "how to reach Gemini: api (google.golang.org/genai) or cli (the Gemini CLI)")
	fs.StringVar(&cfg.model, "model", "", "default model (default gemini-2.5-flash for api, the CLI's own for cli)")
	fs.StringVar(&cfg.gemini, "gemini", "gemini", "the Gemini CLI executable, for -backend cli")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "limit on one call (0 for none)")
	fs.IntVar(&cfg.maxSessions, "max-sessions", defaultMaxSessions, "sessions kept in memory by -backend api")
	fs.StringVar(&cfg.httpAddr, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	descriptions := fs.String("descriptions", "english", "the tools' descriptions: english, or original (the original documents' Korean)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return config{}, err
	}
	switch {
	case fs.NArg() > 0:
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.backend != "api" && cfg.backend != "cli":
		return config{}, fmt.Errorf("-backend %q: want api or cli", cfg.backend)
	case cfg.timeout < 0:
		return config{}, fmt.Errorf("-timeout %v: must not be negative", cfg.timeout)
	case cfg.maxSessions < 1:
		return config{}, fmt.Errorf("-max-sessions %d: must be at least 1", cfg.maxSessions)
	case *descriptions == "original":
		cfg.wording = original
	case *descriptions != "english":
		return config{}, fmt.Errorf("-descriptions %q: want english or original", *descriptions)
	}
	return cfg, nil
}

// newBackend returns the backend cfg asks for.
func newBackend(ctx context.Context, cfg config) (backend, error) {
	if cfg.backend == "cli" {
		return newCLIBackend(cfg.gemini, cfg.model, cfg.timeout), nil
	}
	client, err := genaienv.NewClient(ctx, ", or use -backend cli")
	if err != nil {
		return nil, err
	}
	return newAPIBackend(client, cfg.model, cfg.timeout, cfg.maxSessions), nil
}

// serveHTTP serves s over streamable HTTP at http://addr/mcp until ctx is
// done, printing the address it listens on to stderr.
func serveHTTP(ctx context.Context, s *server.MCPServer, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	h := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPServer(hs))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs.Handler = mux
	fmt.Fprintf(stderr, "%s: listening on http://%s/mcp\n", serverName, ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = h.Shutdown(shutdownCtx)
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}
