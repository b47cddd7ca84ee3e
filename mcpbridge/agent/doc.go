// Package agent is the Gemini loop over the tools of MCP servers: an
// [Agent] sends a conversation to a model with the tools of a
// [mcpbridge.Bridge] and the host's own functions, runs the model's calls
// and sends again until the model answers ([Agent.Run]); the same on a
// stream, text and calls reported as they come ([Agent.RunStream]); and
// the tools of a Live API session ([Agent.Live]). Calls that take long
// run in the background while the conversation goes on
// ([Options.Background]).
//
// It is built on mcpbridge's public API alone, as a host's own loop would
// be: each request's tools come from [mcpbridge.Bridge.Declare] (chosen
// for the conversation when there are more than a request may carry), a
// declaration the API rejects is dropped with
// [mcpbridge.Declarations.Heal] and the request sent again, and the calls
// run through the request's [mcpbridge.Declarations]. A host with a loop
// of its own uses those directly instead.
//
//	b, err := mcpbridge.New(cfg, nil)
//	if err != nil {
//		return err
//	}
//	defer b.Close()
//	if err := b.Discover(ctx); err != nil {
//		return err
//	}
//	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
//	if err != nil {
//		return err
//	}
//	a := agent.New(b, &agent.Options{
//		OnResult: func(r *mcpbridge.CallResult) { fmt.Println(r.ReturnDisplay) },
//	})
//	defer a.Close()
//	history := []*genai.Content{genai.NewContentFromText("What changed today?", genai.RoleUser)}
//	res, err := a.Run(ctx, client.Models, "gemini-2.5-flash", history, nil)
//	if err != nil {
//		return err
//	}
//	fmt.Println(res.Response.Text())
//
// The package logs nothing: what goes wrong comes back as errors (its own
// are [ErrTurnLimit], [ErrNoAnswer], [ErrStreamedCall], [ErrCancelled] and
// [ErrClosed]) and as the calls' results.
package agent
