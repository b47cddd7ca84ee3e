package mcpconn

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// bearer is an Authorizer with a token that Unauthorized renews once.
type bearer struct {
	mu       sync.Mutex
	tok      string
	renewed  bool
	accepted int
}

func (b *bearer) Authorization(context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return "Bearer " + b.tok, nil
}

func (b *bearer) Unauthorized(_ context.Context, _ *http.Response, sent string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.renewed {
		return false
	}
	b.renewed, b.tok = true, "fresh"
	return true
}

func (b *bearer) Accepted(context.Context) {
	b.mu.Lock()
	b.accepted++
	b.mu.Unlock()
}

func TestAuthTransport(t *testing.T) {
	type seen struct{ auth, query, body string }
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Header.Get("Authorization"), r.URL.RawQuery, string(body)})
		mu.Unlock()
		if !strings.Contains(r.Header.Get("Authorization")+r.URL.RawQuery, "fresh") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	tests := []struct {
		name, param string
		want        []seen
	}{
		{"header", "", []seen{{"Bearer stale", "x=1", "payload"}, {"Bearer fresh", "x=1", "payload"}}},
		{"query parameter", "access_token", []seen{{"", "access_token=stale&x=1", "payload"}, {"", "access_token=fresh&x=1", "payload"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			a := &bearer{tok: "stale"}
			c := &http.Client{Transport: &authTransport{auth: a, param: tt.param, confine: egress.NewConfine(srv.URL, nil, []string{tt.param}), base: http.DefaultTransport}}
			resp, err := c.Post(srv.URL+"/mcp?x=1", "text/plain", strings.NewReader("payload"))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || string(body) != "ok" {
				t.Errorf("response %s %q, want 200 ok after one renewal", resp.Status, body)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tt.want) {
				t.Fatalf("requests = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("request %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
			if a.accepted != 1 {
				t.Errorf("Accepted called %d times, want 1", a.accepted)
			}
		})
	}
}

// TestAuthTransportOtherOrigin: a request to another origin than the
// configured one gets no credentials, and its 401 is not shown to the
// Authorizer as the server's challenge.
func TestAuthTransportOtherOrigin(t *testing.T) {
	var got []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+"?"+r.URL.RawQuery)
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://evil.example/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	for _, param := range []string{"", "access_token"} {
		a := &bearer{tok: "stale"}
		c := &http.Client{Transport: &authTransport{auth: a, param: param, confine: egress.NewConfine("http://127.0.0.1:1/mcp", nil, []string{param}), base: http.DefaultTransport}}
		resp, err := c.Get(other.URL + "/mcp?x=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || a.renewed {
			t.Errorf("param %q: status %d, renewed %v; want the 401 passed on and the Authorizer not told", param, resp.StatusCode, a.renewed)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != "?x=1" || got[1] != "?x=1" {
		t.Errorf("the other origin saw %q, want two requests without credentials", got)
	}
}
