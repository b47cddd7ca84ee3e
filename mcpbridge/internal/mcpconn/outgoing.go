package mcpconn

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

// What the client sends a server passes Spec.Outgoing once, where it
// leaves: each line written to a stdio server (mcp-go writes one message
// per write), the body of each HTTP request to the server, and the values
// of the Mcp-Param-* headers that mirror a call's arguments. The Bridge
// hides its own credentials there (the host's, every server's, every
// token it learned), so that no text a model or a person wrote and no
// answer of the host's model carries one to any server, whatever path it
// took. Configured headers and tokens travel as they must, outside the
// body; the login's requests do not pass here.

// Outgoing hides what must not leave the client in what it sends a
// server (see Spec.Outgoing). Its methods are called concurrently.
type Outgoing interface {
	// Hides reports whether there is anything to hide now: when it is
	// false, a message goes as it is, unread (most messages of most
	// Bridges, and then nothing is copied or scanned).
	Hides() bool
	// Apply returns msg with what it hides replaced, msg itself when
	// there is nothing to replace; it must not modify msg.
	Apply(msg []byte) []byte
}

// outgoingWriter is a stdio server's stdin, each write passing o.
type outgoingWriter struct {
	w io.WriteCloser
	o Outgoing
}

func (o outgoingWriter) Write(p []byte) (int, error) {
	msg := p
	if o.o.Hides() {
		msg = o.o.Apply(p)
	}
	if _, err := o.w.Write(msg); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (o outgoingWriter) Close() error { return o.w.Close() }

// stdinFor returns the writer of a stdio server's stdin: passing
// Spec.Outgoing when there is one.
func (s *Spec) stdinFor(w io.WriteCloser) io.WriteCloser {
	if s.Outgoing == nil {
		return w
	}
	return outgoingWriter{w, s.Outgoing}
}

// outgoingRequest returns req with its body and Mcp-Param-* header values
// passed through o: req itself when nothing changed (or o hides nothing
// now, or is nil), else a copy. A body that cannot be read is left as it
// is, for the transport to report.
func outgoingRequest(req *http.Request, o Outgoing) *http.Request {
	if o == nil || !o.Hides() {
		return req
	}
	f := o.Apply
	var body []byte
	changed := false
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{err}))
			return req
		}
		body = b
		if out := f(b); !bytes.Equal(out, b) {
			body, changed = out, true
		}
		req.Body = io.NopCloser(bytes.NewReader(body)) // read again below or by the transport
	}
	var header http.Header
	for k, vs := range req.Header {
		if !isParamHeader(k) {
			continue
		}
		for i, v := range vs {
			if out := f([]byte(v)); string(out) != v {
				if header == nil {
					header = req.Header.Clone()
				}
				header[k][i] = string(out)
			}
		}
	}
	if !changed && header == nil {
		return req
	}
	out := req.Clone(req.Context())
	if header != nil {
		out.Header = header
	}
	if changed {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return out
}

// isParamHeader reports whether the header named k mirrors a call's
// argument (Mcp-Param-*, in any case).
func isParamHeader(k string) bool {
	const prefix = "Mcp-Param-"
	return len(k) >= len(prefix) && strings.EqualFold(k[:len(prefix)], prefix)
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
