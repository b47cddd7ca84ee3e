package mcpbridge

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/http/httpguts"

	"github.com/mcpgenai/bridge/mcpbridge/internal/protocache"
)

// defaultTimeout is the request timeout of a server whose Timeout is zero:
// 600000 ms, as in Gemini CLI.
const defaultTimeout = 10 * time.Minute

// defaultMaxCallTime bounds a task or a call kept alive by progress when
// [ServerConfig.MaxCallTime] is zero: one hour.
const defaultMaxCallTime = time.Hour

// ServerConfig describes one MCP server: how to reach it and how far to trust
// it. It mirrors one entry of the mcpServers object of a Gemini CLI
// settings.json; it can also be built in Go directly, in which case no
// environment expansion happens and [ServerConfig.Validate] should be called.
//
// Exactly one of Command, URL and HTTPURL is set (an empty string is unset).
type ServerConfig struct {
	// Name is the key under mcpServers. It prefixes the server's tools when
	// their names conflict with an earlier server's.
	Name string

	// Command, Args, Cwd and Env start a server over stdio. A relative Cwd is
	// resolved by the operating system against the host program's working
	// directory when the process starts, as Gemini CLI does; an empty Cwd
	// means the host's working directory. Env adds to (and overrides) the
	// inherited environment, and always wins (see [Config.InheritSecretEnv]).
	Command string
	Args    []string
	Cwd     string
	Env     map[string]string

	// URL is an SSE endpoint, or a streamable-HTTP endpoint when Type is
	// [TransportHTTP]. HTTPURL is a streamable-HTTP endpoint.
	URL     string
	HTTPURL string
	// Type is "", [TransportSSE] or [TransportHTTP], and may be set only
	// with URL. The zero value "" means the transport is detected, as the
	// MCP specification's backwards-compatibility rules describe:
	// streamable HTTP first, SSE when the server answers that with HTTP
	// 4xx (the status shows which was found).
	Type Transport
	// Headers are sent with every HTTP request to URL or HTTPURL.
	Headers map[string]string
	// Protocol is mcpbridge's own setting (Gemini CLI ignores the key):
	// how the MCP protocol revision is chosen. "" or "auto" detects it
	// (2026-07-28 where the server answers server/discover, the initialize
	// handshake otherwise); "legacy" uses only the handshake; "modern" only
	// 2026-07-28: server/discover, without a bound on its first answer, and
	// never the handshake (a server that refuses server/discover stays
	// disconnected with the server's error). For the rare server that
	// misbehaves under detection. In every mode, a server that refuses the
	// offered version (-32022) while listing it as supported is asked once
	// more.
	Protocol string

	// Timeout bounds each request to the server. Zero means
	// 10 minutes (600000 ms, as Gemini CLI).
	Timeout time.Duration
	// MaxCallTime bounds a tool call that may run longer than Timeout:
	// a call of a tool that runs as an MCP task (each of the task's
	// requests is still bounded by Timeout; on protocol 2026-07-28, where
	// the server may turn any call into a task, any call once its
	// tools/call is answered with a task), or a call that asks for
	// progress ([Options.OnProgress] or [WithProgress]), for
	// which Timeout counts from the server's last progress report instead
	// of from the start. While the host answers a question of the server
	// during a call ([ClientFeatures.Elicit], [ClientFeatures.Sampling]),
	// which may be put to a person, Timeout is held for the server's calls
	// and starts again once the answer is given; MaxCallTime bounds the
	// answer. Zero means one hour.
	MaxCallTime time.Duration
	// Trust skips every confirmation for this server's tools.
	Trust bool

	// IncludeTools and ExcludeTools filter the server's tools by their
	// own names, compared exactly. ExcludeTools wins: a name listed there
	// is never used. A nil IncludeTools allows every other tool;
	// otherwise the name must be listed, so a non-nil empty IncludeTools
	// allows none (as "includeTools": [] does in Gemini CLI). As in Gemini
	// CLI, an IncludeTools entry "name(...)" also allows name.
	IncludeTools []string
	ExcludeTools []string

	// Description is free text shown in the status.
	Description string

	// OAuth, AuthProviderType, TargetAudience and TargetServiceAccount say
	// how a remote server's requests get credentials; see [OAuthConfig]
	// and [AuthProviderType].
	OAuth                *OAuthConfig
	AuthProviderType     AuthProviderType
	TargetAudience       string
	TargetServiceAccount string

	// Secrets are further values that must never leave the Bridge: every
	// output (call results, events, errors, logs, status) shows "***" in
	// their place. [ParseSettings] fills it with the value of each
	// environment variable it expanded whose name looks secret or whose
	// value may be a credential; host code may add its
	// own. It is never sent anywhere.
	Secrets []string
}

// Transport is the way a server is reached, named as in the type key of
// settings.json. In [ServerConfig.Type] the zero value "" means the
// transport of URL is detected; in a [ServerStatus] it means no valid
// transport is configured.
type Transport string

