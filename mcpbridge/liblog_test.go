package mcpbridge

import (
	"context"
	"log"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestNothingReachesDefaultLogger: what mcp-go's transports log (here the
// answer to a server's question that could only be written after Close,
// as when a person answers too late) goes to Options.Logger, at debug
// level since the connection had ended, and nothing reaches
// slog.Default() or the standard logger, which belong to the host
// program (a terminal, say).
func TestNothingReachesDefaultLogger(t *testing.T) {
	var def records
	prevSlog, prevFlags, prevOut := slog.Default(), log.Flags(), log.Writer()
	slog.SetDefault(slog.New(&def))
	t.Cleanup(func() {
		slog.SetDefault(prevSlog)
		log.SetFlags(prevFlags)
		log.SetOutput(prevOut)
	})
	legacyHTTP, _ := httpServer(t, "http", TransportHTTP, testserver.Options{Ask: true, Era: testserver.EraLegacy})
	for _, srv := range []ServerConfig{stdioServer("stdio", "-ask", "-era=legacy"), legacyHTTP} {
		t.Run(srv.Name, func(t *testing.T) {
			srv.Trust = true
			own := &signalRecords{match: "response", seen: make(chan slog.Record, 1)}
			asked, release := make(chan struct{}), make(chan struct{})
			el := func(context.Context, elicit.Request) (elicit.Response, error) {
				close(asked)
				<-release // answers after Close, whatever ctx says
				return elicit.Response{Action: elicit.Decline}, nil
			}
			b, err := New(&Config{Servers: []ServerConfig{srv}}, &Options{Logger: slog.New(own), Client: &ClientFeatures{Elicit: el}})
			if err != nil {
				t.Fatal(err)
			}
			discover(t, b)
			done := make(chan *CallResult)
			go func() {
				done <- b.Execute(context.Background(), &genai.FunctionCall{Name: "ask", Args: map[string]any{"question": "late?"}})
			}()
			<-asked
			_ = b.Close()
			<-done
			close(release)
			// mcp-go writes the answer, fails and logs: wait for its record.
			select {
			case rec := <-own.seen:
				if rec.Level != slog.LevelDebug {
					t.Errorf("record %q at %v, want debug (the connection had ended)", rec.Message, rec.Level)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Options.Logger never got mcp-go's record of the answer it could not send")
			}
			def.mu.Lock()
			defer def.mu.Unlock()
			for _, r := range def.recs {
				t.Errorf("slog.Default() got %v %q", r.Level, r.Message)
			}
		})
	}
}

// signalRecords is a slog handler that sends the records whose message
// contains match on seen while it has room (with room for one, the first).
type signalRecords struct {
	match string
	seen  chan slog.Record
}

func (r *signalRecords) Enabled(context.Context, slog.Level) bool { return true }
func (r *signalRecords) Handle(_ context.Context, rec slog.Record) error {
	if strings.Contains(rec.Message, r.match) {
		select {
		case r.seen <- rec.Clone():
		default:
		}
	}
	return nil
}
func (r *signalRecords) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *signalRecords) WithGroup(string) slog.Handler      { return r }
