package mcpbridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// The Bridge redacts once, at its exits: everything it hands out (call
// results, events, errors, log records, the status) passes its redactor,
// which knows the secrets of every configured server (see [redactorFor])
// and the host's own (see [hostRedactor]). Everything it sends a server
// passes the same redactor on the way out (see [redactor.Hides]).
// Text the Bridge wrote itself (errors, logs, the status) also gets the
// generic rules of [secrets.Redactor.Text]; what a server sent (a tool's
// output) only loses the configured secrets, so ordinary output is never
// mangled.

// redactor is the Bridge's redactor with the exits it guards. It learns
// the credentials the Bridge obtains at run time (see [Bridge.learn]). The
// zero value knows no configured secret but applies the generic rules.
type redactor struct{ *secrets.Keyring }

// hostRedactor returns the redactor that knows the host's own credentials:
// those in its environment (see [secrets.HostSecrets]) and extra
// ([Options.Secrets]).
func hostRedactor(environ, extra []string) *secrets.Redactor {
	return secrets.New(secrets.Config{Secrets: append(secrets.HostSecrets(environ), extra...)})
}

// Hides and Apply are what every message to a server passes (an
// mcpconn.Outgoing, see mcpconn.Spec.Outgoing): the Bridge's own
// credentials, and the host's, replaced wherever they appear. The keyring
// learns credentials as they come, so both ask it each time; a Bridge
// that knows no secret (nothing configured, nothing learned yet) sends
// every message unread.
func (r redactor) Hides() bool { return r.HasConfigured() }

// Apply: see [redactor.Hides].
func (r redactor) Apply(b []byte) []byte {
	if !r.HasConfigured() {
		return b
	}
	s := string(b)
	if out := r.ReplaceConfigured(s); out != s {
		return []byte(out)
	}
	return b
}

// redactorFor returns the redactor that knows the secrets of cfg: its env,
// headers, endpoints, arguments, OAuth client secret and [ServerConfig.Secrets].
func redactorFor(cfg ServerConfig) *secrets.Redactor {
	c := secrets.Config{Env: cfg.Env, Headers: cfg.Headers, URLs: []string{cfg.URL, cfg.HTTPURL}, Command: cfg.Command, Args: cfg.Args, Secrets: cfg.Secrets}
	if o := cfg.OAuth; o != nil {
		c.ClientSecret = o.ClientSecret
		for _, v := range []string{o.PrivateKey, o.IDPClientSecret, o.IDToken, o.Assertion, o.DPoPKey} {
			if v != "" {
				c.Secrets = append(slices.Clip(c.Secrets), v)
			}
		}
	}
	return secrets.New(c)
}

// redactedError is an error whose message was redacted. It unwraps to the
// original, so errors.Is and errors.As work as before.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// The texts a person may see are also cleaned at the exits (see
// [result.CleanText]): no escape sequence, control, bidirectional or
// invisible character of a server's or a model's text reaches a terminal,
// and each text is bounded.
const (
	// maxErrorBytes bounds the text of an error at an exit.
	maxErrorBytes = 16 << 10
	// maxNoteBytes bounds a short text: [Progress.Message], the URI of an
	// [Event].
	maxNoteBytes = 4 << 10
)

// shown returns s, a text a person may see, cleaned for a terminal,
// passed through redact and cut to limit bytes (negative: no limit).
// Cleaning comes first, so that an escape sequence inside a secret cannot
// hide it from redact, and cutting last, so that no secret is cut in two.
func shown(s string, redact func(string) string, limit int) string {
	return result.CleanText(redact(result.CleanText(s, -1)), limit)
}

// redactErr returns err with a redacted and cleaned message (see
// [shown]); err itself when nothing changed (so sentinels stay comparable
// with ==), nil for nil.
func (r redactor) redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := shown(msg, r.Text, maxErrorBytes); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// redactResult redacts res in place (the Bridge built it and nobody else
// holds it yet): configured secrets go from what the server sent, and the
// generic rules apply as well to what the Bridge wrote (the error of a call
// it could not make or finish). What a person sees, ReturnDisplay and the
// error's text, is also cleaned and bounded (see [shown]).
func (r redactor) redactResult(res *CallResult) {
	text := r.ReplaceConfigured
	if res.Err != nil && !res.serverError {
		text = r.Text
	}
	for i, p := range res.LLMContent {
		if p != nil && p.Text != "" {
			if t := text(p.Text); t != p.Text {
				cp := *p
				cp.Text = t
				res.LLMContent[i] = &cp
			}
		}
	}
	res.ReturnDisplay = shown(res.ReturnDisplay, text, displayLimit)
	if res.Err != nil {
		if msg := res.Err.Error(); shown(msg, text, maxErrorBytes) != msg {
			res.Err = &redactedError{msg: shown(msg, text, maxErrorBytes), err: res.Err}
		}
	}
	if r.HasConfigured() {
		res.structured = r.redactJSON(res.structured)
		res.serverStructured = r.redactJSON(res.serverStructured)
	}
}

// redactJSON returns decoded JSON v with configured secrets replaced in
// every string and object key; v is not modified.
func (r redactor) redactJSON(v any) any {
	switch v := v.(type) {
	case string:
		return r.ReplaceConfigured(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[r.ReplaceConfigured(k)] = r.redactJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = r.redactJSON(e)
		}
		return out
	}
	return v
}

// redactParts returns parts with configured secrets replaced in their text;
// parts is not modified.
func (r redactor) redactParts(parts []*genai.Part) []*genai.Part {
	for i, p := range parts {
		if p != nil && p.Text != "" {
			if t := r.ReplaceConfigured(p.Text); t != p.Text {
				cp := *p
				cp.Text = t
				parts[i] = &cp
			}
		}
	}
	return parts
}

// redactHandler is a slog.Handler that redacts every record before the
// handler it wraps sees it: the message, and every attribute value as text
// (errors and other values are turned into their redacted text when
// redaction changed them).
type redactHandler struct {
	r     redactor
	inner slog.Handler
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Text(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &redactHandler{r: h.r, inner: h.inner.WithAttrs(red)}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{r: h.r, inner: h.inner.WithGroup(name)}
}

// attr returns a with its value redacted.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Text(v.String()))
	case slog.KindGroup:
		group := v.Group()
		red := make([]any, len(group))
		for i, g := range group {
			red[i] = h.attr(g)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		default:
			b, err := json.Marshal(x)
			if err != nil {
				return slog.String(a.Key, h.r.Text(v.String()))
			}
			s = string(b)
		}
		if red := h.r.Text(s); red != s {
			return slog.String(a.Key, red)
		}
		return slog.Attr{Key: a.Key, Value: v}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
