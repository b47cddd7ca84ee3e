package mcpbridge

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/clienttasks"
	"github.com/mcpgenai/bridge/mcpbridge/internal/lifespan"
	"github.com/mcpgenai/bridge/mcpbridge/internal/lossy"
	"github.com/mcpgenai/bridge/mcpbridge/internal/protocache"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
	"github.com/mcpgenai/bridge/mcpbridge/store"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// The values of the [Options] fields left zero.
const (
	// defaultReconnectInterval is the minimum time between two reconnects
	// of one server on use when [Options.ReconnectInterval] is zero.
	defaultReconnectInterval = 5 * time.Second
	// defaultMaxMessageBytes bounds one message from a server when
	// [Options.MaxMessageBytes] is zero: 64 MiB.
	defaultMaxMessageBytes = 64 << 20
	// defaultTextLimit is how many characters (Unicode code points) of one
	// call's text the model reads when [Options.TextLimit] is zero:
	// 100,000, about 25,000 tokens, enough for a long file or a big JSON
	// document while several calls of one turn stay a small share of the
	// context.
	defaultTextLimit = 100_000
)

// Options configure a [Bridge]. The zero value is ready to use.
type Options struct {
	// Target is the schema target of the tools' declarations. The zero
	// value is the Gemini Developer API ([schema.Gemini]).
	Target schema.Target
	// ToolNames is how tools are named: the zero value,
	// [registry.BareNames], registers each under its own name and prefixes
	// a later server's tool with "server__" on a conflict;
	// [registry.QualifiedNames] names every tool "mcp_<server>_<tool>", as
	// Gemini CLI does from its 0.56 releases on, so that its policies and
	// allow-lists keep their names. Both are deterministic, at most 63
	// characters, and conflict-free.
	ToolNames registry.Scheme
	// DeclarationBudget bounds the size of each tool's converted input
	// schema (see [schema.Options.Budget]): references nested deepest are
	// described more coarsely until it fits, and a tool so cut is logged
	// at Warn. Zero means [schema.DefaultBudget] (16 KiB, about 4,000
	// tokens); a negative value means no budget. [schema.Tokens] gives it
	// in estimated tokens.
	DeclarationBudget schema.Size
	// Logger receives connection events, renames (Info), schema changes
	// (Debug) and stdio servers' stderr lines: at Warn those that name a
	// warning or error level, not at all those that name an info, debug
	// or trace level, at Debug the rest (the status's stderr tail keeps
	// every line), and the log messages servers send (see
	// [ClientFeatures.LogLevel]). nil means slog.Default().
	Logger *slog.Logger
	// ReconnectInterval is the minimum time between two reconnects of one
	// dead server on use; a call within it fails at once with
	// [ErrNotConnected]. Zero means 5 seconds; a negative
	// value means no limit.
	ReconnectInterval time.Duration
	// Policy decides which calls run ([Bridge.Execute]). nil means a zero
	// [confirm.Policy] of the Bridge's own: it asks before every call and,
	// having no Confirmer, refuses with [confirm.ErrNoConfirmer]; so
	// without a Policy only the tools of trusted servers run. The Policy
	// may be shared between Bridges.
	Policy *confirm.Policy
	// PassUntrustedOutput hands the output of the tools of servers
	// without Trust to the model unmarked. False (the zero value) puts the
	// text parts of each such result between two marker parts, the first
	// saying whose output it is and that it is data, not instructions: a
	// tool's output may carry text written to steer the model (prompt
	// injection), as Gemini CLI also guards against.
	// [CallResult.ReturnDisplay] is never marked.
	PassUntrustedOutput bool
	// BinaryLimit bounds the inline data (images, audio, blobs) of one
	// call's result that goes to the model, in bytes; content past it is
	// replaced by a note. Zero means 20 MiB; a negative value
	// means no limit. [CallResult.ReturnDisplay] is always cut at
	// 1 MiB.
	BinaryLimit int
	// MaxMessageBytes bounds one message from a server: a stdio line, an
	// SSE event, an HTTP response body. A server that sends a longer one
	// loses its connection with an error saying so, and memory stays
	// bounded. Zero means 64 MiB.
	MaxMessageBytes int
	// TextLimit is how many characters (Unicode code points) of one call's
	// text the model reads; longer text keeps its head and tail with a
	// note saying how much was cut. Zero means 100,000 (about 25,000 tokens); a
	// negative value means no limit.
	TextLimit int
	// LoginURL is given the authorization URL when [Bridge.Login] logs in
	// to a server that asked for OAuth: the host shows it to the person
	// (and may open a browser; the library never does). It should return
	// at once; the login then waits for the browser's redirect to a
	// loopback listener. nil means logins fail with an error saying so.
	LoginURL func(ctx context.Context, server, authURL string) error
	// TokenStore keeps OAuth tokens and registered clients, one per
	// server URL and authorization server ([auth.Key]). nil means Store
	// when that is set, else an [auth.FileStore] at [auth.DefaultPath]
	// (mode 0600). A store that is an [auth.Locker] is locked while a
	// token is refreshed, so that processes sharing it send one refresh.
	TokenStore auth.Store
	// Store, when set, is what this Bridge shares with the other replicas
	// of a service (see package [store]): the OAuth tokens (unless
	// TokenStore is set), the MCP tasks running for calls with an id, and
	// the protocol and tools-list caches (instead of ProtocolCache).
	//
	// A call whose tools/call the server answers with a task (over HTTP)
	// is recorded under its function call's id until the Bridge stops
	// waiting for it. [Bridge.Execute] of a call with the id of a task
	// still recorded, for the same tool and arguments, waits for that
	// task instead of calling the tool again: a host that replays the
	// model's call after the process that ran it died (or after its
	// connection was lost) gets the task's result, from any replica.
	// nil shares nothing.
	Store store.Store
	// Client holds what the host offers servers that ask something of
	// it during a session (the MCP client features). nil offers nothing.
	Client *ClientFeatures
	// ProtocolCache is the path of a small JSON file (written 0600) where
	// the protocol revision and transport each server was last reached
	// with are kept across runs, so that the first connection of a run
	// skips their detection, together with the tools lists that 2026-07-28
	// servers marked public, while fresh (their ttlMs), so that a later run
	// skips their tools/list. It names servers by a hash of how they are
	// reached and holds no header or environment value. "" keeps them in
	// memory only, for the Bridge's own reconnects. With Store set, they
	// are kept there instead, and ProtocolCache is not used.
	ProtocolCache string
	// ResourceTools, when true, registers three built-in tools that let
	// the model list the resources and resource templates of the connected
	// servers (list_mcp_resources), read one (read_mcp_resource), and
	// list, load and read the servers' skills (read_mcp_skill, through
	// [Bridge.Skills] and [Bridge.ReadSkill]). They run under Policy like
	// any tool, as tools of the server
	// "mcp-resources" annotated read-only, and their text is cut to
	// TextLimit. The zero value registers none.
	ResourceTools bool
	// ServerSideMCP, when true, lets the Gemini API call the servers it
	// can reach and use as this Bridge would (streamable HTTP, static
	// headers, trusted, no OAuth or credentials provider, no tool
	// filters, the Developer API): [Bridge.Declare] then lists them as
	// genai.Tool.MCPServers instead of declaring their tools (unless
	// [DeclareOptions.ClientSide], as for Live sessions), and the API
	// sends them their headers. Every other server stays client-side; the
	// status says which path each one takes and why
	// ([ServerStatus.ServerSide]). false bridges every server.
	ServerSideMCP bool
	// TracerProvider, if not nil, gives the tracer of the Bridge's
	// OpenTelemetry spans: one per Discover, per connection attempt, per
	// MCP request (with its trace context passed to the server in the
	// request's _meta) and per tool call (execute_tool), named and
	// attributed after OpenTelemetry's conventions for generative-AI tool
	// execution and MCP. Spans never hold arguments, results or
	// configuration values. The tracer is named
	// "github.com/mcpgenai/bridge/mcpbridge". nil means no spans.
	TracerProvider trace.TracerProvider
	// Secrets are the host's own credentials that the Bridge cannot find
	// by itself, such as a Gemini API key given in code. Like the host's
	// environment variables that look like credentials (GEMINI_API_KEY,
	// GOOGLE_API_KEY, ... : those a stdio server's environment withholds)
	// and every credential of the servers and the logins, they never
	// reach any server (see the package documentation) and are hidden at
	// every exit. Values shorter than 4 bytes are ignored. nil adds none.
	Secrets []string
	// OnProgress, if not nil, receives the progress servers report on
	// tool calls (see [Progress]); [WithProgress] replaces it for the
	// calls of a context. It is called on the goroutine reading the server's
	// messages, so it must return quickly. nil means calls ask for no
	// progress.
	OnProgress func(Progress)
	// MaxUsers, when above zero, makes the Bridge one for many users
	// (see [WithUser]): every operation that acts for a user (calls,
	// Declare, Login, SetRoots, prompts, resources, skills, completions)
	// must name one in its context, or fails with [ErrNoUser], and at
	// most MaxUsers users have state at once. A new user beyond them
	// takes the place of the user idle longest; when every user has an
	// operation in flight, the new user's operation fails with
	// [ErrTooManyUsers]. Zero (the default) sets no cap and lets a
	// context without a user act for the user "", as a Bridge used by
	// one person does.
	MaxUsers int
	// UserIdle is how long a user's own state (connections of servers
	// that keep a session per user, logins, tools lists, roots) lives
	// after the user's last operation ended; then it is dropped, its
	// connections closed, and the user's next operation builds it again
	// (tokens stay in the token store). Zero means 10 minutes.
	UserIdle time.Duration
}

