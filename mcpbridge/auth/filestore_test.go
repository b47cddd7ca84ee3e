package auth_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "tokens.json")
	s, err := auth.NewFileStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(ctx, "https://a/mcp"); got != nil || err != nil {
		t.Fatalf("Load(missing file) = %v, %v, want nil, nil", got, err)
	}
	a := &auth.Token{AccessToken: "at-a", RefreshToken: "rt-a", TokenType: "Bearer", Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), ClientID: "c"}
	b := &auth.Token{AccessToken: "at-b"}
	for key, tok := range map[string]*auth.Token{"https://a/mcp": a, "https://b/sse": b} {
		if err := s.Save(ctx, key, tok); err != nil {
			t.Fatalf("Save(%s) = %v", key, err)
		}
	}
	a.AccessToken = "changed after Save"
	got, err := s.Load(ctx, "https://a/mcp")
	if err != nil {
		t.Fatal(err)
	}
	want := &auth.Token{AccessToken: "at-a", RefreshToken: "rt-a", TokenType: "Bearer", Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), ClientID: "c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	for _, p := range []struct {
		path string
		mode os.FileMode
	}{{path, 0o600}, {filepath.Dir(path), 0o700}} {
		fi, err := os.Stat(p.path)
		if err != nil || fi.Mode().Perm() != p.mode {
			t.Errorf("%s: %v, mode %v, want %v", p.path, err, fi.Mode().Perm(), p.mode)
		}
	}
	if err := s.Delete(ctx, "https://a/mcp"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(ctx, "https://a/mcp"); got != nil {
		t.Errorf("Load after Delete = %v, want nil", got)
	}
	if got, _ := s.Load(ctx, "https://b/sse"); got == nil || got.AccessToken != "at-b" {
		t.Errorf("Load(other key) after Delete = %v, want at-b kept", got)
	}
	if err := s.Delete(ctx, "never"); err != nil {
		t.Errorf("Delete(missing) = %v, want nil", err)
	}
}

func TestFileStoreConcurrent(t *testing.T) {
	ctx := context.Background()
	s, _ := auth.NewFileStore(filepath.Join(t.TempDir(), "t.json"))
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			key := string(rune('a' + i))
			if err := s.Save(ctx, key, &auth.Token{AccessToken: key}); err != nil {
				t.Errorf("Save(%s) = %v", key, err)
			}
		})
	}
	wg.Wait()
	for i := range 10 {
		key := string(rune('a' + i))
		if got, err := s.Load(ctx, key); err != nil || got == nil || got.AccessToken != key {
			t.Errorf("Load(%s) = %v, %v after concurrent saves", key, got, err)
		}
	}
}

func TestFileStoreCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, []byte(`{"k": {"accessToken": "secret-value"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := auth.NewFileStore(path)
	_, err := s.Load(context.Background(), "k")
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
