// Package geminitest is a fake of the Gemini Developer API's generateContent
// endpoint for tests: an [httptest.Server] that a real *genai.Client reaches
// through genai.HTTPOptions.BaseURL, that decodes every request as strictly
// as the API does, and that answers from a script of turns.
//
// Strict means what the real API means: the body is parsed like a proto
// message, so one unknown key anywhere (additionalProperties or $ref in a
// function's parameters, a misspelled field in a part) is an HTTP 400 with
// the API's wording; the schema rules of [schema.CheckDeclaration] are
// enforced on every function declaration; and the conversation must be
// well formed: roles "user" and "model", every function call of a model
// turn answered in the next user turn, each response echoing its call's
// name and ID. A rejected request reaches the caller as a genai.APIError
// with Code 400, Status "INVALID_ARGUMENT" and the message.
// [Options.DeclarationRules] and [Options.MaxNestingDepth] add the
// backend's rejections that no schema rule foresees ("too many states for
// serving", nesting depth), worded as the API words them, so that a
// program's handling of a rejected declaration can be tested.
//
//	srv := geminitest.New(t,
//		geminitest.Calls(geminitest.Call{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}),
//		func(req *geminitest.Request) geminitest.Response {
//			got := req.FunctionResponses() // what the bridge sent back
//			_ = got
//			return geminitest.Response{Parts: []*genai.Part{{Text: "It is sunny."}}}
//		},
//	)
//	client := srv.Client(ctx)
//	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
//	// ... srv.Requests() holds every request, decoded and raw.
//
// Like net/http/httptest, the package is for tests: mcpbridge's own tests and
// examples use it, and so can the tests of programs built on mcpbridge, since
// the Gemini API cannot be reached from every test machine.
package geminitest
