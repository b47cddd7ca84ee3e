package mcpbridge

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/schema"
)

// ServerState is the connection state of one server, as Gemini CLI's
// MCPServerStatus. The zero value is [Disconnected].
type ServerState int

const (
	// Disconnected: not connected, never connected, or failed (see
	// ServerStatus.Error).
	Disconnected ServerState = iota
	// Connecting: a connection attempt is under way.
	Connecting
	// Connected: connected and ready.
	Connected
)

var serverStateNames = []string{"DISCONNECTED", "CONNECTING", "CONNECTED"}

// String returns "DISCONNECTED", "CONNECTING" or "CONNECTED".
func (s ServerState) String() string {
	if s < 0 || int(s) >= len(serverStateNames) {
		return fmt.Sprintf("ServerState(%d)", int(s))
	}
	return serverStateNames[s]
}

// MarshalText encodes s as its String.
func (s ServerState) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(serverStateNames) {
		return nil, fmt.Errorf("invalid ServerState(%d)", int(s))
	}
	return []byte(serverStateNames[s]), nil
}

// UnmarshalText decodes a String.
func (s *ServerState) UnmarshalText(b []byte) error {
	i := slices.Index(serverStateNames, string(b))
	if i < 0 {
		return fmt.Errorf("unknown server state %q", b)
	}
	*s = ServerState(i)
	return nil
}

// ServerStatus is what the status shows about one server. Every string is
// already redacted when the Bridge builds it; nothing here may hold a
// secret. In JSON, Timeout is "timeoutMs" in milliseconds.
type ServerStatus struct {
	// Name is the server's configured name.
	Name string `json:"name"`
	// State is where its connection stands now.
	State ServerState `json:"state"`
	// Transport is the configured one; while connected, the one in use
	// (for a URL without type, the one detected).
	Transport   Transport     `json:"transport"`
	Command     string        `json:"command,omitempty"`     // command line, stdio only
	URL         string        `json:"url,omitempty"`         // endpoint, SSE and HTTP only
	Cwd         string        `json:"cwd,omitempty"`         // working directory, stdio only, as configured
	Timeout     time.Duration `json:"-"`                     // as configured; 0 means the default, 10 minutes
	Description string        `json:"description,omitempty"` // the configured description
	Trust       bool          `json:"trust,omitempty"`       // the server's tools run without confirmation
	// Protocol is the protocol version of the live connection: 2026-07-28
	// or later when the server answered server/discover, otherwise the
	// version agreed in the initialize handshake; "" when not connected.
	Protocol string   `json:"protocol,omitempty"`
	Tools    []string `json:"tools,omitempty"`  // registered names, in registration order
	Error    string   `json:"error,omitempty"`  // the last error, if any
	Stderr   string   `json:"stderr,omitempty"` // a bounded tail of a stdio server's stderr
	// Rejected are the server's tools that the Gemini API refused and
	// that requests no longer carry, sorted by tool (see [DroppedTool]).
	Rejected []DroppedTool `json:"rejected,omitempty"`
	// Skipped are the tools the server listed that the Bridge could not
	// use and left out, in the server's order (see [DroppedTool]).
	Skipped []DroppedTool `json:"skipped,omitempty"`
	// PerUser reports a server whose credentials are each user's (see
	// [WithUser]): a remote server with an OAuth login made by a person,
	// configured with an oauth entry or seen asking for a token. Each
	// user has their own login and tools list there, and before protocol
	// 2026-07-28 their own connection; State, Auth and Tools are then
	// those of the user "" (on a Bridge for many users, who has no
	// tokens).
	PerUser bool `json:"perUser,omitempty"`
	// Users counts the users with a connection to a PerUser server
	// (their own, or the one every user shares in 2026-07-28).
	Users int `json:"users,omitempty"`
	// Auth is where the server's login stands; never a token.
	Auth auth.State `json:"auth,omitempty"`
	// AuthScopes, while Auth says a login is needed because the server
	// refused the token for want of scope (403 insufficient_scope), are
	// the scopes it asked for: the next [Bridge.Login] asks for them too.
	AuthScopes []string `json:"authScopes,omitempty"`
	// AuthError is why the last login, token grant or step-up failed, or
	// what the server's refusal asks for; redacted like Error.
	AuthError string `json:"authError,omitempty"`
	// Instructions are what the server said about itself when it last
	// connected (MCP's initialize instructions), redacted like Error.
	Instructions string `json:"instructions,omitempty"`
	// ToolDescriptions maps a registered name in Tools to the tool's
	// description as the server gave it, whole (redacted, like every
	// string here); tools without one are left out.
	ToolDescriptions map[string]string `json:"toolDescriptions,omitempty"`
	// ToolSizes maps a registered name in Tools to the size of the
	// tool's function declaration in bytes (see [Tool.Size]); a tool
	// whose schema was cut to its budget also appears in ToolsCut.
	ToolSizes map[string]schema.Size `json:"toolSizes,omitempty"`
	// ToolsCut are the registered names of the tools whose input schema
	// was cut to [Options.DeclarationBudget] (see [Tool.BudgetCuts]), in
	// the order of Tools.
	ToolsCut []string `json:"toolsCut,omitempty"`
	// Icons are the server's icons a host may show (see [Icon]), as it
	// gave them when it last connected; ToolIcons maps a registered name
	// in Tools to the tool's icons, for the tools that have any.
	Icons     []Icon            `json:"icons,omitempty"`
	ToolIcons map[string][]Icon `json:"toolIcons,omitempty"`
	// ServerSide, with [Options.ServerSideMCP], reports whether the Gemini
	// API calls this server itself (server-side MCP); ClientSide says
	// why it does not, when it does not. Without the option both are
	// empty and every server is bridged.
	ServerSide bool   `json:"serverSide,omitempty"`
	ClientSide string `json:"clientSide,omitempty"`
}

