package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// liveConnect connects a real genai client to srv's Live endpoint with
// lt's configuration; the session closes at the test's end, or after a
// minute so that a broken test cannot hang in Receive.
func liveConnect(t *testing.T, srv *geminitest.Server, lt *LiveSession) *genai.Session {
	t.Helper()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, srv.LiveClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Live.Connect(ctx, e2eModel, lt.Config())
	if err != nil {
		t.Fatalf("Live.Connect() = %v", err)
	}
	watchdog := time.AfterFunc(time.Minute, func() { _ = s.Close() })
	t.Cleanup(func() { watchdog.Stop(); _ = s.Close() })
	return s
}

// lockedSession serializes the test's sends with the tools' sends.
type lockedSession struct {
	mu sync.Mutex
	s  *genai.Session
}

func (l *lockedSession) SendToolResponse(in genai.LiveToolResponseInput) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.SendToolResponse(in)
}

func (l *lockedSession) say(t *testing.T, text string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.s.SendClientContent(genai.LiveClientContentInput{Turns: []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)}}); err != nil {
		t.Fatalf("SendClientContent() = %v", err)
	}
}

// untilText receives messages, handing each to lt, until a turn completes,
// and returns the model's text of that turn.
func untilText(t *testing.T, ctx context.Context, lt *LiveSession, ls *lockedSession) (string, []*genai.LiveServerMessage) {
	t.Helper()
	var text strings.Builder
	var msgs []*genai.LiveServerMessage
	for {
		m, err := ls.s.Receive()
		if err != nil {
			t.Fatalf("Receive() = %v (text so far %q)", err, text.String())
		}
		msgs = append(msgs, m)
		lt.Handle(ctx, ls, m)
		if sc := m.ServerContent; sc != nil {
			if sc.ModelTurn != nil {
				for _, p := range sc.ModelTurn.Parts {
					text.WriteString(p.Text)
				}
			}
			if sc.TurnComplete && text.Len() > 0 {
				return text.String(), msgs
			}
		}
	}
}

func TestLiveToolCall(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}),
		func(req *geminitest.Request) geminitest.Response {
			return geminitest.Response{Parts: []*genai.Part{{Text: "Found: " + outputOf(req, 0)}}}
		})
	var results []*mcpbridge.CallResult
	lt, err := newAgent(t, b, &Options{OnResult: func(r *mcpbridge.CallResult) { results = append(results, r) }}).
		Live(ctx, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err != nil {
		t.Fatalf("Live() = %v", err)
	}
	defer lt.Close()
	ls := &lockedSession{s: liveConnect(t, srv, lt)}
	ls.say(t, "who is ann?")
	text, _ := untilText(t, ctx, lt, ls)
	lt.Close()
	if !strings.HasPrefix(text, "Found: ") || !strings.Contains(text, "u-3") {
		t.Errorf("answer = %q, want the lookup's result", text)
	}
	if len(results) != 1 || results[0].Err != nil || results[0].Server != "main" {
		t.Errorf("results = %+v, want one successful lookup on main", results)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Declaration("lookup") == nil || reqs[0].Declaration("lookup").Behavior != "" {
		t.Fatalf("the setup does not declare lookup as blocking")
	}
	for _, r := range reqs {
		if r.Rejection != "" {
			t.Errorf("the fake refused a message: %s", r.Rejection)
		}
	}
	if rep := lt.Report(); rep.Declared != len(reqs[0].Declarations()) {
		t.Errorf("Report().Declared = %d, the setup declares %d", rep.Declared, len(reqs[0].Declarations()))
	}
	if lt.Err() != nil {
		t.Errorf("Err() = %v", lt.Err())
	}
}

// TestLiveCancellation: the API's toolCallCancellation cancels the call at
// the MCP server (notifications/cancelled over streamable HTTP), and the
// cancelled call gets no response (the fake would close the session).
func TestLiveCancellation(t *testing.T) {
	slow, started, cancelled := sleepServer(t, "slow")
	b := discovered(t, nil, slow)
	ctx := context.Background()
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{ID: "s1", Name: "sleep", Args: map[string]any{"ms": 600000}}),
		geminitest.Reply(geminitest.Response{Cancel: []string{"s1"}, Parts: []*genai.Part{{Text: "Stopped."}}}),
		geminitest.Text("Still here."),
	)
	results := make(chan *mcpbridge.CallResult, 1)
	lt, err := newAgent(t, b, &Options{OnResult: func(r *mcpbridge.CallResult) { results <- r }}).Live(ctx, nil)
	if err != nil {
		t.Fatalf("Live() = %v", err)
	}
	defer lt.Close()
	ls := &lockedSession{s: liveConnect(t, srv, lt)}
	ls.say(t, "sleep")
	for {
		m, err := ls.s.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if lt.Handle(ctx, ls, m) {
			break // the tool call
		}
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the sleep call never reached the server")
	}
	ls.say(t, "stop")
	text, msgs := untilText(t, ctx, lt, ls)
	if text != "Stopped." || msgs[0].ToolCallCancellation == nil {
		t.Fatalf("after stop: %q, first message %+v; want the cancellation then \"Stopped.\"", text, msgs[0])
	}
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never saw the call cancelled")
	}
	r := <-results
	if !errors.Is(r.Err, ErrCancelled) {
		t.Errorf("result error = %v, want ErrCancelled", r.Err)
	}
	// The session goes on: no response was sent for the cancelled call.
	ls.say(t, "still there?")
	if text, _ := untilText(t, ctx, lt, ls); text != "Still here." {
		t.Errorf("next answer = %q, want \"Still here.\"", text)
	}
	for _, req := range srv.Requests() {
		if req.Rejection != "" {
			t.Errorf("the fake refused a message: %s", req.Rejection)
		}
	}
}

