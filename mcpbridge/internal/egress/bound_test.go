package egress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// TestBoundSuccess: a 200 body of exactly MaxBody bytes is read whole; one
// byte more fails with ErrBodyTooLarge; an endless body stops being read.
func TestBoundSuccess(t *testing.T) {
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			_, _ = w.Write(bytes.Repeat([]byte("a"), MaxBody))
		case "/over":
			_, _ = w.Write(bytes.Repeat([]byte("a"), MaxBody+1))
		case "/endless":
			buf := bytes.Repeat([]byte("a"), 32<<10)
			for written.Load() < 1<<30 {
				n, err := w.Write(buf)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: Bound(nil)}
	get := func(path string) ([]byte, error) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	if b, err := get("/exact"); err != nil || len(b) != MaxBody {
		t.Errorf("GET /exact = %d bytes, %v; want %d, nil", len(b), err, MaxBody)
	}
	if b, err := get("/over"); !errors.Is(err, ErrBodyTooLarge) || len(b) > MaxBody+1 {
		t.Errorf("GET /over = %d bytes, %v; want ErrBodyTooLarge", len(b), err)
	}
	if _, err := get("/endless"); !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("GET /endless: %v, want ErrBodyTooLarge", err)
	}
	srv.Close() // waits for the handler, which ends when its writes fail
	if w := written.Load(); w > 32<<20 {
		t.Errorf("server wrote %d MiB of the endless body, want the connection dropped after the bound", w>>20)
	}
	t.Logf("endless body: server wrote %d KiB", written.Load()>>10)
}

// TestBoundErrors: error bodies become short.
func TestBoundErrors(t *testing.T) {
	long := strings.Repeat("é", 2000) // 4000 bytes
	bodies := map[string]string{
		"/small":     `{"error":"invalid_grant"}`,
		"/oauth":     fmt.Sprintf(`{"error":"invalid_grant","error_description":%q,"padding":%q}`, long, long),
		"/text":      long,
		"/huge-json": fmt.Sprintf(`{"error":"invalid_grant","error_description":%q}`, strings.Repeat("d", 8<<20)),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, bodies[r.URL.Path])
	}))
	defer srv.Close()
	c := &http.Client{Transport: Bound(nil)}
	get := func(path string) string {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ContentLength != int64(len(b)) {
			t.Errorf("GET %s: ContentLength %d, body %d bytes", path, resp.ContentLength, len(b))
		}
		return string(b)
	}
	if got := get("/small"); got != bodies["/small"] {
		t.Errorf("GET /small = %q, want it unchanged", got)
	}
	var oe map[string]string
	got := get("/oauth")
	if err := json.Unmarshal([]byte(got), &oe); err != nil || oe["error"] != "invalid_grant" || len(oe["error_description"]) > MaxExcerpt+len("…") || oe["padding"] != "" {
		t.Errorf("GET /oauth = %q, want the OAuth error with a clipped description only", got)
	}
	if got := get("/text"); !strings.HasSuffix(got, "[cut: 4000 bytes in all]") || len(got) > MaxExcerpt+40 || !utf8.ValidString(got) {
		t.Errorf("GET /text = %q, want %d bytes of valid UTF-8 and the length", got, MaxExcerpt)
	}
	if got := get("/huge-json"); !strings.HasSuffix(got, "[cut: more than 256 KiB]") || len(got) > MaxExcerpt+40 {
		t.Errorf("GET /huge-json = %q, want a short excerpt", got)
	}
}

// FuzzExcerpt: whatever the body, the excerpt is short, valid UTF-8 and
// the same for the same input.
func FuzzExcerpt(f *testing.F) {
	f.Add([]byte(`{"error":"x","error_description":"y"}`), false)
	f.Add([]byte(strings.Repeat("\xff\xfe", 400)), true)
	f.Add([]byte(`{"error":"`+strings.Repeat("é", 300)+`"}`), false)
	f.Fuzz(func(t *testing.T, body []byte, cut bool) {
		got := Excerpt(body, cut)
		if len(got) > 3*MaxExcerpt+200 {
			t.Fatalf("Excerpt(%d bytes) = %d bytes", len(body), len(got))
		}
		if (len(body) > MaxExcerpt || cut) && !utf8.Valid(got) {
			t.Fatalf("Excerpt = %q, not valid UTF-8", got)
		}
		if again := Excerpt(body, cut); !bytes.Equal(got, again) {
			t.Fatalf("Excerpt not deterministic: %q then %q", got, again)
		}
	})
}
