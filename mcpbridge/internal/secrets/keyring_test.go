package secrets

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestKeyringLearn(t *testing.T) {
	const tok = "tok+en/with=sign&more"
	k := NewKeyring(New(Config{Env: map[string]string{"API_TOKEN": "configured-1"}}))
	if got := k.Text("before " + tok); !strings.Contains(got, tok) {
		t.Fatalf("Text before Learn = %q, want the token still there (not yet known)", got)
	}
	k.Learn(tok, "")
	k.LearnClient("my client", "s3cret+/=")
	for _, text := range []string{
		tok, url.QueryEscape(tok), url.PathEscape(tok), `{"t":"tok+en/with=sign\u0026more"}`,
		"s3cret+/=", url.QueryEscape("s3cret+/="),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("my client:s3cret+/=")),
		base64.StdEncoding.EncodeToString([]byte(url.QueryEscape("my client") + ":" + url.QueryEscape("s3cret+/="))),
		"configured-1",
	} {
		got := k.ReplaceConfigured("x " + text + " y")
		for _, secret := range []string{tok, "s3cret", "configured-1", "with=sign", base64.StdEncoding.EncodeToString([]byte("my client:s3cret+/="))[:12]} {
			if strings.Contains(got, secret) {
				t.Errorf("ReplaceConfigured(%q) = %q, still holds %q", text, got, secret)
			}
		}
	}
	if !k.HasConfigured() {
		t.Errorf("HasConfigured() = false after Learn")
	}
}

func TestKeyringBounded(t *testing.T) {
	k := NewKeyring(nil)
	for i := range MaxLearned + 10 {
		k.Learn(fmt.Sprintf("credential-%04d", i))
	}
	if got := k.Text("credential-0000"); got != "credential-0000" {
		t.Errorf("Text(oldest) = %q, want it forgotten after %d newer credentials", got, MaxLearned)
	}
	last := fmt.Sprintf("credential-%04d", MaxLearned+9)
	if got := k.Text(last); got != Redacted {
		t.Errorf("Text(newest) = %q, want %q", got, Redacted)
	}
	if n := k.Known(); n != MaxLearned {
		t.Errorf("kept %d credentials, want %d", n, MaxLearned)
	}
}

// userToken returns the credentials of user u's token after its r-th
// refresh: access and refresh token (JWT-shaped, sharing a long prefix as
// real ones do), DPoP key, client ID and secret.
func userToken(u, r int) (access, refresh, dpop, clientID, secret string) {
	return fmt.Sprintf("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLSVkIn0.u%05d-r%05d-access", u, r),
		fmt.Sprintf("rt_u%05d_r%05d_0123456789abcdef", u, r),
		fmt.Sprintf("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI%05d\n-----END EC PRIVATE KEY-----\n", u),
		fmt.Sprintf("client-%05d", u), fmt.Sprintf("cs_%05d_secret+/=", u)
}

// learnToken learns user u's token after its r-th refresh as a token
// store's Save does.
func learnToken(k *Keyring, u, r int) {
	access, refresh, dpop, id, secret := userToken(u, r)
	o := Owner{User: fmt.Sprintf("user-%d", u), Name: "token https://mcp.example.com"}
	k.LearnFor(o, access, refresh, dpop)
	k.LearnClientFor(o, id, secret)
}

// TestKeyringOwnersKeepLive: 1,000 users' live credentials, each user
// refreshed a few times, with a flood of credentials no owner holds (more
// than the pool keeps), all stay known: none is forgotten because others
// were learned after it.
func TestKeyringOwnersKeepLive(t *testing.T) {
	const users, refreshes = 1000, 3
	k := NewKeyring(New(Config{Env: map[string]string{"API_TOKEN": "configured-token-1"}}))
	for r := range refreshes {
		for u := range users {
			learnToken(k, u, r)
			if u%97 == 0 {
				_ = k.Redactor() // snapshots along the way: parts stacked and merged
			}
		}
	}
	for i := range 2 * MaxLearned {
		k.Learn(fmt.Sprintf("code-%06d-abcdefgh", i))
	}
	r := k.Redactor()
	for u := range users {
		access, refresh, dpop, id, secret := userToken(u, refreshes-1)
		basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
		text := "echo: " + access + " " + refresh + " " + dpop + " " + url.QueryEscape(secret) + " " + basic
		got := r.ReplaceConfigured(text)
		for _, c := range []string{access, refresh, dpop, secret, url.QueryEscape(secret), basic[len("Basic "):]} {
			if strings.Contains(got, c) {
				t.Fatalf("user %d: ReplaceConfigured(%q) = %q still holds %q", u, text, got, c)
			}
		}
	}
	if got := r.ReplaceConfigured("configured-token-1"); got != Redacted {
		t.Errorf("configured secret: got %q", got)
	}
	// Each owner keeps its 3 refreshes (2 + 3 + 2 credentials) and the
	// pool its MaxLearned.
	if n, want := k.Known(), users*(2*refreshes+3)+MaxLearned; n != want {
		t.Errorf("Known() = %d, want %d", n, want)
	}
}