// TestLiveBackground: a background (NON_BLOCKING) tool's call lets the
// model finish its turn; the result comes later with the host's
// scheduling and wakes the model.
func TestLiveBackground(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	srv := geminitest.New(t, nil,
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{
			{Text: "Looking it up."},
			{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}}},
		}}),
		func(req *geminitest.Request) geminitest.Response {
			fr := req.FunctionResponses()
			if len(fr) != 1 || fr[0].Scheduling != genai.FunctionResponseSchedulingInterrupt {
				return geminitest.Response{Parts: []*genai.Part{{Text: "wrong response"}}}
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "Ann: " + outputOf(req, 0)}}}
		})
	lt, err := newAgent(t, b, &Options{
		Background: []string{"lookup"},
		Scheduling: func(*mcpbridge.CallResult) genai.FunctionResponseScheduling {
			return genai.FunctionResponseSchedulingInterrupt
		},
	}).Live(ctx, nil)
	if err != nil {
		t.Fatalf("Live() = %v", err)
	}
	defer lt.Close()
	ls := &lockedSession{s: liveConnect(t, srv, lt)}
	ls.say(t, "who is ann?")
	first, _ := untilText(t, ctx, lt, ls) // the model's turn ends while lookup runs
	if first != "Looking it up." {
		t.Fatalf("first turn = %q", first)
	}
	later, _ := untilText(t, ctx, lt, ls)
	if !strings.HasPrefix(later, "Ann: ") || !strings.Contains(later, "u-3") {
		t.Errorf("later turn = %q, want the result delivered with INTERRUPT", later)
	}
	if d := srv.Requests()[0].Declaration("lookup"); d == nil || d.Behavior != genai.BehaviorNonBlocking {
		t.Errorf("setup declares lookup as %+v, want NON_BLOCKING", d)
	}
}

func TestLiveOptionsErrors(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	if _, err := newAgent(t, b, &Options{Background: []string{"nope"}}).Live(ctx, nil); err == nil || !strings.Contains(err.Error(), `"nope" is not declared`) {
		t.Errorf("Live(Background nope) = %v, want an error", err)
	}
	if _, err := newAgent(t, b, &Options{Functions: []mcpbridge.HostFunction{{Declaration: &genai.FunctionDeclaration{Name: "a b"}}}}).Live(ctx, nil); err == nil {
		t.Error("Live(bad host function) = nil, want an error")
	}
	// Config is a copy: editing it changes nothing.
	lt, err := newAgent(t, b, nil).Live(ctx, &genai.LiveConnectConfig{Tools: []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}}})
	if err != nil {
		t.Fatal(err)
	}
	c := lt.Config()
	if len(c.Tools) != 2 || c.Tools[0].GoogleSearch == nil || len(c.Tools[1].FunctionDeclarations) == 0 {
		t.Fatalf("Config().Tools = %+v, want the search tool then the declarations", c.Tools)
	}
	c.Tools = nil
	if len(lt.Config().Tools) != 2 {
		t.Error("editing Config()'s copy changed the tools")
	}
	if lt.Handle(ctx, nil, nil) || lt.Handle(ctx, nil, &genai.LiveServerMessage{ServerContent: &genai.LiveServerContent{}}) {
		t.Error("Handle() = true for a message without tool calls")
	}
	_ = lt.Close()
	_ = lt.Close()
}

// TestLiveToolSearch: a Live session, whose declarations are fixed, does
// no tool search: the Selection's other fields choose its tools.
func TestLiveToolSearch(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	sel := &mcpbridge.Selection{Names: []string{"lookup", "echo"}, Search: &mcpbridge.ToolSearch{}}
	lt, err := newAgent(t, b, &Options{Selection: sel}).Live(context.Background(), nil)
	if err != nil {
		t.Fatalf("Live() = %v", err)
	}
	defer lt.Close()
	var names []string
	for _, tool := range lt.Config().Tools {
		for _, fd := range tool.FunctionDeclarations {
			names = append(names, fd.Name)
		}
	}
	if strings.Join(names, " ") != "echo lookup" || lt.Report().SearchFunction != "" || sel.Search == nil {
		t.Errorf("the session declares %v (search %q), want echo and lookup, and the Options' Selection unchanged", names, lt.Report().SearchFunction)
	}
}
