package auth_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/store/storetest"
)

func TestFileStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "tokens.json")
	s, err := auth.NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Tokens(t, s)
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{path, 0o600}, {filepath.Dir(path), 0o700}} {
		fi, err := os.Stat(p.path)
		if err != nil || fi.Mode().Perm() != p.mode {
			t.Errorf("%s: %v, mode %v, want %v", p.path, err, fi.Mode().Perm(), p.mode)
		}
	}
}

func TestMemoryStore(t *testing.T) {
	storetest.Tokens(t, auth.NewMemoryStore())
	storetest.Locker(t, auth.NewMemoryStore())
}

// TestFileStoreEarlierFormat: a file of the earlier format (an object from
// server URL to token) is read as user "" with each token's issuer, and
// written in the list format at the next change, losing nothing.
func TestFileStoreEarlierFormat(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.json")
	old := `{"https://a/mcp": {"accessToken": "at-a", "issuer": "https://as"}, "https://b/sse": {"accessToken": "at-b"}, "https://c/mcp": null}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := auth.NewFileStore(path)
	a := auth.Key{Server: "https://a/mcp", Issuer: "https://as"}
	b := auth.Key{Server: "https://b/sse"}
	for key, want := range map[auth.Key]string{a: "at-a", b: "at-b"} {
		if got, err := s.Load(ctx, key); err != nil || got == nil || got.AccessToken != want {
			t.Errorf("Load(%+v) = %v, %v; want %s", key, got, err, want)
		}
	}
	if got, _ := s.Load(ctx, auth.Key{Server: "https://a/mcp"}); got != nil {
		t.Errorf("Load without the issuer = %v; want nil: the token is its issuer's", got)
	}
	c := auth.Key{User: "u", Server: "https://c/mcp", Issuer: "https://as"}
	if err := s.Save(ctx, c, &auth.Token{AccessToken: "at-c"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(data), "[") {
		t.Fatalf("file after Save = %q, %v; want the list format", data, err)
	}
	for key, want := range map[auth.Key]string{a: "at-a", b: "at-b", c: "at-c"} {
		if got, err := s.Load(ctx, key); err != nil || got == nil || got.AccessToken != want {
			t.Errorf("Load(%+v) after rewriting = %v, %v; want %s", key, got, err, want)
		}
	}
}

func TestFileStoreCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, []byte(`{"k": {"accessToken": "secret-value"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := auth.NewFileStore(path)
	_, err := s.Load(context.Background(), auth.Key{Server: "k"})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load(corrupt) = %v, want an error naming the file", err)
	}
	if strings.Contains(err.Error(), "secret-value") {
		t.Errorf("error quotes the file's content: %v", err)
	}
}

func TestTokenStringHidesSecrets(t *testing.T) {
	tok := &auth.Token{AccessToken: "at-secret", RefreshToken: "rt-secret", ClientSecret: "cs-secret", Expiry: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "token", tok)
	for _, text := range []string{fmt.Sprint(tok), fmt.Sprintf("%v %+v", *tok, tok), logged.String()} {
		if strings.Contains(text, "secret") {
			t.Errorf("printed token shows a secret: %s", text)
		}
	}
	got := tok.String()
	if want := "token(expires 2030-01-01T00:00:00Z, refreshable=true)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestStateText(t *testing.T) {
	for _, s := range []auth.State{auth.StateNone, auth.StateAuthenticated, auth.StateLoginNeeded, auth.StateExpired, auth.StateFailed} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%d) = %v", s, err)
		}
		var back auth.State
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("UnmarshalText(%q) = %v, %v, want %v", b, back, err, s)
		}
	}
	if !auth.StateExpired.NeedsLogin() || !auth.StateLoginNeeded.NeedsLogin() || auth.StateFailed.NeedsLogin() {
		t.Error("NeedsLogin: want true for expired and login needed only")
	}
}
