package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/agent"
)

// pearShop starts an MCP server on loopback with two tools, stock and
// order (whose count is a numeric enum; an order waits until hold, when
// not nil, is closed), and returns a discovered Bridge that may run them
// without asking, and the function that stops both.
func pearShop(hold <-chan struct{}) (*mcpbridge.Bridge, func()) {
	s := server.NewMCPServer("shop", "1.0.0")
	s.AddTool(mcp.NewTool("stock", mcp.WithDescription("Items in stock."), mcp.WithString("item", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("12 " + r.GetString("item", "")), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("order", "Orders items.", json.RawMessage(
		`{"type":"object","properties":{"item":{"type":"string"},"count":{"enum":[1,5,10]}},"required":["item","count"]}`)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if hold != nil {
				select {
				case <-hold:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return mcp.NewToolResultText(fmt.Sprintf("ordered %v %s", r.GetArguments()["count"], r.GetString("item", ""))), nil
		})
	h := server.NewStreamableHTTPServer(s)
	ts := httptest.NewServer(h)
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"}) // run every tool of shop without asking
	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{{Name: "shop", HTTPURL: ts.URL + "/mcp", Timeout: 10 * time.Second}}}
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{Policy: policy, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	if err := b.Discover(context.Background()); err != nil {
		log.Fatal(err)
	}
	return b, func() {
		_ = b.Close()
		_ = h.Shutdown(context.Background())
		ts.CloseClientConnections()
		ts.Close()
	}
}

func ExampleAgent_Run() {
	b, stop := pearShop(nil)
	defer stop()

	// A scripted model: check the stock, order from it, then answer.
	fake := geminitest.New(nil, nil,
		geminitest.Calls(geminitest.Call{Name: "stock", Args: map[string]any{"item": "pears"}}),
		func(req *geminitest.Request) geminitest.Response {
			stock := req.FunctionResponses()[0].Response["output"].(string) // "12 pears"
			count := "10"
			if strings.HasPrefix(stock, "0 ") {
				count = "1"
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
				Name: "order", Args: map[string]any{"item": "pears", "count": count}}}}}
		},
		geminitest.Text("Ordered 10 pears."),
	)
	defer fake.Close()
	ctx := context.Background()
	client := fake.Client(ctx) // a real *genai.Client; genai.NewClient(ctx, nil) for the real API

	a := agent.New(b, &agent.Options{
		OnResult: func(r *mcpbridge.CallResult) { fmt.Printf("[%s] %s\n", r.Name, r.ReturnDisplay) },
	})
	defer a.Close()
	history := []*genai.Content{genai.NewContentFromText("Order as many pears as you can.", genai.RoleUser)}
	res, err := a.Run(ctx, client.Models, "gemini-2.5-flash", history, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response.Text())
	fmt.Println(res.Turns, "requests,", len(res.History), "contents in the history")
	// Output:
	// [stock] 12 pears
	// [order] ordered 10 pears
	// Ordered 10 pears.
	// 3 requests, 6 contents in the history
}

func ExampleAgent_RunStream() {
	b, stop := pearShop(nil)
	defer stop()

	// A scripted model: it says what it does, checks the stock, then answers
	// in two chunks.
	fake := geminitest.New(nil, nil,
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{
			{Text: "Checking. "},
			{FunctionCall: &genai.FunctionCall{Name: "stock", Args: map[string]any{"item": "pears"}}},
		}}),
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{{Text: "There are "}, {Text: "12 pears."}}}),
	)
	defer fake.Close()
	ctx := context.Background()
	client := fake.Client(ctx)

	a := agent.New(b, nil)
	defer a.Close()
	history := []*genai.Content{genai.NewContentFromText("How many pears?", genai.RoleUser)}
	for ev, err := range a.RunStream(ctx, client.Models, "gemini-2.5-flash", history, nil) {
		switch ev.Kind {
		case agent.EventText:
			fmt.Printf("text %q\n", ev.Text)
		case agent.EventCall:
			fmt.Println("call", ev.Call.Name)
		case agent.EventResult:
			fmt.Println("result", ev.Result.ReturnDisplay)
		case agent.EventDone:
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(ev.Run.Turns, "requests:", ev.Run.Response.Text())
		}
	}
	// Output:
	// text "Checking. "
	// call stock
	// result 12 pears
	// text "There are "
	// text "12 pears."
	// 2 requests: There are 12 pears.
}