// Bridge connects the configured MCP servers and keeps their tools
// registered under unique function names. Its methods are safe for
// concurrent use. Create one with [New], call [Bridge.Discover], and
// [Bridge.Close] it when done.
//
// A server that dies after discovery becomes [Disconnected] with its error,
// and its tools stay registered: the next call of one of them reconnects
// the server (at most once per [Options.ReconnectInterval]), re-lists its
// tools and re-registers them. A call that may have reached the server is
// never sent again.
type Bridge struct {
	policy        *confirm.Policy
	textLimit     int
	elicit        func(context.Context, elicit.Request) (elicit.Response, error)
	roots         *rootSet // nil: no roots offered
	logLevel      LogLevel
	protos        *protocache.Cache
	shared        store.Store // Options.Store; nil: nothing shared
	maxMsg        int
	binaryLimit   int
	passUntrusted bool
	serverSide    bool // Options.ServerSideMCP
	cfg           Config
	target        schema.Target
	budget        schema.Size // Options.DeclarationBudget
	log           *slog.Logger
	interval      time.Duration
	hooks         testHooks // zero but in tests
	servers       []*server // configuration order
	byName        map[string]*server
	reg           *registry.Registry
	// redact knows the secrets of every server; everything that leaves
	// the Bridge passes it (see exits.go).
	redact redactor

	life     context.Context // ends at Close
	stopLife context.CancelFunc
	inLife   *lifespan.Set // calls in flight, ended with life

	onProgress func(Progress) // Options.OnProgress
	builtins   *server        // the built-in resource tools; nil without them
	tracer     trace.Tracer   // nil: no spans
	sampling   *samplingState // nil: sampling off
	// tasks keeps the requests servers asked to run as tasks (sampling,
	// elicitation); nil when the host offers neither.
	tasks *clienttasks.Store

	// Many users (see users.go and catalog.go), under mu.
	maxUsers    int
	userIdle    time.Duration
	users       map[string]*userState
	catalogs    map[string]*catalog
	listings    map[[32]byte]*listing
	lastListing int
	order       []string // the registry's order of servers
	scheme      registry.Scheme

	discoverMu sync.Mutex     // one Discover at a time
	bg         sync.WaitGroup // discovery attempts, background closes
	ops        sync.WaitGroup // calls and resource reads in flight

	mu                      sync.Mutex
	closed                  bool
	discovering, discovered bool                            // see Status
	tools                   map[string]*Tool                // by registered name
	sorted                  []*Tool                         // by registered name
	subs                    map[*lossy.Chan[Event]]struct{} // each fed from a bounded queue (see Subscribe)
	closeOnce               sync.Once
	rejected                map[rejectKey]DroppedTool // tools the API refused (see heal.go)
}

