package testauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// UserPrefix starts the names of the users the authorization server
// makes on demand, besides the example storage's own: "user-17" logs in
// with Password, and its ID (the subject of its tokens) is its name.
const UserPrefix = "user-"

// manyUsers is the example storage's users and any number more (see
// UserPrefix).
type manyUsers struct{ storage.UserStore }

func (m manyUsers) GetUserByID(id string) *storage.User {
	if strings.HasPrefix(id, UserPrefix) {
		return madeUser(id)
	}
	return m.UserStore.GetUserByID(id)
}

func (m manyUsers) GetUserByUsername(name string) *storage.User {
	if strings.HasPrefix(name, UserPrefix) {
		return madeUser(name)
	}
	return m.UserStore.GetUserByUsername(name)
}

func madeUser(name string) *storage.User {
	return &storage.User{ID: name, Username: name, Password: Password, FirstName: name, LastName: "Test",
		Email: name + "@example.test", EmailVerified: true, PreferredLanguage: language.English}
}

// subjectKey carries the subject of the token of the request a Protected
// server serves.
type subjectKey struct{}

// Subject returns the ID of the user whose token the request being served
// carried ("" for a service's token or outside a Protected server): MCP
// tool handlers behind a Protected server receive it in their context.
func Subject(ctx context.Context) string {
	s, _ := ctx.Value(subjectKey{}).(string)
	return s
}

// tokenKey carries the access token of the request a Protected server
// serves.
type tokenKey struct{}

// Token returns the access token the request being served carried (""
// outside a Protected server), for tools that echo it back as a careless
// server might.
func Token(ctx context.Context) string {
	s, _ := ctx.Value(tokenKey{}).(string)
	return s
}

// ServeLegacyMCP is ServeMCP for a server of the protocol before
// 2026-07-28: server/discover is answered "method not found", so that a
// client uses the initialize handshake and the session it makes.
func (a *Server) ServeLegacyMCP(t testing.TB, mcp *server.MCPServer, sse bool) *Protected {
	t.Helper()
	p := a.serveMCP(t, mcp, sse, "", "")
	p.legacy = true
	return p
}

// isDiscover reports whether r (a POST, whose body it puts back) is a
// server/discover request.
func isDiscover(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil && bytes.Contains(body, []byte(`"server/discover"`))
}

// refuseDiscover answers a server/discover POST as a legacy server does
// (over SSE, where answers travel on the event stream, with HTTP 400),
// reporting whether it did.
func refuseDiscover(w http.ResponseWriter, r *http.Request, sse bool) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != string(mcp.MethodServerDiscover) || len(m.ID) == 0 {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	if sse {
		w.WriteHeader(http.StatusBadRequest)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"error": map[string]any{"code": mcp.METHOD_NOT_FOUND, "message": "method not found: server/discover"}})
	return true
}

// Calls counts what the tools of WhoAmI servers see.
type Calls struct {
	// Crossings counts the calls whose token was not the claimed user's;
	// Answered the calls answered; Waiting the "slow" calls waiting for
	// Release.
	Crossings, Answered, Waiting atomic.Int64
	// Release, when not nil, is what the "slow" tool waits for.
	Release chan struct{}
	// Entered, when not nil, receives the claimed user of each "slow"
	// call as it starts waiting (it must have room: it is not skipped).
	Entered chan string
}

// WhoAmI returns an MCP server named name whose tool "whoami" checks the
// caller: its argument "user" is the user the call claims to be made for,
// and the token the request carried must be that user's (see Subject).
// It answers "<name>: <user> #<seq>" (seq, the call's own argument, lets
// a caller match answers to calls), or, when the token is another user's
// (a crossing), an error naming both. A second tool, "slow", does the
// same after waiting until its context ends or c.Release is closed. Both
// count in c. opts are further options of the server.
func WhoAmI(name string, c *Calls, opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer(name, "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(true)}, opts...)...)
	answer := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		claimed := req.GetString("user", "")
		seq := req.GetInt("seq", 0)
		c.Answered.Add(1)
		if got := Subject(ctx); got != claimed {
			c.Crossings.Add(1)
			return mcp.NewToolResultError(fmt.Sprintf("%s: crossing: a call for %q carried the token of %q", name, claimed, got)), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s: %s #%d", name, claimed, seq)), nil
	}
	args := []mcp.ToolOption{
		mcp.WithString("user", mcp.Required(), mcp.Description("the user the call is for")),
		mcp.WithNumber("seq", mcp.Description("a number echoed back")),
	}
	s.AddTool(mcp.NewTool("whoami", append([]mcp.ToolOption{mcp.WithDescription("Says whose token the call carried.")}, args...)...), answer)
	s.AddTool(mcp.NewTool("slow", append([]mcp.ToolOption{mcp.WithDescription("Says whose token the call carried, later.")}, args...)...),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if c.Release != nil {
				c.Waiting.Add(1)
				defer c.Waiting.Add(-1)
				if c.Entered != nil {
					c.Entered <- req.GetString("user", "")
				}
				select {
				case <-c.Release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return answer(ctx, req)
		})
	return s
}
