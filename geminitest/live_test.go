package geminitest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/websocket"
	"google.golang.org/genai"
)

// connectLive connects a real genai client to srv's Live endpoint.
func connectLive(t *testing.T, srv *Server, config *genai.LiveConnectConfig) *genai.Session {
	t.Helper()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, srv.LiveClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Live.Connect(ctx, model, config)
	if err != nil {
		t.Fatalf("Live.Connect() = %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// receive reads messages until one satisfies done, returning them all.
func receive(t *testing.T, s *genai.Session, done func(*genai.LiveServerMessage) bool) []*genai.LiveServerMessage {
	t.Helper()
	var out []*genai.LiveServerMessage
	for {
		m, err := s.Receive()
		if err != nil {
			t.Fatalf("Receive() = %v after %d messages", err, len(out))
		}
		out = append(out, m)
		if done(m) {
			return out
		}
	}
}

func turnComplete(m *genai.LiveServerMessage) bool {
	return m.ServerContent != nil && m.ServerContent.TurnComplete
}

var weather = &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{
	{Name: "weather", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}}},
	{Name: "report", Behavior: genai.BehaviorNonBlocking},
}}

func TestLiveText(t *testing.T) {
	srv := New(t, nil, func(req *Request) Response {
		return Response{Parts: []*genai.Part{{Text: "Hi " + req.LastContent().Parts[0].Text}, {Text: "!"}}}
	})
	s := connectLive(t, srv, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err := s.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText("Ann", genai.RoleUser)}}); err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, m := range receive(t, s, turnComplete) {
		if m.ServerContent != nil && m.ServerContent.ModelTurn != nil {
			text = append(text, m.ServerContent.ModelTurn.Parts[0].Text)
		}
	}
	if diff := cmp.Diff([]string{"Hi Ann", "!"}, text); diff != "" {
		t.Errorf("texts mismatch (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].Live || reqs[0].Model != model || reqs[1].Turn != 0 {
		t.Errorf("Requests() = %d, want the setup and one answered turn", len(reqs))
	}
}

func TestLiveToolCalls(t *testing.T) {
	srv := New(t, nil,
		Calls(Call{Name: "weather", Args: map[string]any{"city": "Oslo"}}, Call{Name: "report"}),
		func(req *Request) Response {
			return Response{Parts: []*genai.Part{{Text: "It is " + outputOf(req.FunctionResponses()[0])}}}
		},
		Text("Report ready."),
	)
	s := connectLive(t, srv, &genai.LiveConnectConfig{Tools: []*genai.Tool{weather}})
	if err := s.SendRealtimeInput(genai.LiveRealtimeInput{Text: "weather?"}); err != nil {
		t.Fatal(err)
	}
	msgs := receive(t, s, func(m *genai.LiveServerMessage) bool { return m.ToolCall != nil })
	calls := msgs[len(msgs)-1].ToolCall.FunctionCalls
	if len(calls) != 2 || calls[0].ID == "" || calls[0].Name != "weather" {
		t.Fatalf("toolCall = %+v, want weather and report with IDs", calls)
	}
	// The blocking call answered: the model goes on; the non-blocking one is still pending.
	if err := s.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{
		{ID: calls[0].ID, Name: "weather", Response: map[string]any{"output": "sunny"}},
	}}); err != nil {
		t.Fatal(err)
	}
	msgs = receive(t, s, turnComplete)
	if got := msgs[0].ServerContent.ModelTurn.Parts[0].Text; got != "It is sunny" {
		t.Errorf("answer = %q, want \"It is sunny\"", got)
	}
	// A SILENT result answers nothing; a WHEN_IDLE one wakes the model.
	if err := s.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{
		{ID: calls[1].ID, Name: "report", Response: map[string]any{"output": "done"}, Scheduling: genai.FunctionResponseSchedulingWhenIdle},
	}}); err != nil {
		t.Fatal(err)
	}
	msgs = receive(t, s, turnComplete)
	if got := msgs[0].ServerContent.ModelTurn.Parts[0].Text; got != "Report ready." {
		t.Errorf("answer = %q, want \"Report ready.\"", got)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left", srv.Remaining())
	}
}

func outputOf(r *genai.FunctionResponse) string {
	s, _ := r.Response["output"].(string)
	return s
}

func TestLiveCancel(t *testing.T) {
	srv := New(t, nil,
		Calls(Call{ID: "c1", Name: "weather", Args: map[string]any{"city": "Oslo"}}),
		Reply(Response{Cancel: []string{"c1"}, Parts: []*genai.Part{{Text: "Stopped."}}}),
	)
	s := connectLive(t, srv, &genai.LiveConnectConfig{Tools: []*genai.Tool{weather}})
	_ = s.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText("weather?", genai.RoleUser)}})
	receive(t, s, func(m *genai.LiveServerMessage) bool { return m.ToolCall != nil })
	_ = s.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText("stop", genai.RoleUser)}})
	msgs := receive(t, s, turnComplete)
	if c := msgs[0].ToolCallCancellation; c == nil || len(c.IDs) != 1 || c.IDs[0] != "c1" {
		t.Fatalf("first message = %+v, want the cancellation of c1", msgs[0])
	}
	// The cancelled call is no longer pending: answering it is refused.
	_ = s.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: []*genai.FunctionResponse{
		{ID: "c1", Name: "weather", Response: map[string]any{"output": "late"}},
	}})
	_, err := s.Receive()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInvalidFramePayloadData || !strings.Contains(ce.Text, "answers no pending") {
		t.Errorf("Receive() after answering a cancelled call = %v, want a 1007 close", err)
	}
}

func TestLiveRejects(t *testing.T) {
	srv := New(t, nil, Text("never"))
	client, err := genai.NewClient(context.Background(), srv.LiveClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	bad := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "f"}, {Name: "f"}}}
	_, err = client.Live.Connect(context.Background(), model, &genai.LiveConnectConfig{Tools: []*genai.Tool{bad}})
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInvalidFramePayloadData || !strings.Contains(ce.Text, "Duplicate function declaration") {
		t.Errorf("Connect(bad tools) = %v, want a 1007 close naming the duplicate", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Rejection, "Duplicate function declaration found: f") {
		t.Errorf("Requests() = %+v, want the rejected setup", reqs)
	}
	if srv.Remaining() != 1 {
		t.Error("a refused setup used a turn")
	}
}
