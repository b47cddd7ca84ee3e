package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/expand"
	"github.com/mcpgenai/bridge/mcpbridge/internal/jsonc"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// SettingsOptions tune [ParseSettings] and [LoadSettings].
// A nil *SettingsOptions means the defaults of every field.
type SettingsOptions struct {
	// LookupEnv resolves $VAR references: it reports the value of the
	// environment variable name and whether it is set. Nil means
	// [os.LookupEnv].
	LookupEnv func(name string) (value string, ok bool)
	// Logger receives each warning at Warn level and each replaced entry at
	// Debug level. Nil means no logging: the warnings are in
	// [Config.Warnings] for the host to show once.
	Logger *slog.Logger
}

func (o *SettingsOptions) lookup() func(string) (string, bool) {
	if o == nil || o.LookupEnv == nil {
		return os.LookupEnv
	}
	return o.LookupEnv
}

func (o *SettingsOptions) logger() *slog.Logger {
	if o == nil || o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// defaultSettingsPaths returns the settings files Gemini CLI reads, in the
// order they apply, as [LoadSettings] documents them.
func defaultSettingsPaths() []string {
	project := filepath.Join(".gemini", "settings.json")
	home, err := os.UserHomeDir()
	if err != nil {
		return []string{project}
	}
	user := filepath.Join(home, ".gemini", "settings.json")
	hs, herr := os.Stat(home)
	ws, werr := os.Stat(".")
	if herr == nil && werr == nil && os.SameFile(hs, ws) {
		return []string{user}
	}
	return []string{user, project}
}

// LoadSettings reads the settings files in paths, in order, and merges
// their servers: a server named in a later file replaces the earlier entry
// of that name and takes its position; new names are appended. This is the
// result of Gemini CLI's object spread of user then project settings. Files
// that do not exist are skipped; Config.Files lists those read. Any other
// read error or any invalid file is an error and nothing is returned.
// Warnings of all files are kept in order. paths is not modified.
//
// If paths is empty (nil, say), LoadSettings reads the files Gemini CLI
// reads: the user's ~/.gemini/settings.json (left out when the home
// directory is unknown), then the project's .gemini/settings.json, relative
// to the working directory (left out when it is the user's file, that is
// when the working directory is the home directory).
func LoadSettings(paths []string, opts *SettingsOptions) (*Config, error) {
	if len(paths) == 0 {
		paths = defaultSettingsPaths()
	}
	cfg := &Config{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading settings: %w", err)
		}
		c, err := ParseSettings(data, path, opts)
		if err != nil {
			return nil, err
		}
		cfg.Files = append(cfg.Files, path)
		cfg.Warnings = append(cfg.Warnings, c.Warnings...)
		for _, name := range cfg.merge(c.Servers) {
			opts.logger().Debug("mcpbridge: settings entry replaced", "server", name, "file", path)
		}
	}
	return cfg, nil
}

