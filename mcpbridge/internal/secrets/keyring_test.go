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
	if n := len(k.learned); n != MaxLearned {
		t.Errorf("kept %d credentials, want %d", n, MaxLearned)
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
