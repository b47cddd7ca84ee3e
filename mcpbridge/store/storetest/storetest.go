// Package storetest checks an implementation of [store.Store], or of its
// parts, against the contracts its documentation states. The checks use
// keys of their own (a random user), so they can run against a store that
// holds other data, and leave nothing behind but the records they delete.
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, mystore.New(...))
//	}
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// Run checks every contract of s, each in a subtest.
func Run(t *testing.T, s store.Store) {
	t.Run("Tokens", func(t *testing.T) { Tokens(t, s) })
	t.Run("Locker", func(t *testing.T) { Locker(t, s) })
	t.Run("Tasks", func(t *testing.T) { Tasks(t, s) })
	t.Run("Cache", func(t *testing.T) { Cache(t, s) })
}

// user returns a user id no other check uses.
func user(t *testing.T) string {
	return fmt.Sprintf("storetest-%s-%s", t.Name(), rand.Text())
}

// Tokens checks the contract of [auth.Store].
func Tokens(t *testing.T, s auth.Store) {
	ctx := context.Background()
	u := user(t)
	k := auth.Key{User: u, Server: "https://mcp.example/mcp", Issuer: "https://as.example"}
	if got, err := s.Load(ctx, k); got != nil || err != nil {
		t.Fatalf("Load(missing) = %v, %v; want nil, nil", got, err)
	}
	tok := &auth.Token{
		AccessToken: "at", TokenType: "Bearer", RefreshToken: "rt",
		Expiry:   time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC),
		ClientID: "client", ClientSecret: "cs", TokenEndpointAuthMethod: "client_secret_basic",
		Issuer: k.Issuer, Scopes: []string{"a", "b"},
	}
	want := *tok
	want.Scopes = []string{"a", "b"}
	if err := s.Save(ctx, k, tok); err != nil {
		t.Fatalf("Save = %v", err)
	}
	tok.AccessToken, tok.Scopes[0] = "changed after Save", "changed"
	got, err := s.Load(ctx, k)
	if err != nil || got == nil {
		t.Fatalf("Load = %v, %v; want the token", got, err)
	}
	if !got.Expiry.Equal(want.Expiry) {
		t.Errorf("Load: expiry %v, want %v", got.Expiry, want.Expiry)
	}
	got.Expiry = want.Expiry
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("Load = %#v\nwant %#v", *got, want)
	}
	got.Scopes[0] = "changed after Load"
	if again, _ := s.Load(ctx, k); again == nil || again.Scopes[0] != "a" {
		t.Errorf("Load after the caller changed an earlier Load's token = %v; want it unchanged", again)
	}

	// Each part of a key names its own entry.
	others := []auth.Key{
		{User: u + "-other", Server: k.Server, Issuer: k.Issuer},
		{User: u, Server: k.Server + "/other", Issuer: k.Issuer},
		{User: u, Server: k.Server, Issuer: k.Issuer + "/other"},
	}
	for _, o := range others {
		if got, err := s.Load(ctx, o); got != nil || err != nil {
			t.Errorf("Load(%+v) = %v, %v; want nil: no entry under that key", o, got, err)
		}
	}
	for i, o := range others {
		if err := s.Save(ctx, o, &auth.Token{AccessToken: fmt.Sprint("other-", i)}); err != nil {
			t.Fatalf("Save(%+v) = %v", o, err)
		}
	}
	for i, o := range others {
		if got, err := s.Load(ctx, o); err != nil || got == nil || got.AccessToken != fmt.Sprint("other-", i) {
			t.Errorf("Load(%+v) = %v, %v; want other-%d", o, got, err, i)
		}
	}
	if got, _ := s.Load(ctx, k); got == nil || got.AccessToken != "at" {
		t.Errorf("Load after saving other keys = %v; want at", got)
	}

	// A token without tokens: a registered client.
	client := auth.Key{User: u, Server: k.Server, Issuer: "https://as2.example"}
	if err := s.Save(ctx, client, &auth.Token{ClientID: "registered", Issuer: client.Issuer}); err != nil {
		t.Fatalf("Save(client only) = %v", err)
	}
	if got, err := s.Load(ctx, client); err != nil || got == nil || got.ClientID != "registered" || got.AccessToken != "" {
		t.Errorf("Load(client only) = %v, %v; want the client without tokens", got, err)
	}

	if err := s.Save(ctx, k, nil); err == nil {
		t.Error("Save(nil) = nil; want an error")
	}
	for _, key := range append(others, k, client) {
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete(%+v) = %v", key, err)
		}
		if got, err := s.Load(ctx, key); got != nil || err != nil {
			t.Errorf("Load after Delete(%+v) = %v, %v; want nil, nil", key, got, err)
		}
	}
	if err := s.Delete(ctx, k); err != nil {
		t.Errorf("Delete(missing) = %v; want nil", err)
	}

	// Concurrent saves of different keys are all kept.
	var wg sync.WaitGroup
	keys := make([]auth.Key, 8)
	for i := range keys {
		keys[i] = auth.Key{User: u, Server: fmt.Sprintf("https://mcp%d.example", i)}
		wg.Go(func() {
			if err := s.Save(ctx, keys[i], &auth.Token{AccessToken: fmt.Sprint("c", i)}); err != nil {
				t.Errorf("concurrent Save = %v", err)
			}
		})
	}
	wg.Wait()
	for i, key := range keys {
		if got, err := s.Load(ctx, key); err != nil || got == nil || got.AccessToken != fmt.Sprint("c", i) {
			t.Errorf("Load after concurrent saves = %v, %v; want c%d", got, err, i)
		}
		_ = s.Delete(ctx, key)
	}
}

