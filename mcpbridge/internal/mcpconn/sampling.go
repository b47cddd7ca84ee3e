package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A server asks for a model completion with sampling/createMessage. Before
// 2026-07-28 it sends the request while a call runs, possibly asking for it
// to run as a task (params.task), and then polls tasks/get and fetches
// tasks/result; mcp-go's client knows no tasks/* requests and answers
// errors only with code -32603, so the taps hand these requests to
// Spec.Sample before mcp-go sees them (incoming). From 2026-07-28 the
// request comes inside an input_required result, and mcp-go calls its
// sampling handler (sampler) with the decoded params.

// sampleMethods are the requests from a server that Spec.Sample answers.
var sampleMethods = map[string]bool{
	string(mcp.MethodSamplingCreateMessage): true,
	string(mcp.MethodTasksGet):              true,
	string(mcp.MethodTasksResult):           true,
	string(mcp.MethodTasksList):             true,
	string(mcp.MethodTasksCancel):           true,
}

// RPCCoder is an error that carries the JSON-RPC error code a server is
// to read; Spec.Sample's other errors reach it as -32603.
type RPCCoder interface {
	error
	RPCCode() int
}

// incoming routes a server's sampling requests to Spec.Sample, and
// cancels one when the server sends notifications/cancelled for it.
type incoming struct {
	c        *Conn
	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by request id
}

// wrap returns next with the sampling requests taken out.
func (in *incoming) wrap(next transport.RequestHandler) transport.RequestHandler {
	if in == nil || in.c.spec.Sample == nil {
		return next
	}
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if !sampleMethods[req.Method] {
			return next(ctx, req)
		}
		return in.serve(ctx, req), nil
	}
}

func (in *incoming) serve(ctx context.Context, req transport.JSONRPCRequest) *transport.JSONRPCResponse {
	c := in.c
	if req.Method == string(mcp.MethodSamplingCreateMessage) {
		if err := c.admit(ctx, AskSampling); err != nil {
			return rpcError(req.ID, err)
		}
	}
	// The host may ask a person before and after the model answers: the
	// question is bounded like an elicitation (see clock).
	ctx, cancel := context.WithTimeout(ctx, c.spec.questionTime())
	defer cancel()
	defer c.clock.hold()()
	stop := context.AfterFunc(c.alive, cancel)
	defer stop()
	key := req.ID.String()
	in.mu.Lock()
	if in.inflight == nil {
		in.inflight = map[string]context.CancelFunc{}
	}
	in.inflight[key] = cancel
	in.mu.Unlock()
	defer func() {
		in.mu.Lock()
		delete(in.inflight, key)
		in.mu.Unlock()
	}()
	var params json.RawMessage
	if req.Params != nil {
		b, err := json.Marshal(req.Params)
		if err != nil {
			return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "invalid params: "+err.Error(), nil)
		}
		params = b
	}
	raw, err := c.spec.Sample(ctx, req.Method, params)
	if err != nil {
		return rpcError(req.ID, err)
	}
	return transport.NewJSONRPCResultResponse(req.ID, raw)
}

// rpcError is the error response to the server's request id: err's code
// when it is an RPCCoder, else -32603; err's text.
func rpcError(id mcp.RequestId, err error) *transport.JSONRPCResponse {
	code := mcp.INTERNAL_ERROR
	var rc RPCCoder
	if errors.As(err, &rc) {
		code = rc.RPCCode()
	}
	return transport.NewJSONRPCErrorResponse(id, code, err.Error(), nil)
}

// cancel ends the request the server cancelled, if it is still running.
func (in *incoming) cancel(n mcp.JSONRPCNotification) {
	if in == nil {
		return
	}
	id, ok := n.Params.AdditionalFields["requestId"]
	if !ok {
		return
	}
	key := mcp.NewRequestId(id).String()
	in.mu.Lock()
	stop := in.inflight[key]
	in.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// sampler is mcp-go's sampling handler: it answers the sampling requests
// of a multi round-trip call (and, should any reach it, others) through
// Spec.Sample. ctx is the tool call's.
type sampler struct{ c *Conn }

func (s sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if err := s.c.admit(ctx, AskSampling); err != nil {
		return nil, err
	}
	params, err := json.Marshal(req.CreateMessageParams)
	if err != nil {
		return nil, fmt.Errorf("sampling request: %w", err)
	}
	raw, err := s.c.spec.Sample(ctx, string(mcp.MethodSamplingCreateMessage), params)
	if err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("sampling result: %w", err)
	}
	return &res, nil
}

// samplingOptions answer sampling (and the sampling tasks) when the spec
// has Sample; samplingCapabilities declares it, in the one set of
// capabilities featureOptions gives the client (mcp-go keeps only the last
// set given).
func (s *Spec) samplingOptions(c *Conn) []client.ClientOption {
	if s.Sample == nil {
		return nil
	}
	return []client.ClientOption{client.WithSamplingHandler(sampler{c})}
}

// samplingCapabilities adds to caps sampling (with tools) and sampling run
// as a task, when the spec has Sample.
func (s *Spec) samplingCapabilities(caps *mcp.ClientCapabilities) {
	if s.Sample == nil {
		return
	}
	caps.Sampling = &mcp.SamplingCapability{Tools: &struct{}{}}
	caps.Tasks = &mcp.TasksCapability{
		List:   &struct{}{},
		Cancel: &struct{}{},
		Requests: &mcp.TaskRequestsCapability{Sampling: &struct {
			CreateMessage *struct{} `json:"createMessage,omitempty"`
		}{CreateMessage: &struct{}{}}},
	}
}

// The taps route a server's requests through incoming. mcp-go's SSE
// transport takes no requests from the server at all.

func (t stdioTap) SetRequestHandler(h transport.RequestHandler) {
	t.Stdio.SetRequestHandler(t.in.wrap(h))
}
func (t httpTap) SetRequestHandler(h transport.RequestHandler) {
	t.StreamableHTTP.SetRequestHandler(t.in.wrap(h))
}