// New returns a Bridge for cfg, validated with [Config.Validate]. It does
// not connect: call [Bridge.Discover]. cfg is copied (deeply enough that
// later changes to it do not reach the Bridge). If opts is nil, the default
// options are used.
func New(cfg *Config, opts *Options) (*Bridge, error) {
	return newWithHooks(cfg, opts, testHooks{})
}

// testHooks are what only tests change in a Bridge; the zero value is
// every host's.
type testHooks struct {
	// googleTransport, when set, carries the requests for Google tokens
	// (tests point Google's fixed endpoints at loopback servers with it).
	googleTransport http.RoundTripper
	// googleHost, when set, replaces the check of the hosts that may get
	// Google access tokens (tests serve them on loopback).
	googleHost func(endpoint string) bool
	// discoverProbe bounds the first server/discover of a server whose
	// era is unknown; 0 = mcpconn's default. Tests set it to take the
	// race of a slow machine out of what they check.
	discoverProbe time.Duration
}

// newWithHooks is New with the tests' hooks.
func newWithHooks(cfg *Config, opts *Options, hooks testHooks) (*Bridge, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.Client.check(); err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	switch {
	case o.ReconnectInterval == 0:
		o.ReconnectInterval = defaultReconnectInterval
	case o.ReconnectInterval < 0:
		o.ReconnectInterval = 0
	}
	if o.Policy == nil {
		o.Policy = &confirm.Policy{}
	}
	protos := protocache.New(o.ProtocolCache, o.Logger)
	if o.Store != nil {
		protos = protocache.Shared(o.Store, o.Logger)
	}
	b := &Bridge{
		policy:        o.Policy,
		textLimit:     o.TextLimit,
		elicit:        o.Client.elicit(),
		roots:         o.Client.rootSet(),
		logLevel:      o.Client.logLevel(),
		protos:        protos,
		shared:        o.Store,
		maxMsg:        o.MaxMessageBytes,
		binaryLimit:   cmp.Or(o.BinaryLimit, defaultBinaryLimit),
		passUntrusted: o.PassUntrustedOutput,
		serverSide:    o.ServerSideMCP,
		cfg:           copyConfig(cfg),
		target:        o.Target,
		budget:        o.DeclarationBudget,
		log:           o.Logger,
		interval:      o.ReconnectInterval,
		byName:        make(map[string]*server, len(cfg.Servers)),
		tools:         map[string]*Tool{},
		subs:          map[*lossy.Chan[Event]]struct{}{},
		hooks:         hooks,
		maxUsers:      max(o.MaxUsers, 0),
		userIdle:      cmp.Or(o.UserIdle, defaultUserIdle),
		users:         map[string]*userState{},
		catalogs:      map[string]*catalog{},
		listings:      map[[32]byte]*listing{},
		scheme:        o.ToolNames,
	}
	order := make([]string, len(b.cfg.Servers))
	redactors := make([]*secrets.Redactor, len(b.cfg.Servers))
	host := hostRedactor(os.Environ(), o.Secrets)
	for i, sc := range b.cfg.Servers {
		redactors[i] = secrets.Join(redactorFor(sc), host)
	}
	b.redact = redactor{secrets.NewKeyring(secrets.Join(append(redactors, host)...))}
	b.log = slog.New(&redactHandler{r: b.redact, inner: o.Logger.Handler()})
	for i, sc := range b.cfg.Servers {
		s := &server{cfg: sc, redac: secrets.NewKeyring(redactors[i]), inflight: map[string]int{}, questions: o.Client.questions()}
		s.creds, s.login = b.credentials(s, &o, b.learner(s, "", "login"))
		s.creds = learning(s.creds, b.learner(s, "", "auth"))
		b.servers = append(b.servers, s)
		b.byName[sc.Name] = s
		order[i] = sc.Name
	}
	if o.ResourceTools {
		if err := checkResourceToolsName(&b.cfg); err != nil {
			return nil, err
		}
		builtins, err := resourceTools(b.target)
		if err != nil {
			return nil, err
		}
		b.builtins = builtins
		order = append([]string{resourceToolsServer}, order...)
	}
	b.reg = registry.New(order, &registry.Options{Scheme: o.ToolNames})
	b.order = order
	if b.builtins != nil {
		b.setToolsLocked(b.builtins, b.builtins.defs, nil)
	}
	b.onProgress = o.OnProgress
	b.tracer = newTracer(o.TracerProvider)
	if b.elicit != nil || o.Client.sampling() != nil {
		b.tasks = clienttasks.New()
	}
	if err := b.setupSampling(o.Client.sampling()); err != nil {
		return nil, err
	}
	b.life, b.stopLife = context.WithCancel(context.Background())
	b.inLife = lifespan.New(b.life)
	return b, nil
}

