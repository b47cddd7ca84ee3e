package egress

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfine(t *testing.T) {
	c := NewConfine("https://mcp.example.com/mcp", []string{"x-api-key", ""}, []string{"access_token"})
	req := func(raw string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer t0k")
		r.Header.Set("X-Api-Key", "k3y")
		r.Header["cookie"] = []string{"s=1"} // not canonical, set by hand
		r.Header.Set("Accept", "application/json")
		return r
	}
	t.Run("same origin keeps everything", func(t *testing.T) {
		in := req("https://MCP.example.com:443/mcp?access_token=t0k")
		if out := c.Request(in); out != in {
			t.Errorf("Request() returned a copy for the configured origin")
		}
	})
	for _, raw := range []string{
		"https://other.example.com/mcp?access_token=t0k&x=1",
		"http://mcp.example.com/mcp?access_token=t0k&x=1",
		"https://mcp.example.com:8443/mcp?access_token=t0k&x=1",
	} {
		t.Run(raw, func(t *testing.T) {
			in := req(raw)
			out := c.Request(in)
			if out == in {
				t.Fatal("Request() returned the request itself, want a copy without credentials")
			}
			if diff := cmp.Diff(http.Header{"Accept": {"application/json"}}, out.Header); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if got := out.URL.Query(); got.Has("access_token") || got.Get("x") != "1" {
				t.Errorf("query = %v, want x=1 without access_token", got)
			}
			if in.Header.Get("Authorization") == "" || !in.URL.Query().Has("access_token") {
				t.Error("the original request was modified")
			}
		})
	}
	t.Run("zero Confine strips everywhere", func(t *testing.T) {
		out := Confine{}.Request(req("https://mcp.example.com/mcp"))
		if out.Header.Get("Authorization") != "" || out.Header.Get("Cookie") != "" {
			t.Errorf("headers = %v, want no Authorization or Cookie", out.Header)
		}
	})
	if c.Allows(&url.URL{Path: "/relative"}) {
		t.Error("Allows(a URL without host) = true")
	}
}
