package mcpconn

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
)

func progressNote(fields map[string]any) mcp.JSONRPCNotification {
	n := mcp.JSONRPCNotification{}
	n.Method = string(mcp.MethodNotificationProgress)
	n.Params.AdditionalFields = fields
	return n
}

// TestOnProgress checks which notifications reach a request's callback:
// its own token on its own connection, growing progress, well shaped, and
// only until the request returns.
func TestOnProgress(t *testing.T) {
	c, other := &Conn{}, &Conn{}
	var got []report
	_, token, done := c.askProgress(WithProgress(context.Background(), func(p, total float64, msg string) { got = append(got, report{p, total, msg}) }))
	if token == "" {
		t.Fatal("askProgress() gave no token for a context asking for progress")
	}
	if _, tok, stop := c.askProgress(context.Background()); tok != "" {
		t.Errorf("askProgress() without WithProgress = %q, want no token", tok)
	} else {
		stop()
	}
	for _, n := range []struct {
		conn   *Conn
		fields map[string]any
	}{
		{c, map[string]any{"progressToken": token, "progress": 1.0, "total": 4.0, "message": "one"}},
		{other, map[string]any{"progressToken": token, "progress": 2.0}},           // another connection
		{c, map[string]any{"progressToken": "guess", "progress": 2.0}},             // unknown token
		{c, map[string]any{"progressToken": token, "progress": "2"}},               // bad shape
		{c, map[string]any{"progressToken": token, "progress": 1.0}},               // does not grow
		{c, map[string]any{"progressToken": 7.0, "progress": 2.0}},                 // token not a string
		{c, map[string]any{"progressToken": token, "progress": 2.5, "total": 4.0}}, // grows
	} {
		n.conn.onProgress(progressNote(n.fields))
	}
	done()
	c.onProgress(progressNote(map[string]any{"progressToken": token, "progress": 3.0}))
	want := []report{{Progress: 1, Total: 4, Message: "one"}, {Progress: 2.5, Total: 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress handed on (-want +got):\n%s", diff)
	}
}

// report is one call of a ProgressFunc.
type report struct {
	Progress, Total float64
	Message         string
}
