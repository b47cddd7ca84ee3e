package agent

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

// ordersAgent is an Agent over a Bridge for Vertex AI with the "orders/place" tool
// (nested arguments) of an in-process server, and the tool's registered
// name.
func ordersAgent(t *testing.T) (*Agent, string) {
	t.Helper()
	b := discovered(t, &mcpbridge.Options{Target: schema.Vertex}, inProcess(t, "shop", testserver.Options{Shapes: true, Bare: true}))
	for _, tool := range b.Tools() {
		if tool.ServerTool == "orders/place" {
			return newAgent(t, b, nil), tool.Name
		}
	}
	t.Fatal("the orders/place tool is not registered")
	return nil, ""
}

// pieceCounter counts the partialArgs of the chunks that pass through it.
type pieceCounter struct {
	gen    ContentStreamer
	pieces int
}

func (c *pieceCounter) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for chunk, err := range c.gen.GenerateContentStream(ctx, model, contents, config) {
			if err == nil && len(chunk.Candidates) > 0 && chunk.Candidates[0].Content != nil {
				for _, p := range chunk.Candidates[0].Content.Parts {
					if p.FunctionCall != nil {
						c.pieces += len(p.FunctionCall.PartialArgs)
					}
				}
			}
			if !yield(chunk, err) {
				return
			}
		}
	}
}

func streamArgsOn() *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
		StreamFunctionCallArguments: genai.Ptr(true),
	}}}
}

// TestRunStreamStreamedArgs: on Vertex AI with streamFunctionCallArguments,
// a call whose nested arguments arrive in pieces (strings split over
// chunks, arrays of objects, a stringified enum, null) is assembled,
// restored (the enum's number, the server's tool name) and run; History
// holds the assembled call with its thought signature, and the next
// request is accepted.
func TestRunStreamStreamedArgs(t *testing.T) {
	a, name := ordersAgent(t)
	ctx := context.Background()
	args := map[string]any{
		"customer": map[string]any{"name": "Ada Lovelace-Byron", "tags": []any{"vip", "early adopter"}},
		"items":    []any{map[string]any{"sku": "A-1", "qty": 2.0}, map[string]any{"sku": "B-22", "qty": 1.0}},
		"size":     "2",
		"gift":     true,
		"note":     nil,
	}
	var placed string
	srv := geminitest.New(t, &geminitest.Options{VertexAI: true, ThoughtSignatures: true},
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{{Text: "Placing it."}, {FunctionCall: &genai.FunctionCall{Name: name, Args: args}}}}),
		func(req *geminitest.Request) geminitest.Response {
			placed = outputOf(req, 0)
			return geminitest.Response{Parts: []*genai.Part{{Text: "Done."}}}
		})
	gen := &pieceCounter{gen: srv.Client(ctx).Models}
	evs, err := collect(t, a.RunStream(ctx, gen, e2eModel, prompt(), streamArgsOn()))
	if err != nil {
		t.Fatalf("RunStream() = %v", err)
	}
	// 2 tags + 2 items of 2 + size, gift, note = 9 values, the long
	// strings in more than one piece each.
	if gen.pieces < 12 {
		t.Errorf("the call came in %d pieces, want it streamed in pieces", gen.pieces)
	}
	want := []string{"text:Placing it.", "request:1", "call:" + name, "result:" + name, "text:Done.", "request:2", "done"}
	if diff := cmp.Diff(want, kinds(evs)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	// What the server received: the arguments whole, the enum a number.
	var got map[string]any
	if err := json.Unmarshal([]byte(placed), &got); err != nil {
		t.Fatalf("the tool answered %q: %v", placed, err)
	}
	wantArgs := map[string]any{
		"customer": map[string]any{"name": "Ada Lovelace-Byron", "tags": []any{"vip", "early adopter"}},
		"items":    []any{map[string]any{"sku": "A-1", "qty": 2.0}, map[string]any{"sku": "B-22", "qty": 1.0}},
		"size":     2.0, "gift": true, "note": nil,
	}
	if diff := cmp.Diff(wantArgs, got); diff != "" {
		t.Errorf("the server received (-want +got):\n%s", diff)
	}
	res := evs[len(evs)-1].Run
	call := res.History[1].Parts[1]
	if call.FunctionCall == nil || call.FunctionCall.Name != name || call.FunctionCall.ID != "call-1" ||
		string(call.ThoughtSignature) != "fake-signature-"+name || len(call.FunctionCall.PartialArgs) != 0 || call.FunctionCall.WillContinue != nil {
		t.Errorf("the model turn in History holds %+v, want the assembled call with its signature", call)
	}
	if diff := cmp.Diff(args, call.FunctionCall.Args); diff != "" {
		t.Errorf("the assembled call's Args (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Rejection != "" {
		t.Fatalf("the fake saw %d requests, the second rejected: %q", len(reqs), reqs[len(reqs)-1].Rejection)
	}
	if fc := reqs[0].Config.ToolConfig.FunctionCallingConfig; fc == nil || fc.StreamFunctionCallArguments == nil {
		t.Error("the host's streamFunctionCallArguments did not reach the API")
	}
}

// TestRunStreamStreamedArgsMalformed: pieces that do not make one call
// end the run with ErrStreamedCall, naming the call; nothing runs.
func TestRunStreamStreamedArgsMalformed(t *testing.T) {
	a, name := ordersAgent(t)
	ctx := context.Background()
	yes := genai.Ptr(true)
	piece := func(fc *genai.FunctionCall) *genai.Part { return &genai.Part{FunctionCall: fc} }
	tests := []struct {
		name  string
		parts []*genai.Part
		says  string
	}{
		{"bad path", []*genai.Part{
			piece(&genai.FunctionCall{Name: name, WillContinue: yes}),
			piece(&genai.FunctionCall{WillContinue: yes, PartialArgs: []*genai.PartialArg{{JsonPath: "$.items[*].sku", StringValue: "A"}}}),
			piece(&genai.FunctionCall{}),
		}, `piece 1, path "$.items[*].sku": malformed piece`},
		{"set twice", []*genai.Part{
			piece(&genai.FunctionCall{Name: name, WillContinue: yes, PartialArgs: []*genai.PartialArg{{JsonPath: "$.gift", BoolValue: yes}}}),
			piece(&genai.FunctionCall{PartialArgs: []*genai.PartialArg{{JsonPath: "$.gift", BoolValue: yes}}}),
		}, "a value is put where a boolean already is"},
		{"cut off", []*genai.Part{
			piece(&genai.FunctionCall{Name: name, WillContinue: yes, PartialArgs: []*genai.PartialArg{{JsonPath: "$.note", StringValue: "x", WillContinue: yes}}}),
		}, "the stream ended before its last piece"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := geminitest.New(t, &geminitest.Options{VertexAI: true}, geminitest.Reply(geminitest.Response{Parts: tt.parts}))
			ran := false
			watched := newAgent(t, a.b, &Options{OnResult: func(*mcpbridge.CallResult) { ran = true }})
			evs, err := collect(t, watched.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), streamArgsOn()))
			if !errors.Is(err, ErrStreamedCall) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), `function call "`+name+`" (id "call-1")`) {
				t.Fatalf("RunStream() = %v, want ErrStreamedCall naming the call and saying %q", err, tt.says)
			}
			if ran || len(evs) != 1 {
				t.Errorf("events %v, a call ran: %v; want only EventDone", kinds(evs), ran)
			}
		})
	}
}

