package mcpbridge

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testpg"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// TestReplicaTaskResumed: a replica (a process of its own) calls a tool
// that its server, over streamable HTTP, makes a long task, and is killed
// while it waits; another process given the same call and the same
// PostgreSQL store waits for that task and returns its result, without a
// second tools/call. In both eras: 2025-11-25 (the task is known only in
// the session of the dead process, which the other one takes over) and
// 2026-07-28 (the tasks extension). The store's dump holds neither the
// task's id nor the session's.
func TestReplicaTaskResumed(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			st, spec := sharedStore(t)
			var created func() int64
			spec.Server, spec.ID, spec.Args = "remote", "call-"+era, map[string]any{"ms": 3000}
			want := "done after 3000"
			if era == "2025-11-25" {
				var n atomic.Int64
				created = n.Load
				h := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraLegacy, Tasks: testserver.Tasks{On: true, OnCreated: func() { n.Add(1) }}}, false)
				spec.URL, spec.Tool = h.URL, "slow_task"
			} else {
				srv := testserver.NewTasks26()
				created = func() int64 { return int64(srv.Created()) }
				spec.URL, spec.Tool, want = testserver.ServeTasks26HTTP(t, srv), "work", "worked 3000 ms"
			}
			first := startReplica(t, spec)
			key := store.TaskKey{Server: "remote", Call: spec.ID}
			rec := waitRecord(t, st, key)
			first.kill(t)
			if again, err := st.LoadTask(context.Background(), key); err != nil || again == nil || again.ID != rec.ID {
				t.Fatalf("record after the replica died = %+v, %v; want it kept", again, err)
			}

			cfg := ServerConfig{Name: "remote", HTTPURL: spec.URL, Trust: true, Timeout: 30 * time.Second}
			b := newBridge(t, &Options{Store: st}, cfg)
			discover(t, b)
			r := b.Execute(context.Background(), &genai.FunctionCall{ID: spec.ID, Name: toolNamed(t, b, "remote", spec.Tool), Args: spec.Args})
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, want) {
				t.Fatalf("Execute in the other process = %q, %v; want the task's result %q", r.ReturnDisplay, r.Err, want)
			}
			if n := created(); n != 1 {
				t.Errorf("tasks created = %d; want 1: the call must not run again", n)
			}
			if rec, _ := st.LoadTask(context.Background(), key); rec != nil {
				t.Errorf("record %+v after the result; want it gone", rec)
			}
			dump := testpg.Dump(t, spec.DSN, spec.Prefix)
			for _, secret := range []string{rec.ID, rec.Session} {
				if secret != "" && strings.Contains(dump, secret) {
					t.Errorf("the store's dump holds %q:\n%s", secret, dump)
				}
			}
		})
	}
}
