package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/blame"
)

// tooComplex is a backend rule the schema checker cannot foresee: it
// rejects the declaration named name as the API rejects a schema too
// complex to serve.
func tooComplex(name string) geminitest.DeclarationRule {
	return func(d *genai.FunctionDeclaration) (string, string) {
		if d.Name == name {
			return "parameters", "schema produces a constraint that has too many states for serving"
		}
		return "", ""
	}
}

// TestHealRejectedDeclaration: a host's loop on Declare sends a request
// that the API refuses for one Bridge tool's declaration; Heal drops that
// tool, the next Declare leaves it out, and the request sent again
// succeeds; the drop lasts for the Bridge's lifetime.
func TestHealRejectedDeclaration(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo", "profile"}
	b := newBridge(t, nil, main)
	discover(t, b)
	events, stop := b.Subscribe()
	defer stop()
	ctx := context.Background()
	srv := geminitest.New(t, &geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{tooComplex("echo")}},
		geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}),
		geminitest.Text("found"),
		geminitest.Text("again"),
	)
	models := srv.Client(ctx).Models
	res, err := hostLoop(ctx, b, models, prompt(), nil, nil, false)
	if err != nil {
		t.Fatalf("hostLoop() = %v, want the turn to complete without echo", err)
	}
	if res.Response.Text() != "found" || res.Turns != 2 {
		t.Errorf("hostLoop() = %q after %d turns, want \"found\" after 2", res.Response.Text(), res.Turns)
	}
	const wantMsg = "* GenerateContentRequest.tools[0].function_declarations[0].parameters: schema produces a constraint that has too many states for serving\n"
	want := []DroppedTool{{Server: "main", ServerTool: "echo", Name: "echo", Reason: wantMsg}}
	if diff := cmp.Diff(want, res.Requests[0].Rejected); diff != "" {
		t.Errorf("Requests[0].Rejected mismatch (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Rejection != wantMsg || reqs[1].Rejection != "" {
		t.Fatalf("requests = %d, first rejected with %q, want 3 with the first rejected with %q", len(reqs), reqs[0].Rejection, wantMsg)
	}
	if reqs[1].Declaration("echo") != nil || reqs[1].Declaration("lookup") == nil {
		t.Errorf("the retry still declares echo, or lost lookup")
	}
	ev := waitEvent(t, events, "tool rejected", func(e Event) bool { return e.Kind == EventToolDropped })
	if ev.Server != "main" || ev.ServerTool != "echo" || !strings.Contains(ev.Err.Error(), "too many states") {
		t.Errorf("event = %+v, want main/echo with the API's message", ev)
	}
	var apiErr genai.APIError
	if !errors.As(ev.Err, &apiErr) || apiErr.Code != 400 {
		t.Errorf("event error %v does not wrap the API's 400", ev.Err)
	}
	if diff := cmp.Diff(want, b.Status().Servers[0].Rejected); diff != "" {
		t.Errorf("Status().Rejected mismatch (-want +got):\n%s", diff)
	}
	if s := b.Status().String(); !strings.Contains(s, "Rejected by the API: echo: * GenerateContentRequest") {
		t.Errorf("status text does not show the rejection:\n%s", s)
	}
	d, err := b.Declare(ctx, nil, nil)
	if err != nil || len(d.Tools) != 1 || len(d.Tools[0].FunctionDeclarations) != 2 || len(d.Report.Rejected) != 0 {
		t.Errorf("Declare() = %v, want lookup and profile only", err)
	}
	if again := d.Heal(genai.APIError{Code: 400, Message: "Invalid function declaration 'echo'"}); again != nil {
		t.Errorf("Heal(the same 400) for a request without echo = %v, want nil", again)
	}

	// For the rest of the session: the next request never sends echo.
	if _, err := hostLoop(ctx, b, models, prompt(), nil, nil, false); err != nil {
		t.Fatalf("second hostLoop() = %v", err)
	}
	if reqs := srv.Requests(); len(reqs) != 4 || reqs[3].Rejection != "" || reqs[3].Declaration("echo") != nil {
		t.Errorf("second hostLoop() sent echo again or was rejected")
	}
}

// TestHealNothing: a 400 that blames no Bridge tool (none named, or only
// the host's declaration), and errors that are no 400, heal nothing: Heal
// returns nil and drops no tool.
func TestHealNothing(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo"}
	ctx := context.Background()
	host := HostFunction{Declaration: &genai.FunctionDeclaration{Name: "mine"},
		Handler: func(context.Context, map[string]any) (any, error) { return "x", nil }}
	tests := []struct {
		name string
		opts geminitest.Options
		want string
	}{
		{"no declaration named", geminitest.Options{MaxNestingDepth: 1},
			"A FunctionDeclaration in the request exceeds the maximum allowed nesting depth."},
		{"the host's declaration", geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{tooComplex("mine")}},
			"function_declarations[0].parameters: schema produces a constraint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t, nil, main)
			discover(t, b)
			srv := geminitest.New(t, &tc.opts, geminitest.Text("never"))
			res, err := hostLoop(ctx, b, srv.Client(ctx).Models, prompt(), nil, &DeclareOptions{Functions: []HostFunction{host}}, false)
			if _, ok := blame.BadRequest(err); !ok || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("hostLoop(%s) = %v, want the API's 400 containing %q", tc.name, err, tc.want)
			}
			if n := len(srv.Requests()); n != 1 || res.Turns != 1 {
				t.Errorf("hostLoop(%s) sent %d requests in %d turns, want 1 (no retry)", tc.name, n, res.Turns)
			}
			if st := b.Status().Servers[0]; len(st.Rejected) != 0 {
				t.Errorf("hostLoop(%s) rejected %v, want nothing dropped", tc.name, st.Rejected)
			}
		})
	}
	b := newBridge(t, nil, main)
	discover(t, b)
	d, err := b.Declare(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{nil, errors.New("400 bad request"), genai.APIError{Code: 429, Message: "function declaration 'echo'"},
		fmt.Errorf("wrapped: %w", genai.APIError{Code: 400, Message: "function declaration 'nope' is bad"})} {
		if got := d.Heal(err); got != nil {
			t.Errorf("Heal(%v) = %v, want nil", err, got)
		}
	}
	if got := d.Heal(&genai.APIError{Code: 400, Message: "function declaration 'echo' is bad"}); len(got) != 1 || got[0].ServerTool != "echo" {
		t.Errorf("Heal(a *APIError naming echo) = %v, want echo dropped", got)
	}
	if got := d.Heal(genai.APIError{Code: 400, Message: "function declaration 'echo' is bad"}); got != nil {
		t.Errorf("Heal(echo) again = %v, want nil: dropped already", got)
	}
}