const (
	// TransportStdio spawns Command and speaks over its stdin and stdout.
	TransportStdio Transport = "stdio"
	// TransportSSE connects to URL with the HTTP+SSE transport.
	TransportSSE Transport = "sse"
	// TransportHTTP connects to HTTPURL (or URL with Type TransportHTTP)
	// with the streamable-HTTP transport.
	TransportHTTP Transport = "http"
)

// transport returns the transport chosen by the fields that are set:
// HTTPURL means streamable HTTP, URL means SSE (streamable HTTP with Type
// "http"), Command means stdio. It returns "" when not exactly one of them
// is set.
func (s ServerConfig) transport() Transport {
	if len(s.endpoints()) != 1 {
		return ""
	}
	switch {
	case s.Command != "":
		return TransportStdio
	case s.HTTPURL != "" || s.Type == TransportHTTP:
		return TransportHTTP
	}
	return TransportSSE
}

// protoKey is the protocol cache's key of the server: how it is reached
// (transport, command line, working directory, URL).
func (s *ServerConfig) protoKey() string {
	return protocache.Key(append([]string{string(s.transport()), string(s.Type), s.Command, s.Cwd, s.endpoint()}, s.Args...)...)
}

// allowsHTTPFallback reports whether the transport of URL is detected, as
// the MCP specification's backwards-compatibility rules describe:
// streamable HTTP first, then the SSE handshake when the server answers
// with HTTP 4xx. It is true for URL without an explicit Type ("sse" forces
// SSE, "http" streamable HTTP), false otherwise. transport
// still reports SSE for such a URL; the status shows what was found.
func (s ServerConfig) allowsHTTPFallback() bool {
	return s.transport() == TransportSSE && s.Type == ""
}

// endpoint returns HTTPURL or URL, whichever is set, or "" for stdio.
func (s ServerConfig) endpoint() string {
	if s.HTTPURL != "" {
		return s.HTTPURL
	}
	return s.URL
}

// effectiveTimeout returns Timeout, or 10 minutes (600000 ms, as Gemini CLI) when it is zero or
// negative.
func (s ServerConfig) effectiveTimeout() time.Duration {
	if s.Timeout <= 0 {
		return defaultTimeout
	}
	return s.Timeout
}

// effectiveMaxCallTime is MaxCallTime, or defaultMaxCallTime when zero.
func (s ServerConfig) effectiveMaxCallTime() time.Duration {
	if s.MaxCallTime <= 0 {
		return defaultMaxCallTime
	}
	return s.MaxCallTime
}

// allowsTool reports whether the tool with the given original name passes
// the filters. ExcludeTools wins: a name listed there is never allowed. A
// nil IncludeTools allows every other tool; otherwise the name must be
// listed, so a non-nil empty IncludeTools allows nothing. This is Gemini
// CLI's rule, where "includeTools": [] in settings.json means no tools. As
// in Gemini CLI, an IncludeTools entry "name(...)" also allows name. Names
// are compared exactly.
func (s ServerConfig) allowsTool(name string) bool {
	if slices.Contains(s.ExcludeTools, name) {
		return false
	}
	if s.IncludeTools == nil {
		return true
	}
	for _, inc := range s.IncludeTools {
		if inc == name || strings.HasPrefix(inc, name+"(") {
			return true
		}
	}
	return false
}

// endpoints lists the names of the set fields among command, url, httpUrl.
func (s ServerConfig) endpoints() []string {
	var set []string
	if s.Command != "" {
		set = append(set, "command")
	}
	if s.URL != "" {
		set = append(set, "url")
	}
	if s.HTTPURL != "" {
		set = append(set, "httpUrl")
	}
	return set
}

// ConfigError reports an invalid configuration: one invalid field of one
// server, whether it came from a settings file or from Go, or a settings
// file that cannot be read as settings (bad JSON, a value of the wrong
// type). errors.Is(err, [ErrInvalidConfig]) holds for every ConfigError.
type ConfigError struct {
	// File is the settings file, and Line and Column the place in it,
	// counting from 1 (Column in characters, not bytes). File is "" and
	// Line and Column are 0 for a [Config] built in Go.
	File         string
	Line, Column int
	// Server is the server's name; "" for a problem outside any server's
	// entry, such as bad JSON.
	Server string
	// Field is the settings.json key, such as "args[1]"; "" for the whole
	// entry.
	Field string
	// Err says what is wrong.
	Err error
}

// Error returns `file:line:column: server "name": field: err`, leaving out
// the parts that are empty.
func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.File != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	}
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	fmt.Fprint(&b, e.Err)
	return b.String()
}