// copyConfig copies c with its own slices and maps.
func copyConfig(c *Config) Config {
	out := *c
	out.Servers = slices.Clone(c.Servers)
	for i := range out.Servers {
		s := &out.Servers[i]
		s.Args = slices.Clone(s.Args)
		s.IncludeTools = slices.Clone(s.IncludeTools)
		s.ExcludeTools = slices.Clone(s.ExcludeTools)
		s.Env = maps.Clone(s.Env)
		s.Headers = maps.Clone(s.Headers)
		s.OAuth = cloneOAuth(s.OAuth)
		s.Secrets = slices.Clone(s.Secrets)
	}
	out.Files = slices.Clone(c.Files)
	out.Warnings = slices.Clone(c.Warnings)
	return out
}

// Close ends every connection (a stdio server's process is stopped), stops
// every goroutine the Bridge started, and closes every Subscribe channel.
// Discovery and calls under way fail with [ErrClosed] or a cancelled
// context. Close waits for them; it is idempotent and returns nil.
func (b *Bridge) Close() error {
	b.closeOnce.Do(b.shutdown)
	return nil
}

func (b *Bridge) shutdown() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.stopLife()
	defer b.closeTasks()
	b.discoverMu.Lock() // the running Discover has returned
	defer b.discoverMu.Unlock()
	b.ops.Wait()

	b.mu.Lock()
	var links []*link
	for _, s := range b.servers {
		if s.link != nil {
			links = append(links, s.link)
			s.stderr = s.link.conn.Stderr()
			s.link = nil
			s.state, s.err = Disconnected, nil
		}
		if s.common != nil {
			links = append(links, s.common)
			s.common = nil
		}
	}
	for _, u := range b.users {
		if u.idle != nil {
			u.idle.Stop()
			u.idle = nil
		}
		for _, s := range u.inst {
			if s.link != nil && !s.link.common.Load() {
				links = append(links, s.link)
			}
			s.link = nil
		}
	}
	subs := b.subs
	b.subs = map[*lossy.Chan[Event]]struct{}{}
	b.mu.Unlock()

	var wg sync.WaitGroup
	for _, l := range links {
		wg.Go(func() { _ = l.conn.Close() })
	}
	wg.Wait()
	b.bg.Wait()
	for _, s := range b.servers {
		if s.login != nil {
			s.login.CloseIdle() // every user's logins of s share its connections
		}
	}
	for s := range subs {
		s.Stop()
	}
}
