package mcpbridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/internal/testpg"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// contendedLock reports whether a session of the test database waits for
// an advisory lock that another session holds.
func contendedLock(ctx context.Context, conn *pgx.Conn) bool {
	var n int
	err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks w JOIN pg_locks h
		ON w.locktype = 'advisory' AND h.locktype = 'advisory' AND w.database = h.database
		AND w.classid = h.classid AND w.objid = h.objid AND w.objsubid = h.objsubid
		WHERE NOT w.granted AND h.granted AND w.database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n)
	return err == nil && n > 0
}

// TestReplicaRefresh: a token that expired is refreshed by two replicas
// (processes of their own sharing the PostgreSQL store) at the same moment
// with one refresh request: the authorization server holds the first
// refresh until the second replica waits for the store's lock (or, were
// there no lock, sends its own refresh), so both have read the expired
// token before either refreshed. Both replicas' calls then succeed
// without a login; a third process holding the old token in memory, which
// the server now refuses, takes the refreshed token from the store
// without a refresh. The store's dump holds no token.
func TestReplicaRefresh(t *testing.T) {
	st, spec := sharedStore(t)
	as := testauth.Start(t)
	remote := as.ServeMCP(t, testserver.New(testserver.Options{Tools: 1}), false, "")
	ctx := context.Background()

	// The first process logs in: the token goes to the shared store.
	p := &person{t: t}
	cfg := ServerConfig{Name: "remote", HTTPURL: remote.URL, Trust: true, Timeout: 30 * time.Second, OAuth: &OAuthConfig{Enabled: true}}
	first := newBridge(t, &Options{Store: st, LoginURL: p.LoginURL}, cfg)
	discover(t, first)
	doLogin(t, first, "remote")
	p.done()
	if got, err := call(t, first, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Fatalf("call after login = %q, %v", got, err)
	}
	key := auth.Key{Server: remote.URL, Issuer: as.Issuer}
	old, err := st.Load(ctx, key)
	if err != nil || old == nil || old.RefreshToken == "" {
		t.Fatalf("stored token = %v, %v; want one with a refresh token", old, err)
	}
	expired := *old
	expired.Expiry = time.Now().Add(-time.Minute)
	if err := st.Save(ctx, key, &expired); err != nil {
		t.Fatal(err)
	}
	remote.Expire() // the server refuses the old access token from now on

	conn, err := pgx.Connect(ctx, spec.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	held := make(chan string, 1)
	as.HoldRefresh.Store(func() {
		if as.Refreshes.Load() > 1 {
			return // the second refresh: the first is released at once
		}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if as.Refreshes.Load() > 1 {
				held <- "a second refresh request came"
				return
			}
			if contendedLock(ctx, conn) {
				held <- "the other replica waits for the lock"
				return
			}
		}
		held <- "nothing came within 30 s"
	})
	before := as.Refreshes.Load()
	spec.Server, spec.URL, spec.OAuth, spec.Tool, spec.ID, spec.Wait = "remote", remote.URL, true, "tool_00", "call-1", true
	replicas := []*replica{startReplica(t, spec), startReplica(t, spec)}
	for _, r := range replicas {
		fmt.Fprintln(r.stdin, "go")
	}
	for i, r := range replicas {
		if out := r.outcome(t); out.Err != "" || out.Text != "tool_00" {
			t.Errorf("replica %d: call = %q, %q; want tool_00 with the refreshed token, no login", i, out.Text, out.Err)
		}
	}
	t.Logf("the first refresh was held until %s", <-held)
	if got := as.Refreshes.Load() - before; got != 1 {
		t.Errorf("refresh requests = %d for two replicas refreshing at once; want 1", got)
	}
	now, err := st.Load(ctx, key)
	if err != nil || now == nil || now.AccessToken == old.AccessToken || !now.Expiry.After(time.Now()) {
		t.Fatalf("stored token after the replicas = %v, %v; want a new unexpired one", now, err)
	}

	// The first process still holds the old token, which the server
	// refuses: it takes the new one from the store, without a refresh.
	if got, err := call(t, first, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call of the first process after the replicas refreshed = %q, %v; want success", got, err)
	}
	if got := as.Refreshes.Load() - before; got != 1 {
		t.Errorf("refresh requests = %d after the first process called again; want still 1", got)
	}

	dump := testpg.Dump(t, spec.DSN, spec.Prefix)
	for _, tok := range []*auth.Token{old, now} {
		for _, secret := range []string{tok.AccessToken, tok.RefreshToken} {
			if strings.Contains(dump, secret) {
				t.Errorf("the store's dump holds a token:\n%s", dump)
			}
		}
	}
}
