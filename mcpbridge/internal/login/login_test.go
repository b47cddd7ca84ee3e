package login

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChallengeScopes(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		want   []string
	}{
		{"none", nil, nil},
		{"quoted", []string{`Bearer resource_metadata="https://h/.well-known/x", scope="openid offline_access"`}, []string{"openid", "offline_access"}},
		{"bare token", []string{`Bearer scope=read, error="invalid_token"`}, []string{"read"}},
		{"other scheme first", []string{`Basic realm="x"`, `Bearer scope="a b"`}, []string{"a", "b"}},
		{"comma inside quotes", []string{`Bearer error_description="a, scope=x", scope="y"`}, []string{"y"}},
		{"unterminated", []string{`Bearer scope="a b`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tt.header {
				h.Add("WWW-Authenticate", v)
			}
			if diff := cmp.Diff(tt.want, challengeScopes(h)); diff != "" {
				t.Errorf("challengeScopes(%q) (-want +got):\n%s", tt.header, diff)
			}
		})
	}
}

func TestListen(t *testing.T) {
	ln, redirect, err := listen("")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, "/oauth/callback") {
		t.Errorf("listen(\"\") redirect = %q, want http://127.0.0.1:PORT/oauth/callback", redirect)
	}
	for _, bad := range []string{"https://app.example.com/cb", "http://example.com:7777/cb", "http://localhost/cb", "::"} {
		if ln, _, err := listen(bad); err == nil {
			ln.Close()
			t.Errorf("listen(%q) = nil error, want a refusal", bad)
		}
	}
}

func TestCallbackHandler(t *testing.T) {
	tests := []struct {
		name, query string
		status      int
		wantCode    string
		wantErr     string
	}{
		{"code", "?state=s1&code=c1", http.StatusOK, "c1", ""},
		{"wrong state", "?state=other&code=c1", http.StatusBadRequest, "", ""},
		{"no code", "?state=s1", http.StatusBadRequest, "", ""},
		{"refused", "?state=s1&error=access_denied&error_description=no", http.StatusOK, "", "access_denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan callback, 1)
			h := callbackHandler("/oauth/callback", "s1", "", "", got)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/oauth/callback"+tt.query, nil))
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d", rec.Code, tt.status)
			}
			select {
			case cb := <-got:
				if cb.code != tt.wantCode || (tt.wantErr == "") != (cb.err == nil) || (cb.err != nil && !strings.Contains(cb.err.Error(), tt.wantErr)) {
					t.Errorf("callback = %+v, want code %q, error %q", cb, tt.wantCode, tt.wantErr)
				}
			default:
				if tt.wantCode != "" || tt.wantErr != "" {
					t.Error("no callback delivered")
				}
			}
		})
	}
	rec := httptest.NewRecorder()
	callbackHandler("/oauth/callback", "s1", "", "", make(chan callback, 1)).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/other?state=s1&code=c", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("other path: status %d, want 404", rec.Code)
	}
}

// FuzzChallengeScopes feeds WWW-Authenticate values a server chose: the
// parser never panics, and every scope it returns is a non-empty token
// without spaces.
func FuzzChallengeScopes(f *testing.F) {
	for _, seed := range []string{
		`Bearer resource_metadata="https://h/x", scope="openid offline_access"`,
		`Bearer scope=read`, `Bearer scope="`, `Bearer ,,,=`, `bearer scope="a" scope="b"`, `Basic realm="x"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, s := range challengeScopes(http.Header{"Www-Authenticate": {v}}) {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				t.Errorf("challengeScopes(%q) gave scope %q", v, s)
			}
		}
	})
}
