package mcpbridge

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// connectedBridge returns a Bridge with o and servers, discovered, every
// server connected.
func connectedBridge(t *testing.T, o *Options, servers ...ServerConfig) *Bridge {
	t.Helper()
	b := newBridge(t, o, servers...)
	discover(t, b)
	for _, s := range b.Status().Servers {
		if s.State != Connected {
			t.Fatalf("%s = %v (%s), want CONNECTED", s.Name, s.State, s.Error)
		}
	}
	return b
}

// TestSharedProtocolCache: with Options.Store, a second Bridge (another
// replica) reaches a legacy server that ignores server/discover without
// probing it, and a url without type straight over the transport the
// first found: the protocols are kept in the store, not in a file.
func TestSharedProtocolCache(t *testing.T) {
	shared := store.NewMemory()
	silent := stdioServer("silent", "-era=legacy-silent")
	sse := ServerConfig{Name: "sse", URL: testserver.ServeHTTP(t, testserver.Options{}, true).URL}
	run := func() *Bridge { return connectedBridge(t, &Options{Store: shared}, silent, sse) }
	first := run()
	if st := first.Status().Servers[0]; !strings.Contains(st.Stderr, "ignored server/discover") {
		t.Fatalf("first replica: stderr %q, want the probe ignored", st.Stderr)
	}
	_ = first.Close()
	if p, _ := shared.LoadProtocol(context.Background(), sse.protoKey()); p.Version == "" || p.Transport != "sse" {
		t.Fatalf("store holds %+v for the sse server; want its protocol over sse", p)
	}
	if p, _ := shared.LoadProtocol(context.Background(), silent.protoKey()); p.Version != "2025-11-25" {
		t.Fatalf("store holds %+v for the legacy server; want 2025-11-25", p)
	}

	second := run()
	st := second.Status().Servers
	if strings.Contains(st[0].Stderr, "ignored") {
		t.Errorf("second replica probed the legacy server again; stderr %q", st[0].Stderr)
	}
	if st[1].Transport != TransportSSE {
		t.Errorf("second replica: sse over %v, want sse", st[1].Transport)
	}
}

// toolNamed returns the registered name of the tool server calls name.
func toolNamed(t *testing.T, b *Bridge, server, name string) string {
	t.Helper()
	for _, tl := range b.Tools() {
		if tl.Server == server && tl.ServerTool == name {
			return tl.Name
		}
	}
	t.Fatalf("no tool %s of %s", name, server)
	return ""
}

// waitRecord waits until shared holds a task record for key.
func waitRecord(t *testing.T, shared store.Tasks, key store.TaskKey) *store.Task {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if rec, err := shared.LoadTask(context.Background(), key); err != nil || rec != nil {
			if err != nil {
				t.Fatal(err)
			}
			return rec
		}
	}
	t.Fatalf("no task recorded for %+v", key)
	return nil
}