type serverStatusJSON ServerStatus // no methods: no recursion

// MarshalJSON encodes s with Timeout as "timeoutMs" (omitted when zero).
func (s ServerStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		serverStatusJSON
		TimeoutMS int64 `json:"timeoutMs,omitempty"`
	}{serverStatusJSON(s), s.Timeout.Milliseconds()})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (s *ServerStatus) UnmarshalJSON(b []byte) error {
	var v struct {
		serverStatusJSON
		TimeoutMS int64 `json:"timeoutMs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = ServerStatus(v.serverStatusJSON)
	s.Timeout = time.Duration(v.TimeoutMS) * time.Millisecond
	return nil
}

// newServerStatus returns the [Disconnected] status of cfg with its static
// fields filled in: command line or URL, working directory and description
// (all redacted as the package documentation describes), timeout as
// configured, and trust. Headers and env are not shown at all. cfg is not
// modified or retained.
func newServerStatus(cfg ServerConfig) ServerStatus {
	r := redactorFor(cfg)
	st := ServerStatus{
		Name:        cfg.Name,
		Transport:   cfg.transport(),
		Cwd:         r.Text(cfg.Cwd),
		Timeout:     max(cfg.Timeout, 0),
		Description: r.Text(cfg.Description),
		Trust:       cfg.Trust,
	}
	if cfg.Command != "" {
		st.Command = r.CommandLine(cfg.Command, cfg.Args)
	}
	if ep := cfg.endpoint(); ep != "" {
		st.URL = r.URL(ep)
	}
	return st
}

// Status is the state of every server, in configuration order, and of
// discovery as a whole. It encodes to JSON as
// {"servers": [...], "discovering": false, "discovered": true}.
type Status struct {
	// Servers holds every configured server, in configuration order.
	Servers []ServerStatus `json:"servers"`
	// Discovering reports whether a [Bridge.Discover] is under way: its
	// servers are being connected and listed.
	Discovering bool `json:"discovering"`
	// Discovered reports whether a Discover has finished, every server
	// tried with or without errors. It stays true while a later Discover
	// retries the servers that are not connected.
	Discovered bool `json:"discovered"`
}

// discoveryText is the discovery state as Gemini CLI's /mcp command names
// it: "IN_PROGRESS" while discovering, else "COMPLETED" once discovered,
// else "NOT_STARTED".
func (st Status) discoveryText() string {
	switch {
	case st.Discovering:
		return "IN_PROGRESS"
	case st.Discovered:
		return "COMPLETED"
	}
	return "NOT_STARTED"
}

// Icons per state, as Gemini CLI's /mcp command shows them (📡 connected,
// 🔌 disconnected, 🔄 starting).
var stateIcons = []string{"🔌", "🔄", "📡"}

// stderrLines is how many trailing stderr lines the text shows.
const stderrLines = 5

// WriteText writes the status in the layout of Gemini CLI's /mcp command:
//
//	MCP Servers Status:
//
//	📡 pythonTools (CONNECTED)
//	  Command: python -m my_mcp_server --port 8080
//	  Working Directory: ./mcp-servers/python
//	  Timeout: 15000ms
//	  Tools: calculate_sum, file_analyzer, data_processor
//
//	🔌 nodeServer (DISCONNECTED)
//	  Command: node dist/server.js --verbose
//	  Error: Connection refused
//
//	Discovery State: COMPLETED
//
// The last line says IN_PROGRESS while [Status.Discovering], else COMPLETED
// once [Status.Discovered], else NOT_STARTED. Each line appears only when it has something to say; Timeout only when
// one is configured. Description, URL, Protocol (version and transport
// while connected) and "Trusted: yes" lines appear in
// the same way, and a disconnected server's last 5 lines of stderr follow
// its error. Lines of multi-line values are indented under their label.
// WriteText prints the fields as they are: redaction happens when they are
// set. opts chooses what else is shown (see [TextOptions]); if opts is nil,
// the default options are used. It returns the first write error.
func (st Status) WriteText(w io.Writer, opts *TextOptions) error {
	var o TextOptions
	if opts != nil {
		o = *opts
	}
	var b strings.Builder
	b.WriteString("MCP Servers Status:\n\n")
	if len(st.Servers) == 0 {
		b.WriteString("No MCP servers configured.\n\n")
	}
	for _, s := range st.Servers {
		icon := "❓"
		if int(s.State) >= 0 && int(s.State) < len(stateIcons) {
			icon = stateIcons[s.State]
		}
		fmt.Fprintf(&b, "%s %s (%s)\n", icon, s.Name, s.State)
		line := func(label, value string) {
			if value != "" {
				fmt.Fprintf(&b, "  %s: %s\n", label, strings.ReplaceAll(strings.TrimRight(value, "\n"), "\n", "\n    "))
			}
		}
		line("Description", s.Description)
		line("Command", s.Command)
		line("URL", s.URL)
		line("Working Directory", s.Cwd)
		if s.Timeout > 0 {
			line("Timeout", fmt.Sprintf("%dms", s.Timeout.Milliseconds()))
		}
		if s.Trust {
			line("Trusted", "yes")
		}
		if o.Descriptions {
			writeToolList(&b, s, o.DescriptionLimit)
		} else {
			line("Tools", strings.Join(s.Tools, ", "))
		}
		if s.Protocol != "" {
			line("Protocol", fmt.Sprintf("MCP %s over %s", s.Protocol, s.Transport))
		}
		switch {
		case s.ServerSide:
			line("MCP calls", "made by the Gemini API (server-side MCP)")
		case s.ClientSide != "":
			line("MCP calls", "bridged by this program: "+s.ClientSide)
		}
		line("Auth", s.Auth.String())
		line("Error", s.Error)
		line("Skipped tools", skippedText(s.Skipped))
		for _, rt := range s.Rejected {
			line("Rejected by the API", rt.Name+": "+rt.Reason)
		}
		if s.State == Disconnected && strings.TrimSpace(s.Stderr) != "" {
			b.WriteString("  Stderr:\n")
			tail := mcpconn.Tail(strings.TrimRight(strings.ReplaceAll(s.Stderr, "\r", ""), "\n \t"), stderrLines, 0)
			for _, l := range strings.Split(tail, "\n") {
				fmt.Fprintf(&b, "    %s\n", l)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Discovery State: %s\n", st.discoveryText())
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns what WriteText writes with nil options.
func (st Status) String() string {
	var b strings.Builder
	_ = st.WriteText(&b, nil)
	return b.String()
}

// transportOf returns the Transport of a connection's kind.
func transportOf(k mcpconn.Kind) Transport {
	switch k {
	case mcpconn.Stdio:
		return TransportStdio
	case mcpconn.SSE:
		return TransportSSE
	case mcpconn.StreamableHTTP:
		return TransportHTTP
	}
	return ""
}

// Status returns the state of every server, in configuration order, and of
// discovery: the /mcp view. Every text is redacted with the secrets of
// every server, errors, tool descriptions and the stderr tail (at most 4
// KiB of whole lines) by the generic rules as well; what servers said
// (errors, stderr, instructions, descriptions) is cleaned for a person
// like [CallResult.ReturnDisplay]. Tools are the registered names in the
// server's order, kept for a server that died.
//
// Status is the Bridge's own view, of no user in particular: for a
// server whose credentials are each user's ([ServerStatus.PerUser]) it
// reports the user "" (on a Bridge for many users, who has no tokens)
// and counts the users connected, naming none. One user's view of such
// servers (their login state, connection and tools) is
// [Declarations.Status] of the Declarations made for that user.
func (b *Bridge) Status() Status {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.statusLocked(nil)
}

// statusLocked returns the status as the user u sees it (nil: the user
// ""): for the servers whose credentials are each user's, u's instance
// (Disconnected, without login state, when u has none: not used yet, or
// u's state was dropped), and u's tools.
func (b *Bridge) statusLocked(u *userState) Status {
	st := Status{Discovering: b.discovering, Discovered: b.discovered, Servers: make([]ServerStatus, 0, len(b.servers))}
	reg, tools := b.reg, b.tools
	if u != nil && !u.gone {
		if c := b.catalogLocked(u); c != nil {
			reg, tools = c.reg, c.tools
		}
	}
	for _, base := range b.servers {
		ss := newServerStatus(base.cfg)
		s := base
		if ss.PerUser = b.perUserLocked(base); ss.PerUser {
			for _, u := range b.users {
				if in := u.inst[base]; in != nil && in.link != nil {
					ss.Users++
				}
			}
			if u != nil {
				s = u.inst[base] // nil when u has none
			}
		}
		if s == nil {
			ss.State = Disconnected
			s = &server{cfg: base.cfg}
		} else {
			ss.State = s.state
			ss.Auth = s.authState()
		}
		if s.login != nil {
			ss.AuthScopes = s.login.Scopes()
			if err := s.login.Err(); err != nil {
				ss.AuthError = shown(err.Error(), b.redact.Text, maxErrorBytes)
			}
		}
		for _, e := range reg.ServerEntries(s.cfg.Name) {
			ss.Tools = append(ss.Tools, e.Name)
			if t := tools[e.Name]; t != nil && len(t.Icons) > 0 {
				if ss.ToolIcons == nil {
					ss.ToolIcons = make(map[string][]Icon)
				}
				ss.ToolIcons[e.Name] = redactIcons(b.redact, t.Icons)
			}
			if t := tools[e.Name]; t != nil && t.Description != "" {
				if ss.ToolDescriptions == nil {
					ss.ToolDescriptions = make(map[string]string)
				}
				ss.ToolDescriptions[e.Name] = b.redact.Text(t.Description)
			}
			ss.addSize(tools[e.Name])
		}
		ss.Command = b.redact.ReplaceConfigured(ss.Command)
		ss.URL = b.redact.ReplaceConfigured(ss.URL)
		ss.Cwd = b.redact.ReplaceConfigured(ss.Cwd)
		ss.Description = b.redact.ReplaceConfigured(ss.Description)
		if s.err != nil {
			ss.Error = shown(s.err.Error(), b.redact.Text, maxErrorBytes)
		}
		stderr := s.stderr
		if s.link != nil {
			stderr = s.link.conn.Stderr()
			ss.Protocol = s.link.conn.ProtocolVersion()
			ss.Transport = transportOf(s.link.conn.Kind())
		}
		ss.Stderr = shown(mcpconn.Tail(stderr, 0, statusStderrLimit), b.redact.Text, statusStderrLimit)
		ss.Skipped = slices.Clone(s.skipped)
		for _, rt := range b.rejectedLocked(s.cfg.Name) {
			rt.Reason = shown(rt.Reason, b.redact.Text, maxErrorBytes)
			ss.Rejected = append(ss.Rejected, rt)
		}
		ss.Instructions = shown(s.instructions, b.redact.Text, displayLimit)
		ss.Icons = redactIcons(b.redact, s.icons)
		if b.serverSide {
			ss.ClientSide = b.serverSideLocked(base)
			ss.ServerSide = ss.ClientSide == ""
		}
		st.Servers = append(st.Servers, ss)
	}
	return st
}

// statusStderrLimit bounds the stderr tail in a [ServerStatus].
const statusStderrLimit = 4096
