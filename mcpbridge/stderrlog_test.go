package mcpbridge

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r } // attrs not needed here
func (r *recorder) WithGroup(string) slog.Handler            { return r }

func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}

// stderrLogs returns "LEVEL line" for every "mcp server stderr" record.
func (r *recorder) stderrLogs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.records {
		if rec.Message != "mcp server stderr" {
			continue
		}
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "line" {
				out = append(out, rec.Level.String()+" "+a.Value.String())
			}
			return true
		})
	}
	return out
}

// TestStderrLogLevels runs a stdio server that writes info, warning, error
// and debug lines to stderr: warnings and errors reach the logger at warn
// level, info and debug lines not at all, a line without a level at debug
// level; the status's stderr tail keeps every line.
func TestStderrLogLevels(t *testing.T) {
	rec := &recorder{}
	b := newBridge(t, &Options{Logger: slog.New(rec)}, stdioServer("chatty", "-log-lines"))
	discover(t, b)
	want := []string{
		"WARN " + testserver.LogLines[1],
		"WARN " + testserver.LogLines[2],
		"DEBUG " + testserver.LogLines[4],
		"DEBUG mcptest: serving",
	}
	var got []string
	var tail string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, tail = rec.stderrLogs(), b.Status().Servers[0].Stderr
		if len(got) >= len(want) && strings.Contains(tail, "mcptest: serving") || time.Now().After(deadline) {
			break
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stderr log records (-want +got):\n%s", diff)
	}
	wantTail := strings.Join(testserver.LogLines, "\n") + "\nmcptest: serving\n"
	if tail != wantTail {
		t.Errorf("Status().Servers[0].Stderr = %q, want every line: %q", tail, wantTail)
	}
}
