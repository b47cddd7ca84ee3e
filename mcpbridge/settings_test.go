package mcpbridge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// env is a hermetic environment for expansion.
func env(vars map[string]string) *mcpbridge.SettingsOptions {
	return &mcpbridge.SettingsOptions{
		LookupEnv: func(name string) (string, bool) {
			v, ok := vars[name]
			return v, ok
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func parse(t *testing.T, data string) (*mcpbridge.Config, error) {
	t.Helper()
	return mcpbridge.ParseSettings([]byte(data), "s.json", env(nil))
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "settings", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseSettingsSeed(t *testing.T) {
	opts := env(map[string]string{
		"DB_CONNECTION_STRING":   "postgres://db/app",
		"EXTERNAL_API_KEY":       "ext-key",
		"EXTERNAL_SERVICE_TOKEN": "svc-token",
		"PWD":                    "/work",
	})
	cfg, err := mcpbridge.ParseSettings(readFile(t, "seed.json"), "seed.json", opts)
	if err != nil {
		t.Fatalf("ParseSettings(seed.json) error: %v", err)
	}
	want := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{
			Name:    "pythonTools",
			Command: "python",
			Args:    []string{"-m", "my_mcp_server", "--port", "8080"},
			Cwd:     "./mcp-servers/python",
			Env:     map[string]string{"DATABASE_URL": "postgres://db/app", "API_KEY": "ext-key"},
			// expanded from secret-looking variables (a connection string
			// is one by its name, whatever it holds)
			Secrets: []string{"ext-key", "postgres://db/app"},
			Timeout: 15 * time.Second,
		},
		{
			Name:    "nodeServer",
			Command: "node",
			Args:    []string{"dist/server.js", "--verbose"},
			Cwd:     "./mcp-servers/node",
			Trust:   true,
		},
		{
			Name:    "dockerizedServer",
			Command: "docker",
			Args:    []string{"run", "-i", "--rm", "-e", "API_KEY", "-v", "/work:/workspace", "my-mcp-server:latest"},
			Env:     map[string]string{"API_KEY": "svc-token"},
			Secrets: []string{"svc-token"},
		},
		{Name: "httpServer", HTTPURL: "http://localhost:3000/mcp", Timeout: 5 * time.Second},
		{
			Name:    "httpServerWithAuth",
			HTTPURL: "http://localhost:3000/mcp",
			Headers: map[string]string{
				"Authorization":   "Bearer your-api-token",
				"X-Custom-Header": "custom-value",
				"Content-Type":    "application/json",
			},
			Timeout: 5 * time.Second,
		},
		{
			Name:         "sseServer",
			URL:          "http://localhost:8080/sse",
			Description:  "an SSE endpoint; streamable HTTP is tried if SSE is refused",
			IncludeTools: []string{"search", "fetch(url)"},
			ExcludeTools: []string{"delete"},
		},
	}}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("ParseSettings(seed.json) (-want +got):\n%s", diff)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
}

func TestParseSettingsKeepsOrder(t *testing.T) {
	cfg, err := mcpbridge.ParseSettings(readFile(t, "order.json"), "order.json", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var transports []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
		transports = append(transports, string(s.Transport()))
	}
	if want := []string{"zulu", "alpha", "mike", "bravo", "echo"}; !slices.Equal(names, want) {
		t.Errorf("ParseSettings(order.json) names = %q, want %q", names, want)
	}
	if want := []string{"stdio", "stdio", "sse", "http", "http"}; !slices.Equal(transports, want) {
		t.Errorf("ParseSettings(order.json) transports = %q, want %q", transports, want)
	}
}

func TestParseSettingsEmpty(t *testing.T) {
	for _, data := range []string{
		"", "  \n", "\uFEFF{}", "{}", `{"theme": "x"}`, `{"mcpServers": null}`,
		`{"mcpServers": {}}`, "// only a comment\n", `/* c */ {"mcpServers": {} /* c */}`,
	} {
		cfg, err := parse(t, data)
		if err != nil || len(cfg.Servers) != 0 || len(cfg.Warnings) != 0 {
			t.Errorf("ParseSettings(%q) = %+v, %v; want no servers, no warnings, no error", data, cfg, err)
		}
	}
}

func TestParseSettingsComments(t *testing.T) {
	data := `{
  // "mcpServers": {"commented": {"command": "no"}},
  "mcpServers": { /* a "quoted" block
     over lines */
    "a": {"url": "http://host/sse//x", "description": "/* not a comment */ // nor this"}
  }
}`
	cfg, err := parse(t, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []mcpbridge.ServerConfig{{Name: "a", URL: "http://host/sse//x", Description: "/* not a comment */ // nor this"}}
	if diff := cmp.Diff(want, cfg.Servers); diff != "" {
		t.Errorf("ParseSettings with comments (-want +got):\n%s", diff)
	}
}

func TestParseSettingsErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}",
			`s.json:3:26: invalid character '}' looking for beginning of object key string`},
		{"syntax after multi-byte text", "{\"é€\": x}", `s.json:1:8: invalid character 'x' looking for beginning of value`},
		{"syntax after a block comment", "/* é\n ü */ {\"a\": ]}", `s.json:2:13: invalid character ']' looking for beginning of value`},
		{"truncated", "{\n  \"mcpServers\": {", `s.json:2:18: unexpected end of JSON input`},
		{"trailing data", "{} {}", `s.json:1:4: invalid character '{' after top-level value`},
		{"unterminated comment", "{}\n  /* open", `s.json:2:3: unterminated /* comment`},
		{"top level array", "\n [1]", `s.json:2:2: settings must be a JSON object, got array`},
		{"mcpServers array", `{"mcpServers": []}`, `s.json:1:16: mcpServers: want object, got array`},
		{"server not object", `{"mcpServers": {"a": "node"}}`, `s.json:1:22: server "a": want object, got string`},
		{"server null", `{"mcpServers": {"a": null}}`, `s.json:1:22: server "a": want object, got null`},
		{"nothing to connect to", `{"mcpServers": {"a": {"cwd": "/"}}}`,
			`s.json:1:17: server "a": one of command, url or httpUrl is required`},
		{"command and url", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`,
			`s.json:1:17: server "a": command and url are mutually exclusive; set exactly one of command, url or httpUrl`},
		{"all three", `{"mcpServers": {"a": {"command": "x", "url": "http://h", "httpUrl": "http://h"}}}`,
			`s.json:1:17: server "a": command and url and httpUrl are mutually exclusive; set exactly one of command, url or httpUrl`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `s.json:1:17: server name must not be empty`},
		{"args string", `{"mcpServers": {"a": {"command": "x", "args": "x"}}}`,
			`s.json:1:47: server "a": args: want array of strings, got string`},
		{"args element", `{"mcpServers": {"a": {"command": "x", "args": ["ok", 5]}}}`,
			`s.json:1:47: server "a": args[1]: want string, got number`},
		{"command number", `{"mcpServers": {"a": {"command": 5}}}`, `s.json:1:34: server "a": command: want string, got number`},
		{"timeout string", `{"mcpServers": {"a": {"command": "x", "timeout": "fast"}}}`,
			`s.json:1:50: server "a": timeout: want number of milliseconds, got string`},
		{"timeout negative", `{"mcpServers": {"a": {"command": "x", "timeout": -5}}}`,
			`s.json:1:50: server "a": timeout: must not be negative, got -5`},
		{"timeout huge", `{"mcpServers": {"a": {"command": "x", "timeout": 1e300}}}`,
			`s.json:1:50: server "a": timeout: 1e300 milliseconds is too large`},
		{"trust string", `{"mcpServers": {"a": {"command": "x", "trust": "yes"}}}`,
			`s.json:1:48: server "a": trust: want boolean, got string`},
		{"env array", `{"mcpServers": {"a": {"command": "x", "env": ["A=1"]}}}`,
			`s.json:1:46: server "a": env: want object of strings, got array`},
		{"env number", `{"mcpServers": {"a": {"command": "x", "env": {"PORT": 80}}}}`,
			`s.json:1:46: server "a": env.PORT: want string, got number`},
		{"env bad name", `{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}`,
			`s.json:1:46: server "a": env: invalid variable name "A=B"`},
		{"headers bool", `{"mcpServers": {"a": {"url": "http://h", "headers": {"X": true}}}}`,
			`s.json:1:53: server "a": headers.X: want string, got boolean`},
		{"header injection", `{"mcpServers": {"a": {"url": "http://h", "headers": {"X": "a\r\nB: c"}}}}`,
			`s.json:1:53: server "a": headers.X: value must not contain CR, LF or NUL`},
		{"header name", `{"mcpServers": {"a": {"url": "http://h", "headers": {"Bad Name": "v"}}}}`,
			`s.json:1:53: server "a": headers: invalid header name "Bad Name"`},
		{"includeTools object", `{"mcpServers": {"a": {"command": "x", "includeTools": {}}}}`,
			`s.json:1:55: server "a": includeTools: want array of strings, got object`},
		{"excludeTools element", `{"mcpServers": {"a": {"command": "x", "excludeTools": [null]}}}`,
			`s.json:1:55: server "a": excludeTools[0]: want string, got null`},
		{"type unknown", `{"mcpServers": {"a": {"url": "http://h", "type": "ws"}}}`,
			`s.json:1:50: server "a": type: must be "sse" or "http", got "ws"`},
		{"type with command", `{"mcpServers": {"a": {"command": "x", "type": "http"}}}`,
			`s.json:1:47: server "a": type: only allowed with url`},
		{"type with httpUrl", `{"mcpServers": {"a": {"httpUrl": "http://h", "type": "sse"}}}`,
			`s.json:1:54: server "a": type: only allowed with url`},
		{"protocol unknown", `{"mcpServers": {"a": {"command": "x", "protocol": "2025"}}}`,
			`s.json:1:51: server "a": protocol: must be "auto", "legacy" or "modern", got "2025"`},
		{"protocol number", `{"mcpServers": {"a": {"command": "x", "protocol": 1}}}`,
			`s.json:1:51: server "a": protocol: want string, got number`},
		{"relative url", `{"mcpServers": {"a": {"url": "/sse"}}}`,
			`s.json:1:30: server "a": url: must be an absolute http or https URL`},
		{"ftp httpUrl", `{"mcpServers": {"a": {"httpUrl": "ftp://h/x"}}}`,
			`s.json:1:34: server "a": httpUrl: must be an absolute http or https URL`},
		{"description number", `{"mcpServers": {"a": {"command": "x", "description": 1}}}`,
			`s.json:1:54: server "a": description: want string, got number`},
		{"unset command", `{"mcpServers": {"a": {"command": "$NOPE"}}}`,
			`s.json:1:17: server "a": one of command, url or httpUrl is required`},
		{"every bad server is reported", `{"mcpServers": {"a": {}, "b": {"command": 1}}}`,
			"s.json:1:17: server \"a\": one of command, url or httpUrl is required\n" +
				`s.json:1:43: server "b": command: want string, got number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parse(t, tt.data)
			if err == nil {
				t.Fatalf("ParseSettings(%q) = %+v, want error %q", tt.data, cfg, tt.want)
			}
			if cfg != nil {
				t.Errorf("ParseSettings(%q) config = %+v, want nil with an error", tt.data, cfg)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ParseSettings(%q) error =\n%s\nwant\n%s", tt.data, got, tt.want)
			}
			var ce *mcpbridge.ConfigError
			if !errors.As(err, &ce) || ce.File != "s.json" || !errors.Is(err, mcpbridge.ErrInvalidConfig) {
				t.Errorf("ParseSettings(%q) error %T is not a *ConfigError for s.json", tt.data, err)
			}
		})
	}
}