// Locker checks the contract of [auth.Locker].
func Locker(t *testing.T, l auth.Locker) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := user(t)
	k := auth.Key{User: u, Server: "https://mcp.example/mcp", Issuer: "https://as.example"}
	unlock, err := l.Lock(ctx, k)
	if err != nil {
		t.Fatalf("Lock = %v", err)
	}
	// Another key is not held.
	unlockOther, err := l.Lock(ctx, auth.Key{User: u + "-other", Server: k.Server, Issuer: k.Issuer})
	if err != nil {
		t.Fatalf("Lock(other key) while key is held = %v", err)
	}
	unlockOther()

	// A second holder waits; it gives up with its context.
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = l.Lock(short, k)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock of a held key until the context ends = %v; want context.DeadlineExceeded", err)
	}

	// It gets the key once the first unlocks, not before.
	got := make(chan func(), 1)
	go func() {
		u2, err := l.Lock(ctx, k)
		if err != nil {
			t.Errorf("second Lock = %v", err)
			u2 = func() {}
		}
		got <- u2
	}()
	select {
	case u2 := <-got:
		u2()
		t.Fatal("second Lock returned while the key was held")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	unlock() // twice is harmless
	select {
	case u2 := <-got:
		u2()
	case <-ctx.Done():
		t.Fatal("second Lock still waiting after unlock")
	}
}

// Tasks checks the contract of [store.Tasks].
func Tasks(t *testing.T, s store.Tasks) {
	ctx := context.Background()
	u := user(t)
	k := store.TaskKey{User: u, Server: "remote", Call: "call-1"}
	if got, err := s.LoadTask(ctx, k); got != nil || err != nil {
		t.Fatalf("LoadTask(missing) = %v, %v; want nil, nil", got, err)
	}
	created := time.Now().Truncate(time.Millisecond)
	want := store.Task{Tool: "slow", Args: "abc", ID: "task-1", Protocol: "2025-11-25", Session: "sess",
		Created: created, Expires: created.Add(time.Hour)}
	in := want
	if err := s.PutTask(ctx, k, &in); err != nil {
		t.Fatalf("PutTask = %v", err)
	}
	in.ID = "changed after PutTask"
	got, err := s.LoadTask(ctx, k)
	if err != nil || got == nil {
		t.Fatalf("LoadTask = %v, %v; want the record", got, err)
	}
	if !got.Created.Equal(want.Created) || !got.Expires.Equal(want.Expires) {
		t.Errorf("LoadTask times = %v, %v; want %v, %v", got.Created, got.Expires, want.Created, want.Expires)
	}
	got.Created, got.Expires = want.Created, want.Expires
	if *got != want {
		t.Errorf("LoadTask = %+v\nwant %+v", *got, want)
	}
	for _, o := range []store.TaskKey{{User: u + "-other", Server: k.Server, Call: k.Call}, {User: u, Server: "other", Call: k.Call}, {User: u, Server: k.Server, Call: "call-2"}} {
		if got, err := s.LoadTask(ctx, o); got != nil || err != nil {
			t.Errorf("LoadTask(%+v) = %v, %v; want nil: no record under that key", o, got, err)
		}
	}
	replaced := want
	replaced.ID = "task-2"
	if err := s.PutTask(ctx, k, &replaced); err != nil {
		t.Fatalf("PutTask(replace) = %v", err)
	}
	if got, _ := s.LoadTask(ctx, k); got == nil || got.ID != "task-2" {
		t.Errorf("LoadTask after a second PutTask = %v; want task-2", got)
	}
	if err := s.DeleteTask(ctx, k); err != nil {
		t.Fatalf("DeleteTask = %v", err)
	}
	if got, err := s.LoadTask(ctx, k); got != nil || err != nil {
		t.Errorf("LoadTask after DeleteTask = %v, %v; want nil, nil", got, err)
	}
	if err := s.DeleteTask(ctx, k); err != nil {
		t.Errorf("DeleteTask(missing) = %v; want nil", err)
	}
	expired := want
	expired.Expires = time.Now().Add(-time.Second)
	if err := s.PutTask(ctx, k, &expired); err != nil {
		t.Fatalf("PutTask(expired) = %v", err)
	}
	if got, err := s.LoadTask(ctx, k); got != nil || err != nil {
		t.Errorf("LoadTask(expired) = %v, %v; want nil, nil", got, err)
	}
	_ = s.DeleteTask(ctx, k)
	if err := s.PutTask(ctx, k, nil); err == nil {
		t.Error("PutTask(nil) = nil; want an error")
	}
	if err := s.PutTask(ctx, store.TaskKey{User: u, Server: "remote"}, &want); err == nil {
		t.Error("PutTask without a call id = nil; want an error")
	}
}