// TestSharedTaskResumed: a call that a server over streamable HTTP (of
// 2025-11-25) makes a task is recorded in the shared store while it runs;
// another Bridge given the same call waits for that task (in the session
// it was created in) and returns its result, without a second tools/call;
// the record goes once the task has ended. A call with the same id but
// other arguments is another call. (TestReplicaTaskResumed kills the
// first one's process.)
func TestSharedTaskResumed(t *testing.T) {
	shared := store.NewMemory()
	var created atomic.Int64
	h := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraLegacy, Tasks: testserver.Tasks{On: true, OnCreated: func() { created.Add(1) }}}, false)
	cfg := ServerConfig{Name: "remote", HTTPURL: h.URL, Trust: true, Timeout: 20 * time.Second}
	first := newBridge(t, &Options{Store: shared}, cfg)
	discover(t, first)
	name := toolNamed(t, first, "remote", "slow_task")
	call := &genai.FunctionCall{ID: "call-1", Name: name, Args: map[string]any{"ms": 1500}}
	ended := make(chan *CallResult, 1)
	go func() { ended <- first.Execute(context.Background(), call) }()
	key := store.TaskKey{Server: "remote", Call: "call-1"}
	rec := waitRecord(t, shared, key)
	if rec.Tool != "slow_task" || rec.Session == "" || rec.Protocol != "2025-11-25" || rec.Expires.IsZero() {
		t.Fatalf("record %+v: want slow_task's task in its session, 2025-11-25, with an expiry", rec)
	}
	second := newBridge(t, &Options{Store: shared}, cfg)
	discover(t, second)
	r := second.Execute(context.Background(), call)
	if r.Err != nil || !strings.Contains(r.ReturnDisplay, "done after 1500") {
		t.Fatalf("second Execute = %q, %v; want the task's result", r.ReturnDisplay, r.Err)
	}
	if n := created.Load(); n != 1 {
		t.Errorf("tasks created = %d; want 1: the second Bridge must wait for the first's task", n)
	}
	if r := <-ended; r.Err != nil || !strings.Contains(r.ReturnDisplay, "done after 1500") {
		t.Errorf("first Execute = %q, %v; want the task's result too", r.ReturnDisplay, r.Err)
	}
	if rec, _ := shared.LoadTask(context.Background(), key); rec != nil {
		t.Errorf("record %+v after the result; want it gone", rec)
	}

	// The same id with other arguments is another call: a new task.
	other := &genai.FunctionCall{ID: "call-1", Name: name, Args: map[string]any{"ms": 10}}
	if r := second.Execute(context.Background(), other); r.Err != nil || !strings.Contains(r.ReturnDisplay, "done after 10") {
		t.Fatalf("Execute with other arguments = %q, %v; want its own result", r.ReturnDisplay, r.Err)
	}
	if n := created.Load(); n != 2 {
		t.Errorf("tasks created = %d; want 2", n)
	}
}

// TestSharedTaskResumed26: as TestSharedTaskResumed, for a task of the
// tasks extension of 2026-07-28 (no session: the server alone knows it).
func TestSharedTaskResumed26(t *testing.T) {
	shared := store.NewMemory()
	srv := testserver.NewTasks26()
	cfg := ServerConfig{Name: "remote", HTTPURL: testserver.ServeTasks26HTTP(t, srv), Trust: true, Timeout: 20 * time.Second}
	first := newBridge(t, &Options{Store: shared}, cfg)
	discover(t, first)
	call := &genai.FunctionCall{ID: "call-26", Name: toolNamed(t, first, "remote", "work"), Args: map[string]any{"ms": 1000}}
	ended := make(chan *CallResult, 1)
	go func() { ended <- first.Execute(context.Background(), call) }()
	key := store.TaskKey{Server: "remote", Call: "call-26"}
	if rec := waitRecord(t, shared, key); rec.Session != "" || rec.Protocol != "2026-07-28" || rec.Tool != "work" {
		t.Fatalf("record %+v: want work's task of 2026-07-28, without a session", rec)
	}
	second := newBridge(t, &Options{Store: shared}, cfg)
	discover(t, second)
	if r := second.Execute(context.Background(), call); r.Err != nil || !strings.Contains(r.ReturnDisplay, "worked 1000 ms") {
		t.Fatalf("second Execute = %q, %v; want the task's result", r.ReturnDisplay, r.Err)
	}
	if r := <-ended; r.Err != nil || !strings.Contains(r.ReturnDisplay, "worked 1000 ms") {
		t.Errorf("first Execute = %q, %v; want the task's result too", r.ReturnDisplay, r.Err)
	}
	if n := srv.Created(); n != 1 {
		t.Errorf("tasks created = %d; want 1", n)
	}
	if rec, _ := shared.LoadTask(context.Background(), key); rec != nil {
		t.Errorf("record %+v after the result; want it gone", rec)
	}
	// Without the shared store, the same call is a call of its own.
	alone := newBridge(t, nil, cfg)
	discover(t, alone)
	if r := alone.Execute(context.Background(), call); r.Err != nil || srv.Created() != 2 {
		t.Errorf("Execute without a store = %q, %v, %d tasks; want a second task", r.ReturnDisplay, r.Err, srv.Created())
	}
}