func TestParseSettingsErrorKinds(t *testing.T) {
	_, err := parse(t, `{"mcpServers": {"a": {"command": "x", "trust": 1}}}`)
	var ce *mcpbridge.ConfigError
	if !errors.As(err, &ce) || ce.Server != "a" || ce.Field != "trust" {
		t.Errorf("errors.As(%v, *ConfigError) = %+v, want server a, field trust", err, ce)
	}
	if !errors.Is(err, mcpbridge.ErrInvalidConfig) {
		t.Errorf("errors.Is(%v, ErrInvalidConfig) = false, want true", err)
	}
	if ce.Line != 1 || ce.Column != 48 {
		t.Errorf("errors.As(%v, *ConfigError) at line %d column %d, want line 1 column 48", err, ce.Line, ce.Column)
	}
	// Bad JSON is an invalid configuration too, placed but in no server.
	_, err = parse(t, `{`)
	if !errors.Is(err, mcpbridge.ErrInvalidConfig) {
		t.Errorf("errors.Is(%v, ErrInvalidConfig) = false for bad JSON, want true", err)
	}
	ce = nil
	if !errors.As(err, &ce) || ce.Line != 1 || ce.Column != 2 || ce.Server != "" || ce.Field != "" {
		t.Errorf("errors.As(%v, *ConfigError) = %+v, want line 1 column 2 in no server", err, ce)
	}
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("errors.As(%v, *json.SyntaxError) = false, want the decoder's error unwrapped", err)
	}
}

