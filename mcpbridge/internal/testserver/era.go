package testserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Era chooses which protocol revisions a test server accepts. mcp-go's
// server speaks both; a gate in front of it refuses what the chosen era
// does not know, the way a server of only one era would.
type Era int

// The eras.
const (
	// EraBoth serves the initialize handshake and 2026-07-28 requests.
	EraBoth Era = iota
	// EraLegacy answers server/discover with "method not found", as a
	// server older than 2026-07-28 does.
	EraLegacy
	// EraLegacySilent never answers server/discover (stdio only; over
	// HTTP it is EraLegacy).
	EraLegacySilent
	// EraModern refuses initialize and every request whose _meta does not
	// name a 2026-07-28 protocol version, with error -32022 (over HTTP with
	// status 400), and answers GET and DELETE with 405.
	EraModern
	// EraLegacyEmpty answers server/discover with an empty result, as a
	// legacy server that answers every unknown method so does.
	EraLegacyEmpty
	// EraModernRefuseFirst is EraModern that also refuses the first
	// request it is sent, whatever its version, with -32022 listing
	// 2026-07-28 as supported: a server replaced between two requests.
	// Over HTTP only (over stdio it is EraModern).
	EraModernRefuseFirst
	// EraModernNoMethod is EraModern that answers initialize with "method
	// not found", as a server that knows only 2026-07-28's methods does.
	EraModernNoMethod
)

// ParseEra returns the Era named "both", "legacy", "legacy-silent",
// "modern", "legacy-empty", "modern-refuse-first" or "modern-nomethod".
func ParseEra(s string) (Era, error) {
	for e, n := range eraNames {
		if n == s {
			return Era(e), nil
		}
	}
	return 0, fmt.Errorf("unknown era %q", s)
}

var eraNames = []string{"both", "legacy", "legacy-silent", "modern", "legacy-empty", "modern-refuse-first", "modern-nomethod"}

// String returns the name ParseEra accepts.
func (e Era) String() string { return eraNames[e] }

// verdict is what the gate does with one incoming message.
type verdict int

const (
	pass verdict = iota
	drop
	refuse
	unknownMethod
	emptyResult
)

// judge decides what era e does with the JSON-RPC message msg.
func (e Era) judge(msg []byte) (verdict, json.RawMessage, string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return pass, nil, "" // responses, notifications, garbage: mcp-go decides
	}
	switch e {
	case EraLegacy:
		if m.Method == string(mcp.MethodServerDiscover) {
			return unknownMethod, m.ID, m.Method
		}
	case EraLegacySilent:
		if m.Method == string(mcp.MethodServerDiscover) {
			return drop, m.ID, m.Method
		}
	case EraLegacyEmpty:
		if m.Method == string(mcp.MethodServerDiscover) {
			return emptyResult, m.ID, m.Method
		}
	case EraModernNoMethod:
		if m.Method == string(mcp.MethodInitialize) {
			return unknownMethod, m.ID, m.Method
		}
		if !mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion()) {
			return refuse, m.ID, m.Params.Meta.ProtocolVersion()
		}
	case EraModern, EraModernRefuseFirst:
		if !mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion()) {
			return refuse, m.ID, m.Params.Meta.ProtocolVersion()
		}
	}
	return pass, nil, ""
}

// errorLine is the JSON-RPC error response of verdict v for request id
// (for emptyResult, an empty result).
func errorLine(v verdict, id json.RawMessage, detail string) []byte {
	if v == emptyResult {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{}})
		return append(b, '\n')
	}
	var code int
	var msg string
	var data any
	switch v {
	case refuse:
		code = mcp.UNSUPPORTED_PROTOCOL_VERSION
		msg = fmt.Sprintf("unsupported protocol version %q: this server speaks only %s", detail, mcp.ProtocolVersion20260728)
		data = mcp.UnsupportedProtocolVersionData{Supported: []string{mcp.ProtocolVersion20260728}, Requested: detail}
	default:
		code = mcp.METHOD_NOT_FOUND
		msg = "method not found: " + detail
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg, "data": data},
	})
	return append(b, '\n')
}