// Unwrap returns Err.
func (e *ConfigError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidConfig].
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// Validate reports the first problem of s as a *[ConfigError], or nil:
// an empty Name or one holding control characters (they could forge lines
// in the status); a NUL in Command, Cwd or Args; not exactly one of Command, URL and HTTPURL; a Type other
// than "", "sse" and "http", or a Type without URL; a URL or HTTPURL that is
// not an absolute http or https URL; a negative Timeout; an environment
// name that is empty or holds '=' or NUL; a header name that is not an HTTP
// token, or a header value holding CR, LF or NUL; an oauth entry or
// authProviderType on a stdio server, an unknown authProviderType,
// service_account_impersonation without both targets, oauth endpoints that
// are not http or https URLs (or authorizationUrl without tokenUrl), a
// redirectUri that is not an http URL with a port. s is not modified.
func (s ServerConfig) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Server: s.Name, Field: field, Err: fmt.Errorf(format, args...)}
	}
	if s.Name == "" {
		return bad("", "server name must not be empty")
	}
	if strings.IndexFunc(s.Name, unicode.IsControl) >= 0 {
		return bad("", "name must not contain control characters")
	}
	if strings.ContainsRune(s.Command, 0) || strings.ContainsRune(s.Cwd, 0) {
		return bad("command", "command and cwd must not contain NUL")
	}
	for i, a := range s.Args {
		if strings.ContainsRune(a, 0) {
			return bad(fmt.Sprintf("args[%d]", i), "must not contain NUL")
		}
	}
	switch set := s.endpoints(); len(set) {
	case 0:
		return bad("", "one of command, url or httpUrl is required")
	case 1:
	default:
		return bad("", "%s are mutually exclusive; set exactly one of command, url or httpUrl", strings.Join(set, " and "))
	}
	switch s.Type {
	case "", TransportSSE, TransportHTTP:
	default:
		return bad("type", `must be "sse" or "http", got %q`, s.Type)
	}
	if s.Type != "" && s.URL == "" {
		return bad("type", "only allowed with url")
	}
	switch s.Protocol {
	case "", "auto", "legacy", "modern":
	default:
		return bad("protocol", `must be "auto", "legacy" or "modern", got %q`, s.Protocol)
	}
	for _, f := range []struct{ field, value string }{{"url", s.URL}, {"httpUrl", s.HTTPURL}} {
		if f.value == "" {
			continue
		}
		u, err := url.Parse(f.value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad(f.field, "must be an absolute http or https URL")
		}
	}
	if s.Timeout < 0 {
		return bad("timeout", "must not be negative")
	}
	if err := s.validateAuth(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(s.Env)) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return bad("env", "invalid variable name %q", name)
		}
		if strings.ContainsRune(s.Env[name], 0) {
			return bad("env."+name, "value must not contain NUL")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		if !httpguts.ValidHeaderFieldName(name) {
			return bad("headers", "invalid header name %q", name)
		}
		if strings.ContainsAny(s.Headers[name], "\r\n\x00") {
			return bad("headers."+name, "value must not contain CR, LF or NUL")
		}
	}
	return nil
}

// Config is a list of servers and how their processes inherit the
// environment. The zero value has no servers and withholds secrets.
type Config struct {
	// Servers in configuration order, which decides who keeps a bare tool
	// name when two servers offer the same one. Names are unique.
	Servers []ServerConfig
	// InheritSecretEnv, if set, passes the parent's environment to stdio
	// servers unchanged. The zero value withholds every variable that looks
	// secret, by its value (a private key; a token with a well-known prefix
	// such as "ghp_", "sk-" or "AKIA"; a JSON Web Token; a URL with a
	// password or a secret-looking query parameter; a DSN with a password; a
	// webhook URL) or by its name (split at '_', '-', '.' and case changes,
	// it contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
	// APIKEY or PRIVATEKEY, or has a part KEY, KEYS, AUTH, OAUTH,
	// AUTHORIZATION, CREDS, PRIVATE, SESSION, COOKIE, COOKIES, PAT, PASS or
	// BEARER, or a part PWD among others). The variables a process needs to
	// run (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LANGUAGE, TZ, TMPDIR,
	// TMP, TEMP, PWD, DBUS_SESSION_BUS_ADDRESS, LC_* and XDG_*) always pass.
	// The rule errs on the side of withholding; a withheld variable a server
	// needs can be given to it through [ServerConfig.Env], which always wins
	// either way. Settings files never set this field: passing secrets is
	// the host program's decision.
	InheritSecretEnv bool
	// Files lists the settings files that were read, in order. LoadSettings
	// fills it; ParseSettings and a Config built in Go leave it empty.
	Files []string
	// Warnings are problems that did not stop loading (unset variables,
	// unknown keys, duplicate names), each naming file, position and server.
	Warnings []string
}

// Validate reports every invalid server and every repeated name, joined with
// [errors.Join], or nil. c is not modified.
func (c *Config) Validate() error {
	var errs []error
	seen := make(map[string]bool)
	for _, s := range c.Servers {
		if err := s.Validate(); err != nil {
			errs = append(errs, err)
		}
		if seen[s.Name] {
			errs = append(errs, &ConfigError{Server: s.Name, Err: errors.New("name used by more than one server")})
		}
		seen[s.Name] = true
	}
	return errors.Join(errs...)
}

// merge adds servers to c: a server whose name is already present replaces
// that entry in place (keeping its position); new names are appended.
// It reports the names that were replaced.
func (c *Config) merge(servers []ServerConfig) (replaced []string) {
	for _, s := range servers {
		i := slices.IndexFunc(c.Servers, func(have ServerConfig) bool { return have.Name == s.Name })
		if i < 0 {
			c.Servers = append(c.Servers, s)
			continue
		}
		c.Servers[i] = s
		replaced = append(replaced, s.Name)
	}
	return replaced
}