func TestParseSettingsWarnings(t *testing.T) {
	data := `{
  "mcpServers": {
    "a": {"command": "run", "args": ["$NOPE", "${ALSO:-fine}", "${GONE}$NOPE"], "tcp": "localhost:1234567", "future": 1},
    "b": {"url": "https://h/sse", "headers": {"Authorization": "Bearer $TOKEN"}, "url": "https://h2/sse"},
    "a": {"command": "run2", "env": {"K": "${MISSING_VAR}"}, "args": null}
  },
  "mcpServers": {"c": {"command": "only-this"}}
}`
	var logs bytes.Buffer
	opts := &mcpbridge.SettingsOptions{
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: dropTime})),
	}
	cfg, err := mcpbridge.ParseSettings([]byte(data), "w.json", opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`w.json:3:37: server "a": args[0]: environment variable "NOPE" is not set; using ""`,
		`w.json:3:37: server "a": args[2]: environment variable "GONE" is not set; using ""`,
		`w.json:3:37: server "a": args[2]: environment variable "NOPE" is not set; using ""`,
		`w.json:3:81: server "a": ignoring Gemini CLI key "tcp", which mcpbridge does not support`,
		`w.json:3:109: server "a": ignoring unknown key "future"`,
		`w.json:4:46: server "b": headers.Authorization: environment variable "TOKEN" is not set; using ""`,
		`w.json:4:82: server "b": key "url" given twice; the later value wins`,
		`w.json:5:37: server "a": env.K: environment variable "MISSING_VAR" is not set; using ""`,
		`w.json:5:5: server "a": defined twice; the later entry wins`,
		`w.json:7:3: mcpServers given twice; the later one wins`,
	}
	if diff := cmp.Diff(want, cfg.Warnings); diff != "" {
		t.Errorf("ParseSettings warnings (-want +got):\n%s", diff)
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != len(want) {
		t.Errorf("logged %d warnings, want %d:\n%s", got, len(want), logs.String())
	}
	if diff := cmp.Diff([]mcpbridge.ServerConfig{{Name: "c", Command: "only-this"}}, cfg.Servers); diff != "" {
		t.Errorf("ParseSettings servers (-want +got):\n%s", diff)
	}
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

func TestParseSettingsDuplicateKeepsFirstPosition(t *testing.T) {
	cfg, err := parse(t, `{"mcpServers": {"a": {"command": "1"}, "b": {"command": "2"}, "a": {"command": "3"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []mcpbridge.ServerConfig{{Name: "a", Command: "3"}, {Name: "b", Command: "2"}}
	if diff := cmp.Diff(want, cfg.Servers); diff != "" {
		t.Errorf("duplicate servers (-want +got):\n%s", diff)
	}
}

func TestParseSettingsTimeout(t *testing.T) {
	tests := []struct {
		json string
		want time.Duration
	}{
		{"0", 0},
		{"1", time.Millisecond},
		{"1.5", 1500 * time.Microsecond},
		{"600000", 10 * time.Minute},
		{"1e3", time.Second},
	}
	for _, tt := range tests {
		cfg, err := parse(t, `{"mcpServers": {"a": {"command": "x", "timeout": `+tt.json+`}}}`)
		if err != nil {
			t.Errorf("timeout %s: %v", tt.json, err)
			continue
		}
		if got := cfg.Servers[0].Timeout; got != tt.want {
			t.Errorf("timeout %s = %v, want %v", tt.json, got, tt.want)
		}
	}
}

func TestLoadSettings(t *testing.T) {
	dir := filepath.Join("testdata", "settings")
	user := filepath.Join(dir, "user.json")
	project := filepath.Join(dir, "project.json")
	missing := filepath.Join(t.TempDir(), "missing.json")
	cfg, err := mcpbridge.LoadSettings([]string{user, missing, project}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := &mcpbridge.Config{
		Servers: []mcpbridge.ServerConfig{
			{Name: "shared", Command: "user-shared"},
			{Name: "userOnly", Command: "user-only"},
			{Name: "other", Command: "project-other", Trust: true},
			{Name: "projectOnly", Command: "project-only"},
		},
		Files: []string{user, project},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("LoadSettings(user, missing, project) (-want +got):\n%s", diff)
	}
}

func TestLoadSettingsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"mcpServers\": 5\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"bad file", []string{filepath.Join("testdata", "settings", "user.json"), bad}, bad + `:2:17: mcpServers: want object, got number`},
		{"directory", []string{dir}, "reading settings: read " + dir + ": is a directory"}, // Linux wording
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := mcpbridge.LoadSettings(tt.paths, env(nil))
			if err == nil || err.Error() != tt.want || cfg != nil {
				t.Errorf("LoadSettings(%q) = %v, %v; want nil, %s", tt.paths, cfg, err, tt.want)
			}
		})
	}
}

// TestLoadSettingsDefaultPaths: no paths means the user's then the
// project's settings.json, the project's left out in the home directory and
// when absent.
func TestLoadSettingsDefaultPaths(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	write := func(dir, server string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".gemini"), 0o755); err != nil {
			t.Fatal(err)
		}
		data := `{"mcpServers": {"` + server + `": {"command": "x"}}}`
		if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(home, ".gemini", "settings.json")
	load := func(paths []string) (files, servers []string) {
		t.Helper()
		cfg, err := mcpbridge.LoadSettings(paths, nil)
		if err != nil {
			t.Fatalf("LoadSettings(%q) = %v", paths, err)
		}
		for _, s := range cfg.Servers {
			servers = append(servers, s.Name)
		}
		return cfg.Files, servers
	}
	tests := []struct {
		name               string
		paths              []string
		dir                string
		withProject        bool
		wantFiles, wantSrv []string
	}{
		{"nil: user only", nil, project, false, []string{user}, []string{"u"}},
		{"nil: user then project", nil, project, true, []string{user, filepath.Join(".gemini", "settings.json")}, []string{"u", "p"}},
		{"empty: the same", []string{}, project, true, []string{user, filepath.Join(".gemini", "settings.json")}, []string{"u", "p"}},
		{"nil in the home directory: user once", nil, home, false, []string{user}, []string{"u"}},
	}
	write(home, "u")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.dir)
			if tt.withProject {
				write(tt.dir, "p")
				defer os.RemoveAll(filepath.Join(tt.dir, ".gemini"))
			}
			files, servers := load(tt.paths)
			if !slices.Equal(files, tt.wantFiles) || !slices.Equal(servers, tt.wantSrv) {
				t.Errorf("LoadSettings(%#v) read %q with servers %q, want %q with %q", tt.paths, files, servers, tt.wantFiles, tt.wantSrv)
			}
		})
	}
}

func TestServerConfigTransport(t *testing.T) {
	tests := []struct {
		name     string
		cfg      mcpbridge.ServerConfig
		want     mcpbridge.Transport
		fallback bool
		endpoint string
	}{
		{"command", mcpbridge.ServerConfig{Command: "x"}, mcpbridge.TransportStdio, false, ""},
		{"url", mcpbridge.ServerConfig{URL: "http://h/sse"}, mcpbridge.TransportSSE, true, "http://h/sse"},
		{"url sse", mcpbridge.ServerConfig{URL: "http://h/sse", Type: "sse"}, mcpbridge.TransportSSE, false, "http://h/sse"},
		{"url http", mcpbridge.ServerConfig{URL: "http://h/mcp", Type: "http"}, mcpbridge.TransportHTTP, false, "http://h/mcp"},
		{"httpUrl", mcpbridge.ServerConfig{HTTPURL: "http://h/mcp"}, mcpbridge.TransportHTTP, false, "http://h/mcp"},
		{"none", mcpbridge.ServerConfig{}, "", false, ""},
		{"two", mcpbridge.ServerConfig{Command: "x", URL: "http://h"}, "", false, "http://h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.Transport(); got != tt.want {
				t.Errorf("Transport() = %v, want %v", got, tt.want)
			}
			if got := tt.cfg.AllowsHTTPFallback(); got != tt.fallback {
				t.Errorf("AllowsHTTPFallback() = %v, want %v", got, tt.fallback)
			}
			if got := tt.cfg.Endpoint(); got != tt.endpoint {
				t.Errorf("Endpoint() = %q, want %q", got, tt.endpoint)
			}
		})
	}
}

func TestEffectiveTimeout(t *testing.T) {
	const def = 600000 * time.Millisecond // Gemini CLI's default, 10 minutes
	for in, want := range map[time.Duration]time.Duration{0: def, -1: def, time.Second: time.Second} {
		if got := (mcpbridge.ServerConfig{Timeout: in}).EffectiveTimeout(); got != want {
			t.Errorf("EffectiveTimeout(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestAllowsTool(t *testing.T) {
	tests := []struct {
		name             string
		include, exclude []string
		tool             string
		want             bool
	}{
		{"no filters", nil, nil, "any", true},
		{"empty include allows nothing", []string{}, nil, "any", false},
		{"included", []string{"a", "b"}, nil, "b", true},
		{"not included", []string{"a", "b"}, nil, "c", false},
		{"excluded", nil, []string{"c"}, "c", false},
		{"exclude wins over include", []string{"c"}, []string{"c"}, "c", false},
		{"include with arguments", []string{"run(git)"}, nil, "run", true},
		{"prefix is not a match", []string{"runner"}, nil, "run", false},
		{"case matters", []string{"Run"}, nil, "run", false},
		{"exclude with arguments is literal", nil, []string{"run(git)"}, "run", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mcpbridge.ServerConfig{IncludeTools: tt.include, ExcludeTools: tt.exclude}
			if got := s.AllowsTool(tt.tool); got != tt.want {
				t.Errorf("AllowsTool(%q) with include %q exclude %q = %v, want %v", tt.tool, tt.include, tt.exclude, got, tt.want)
			}
		})
	}
}

// TestParseSettingsIncludeTools follows Gemini CLI: a tool is used when
// includeTools is absent or lists it, so a present but empty list means no
// tools, with a warning; null is the same as absent.
func TestParseSettingsIncludeTools(t *testing.T) {
	tests := []struct {
		name        string
		include     string // the includeTools value; "" leaves the key out
		want        []string
		allowsEcho  bool
		wantWarning string
	}{
		{"absent", "", nil, true, ""},
		{"null", `null`, nil, true, ""},
		{"empty", `[]`, []string{}, false,
			`s.json:1:39: server "a": includeTools is empty, so none of its tools are used (as in Gemini CLI); remove the key to use them all`},
		{"lists echo", `["echo"]`, []string{"echo"}, true, ""},
		{"lists another", `["other"]`, []string{"other"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := `"command": "x"`
			if tt.include != "" {
				entry += `, "includeTools": ` + tt.include
			}
			cfg, err := mcpbridge.ParseSettings([]byte(`{"mcpServers": {"a": {`+entry+`}}}`), "s.json", env(nil))
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Servers[0].IncludeTools
			if diff := cmp.Diff(tt.want, got); diff != "" || (got == nil) != (tt.want == nil) {
				t.Errorf("IncludeTools = %#v, want %#v", got, tt.want)
			}
			if a := cfg.Servers[0].AllowsTool("echo"); a != tt.allowsEcho {
				t.Errorf(`AllowsTool("echo") = %v, want %v`, a, tt.allowsEcho)
			}
			var wantWarnings []string
			if tt.wantWarning != "" {
				wantWarnings = []string{tt.wantWarning}
			}
			if diff := cmp.Diff(wantWarnings, cfg.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerConfigValidate(t *testing.T) {
	ok := mcpbridge.ServerConfig{Name: "s", Command: "x"}
	with := func(f func(*mcpbridge.ServerConfig)) mcpbridge.ServerConfig {
		s := ok
		f(&s)
		return s
	}
	tests := []struct {
		name string
		cfg  mcpbridge.ServerConfig
		want string // "" for valid
	}{
		{"stdio", ok, ""},
		{"sse", mcpbridge.ServerConfig{Name: "s", URL: "https://h/sse", Type: "sse"}, ""},
		{"http", mcpbridge.ServerConfig{Name: "s", HTTPURL: "https://h/mcp", Headers: map[string]string{"X-Key": "v"}}, ""},
		{"no name", with(func(s *mcpbridge.ServerConfig) { s.Name = "" }), `server name must not be empty`},
		{"no endpoint", mcpbridge.ServerConfig{Name: "s"}, `server "s": one of command, url or httpUrl is required`},
		{"url and httpUrl", mcpbridge.ServerConfig{Name: "s", URL: "http://h", HTTPURL: "http://h"},
			`server "s": url and httpUrl are mutually exclusive; set exactly one of command, url or httpUrl`},
		{"bad type", mcpbridge.ServerConfig{Name: "s", URL: "http://h", Type: "HTTP"}, `server "s": type: must be "sse" or "http", got "HTTP"`},
		{"negative timeout", with(func(s *mcpbridge.ServerConfig) { s.Timeout = -time.Second }), `server "s": timeout: must not be negative`},
		{"url without host", mcpbridge.ServerConfig{Name: "s", URL: "http:///x"}, `server "s": url: must be an absolute http or https URL`},
		{"env empty name", with(func(s *mcpbridge.ServerConfig) { s.Env = map[string]string{"": "v"} }), `server "s": env: invalid variable name ""`},
		{"env NUL", with(func(s *mcpbridge.ServerConfig) { s.Env = map[string]string{"A": "x\x00"} }), `server "s": env.A: value must not contain NUL`},
		{"header colon", mcpbridge.ServerConfig{Name: "s", URL: "http://h", Headers: map[string]string{"A:B": "v"}}, `server "s": headers: invalid header name "A:B"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, mcpbridge.ErrInvalidConfig) {
					t.Errorf("errors.Is(%v, ErrInvalidConfig) = false", err)
				}
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	c := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "a", Command: "x"}, {Name: "b"}, {Name: "a", URL: "http://h"},
	}}
	want := "server \"b\": one of command, url or httpUrl is required\nserver \"a\": name used by more than one server"
	if err := c.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
}