// GateStdio runs the gate of era e between in and out for a stdio server:
// it returns the reader the server should read its requests from and the
// writer it should write to. Refusals are written to out between the
// server's own lines, never inside one; an ignored request is logged to
// stderr as "mcptest: ignored <method>".
func GateStdio(e Era, in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	if e == EraBoth {
		return in, out
	}
	w := &lineWriter{out: out}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			switch v, id, detail := e.judge(line); v {
			case pass:
				if _, err := pw.Write(append(bytes.Clone(line), '\n')); err != nil {
					return
				}
			case drop:
				fmt.Fprintf(os.Stderr, "mcptest: ignored %s\n", detail)
			default:
				_, _ = w.writeLine(errorLine(v, id, detail))
			}
		}
		_ = pw.CloseWithError(sc.Err())
	}()
	return pr, w
}

// lineWriter writes whole lines to out, one at a time.
type lineWriter struct {
	mu  sync.Mutex
	out io.Writer
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if i := bytes.LastIndexByte(w.buf, '\n'); i >= 0 {
		_, err := w.out.Write(w.buf[:i+1])
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
		if err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (w *lineWriter) writeLine(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(b)
}

// gateHTTP puts the gate of era e in front of a streamable-HTTP handler,
// or of an SSE server's message endpoint (sse set): there a refusal is an
// HTTP 400, since answers travel on the event stream.
func gateHTTP(e Era, sse bool, next http.Handler) http.Handler {
	if e == EraLegacySilent {
		e = EraLegacy // an HTTP server answers every POST
	}
	if e == EraBoth {
		return next
	}
	var refused atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (e == EraModern || e == EraModernRefuseFirst || e == EraModernNoMethod) && r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := postBody(w, r)
		if !ok {
			return
		}
		v, id, detail := e.judge(body)
		if e == EraModernRefuseFirst && v == pass {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Meta *mcp.Meta `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) == nil && len(m.ID) > 0 && !refused.Swap(true) {
				v, id, detail = refuse, m.ID, m.Params.Meta.ProtocolVersion()
			}
		}
		switch v {
		case pass, drop:
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			return
		case refuse:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", "application/json")
			if sse {
				w.WriteHeader(http.StatusBadRequest)
			}
		}
		_, _ = w.Write(errorLine(v, id, detail))
	})
}

// HoldDiscover returns a writer to out that writes each line holding a
// server/discover result (it names "supportedVersions") d late, and every
// other line at once: a server that answers the handshake in time but the
// probe only late, as a server that handles requests concurrently may.
func HoldDiscover(out io.Writer, d time.Duration) io.Writer {
	return &discoverHolder{out: &lineWriter{out: out}, d: d}
}

type discoverHolder struct {
	out *lineWriter
	d   time.Duration
	buf []byte
	mu  sync.Mutex
}

func (h *discoverHolder) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf = append(h.buf, p...)
	for {
		i := bytes.IndexByte(h.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.Clone(h.buf[:i+1])
		h.buf = h.buf[i+1:]
		if bytes.Contains(line, []byte(`"supportedVersions"`)) {
			time.AfterFunc(h.d, func() { _, _ = h.out.writeLine(line) })
			continue
		}
		if _, err := h.out.writeLine(line); err != nil {
			return 0, err
		}
	}
}

// postBody reads the body of r (16 MiB at most) and puts it back for
// the next handler; it answers 400 itself, and reports false, when the
// body cannot be read.
func postBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// delayDiscover holds each server/discover POST for d (or until the
// client gives up on it) before next sees it.
func delayDiscover(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, ok := postBody(w, r)
			if !ok {
				return
			}
			if bytes.Contains(body, []byte(`"server/discover"`)) {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-r.Context().Done():
					t.Stop()
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}
