package egress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// MaxBody bounds every response body the login reads: metadata, client
// registration, tokens and errors. Real ones are a few KiB.
const MaxBody = 256 << 10

// MaxExcerpt bounds the part of an error body that an error text quotes.
const MaxExcerpt = 300

// ErrBodyTooLarge is the read error of a response body longer than
// [MaxBody].
var ErrBodyTooLarge = errors.New("response body too large")

// Bound returns base (http.DefaultTransport when nil) with every response
// body limited to [MaxBody] bytes: reading past it fails with an error
// wrapping [ErrBodyTooLarge], and the connection is dropped when the body
// is closed, so the rest is never read.
//
// The body of an error status (400 and above) is read at once, within the
// same bound, and replaced by a short one: an OAuth error object keeps its
// error code and the first [MaxExcerpt] bytes of its description and URI;
// anything else becomes its first MaxExcerpt bytes, valid UTF-8, with the
// length that was cut. An error text that quotes the body is thereby short.
func Bound(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return bound{base}
}

type bound struct{ base http.RoundTripper }

func (b bound) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	if resp.StatusCode < 400 {
		resp.Body = &limited{rc: resp.Body, left: MaxBody}
		return resp, nil
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	resp.Body.Close()
	short := Excerpt(data, rerr != nil || len(data) > MaxBody)
	resp.Body = io.NopCloser(bytes.NewReader(short))
	resp.ContentLength = int64(len(short))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// limited is a response body that fails once more than left bytes were
// read from it.
type limited struct {
	rc   io.ReadCloser
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("%w: over %d KiB", ErrBodyTooLarge, MaxBody>>10)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, fmt.Errorf("%w: over %d KiB", ErrBodyTooLarge, MaxBody>>10)
	}
	return n, err
}

func (l *limited) Close() error { return l.rc.Close() }

// Excerpt returns the short form of an error body (see [Bound]); cut says
// that body is only the beginning of a longer one. The result is at most
// a few times MaxExcerpt bytes, whatever body holds.
func Excerpt(body []byte, cut bool) []byte {
	if len(body) <= MaxExcerpt && !cut {
		return body
	}
	var oe struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
		URI         string `json:"error_uri,omitempty"`
	}
	if !cut && json.Unmarshal(body, &oe) == nil && oe.Error != "" {
		oe.Error = clip(oe.Error, 64)
		oe.Description = clip(oe.Description, MaxExcerpt)
		oe.URI = clip(oe.URI, MaxExcerpt)
		if out, err := json.Marshal(oe); err == nil {
			return out
		}
	}
	var b strings.Builder
	b.WriteString(clip(string(body), MaxExcerpt))
	if cut {
		fmt.Fprintf(&b, " [cut: more than %d KiB]", MaxBody>>10)
	} else if len(body) > MaxExcerpt {
		fmt.Fprintf(&b, " [cut: %d bytes in all]", len(body))
	}
	return []byte(b.String())
}

// clip returns s cut to at most n bytes, valid UTF-8, with "…" when cut.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
