// Package geminitest is a fake of the Gemini Developer API's generateContent
// endpoint for tests: an [httptest.Server] that a real *genai.Client reaches
// through genai.HTTPOptions.BaseURL, that decodes every request as strictly
// as the API does, and that answers from a script of turns.
//
// What it checks, in order, for every request:
//
//   - the API key (a missing key is a 403, as the API answers);
//   - the body, parsed like a proto message: one unknown key anywhere
//     (additionalProperties or $ref in a function's parameters, a misspelled
//     field in a part), a value of the wrong type, or two data fields in one
//     part is an HTTP 400 with the API's wording;
//   - every function declaration, against the schema rules of
//     [schema.CheckDeclaration] for the Developer API (in
//     parametersJsonSchema: $ref only as a local JSON pointer that
//     resolves, with nothing but description and default beside it, and
//     no loop of references through required fields only), at most
//     [MaxDeclarations] of them, no name declared twice;
//   - the conversation: roles "user" and "model", every function call of a
//     model turn answered in the next user turn, each response echoing its
//     call's name and ID, and, with [Options.ThoughtSignatures], the model
//     turns' thought signatures kept.
//
// A rejected request reaches the caller as a genai.APIError with Code 400,
// Status "INVALID_ARGUMENT" and the message. [Options.DeclarationRules] and
// [Options.MaxNestingDepth] add the backend's rejections that no schema rule
// foresees ("too many states for serving", nesting depth), worded as the API
// words them, so that a program's handling of a rejected declaration can be
// tested. The keyword-by-keyword account of what the API accepts, with its
// sources, is the repository's docs/gemini-schema.md.
//
// A request that passes reaches the script as a [Request] holding the genai
// types a caller passes to genai.Models.GenerateContent (its contents and a
// genai.GenerateContentConfig), beside the raw body and headers:
//
//	srv := geminitest.New(t, nil,
//		geminitest.Calls(geminitest.Call{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}),
//		func(req *geminitest.Request) geminitest.Response {
//			got := req.FunctionResponses() // what the program sent back
//			_ = got
//			return geminitest.Response{Parts: []*genai.Part{{Text: "It is sunny."}}}
//		},
//	)
//	client := srv.Client(ctx)
//	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
//	// ... srv.Requests() holds every request, accepted or rejected.
//
// streamGenerateContent is served too, as server-sent events
// (?alt=sse, what genai's GenerateContentStream asks for): one event per
// part of the answer, or as [Response.Chunks] splits it, each flushed as
// soon as it is written ([Response.BeforeChunk] lets a test hold the
// stream between events). On the Vertex AI target ([Options.VertexAI]), a
// stream whose request sets streamFunctionCallArguments gets each call's
// arguments in pieces (partialArgs), as Vertex AI sends them; the
// Developer API refuses the field. So is the Live API's WebSocket
// (BidiGenerateContent; connect with [Server.LiveClientConfig]): the setup
// message's tools are checked like a request's, the script answers each
// complete user turn, function calls go out as toolCall messages and must
// be answered by ID, NON_BLOCKING functions let the model go on, and
// [Response.Cancel] sends toolCallCancellation. A message the API would
// refuse closes the session with code 1007 and the reason.
//
// Embeddings are served too: batchEmbedContents (what genai's
// Models.EmbedContent calls on the Developer API) and embedContent, decoded
// as strictly, checked as the API checks them (at most 100 contents a
// batch, each naming the batch's model, with text; a title only for the
// task type RETRIEVAL_DOCUMENT; from 1 to 3,072 dimensions), answered with
// [Options.Embed] or, by default, [HashEmbedding]: deterministic vectors
// in which texts that share words are near. [Server.EmbedRequests] holds
// them.
//
// Like net/http/httptest, the package is for tests; it has no MCP
// dependency, so the tests of any program built on genai can use it, since
// the Gemini API cannot be reached from every test machine.
package geminitest