// Cache checks the contract of [store.Cache].
func Cache(t *testing.T, s store.Cache) {
	ctx := context.Background()
	server := user(t)
	if got, err := s.LoadProtocol(ctx, server); got != (store.Protocol{}) || err != nil {
		t.Fatalf("LoadProtocol(missing) = %v, %v; want zero, nil", got, err)
	}
	p := store.Protocol{Version: "2026-07-28", Transport: "http"}
	if err := s.SaveProtocol(ctx, server, p); err != nil {
		t.Fatalf("SaveProtocol = %v", err)
	}
	if got, err := s.LoadProtocol(ctx, server); got != p || err != nil {
		t.Errorf("LoadProtocol = %v, %v; want %v", got, err, p)
	}
	if got, _ := s.LoadProtocol(ctx, server+"-other"); got != (store.Protocol{}) {
		t.Errorf("LoadProtocol(other) = %v; want zero", got)
	}

	public := store.ToolsKey{Server: server}
	private := store.ToolsKey{Server: server, User: "someone"}
	if got, err := s.LoadTools(ctx, public); got != nil || err != nil {
		t.Fatalf("LoadTools(missing) = %v, %v; want nil, nil", got, err)
	}
	until := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	list := &store.ToolList{Tools: []json.RawMessage{json.RawMessage(`{"name":"a"}`), json.RawMessage(`{"name":"b"}`)}, Until: until}
	if err := s.SaveTools(ctx, public, list); err != nil {
		t.Fatalf("SaveTools = %v", err)
	}
	list.Tools[0][2] = 'X'
	got, err := s.LoadTools(ctx, public)
	if err != nil || got == nil || len(got.Tools) != 2 || string(got.Tools[0]) != `{"name":"a"}` || string(got.Tools[1]) != `{"name":"b"}` || !got.Until.Equal(until) {
		t.Fatalf("LoadTools = %+v, %v; want the two tools until %v", got, err, until)
	}
	if got, _ := s.LoadTools(ctx, private); got != nil {
		t.Errorf("LoadTools(another user) = %v; want nil", got)
	}
	stale := &store.ToolList{Tools: []json.RawMessage{json.RawMessage(`{"name":"c"}`)}, Until: time.Now().Add(-time.Second)}
	if err := s.SaveTools(ctx, private, stale); err != nil {
		t.Fatalf("SaveTools(stale) = %v", err)
	}
	if got, _ := s.LoadTools(ctx, private); got != nil {
		t.Errorf("LoadTools after saving a stale list = %v; want nil", got)
	}
	if err := s.SaveTools(ctx, private, &store.ToolList{Tools: []json.RawMessage{json.RawMessage(`{"name":"c"}`)}, Until: until}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTools(ctx, public, nil); err != nil {
		t.Fatalf("SaveTools(nil) = %v", err)
	}
	if got, _ := s.LoadTools(ctx, public); got != nil {
		t.Errorf("LoadTools after SaveTools(nil) = %v; want nil", got)
	}
	if got, _ := s.LoadTools(ctx, private); got == nil {
		t.Error("LoadTools(private) after forgetting the public list = nil; want it kept")
	}
	if err := s.SaveProtocol(ctx, server, store.Protocol{}); err != nil {
		t.Fatalf("SaveProtocol(zero) = %v", err)
	}
	if got, _ := s.LoadProtocol(ctx, server); got != (store.Protocol{}) {
		t.Errorf("LoadProtocol after forgetting = %v; want zero", got)
	}
	if got, _ := s.LoadTools(ctx, private); got != nil {
		t.Errorf("LoadTools after the server was forgotten = %v; want nil", got)
	}
}
