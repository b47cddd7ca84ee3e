package egress

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestLoginClientRedirects: a token request (a POST with the code and the
// client's secret) redirected with 307 to another origin is refused and
// that origin gets nothing; a GET is followed there without Authorization;
// a redirect within the origin keeps everything.
func TestLoginClientRedirects(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" body="+string(body))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/token", "/meta":
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusTemporaryRedirect)
		case "/here":
			_, _ = io.WriteString(w, r.Header.Get("Authorization"))
		}
	}))
	defer home.Close()
	c := LoginClient(nil, home.URL+"/mcp")

	// A client rebuilt around the login client's transport, as mcp-go's
	// handler gets one, keeps the rule.
	for _, hc := range []*http.Client{c, {Transport: c.Transport}} {
		resp, err := hc.PostForm(home.URL+"/token", url.Values{"code": {"c0de"}, "client_secret": {"s3cret"}})
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrCrossOriginRedirect) {
			t.Errorf("POST /token redirected elsewhere = %v, want ErrCrossOriginRedirect", err)
		}
	}

	req, _ := http.NewRequest(http.MethodGet, home.URL+"/meta", nil)
	req.Header.Set("Authorization", "Bearer t0k")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	req, _ = http.NewRequest(http.MethodGet, home.URL+"/moved", nil)
	req.Header.Set("Authorization", "Bearer t0k")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "Bearer t0k" {
		t.Errorf("a redirect within the origin arrived with Authorization %q, want it kept", b)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "GET /meta auth= body=" {
		t.Errorf("the other origin saw %q, want only the GET without Authorization", seen)
	}
	for _, s := range seen {
		if strings.Contains(s, "s3cret") || strings.Contains(s, "c0de") {
			t.Errorf("the other origin got the token request: %q", s)
		}
	}
}

// TestCheckAuthorizationURL covers the bounds on the URL a login shows.
func TestCheckAuthorizationURL(t *testing.T) {
	server := "https://mcp.example.com/mcp"
	if err := CheckAuthorizationURL("https://auth.example.com/authorize?scope=a+b", server); err != nil {
		t.Errorf("a plain URL: %v", err)
	}
	if err := CheckAuthorizationURL("https://auth.example.com/authorize?scope="+strings.Repeat("s+", 5000), server); !errors.Is(err, ErrAuthorizationURLTooLong) {
		t.Errorf("a 10 KB URL: %v, want ErrAuthorizationURLTooLong", err)
	}
	if err := CheckAuthorizationURL("http://169.254.169.254/authorize", server); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("a metadata address: %v, want ErrForbiddenAddress", err)
	}
	if err := CheckAuthorizationURL("http://169.254.169.254/authorize", "http://169.254.169.254/mcp"); err != nil {
		t.Errorf("a metadata address for a server there: %v, want nil", err)
	}
}
