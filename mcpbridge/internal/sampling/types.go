// Package sampling answers an MCP server's sampling/createMessage request
// (a model completion the server asks its client for, with tools since
// protocol 2025-11-25) with a model: it decodes and checks the request as
// the server sent it, bounds it, lets a person review it before and after
// the model answers, and encodes the answer. The request, the answer and
// the Sampler are the public package's (mcpbridge/sampling); this package
// is their wire form and the rules around them.
//
//	h := sampling.NewHandler(sampling.Config{Sampler: api.Gemini(client.Models, "gemini-2.5-flash")})
//	raw, err := h.Handle(ctx, "files", "", "sampling/createMessage", params) // params: the request's JSON params
//	// raw is the CreateMessageResult; err may be an *rpcerr.Error for the server.
//
// The package knows nothing of transports: mcpconn routes the requests,
// and the Bridge adds redaction and tracing at its exits.
package sampling

// SignatureMeta is the _meta key of a tool_use's thought signature
// (base64).
const SignatureMeta = "com.github.mcpgenai.bridge/thoughtSignature"