func ExampleAgent_Live() {
	b, stop := pearShop(nil)
	defer stop()

	// A scripted Live model: it checks the stock, then answers.
	fake := geminitest.New(nil, nil,
		geminitest.Calls(geminitest.Call{Name: "stock", Args: map[string]any{"item": "pears"}}),
		geminitest.Text("There are 12 pears."),
	)
	defer fake.Close()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, fake.LiveClientConfig())
	if err != nil {
		log.Fatal(err)
	}

	a := agent.New(b, &agent.Options{
		OnCall:   func(c *genai.FunctionCall) { fmt.Println("tool call:", c.Name) }, // before the call starts
		OnResult: func(r *mcpbridge.CallResult) { fmt.Println("result:", r.ReturnDisplay) },
	})
	defer a.Close()
	tools, err := a.Live(ctx, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err != nil {
		log.Fatal(err)
	}
	defer tools.Close()
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", tools.Config())
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	if err := session.SendClientContent(genai.LiveClientContentInput{
		Turns: []*genai.Content{genai.NewContentFromText("How many pears?", genai.RoleUser)},
	}); err != nil {
		log.Fatal(err)
	}
	for {
		msg, err := session.Receive()
		if err != nil {
			log.Fatal(err)
		}
		if tools.Handle(ctx, session, msg) {
			continue // the calls run; their response goes to the session when they end
		}
		if sc := msg.ServerContent; sc != nil {
			if sc.ModelTurn != nil {
				fmt.Println(sc.ModelTurn.Parts[0].Text)
			}
			if sc.TurnComplete {
				break
			}
		}
	}
	// Output:
	// tool call: stock
	// result: 12 pears
	// There are 12 pears.
}

// The host's own function runs in the same turn as the shop's tool; a
// call that takes long runs in the background and its result reaches the
// model in a later request.
func ExampleOptions() {
	shipping := make(chan struct{}) // the order ends once Run has
	b, stop := pearShop(shipping)
	defer stop()

	budget := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "budget", Description: "Money left to spend, in euros."},
		Handler: func(ctx context.Context, args map[string]any) (any, error) {
			return "20 euros", nil
		},
	}
	fake := geminitest.New(nil, nil,
		geminitest.Calls(
			geminitest.Call{Name: "budget"},
			geminitest.Call{Name: "order", Args: map[string]any{"item": "pears", "count": "5"}},
		),
		geminitest.Text("I ordered 5 pears; the order is on its way."),
	)
	defer fake.Close()
	ctx := context.Background()
	done := make(chan *mcpbridge.CallResult, 1)
	a := agent.New(b, &agent.Options{
		Functions:  []mcpbridge.HostFunction{budget},
		Background: []string{"order"}, // answered "started" at once
		OnResult: func(r *mcpbridge.CallResult) {
			out, _ := json.Marshal(r.FunctionResponse().Response)
			fmt.Printf("[%s] %s\n", r.Name, out)
		},
		OnBackgroundDone: func(r *mcpbridge.CallResult) { done <- r },
	})
	defer a.Close()
	history := []*genai.Content{genai.NewContentFromText("Buy 5 pears if I can afford them.", genai.RoleUser)}
	res, err := a.Run(ctx, fake.Client(ctx).Models, "gemini-2.5-flash", history, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response.Text())
	close(shipping)
	fmt.Println("later:", (<-done).ReturnDisplay, "-", a.Pending(), "result for the next request")
	// Unordered output:
	// [budget] {"output":"20 euros"}
	// [order] {"output":{"note":"This call runs in the background; its result will be given in a later turn.","status":"started"}}
	// I ordered 5 pears; the order is on its way.
	// later: ordered 5 pears - 1 result for the next request
}
