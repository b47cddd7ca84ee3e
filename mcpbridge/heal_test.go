package mcpbridge

import (
	"context"
	"errors"
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

func TestRunHealsRejectedDeclaration(t *testing.T) {
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
	res, err := b.Run(ctx, models, e2eModel, prompt(), nil, nil)
	if err != nil {
		t.Fatalf("Run() = %v, want the turn to complete without echo", err)
	}
	if res.Response.Text() != "found" || res.Turns != 2 {
		t.Errorf("Run() = %q after %d turns, want \"found\" after 2", res.Response.Text(), res.Turns)
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
	tools, err := b.GenAITools()
	if err != nil || len(tools) != 1 || len(tools[0].FunctionDeclarations) != 2 {
		t.Errorf("GenAITools() = %v, want lookup and profile only", err)
	}

	// For the rest of the session: the next Run never sends echo.
	if _, err := b.Run(ctx, models, e2eModel, prompt(), nil, nil); err != nil {
		t.Fatalf("second Run() = %v", err)
	}
	if reqs := srv.Requests(); len(reqs) != 4 || reqs[3].Rejection != "" || reqs[3].Declaration("echo") != nil {
		t.Errorf("second Run() sent echo again or was rejected")
	}
}

func TestRunUnhealable400(t *testing.T) {
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
			res, err := b.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil, &RunOptions{HostFunctions: []HostFunction{host}})
			if _, ok := blame.BadRequest(err); !ok || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run(%s) = %v, want the API's 400 containing %q", tc.name, err, tc.want)
			}
			if n := len(srv.Requests()); n != 1 || res.Turns != 1 {
				t.Errorf("Run(%s) sent %d requests in %d turns, want 1 (no retry)", tc.name, n, res.Turns)
			}
			if st := b.Status().Servers[0]; len(st.Rejected) != 0 {
				t.Errorf("Run(%s) rejected %v, want nothing dropped", tc.name, st.Rejected)
			}
		})
	}
}