// ParseSettings reads the mcpServers object of a Gemini CLI settings.json.
// file names the source in messages ("settings.json" if empty). data is not
// modified.
//
// Servers keep the order in which they are written. Comments (// and /* */,
// outside strings) are allowed, as Gemini CLI strips them; a leading UTF-8
// byte-order mark is ignored; an empty file is an empty configuration. Keys
// other than mcpServers are ignored. Within a server entry, unknown keys
// and null values are ignored, the former with a warning. When a file names
// a server (or a key within one) twice, the later value wins and keeps the
// earlier position, as JSON.parse does; a warning says so.
//
// Environment references ($VAR, ${VAR}, ${VAR:-default}, $$ for a literal
// $) are expanded in command, args, cwd, env values, url, httpUrl and header
// values, not in names. An unset variable becomes "" with a warning naming
// the variable, never a value. cwd is kept as written (see
// [ServerConfig].Cwd).
//
// Every problem is a *[ConfigError] with the file, line and column of the
// offending character: bad JSON, wrong types and invalid servers, all of
// them reported, joined with [errors.Join].
// On error the Config is nil. Warnings are also logged when
// [SettingsOptions].Logger is set.
func ParseSettings(data []byte, file string, opts *SettingsOptions) (*Config, error) {
	if file == "" {
		file = "settings.json"
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	p := &settingsParser{file: file, orig: data, data: data, lookup: opts.lookup()}
	clean, err := jsonc.StripComments(data)
	if err != nil {
		return nil, p.offsetError(err)
	}
	p.data = clean
	if err := jsonc.Check(clean); err != nil && len(bytes.TrimSpace(clean)) > 0 {
		return nil, p.offsetError(err)
	}
	servers, err := p.parse()
	if err == nil {
		err = errors.Join(p.errs...)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range p.warnings {
		opts.logger().Warn("mcpbridge: settings", "warning", w)
	}
	return &Config{Servers: servers, Warnings: p.warnings}, nil
}

// settingsParser gives the members of settings.json their meaning, in the
// order they are written; jsonc walks the text (comments already blanked)
// and says where each member is. Offsets index data, which has the same
// length as orig, the text as written.
type settingsParser struct {
	file     string
	orig     []byte // for lines and columns: comments may hold multi-byte text
	data     []byte // orig with comments blanked
	lookup   func(string) (string, bool)
	warnings []string
	errs     []error
	// secrets collects the expanded values of the server being parsed
	// that may be credentials.
	secrets []string
}

// errorAt places err at byte offset off of the file: a *ConfigError gets
// the position, any other error becomes the Err of one.
func (p *settingsParser) errorAt(off int, err error) *ConfigError {
	line, col := jsonc.Position(p.orig, off)
	ce := &ConfigError{Err: err}
	if c, ok := err.(*ConfigError); ok {
		ce = new(*c)
	}
	ce.File, ce.Line, ce.Column = p.file, line, col
	return ce
}

// offsetError places err at its offset when it is a *[jsonc.OffsetError],
// at the start of the file otherwise.
func (p *settingsParser) offsetError(err error) error {
	var oe *jsonc.OffsetError
	if !errors.As(err, &oe) {
		return p.errorAt(0, err)
	}
	return p.errorAt(oe.Offset, oe.Err)
}

func (p *settingsParser) warnAt(off int, format string, args ...any) {
	p.warnings = append(p.warnings, p.errorAt(off, fmt.Errorf(format, args...)).Error())
}

// parse walks the top-level object and returns the servers of mcpServers.
// A top level that is not an object is the only error it returns itself;
// field problems are collected in p.errs.
func (p *settingsParser) parse() ([]ServerConfig, error) {
	start := jsonc.SkipSpace(p.data, 0)
	if start == len(p.data) {
		return nil, nil
	}
	dec := jsonc.NewDecoder(p.data, 0)
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, p.errorAt(start, fmt.Errorf("settings must be a JSON object, got %s", jsonc.TokenKind(tok)))
	}
	var servers []ServerConfig
	seen := false
	for dec.More() {
		m := dec.Member()
		if m.Key != "mcpServers" {
			continue
		}
		if seen {
			p.warnAt(m.KeyOffset, "mcpServers given twice; the later one wins")
		}
		seen = true
		servers = p.parseServers(m.Value, m.ValueOffset)
	}
	return servers, nil
}

// parseServers reads the mcpServers object, whose raw bytes start at base.
func (p *settingsParser) parseServers(raw json.RawMessage, base int) []ServerConfig {
	dec := jsonc.NewDecoder(raw, base)
	tok, _ := dec.Token()
	if tok == nil {
		return nil
	}
	if tok != json.Delim('{') {
		p.errs = append(p.errs, p.errorAt(base, fmt.Errorf("mcpServers: want object, got %s", jsonc.TokenKind(tok))))
		return nil
	}
	var servers []ServerConfig
	index := make(map[string]int)
	for dec.More() {
		m := dec.Member()
		name, keyOff := m.Key, m.KeyOffset
		p.secrets = nil
		s, ok := p.parseServer(name, m.Value, keyOff, m.ValueOffset)
		s.Secrets = p.secrets
		if !ok {
			continue
		}
		if i, dup := index[name]; dup {
			p.warnAt(keyOff, "server %q: defined twice; the later entry wins", name)
			servers[i] = s
			continue
		}
		index[name] = len(servers)
		servers = append(servers, s)
	}
	return servers
}

// parseServer decodes one server entry, expands its variables and
// validates it. It reports whether the entry is usable; problems are
// recorded in p.errs.
func (p *settingsParser) parseServer(name string, raw json.RawMessage, keyOff, base int) (ServerConfig, bool) {
	s := ServerConfig{Name: name}
	dec := jsonc.NewDecoder(raw, base)
	tok, _ := dec.Token()
	if tok != json.Delim('{') {
		p.fail(base, name, "", "want object, got %s", jsonc.TokenKind(tok))
		return s, false
	}
	ok := true
	fieldOff := make(map[string]int)
	for dec.More() {
		m := dec.Member()
		key := m.Key
		if _, dup := fieldOff[key]; dup {
			p.warnAt(m.KeyOffset, "server %q: key %q given twice; the later value wins", name, key)
		}
		fieldOff[key] = m.ValueOffset
		v, err := jsonc.Decode(m.Value)
		if err != nil || v == nil {
			continue
		}
		if !p.field(&s, key, v, m.KeyOffset, m.ValueOffset) {
			ok = false
		}
	}
	if !ok {
		return s, false
	}
	if err := s.Validate(); err != nil {
		off := keyOff
		var ce *ConfigError
		if errors.As(err, &ce) && ce.Field != "" {
			f, _, _ := strings.Cut(ce.Field, ".")
			if o, found := fieldOff[f]; found {
				off = o
			}
		}
		p.errs = append(p.errs, p.errorAt(off, err))
		return s, false
	}
	return s, true
}

func (p *settingsParser) fail(off int, server, field, format string, args ...any) {
	p.errs = append(p.errs, p.errorAt(off, &ConfigError{Server: server, Field: field, Err: fmt.Errorf(format, args...)}))
}

// field stores the value v of key into s, expanding variables where the key
// allows them. It reports false after recording a type error.
func (p *settingsParser) field(s *ServerConfig, key string, v any, keyOff, off int) bool {
	str := func(dst *string, expandVars bool) bool {
		x, isString := v.(string)
		if !isString {
			p.fail(off, s.Name, key, "want string, got %s", jsonc.Kind(v))
			return false
		}
		if expandVars {
			x = p.expand(x, s.Name, key, off)
		}
		*dst = x
		return true
	}
	switch key {
	case "command":
		return str(&s.Command, true)
	case "cwd":
		return str(&s.Cwd, true)
	case "url":
		return str(&s.URL, true)
	case "httpUrl":
		return str(&s.HTTPURL, true)
	case "type":
		var t string
		ok := str(&t, false)
		s.Type = Transport(t)
		return ok
	case "protocol":
		return str(&s.Protocol, false)
	case "description":
		return str(&s.Description, false)
	case "args":
		return p.strings(&s.Args, v, s.Name, key, off, true)
	case "includeTools":
		if list, isList := v.([]any); isList && len(list) == 0 {
			p.warnAt(keyOff, "server %q: includeTools is empty, so none of its tools are used (as in Gemini CLI); remove the key to use them all", s.Name)
		}
		return p.strings(&s.IncludeTools, v, s.Name, key, off, false)
	case "excludeTools":
		return p.strings(&s.ExcludeTools, v, s.Name, key, off, false)
	case "env":
		return p.stringMap(&s.Env, v, s.Name, key, off)
	case "headers":
		return p.stringMap(&s.Headers, v, s.Name, key, off)
	case "trust":
		b, isBool := v.(bool)
		if !isBool {
			p.fail(off, s.Name, key, "want boolean, got %s", jsonc.Kind(v))
			return false
		}
		s.Trust = b
		return true
	case "timeout":
		return p.timeout(s, v, off)
	case "oauth":
		return p.oauth(s, v, off)
	case "authProviderType":
		var t string
		ok := str(&t, false)
		s.AuthProviderType = AuthProviderType(t)
		if t == "dynamic_discovery" {
			s.AuthProviderType = ""
		}
		return ok
	case "targetAudience":
		return str(&s.TargetAudience, true)
	case "targetServiceAccount":
		return str(&s.TargetServiceAccount, true)
	}
	if geminiOnlyKeys[key] {
		p.warnAt(keyOff, "server %q: ignoring Gemini CLI key %q, which mcpbridge does not support", s.Name, key)
	} else {
		p.warnAt(keyOff, "server %q: ignoring unknown key %q", s.Name, key)
	}
	return true
}

// geminiOnlyKeys are server keys newer Gemini CLI versions know and this
// package does not implement.
var geminiOnlyKeys = map[string]bool{
	"tcp": true, "extensionName": true,
}

func (p *settingsParser) timeout(s *ServerConfig, v any, off int) bool {
	n, isNumber := v.(json.Number)
	if !isNumber {
		p.fail(off, s.Name, "timeout", "want number of milliseconds, got %s", jsonc.Kind(v))
		return false
	}
	ms, err := strconv.ParseFloat(string(n), 64)
	switch {
	case err != nil || ms > float64(math.MaxInt64/int64(time.Millisecond)):
		p.fail(off, s.Name, "timeout", "%s milliseconds is too large", n)
		return false
	case ms < 0:
		p.fail(off, s.Name, "timeout", "must not be negative, got %s", n)
		return false
	}
	s.Timeout = time.Duration(ms * float64(time.Millisecond))
	return true
}

func (p *settingsParser) strings(dst *[]string, v any, server, key string, off int, expandVars bool) bool {
	list, isList := v.([]any)
	if !isList {
		p.fail(off, server, key, "want array of strings, got %s", jsonc.Kind(v))
		return false
	}
	out := make([]string, len(list))
	for i, e := range list {
		field := fmt.Sprintf("%s[%d]", key, i)
		x, isString := e.(string)
		if !isString {
			p.fail(off, server, field, "want string, got %s", jsonc.Kind(e))
			return false
		}
		if expandVars {
			x = p.expand(x, server, field, off)
		}
		out[i] = x
	}
	*dst = out
	return true
}

func (p *settingsParser) stringMap(dst *map[string]string, v any, server, key string, off int) bool {
	m, isMap := v.(map[string]any)
	if !isMap {
		p.fail(off, server, key, "want object of strings, got %s", jsonc.Kind(v))
		return false
	}
	out := make(map[string]string, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		field := key + "." + name
		x, isString := m[name].(string)
		if !isString {
			p.fail(off, server, field, "want string, got %s", jsonc.Kind(m[name]))
			return false
		}
		out[name] = p.expand(x, server, field, off)
	}
	*dst = out
	return true
}

// expand expands s and warns once per unset variable.
func (p *settingsParser) expand(s, server, field string, off int) string {
	out, missing := expand.String(s, func(name string) (string, bool) {
		v, ok := p.lookup(name)
		for _, secret := range secrets.Expanded(name, v) {
			if !slices.Contains(p.secrets, secret) {
				p.secrets = append(p.secrets, secret)
			}
		}
		return v, ok
	})
	for _, name := range missing {
		p.warnAt(off, "server %q: %s: environment variable %q is not set; using \"\"", server, field, name)
	}
	return out
}