func FuzzParseSettings(f *testing.F) {
	for _, name := range []string{"seed.json", "order.json", "user.json", "project.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "settings", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "{", `{"mcpServers": {"a": {"command": "$X${Y:-z}"}}}`, `/* */ // x`, `{"mcpServers": {"a": {"url": "http://h", "type": "http", "timeout": 1.5}}}`} {
		f.Add([]byte(s))
	}
	opts := env(map[string]string{"X": "x"})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := mcpbridge.ParseSettings(data, "f.json", opts)
		if err != nil {
			var ce *mcpbridge.ConfigError
			if !errors.As(err, &ce) || ce.File != "f.json" || ce.Line < 1 || ce.Column < 1 || !errors.Is(err, mcpbridge.ErrInvalidConfig) {
				t.Fatalf("ParseSettings error %v (%T) without a position", err, err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("ParseSettings(%q) gave a config that does not validate: %v", data, err)
		}
		again, err := mcpbridge.ParseSettings(data, "f.json", opts)
		if err != nil || !cmp.Equal(cfg, again) {
			t.Fatalf("ParseSettings(%q) not deterministic: %v", data, cmp.Diff(cfg, again))
		}
	})
}

func ExampleParseSettings() {
	settings := []byte(`{
  "theme": "GitHub",
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "env": {"API_KEY": "${EXTERNAL_API_KEY}"},
      "timeout": 15000
    },
    "httpServer": {"httpUrl": "http://localhost:3000/mcp", "trust": true}
  }
}`)
	opts := &mcpbridge.SettingsOptions{
		LookupEnv: func(string) (string, bool) { return "", false }, // nothing set
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	cfg, err := mcpbridge.ParseSettings(settings, "settings.json", opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Println(s.Name, s.Command, s.HTTPURL, s.Timeout, s.Trust)
	}
	for _, w := range cfg.Warnings {
		fmt.Println(w)
	}
	// Output:
	// pythonTools python  15s false
	// httpServer  http://localhost:3000/mcp 0s true
	// settings.json:7:14: server "pythonTools": env.API_KEY: environment variable "EXTERNAL_API_KEY" is not set; using ""
}

func ExampleLoadSettings() {
	// User settings first, then the project's; missing files are skipped.
	paths := []string{
		"testdata/settings/user.json",
		"testdata/settings/missing.json",
		"testdata/settings/project.json",
	}
	cfg, err := mcpbridge.LoadSettings(paths, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Files)
	for _, s := range cfg.Servers {
		fmt.Println(s.Name, s.Command, s.Trust)
	}
	// Output:
	// [testdata/settings/user.json testdata/settings/project.json]
	// shared user-shared false
	// userOnly user-only false
	// other project-other true
	// projectOnly project-only false
}
