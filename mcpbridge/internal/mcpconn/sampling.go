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

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

// A server asks for a model completion with sampling/createMessage. Before
// 2026-07-28 it sends the request while a call runs, possibly asking for it
// to run as a task (params.task), and then polls tasks/get and fetches
// tasks/result; it may ask the same of an elicitation/create. mcp-go's
// client knows no tasks/* requests and answers errors only with code
// -32603, so the taps take these requests before mcp-go sees them
// (incoming): sampling to Spec.Sample, an elicitation that asks to be a
// task to Spec.Tasks (run through elicitor), tasks/* to Spec.Tasks. From
// 2026-07-28 a sampling request comes inside an input_required result,
// and mcp-go calls its sampling handler (sampler) with the decoded params.

// taskMethods are the requests from a server about the tasks the client
// runs for it.
var taskMethods = map[string]bool{
	string(mcp.MethodTasksGet):    true,
	string(mcp.MethodTasksResult): true,
	string(mcp.MethodTasksList):   true,
	string(mcp.MethodTasksCancel): true,
}

// incoming routes a server's requests that mcp-go cannot answer as they
// must be (sampling, tasks, an elicitation run as a task), refuses those
// too large to read (see guardQuestion), and cancels one when the server
// sends notifications/cancelled for it.
type incoming struct {
	c        *Conn
	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by request id
}

// wrap returns next with those requests taken out.
func (in *incoming) wrap(next transport.RequestHandler) transport.RequestHandler {
	if in == nil {
		return next
	}
	s := &in.c.spec
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if err := s.tooLarge(req.Method, req.Params); err != nil {
			in.c.log.Debug("mcp server request refused", "method", req.Method, "err", err)
			return rpcError(req.ID, err), nil
		}
		switch {
		case req.Method == string(mcp.MethodSamplingCreateMessage) && s.Sample != nil:
			return in.serve(ctx, req, in.sample), nil
		case taskMethods[req.Method] && s.Tasks != nil:
			return in.serve(ctx, req, func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
				return s.Tasks.Handle(ctx, s.Name, method, params)
			}), nil
		case taskMethods[req.Method] && s.Sample != nil:
			return in.serve(ctx, req, s.Sample), nil
		case req.Method == string(mcp.MethodElicitationCreate) && s.Tasks != nil && s.Elicit != nil && asksTask(req.Params):
			return in.serve(ctx, req, in.elicitTask), nil
		}
		return next(ctx, req)
	}
}

// sample answers a sampling request through Spec.Sample, once admitted.
func (in *incoming) sample(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := in.c.admit(ctx, AskSampling); err != nil {
		return nil, err
	}
	return in.c.spec.Sample(ctx, method, params)
}

// elicitTask runs an elicitation/create that asks to be a task as a task
// of Spec.Tasks, once admitted, and returns the CreateTaskResult.
func (in *incoming) elicitTask(ctx context.Context, _ string, params json.RawMessage) (json.RawMessage, error) {
	var req mcp.ElicitationRequest
	req.Method = string(mcp.MethodElicitationCreate)
	if err := json.Unmarshal(params, &req.Params); err != nil {
		return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: "invalid params: " + err.Error()}
	}
	kind := AskForm
	if req.Params.Mode == mcp.ElicitationModeURL {
		kind = AskURL
	}
	if err := in.c.admit(ctx, kind); err != nil {
		return nil, err
	}
	e := elicitor{in.c}
	return in.c.spec.Tasks.Start(ctx, in.c.spec.Name, params, func(ctx context.Context) (json.RawMessage, error) {
		res, err := e.answer(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	})
}

// asksTask reports whether a request's params ask for it to run as a
// task (a "task" member that is not null).
func asksTask(params any) bool {
	var task any
	switch p := params.(type) {
	case map[string]any:
		task = p["task"]
	case map[string]json.RawMessage:
		if raw, ok := p["task"]; ok && string(raw) != "null" {
			return true
		}
	default:
		m, ok := paramsObject(params)
		return ok && len(m["task"]) > 0 && string(m["task"]) != "null"
	}
	return task != nil
}

// serve answers req with answer, bounded like a question to a person
// (see clock), and cancelled by the server's notifications/cancelled.
func (in *incoming) serve(ctx context.Context, req transport.JSONRPCRequest, answer func(context.Context, string, json.RawMessage) (json.RawMessage, error)) *transport.JSONRPCResponse {
	c := in.c
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
	raw, err := answer(ctx, req.Method, params)
	if err != nil {
		return rpcError(req.ID, err)
	}
	return transport.NewJSONRPCResultResponse(req.ID, raw)
}

// rpcError is the error response to the server's request id: err's code
// when it is an rpcerr.Coder, else -32603; err's text.
func rpcError(id mcp.RequestId, err error) *transport.JSONRPCResponse {
	code := mcp.INTERNAL_ERROR
	var rc rpcerr.Coder
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
// has Sample; taskCapabilities declares it, in the one set of
// capabilities featureOptions gives the client (mcp-go keeps only the last
// set given).
func (s *Spec) samplingOptions(c *Conn) []client.ClientOption {
	if s.Sample == nil {
		return nil
	}
	return []client.ClientOption{client.WithSamplingHandler(sampler{c})}
}

// taskCapabilities adds to caps sampling (with tools) when the spec has
// Sample, and the requests that may run as tasks: sampling with Sample,
// elicitation with Elicit and Tasks.
func (s *Spec) taskCapabilities(caps *mcp.ClientCapabilities) {
	if s.Sample != nil {
		caps.Sampling = &mcp.SamplingCapability{Tools: &struct{}{}}
	}
	elicit := s.Elicit != nil && s.Tasks != nil
	if s.Sample == nil && !elicit {
		return
	}
	r := &mcp.TaskRequestsCapability{}
	if s.Sample != nil {
		r.Sampling = &struct {
			CreateMessage *struct{} `json:"createMessage,omitempty"`
		}{CreateMessage: &struct{}{}}
	}
	if elicit {
		r.Elicitation = &struct {
			Create *struct{} `json:"create,omitempty"`
		}{Create: &struct{}{}}
	}
	caps.Tasks = &mcp.TasksCapability{List: &struct{}{}, Cancel: &struct{}{}, Requests: r}
}

// The taps route a server's requests through incoming. mcp-go's SSE
// transport takes no requests from the server at all.

func (t stdioTap) SetRequestHandler(h transport.RequestHandler) {
	t.Stdio.SetRequestHandler(t.in.wrap(h))
}
func (t httpTap) SetRequestHandler(h transport.RequestHandler) {
	t.StreamableHTTP.SetRequestHandler(t.in.wrap(h))
}
