package mcpbridge

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// credentialForms returns c as it may be written: as it is, query- and
// path-escaped, and, for a client secret of one of clientIDs, inside the
// base64 of HTTP Basic authentication.
func credentialForms(creds []string, clientIDs []string) []string {
	var out []string
	for _, c := range creds {
		out = append(out, c, url.QueryEscape(c), url.PathEscape(c))
		for _, id := range clientIDs {
			for _, pair := range []string{id + ":" + c, url.QueryEscape(id) + ":" + url.QueryEscape(c)} {
				out = append(out, base64.StdEncoding.EncodeToString([]byte(pair)), base64.RawStdEncoding.EncodeToString([]byte(pair)))
			}
		}
	}
	return out
}

// TestTokensNeverLeaveProperty: the credentials of full logins against a
// real authorization server (a dynamically registered confidential client, kept and reused,
// with a random secret, authorization codes, random access, refresh and ID
// tokens) never appear in any output of a session that includes a server
// quoting its token, failed calls, refreshes after the server refused a
// token, a refresh and a login whose grants the authorization server
// refuses with an error quoting the code or refresh token and the client
// credentials, lost connections and their reconnects, and a second login: not in
// results (text, display, error, the model's part), events, returned
// errors, logs, the status as text and JSON, or spans. The steps after the
// first login run in a random order each round.
func TestTokensNeverLeaveProperty(t *testing.T) {
	const rounds = 3
	for round := range rounds {
		t.Run(fmt.Sprint("round", round), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(round), 21))
			as := testauth.Start(t)
			as.ClientSecrets.Store(true)
			mcpSrv := testserver.New(testserver.Options{Tools: 1})
			leakyTools(mcpSrv)
			remote := as.ServeMCP(t, mcpSrv, false, "")
			store, err := auth.NewFileStore(filepath.Join(t.TempDir(), "tokens.json"))
			if err != nil {
				t.Fatal(err)
			}
			var e exits
			tp, spans := e.tracer(t)
			p := &person{t: t}
			b := newBridge(t, &Options{Logger: e.logger(), LoginURL: p.LoginURL, TokenStore: store, TracerProvider: tp, ReconnectInterval: -1},
				ServerConfig{Name: "remote", HTTPURL: remote.URL, Trust: true, Timeout: 10 * time.Second})
			stop := e.watch(b)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			e.err("Discover", b.Discover(ctx))
			e.err("Login", b.Login(ctx, "remote"))
			p.done()

			steps := map[string]func(){
				"quote": func() {
					for _, name := range []string{"quote", "refuse", "fail", "tool_00"} {
						execute(&e, b, name, nil)
					}
				},
				"refresh": func() {
					before := as.Refreshes.Load()
					remote.Expire()
					if r := execute(&e, b, "quote", nil); r.Err != nil {
						t.Errorf("Execute(quote) after the token expired = %v, want a refreshed token", r.Err)
					}
					if as.Refreshes.Load() == before {
						t.Errorf("no refresh after the server refused the token")
					}
				},
				"reconnect": func() {
					remote.HTTP.CloseClientConnections()
					for range 2 {
						execute(&e, b, "quote", nil)
					}
				},
				"relogin": func() {
					e.err("Login again", b.Login(ctx, "remote"))
					p.done()
					execute(&e, b, "quote", nil)
				},
				"refused refresh": func() {
					as.EchoRefused.Store(true)
					remote.Expire()
					execute(&e, b, "quote", nil)
					_, err := b.ListResources(ctx, "remote")
					e.err("ListResources", err)
					err = b.Login(ctx, "remote")
					p.done()
					if err == nil {
						t.Errorf("Login with the grant refused = nil error")
					}
					e.err("Login refused", err)
					e.status(b)
					as.EchoRefused.Store(false)
					e.err("Login after the refused refresh", b.Login(ctx, "remote"))
					p.done()
				},
				"errors": func() {
					execute(&e, b, "no_such_tool", nil)
					_, err := b.ReadResource(ctx, "remote", "test://missing")
					e.err("ReadResource", err)
					_, err = b.ListPrompts(ctx, "remote")
					e.err("ListPrompts", err)
				},
			}
			order := []string{"quote", "refresh", "reconnect", "relogin", "refused refresh", "errors"}
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, s := range order {
				steps[s]()
				e.status(b)
			}
			_ = b.Close()
			stop()
			e.spans(spans)

			issued := as.Issued()
			if n := as.Registrations.Load(); n < 1 || as.Codes.Load() < 2 || as.Refreshes.Load() < 1 || len(issued) < 8 {
				t.Fatalf("the session obtained too little to test: %d registrations, %d codes, %d refreshes, %d credentials",
					n, as.Codes.Load(), as.Refreshes.Load(), len(issued))
			}
			var ids []string
			for i := range as.Registrations.Load() {
				ids = append(ids, fmt.Sprintf("dyn-%d", i+1))
			}
			t.Logf("order %v; %d credentials issued", order, len(issued))
			for _, l := range e.leaks(credentialForms(issued, ids)...) {
				t.Errorf("credential leaked: %s", l)
			}
		})
	}
}