// TestRunStreamStreamedArgsTwoCalls: two calls of one turn, each streamed
// in pieces and ended by an empty functionCall, without call IDs (as
// Vertex AI sends them), stay two calls with their own arguments.
func TestRunStreamStreamedArgsTwoCalls(t *testing.T) {
	a, name := ordersAgent(t)
	ctx := context.Background()
	order := func(who, sku string) map[string]any {
		return map[string]any{"customer": map[string]any{"name": who}, "items": []any{map[string]any{"sku": sku, "qty": 1.0}}}
	}
	var outputs []string
	srv := geminitest.New(t, &geminitest.Options{VertexAI: true, NoCallIDs: true},
		geminitest.Calls(geminitest.Call{Name: name, Args: order("Ann Example", "SKU-0001")}, geminitest.Call{Name: name, Args: order("Bob Example", "SKU-0002")}),
		func(req *geminitest.Request) geminitest.Response {
			outputs = []string{outputOf(req, 0), outputOf(req, 1)}
			return geminitest.Response{Parts: []*genai.Part{{Text: "Both placed."}}}
		})
	evs, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), streamArgsOn()))
	if err != nil {
		t.Fatalf("RunStream() = %v", err)
	}
	calls := evs[len(evs)-1].Run.History[1].Parts
	if len(calls) != 2 {
		t.Fatalf("the model turn has %d parts, want the 2 calls", len(calls))
	}
	for i, who := range []string{"Ann Example", "Bob Example"} {
		if diff := cmp.Diff(order(who, "SKU-000"+string(rune('1'+i))), calls[i].FunctionCall.Args); diff != "" {
			t.Errorf("call %d's Args (-want +got):\n%s", i, diff)
		}
		if len(outputs) != 2 || !strings.Contains(outputs[i], who) {
			t.Errorf("the server's answers = %q, want %s's order in place %d", outputs, who, i)
		}
	}
}