// TestKeyringRefreshBounded: a token refreshed 10,000 times keeps at most
// MaxPerOwner credentials, its current ones among them, and the oldest
// are forgotten.
func TestKeyringRefreshBounded(t *testing.T) {
	k := NewKeyring(nil)
	for r := range 10_000 {
		learnToken(k, 7, r)
		if r%500 == 0 {
			_ = k.Redactor()
		}
	}
	if n := k.Known(); n > MaxPerOwner {
		t.Errorf("Known() = %d after 10,000 refreshes, want at most %d", n, MaxPerOwner)
	}
	access, refresh, dpop, _, secret := userToken(7, 9_999)
	for _, c := range []string{access, refresh, dpop, secret} {
		if got := k.ReplaceConfigured(c); got != Redacted {
			t.Errorf("current credential %q: got %q", c, got)
		}
	}
	old, _, _, _, _ := userToken(7, 0)
	if got := k.ReplaceConfigured(old); got != old {
		t.Errorf("first access token: got %q, want it forgotten", got)
	}
}

// TestKeyringRetire: a retired user's credentials stay hidden while they
// are among the MaxLearned credentials no owner holds, then are
// forgotten; a user who comes back learns them again.
func TestKeyringRetire(t *testing.T) {
	k := NewKeyring(nil)
	learnToken(k, 1, 0)
	learnToken(k, 2, 0)
	k.Retire("user-1")
	a1, _, _, _, _ := userToken(1, 0)
	a2, _, _, _, _ := userToken(2, 0)
	if got := k.ReplaceConfigured(a1); got != Redacted {
		t.Errorf("retired user's token: got %q, want it still hidden", got)
	}
	for i := range MaxLearned {
		k.Learn(fmt.Sprintf("code-%06d-abcdefgh", i))
	}
	if got := k.ReplaceConfigured(a1); got != a1 {
		t.Errorf("retired user's token after %d more: got %q, want it forgotten", MaxLearned, got)
	}
	if got := k.ReplaceConfigured(a2); got != Redacted {
		t.Errorf("other user's token: got %q", got)
	}
	learnToken(k, 1, 0)
	if got := k.ReplaceConfigured(a1); got != Redacted {
		t.Errorf("returning user's token: got %q", got)
	}
}

// TestReplaceConfiguredMany: with many secrets (anchors) in stacked
// parts, every secret a text holds is hidden, a longer one whole where a
// shorter one overlaps it, and the result holds none (a secret the marker
// would complete is hidden too).
func TestReplaceConfiguredMany(t *testing.T) {
	var fill []string
	for i := range 100 {
		fill = append(fill, fmt.Sprintf("eyJhbGciOiJFUzI1NiJ9.filler-%03d", i))
	}
	r := stack(newRedactor(append(fill, "xabc", "abcdefgh")), newRedactor([]string{"cdef", "q***"}), newRedactor(fill[:3]))
	for _, tc := range []struct{ in, want string }{
		{"xabcdefgh", "x" + Redacted},
		{"[" + fill[42] + "][" + fill[1] + fill[99] + "]", "[***][******]"},
		{"qeyJhbGciOiJFUzI1NiJ9.filler-007 cdef", Redacted + " " + Redacted},
		{"eyJhbGciOiJFUzI1NiJ9.filler-0990", Redacted + "0"},
		{"nothing here", "nothing here"},
	} {
		if got := r.ReplaceConfigured(tc.in); got != tc.want {
			t.Errorf("ReplaceConfigured(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if !r.known(fill[50]) || !r.known("cdef") || r.known("cde") {
		t.Errorf("known: wrong answer on a stack")
	}
}

func TestKeyringNil(t *testing.T) {
	var k *Keyring
	k.Learn("abcdefgh")
	k.LearnClient("id", "abcdefgh")
	if got := k.ReplaceConfigured("abcdefgh"); got != "abcdefgh" {
		t.Errorf("nil Keyring ReplaceConfigured = %q, want the text unchanged", got)
	}
	if got := k.Text("token=abc"); got != "token="+Redacted {
		t.Errorf("nil Keyring Text = %q, want the generic rules applied", got)
	}
}

// TestKeyringConcurrent: Learn and the redacting methods run concurrently
// (run with -race).
func TestKeyringConcurrent(t *testing.T) {
	k := NewKeyring(nil)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := range 50 {
				k.Learn(fmt.Sprintf("secret-%d-%d", i, j))
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				_ = k.Text("secret-0-1 and secret-3-49")
			}
		}()
	}
	wg.Wait()
	if got := k.Text("secret-0-1 and secret-3-49"); got != Redacted+" and "+Redacted {
		t.Errorf("Text after all learned = %q", got)
	}
}
