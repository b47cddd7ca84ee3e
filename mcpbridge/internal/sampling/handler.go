package sampling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge/internal/clienttasks"
	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
	api "github.com/mcpgenai/bridge/mcpbridge/sampling"
	"github.com/mcpgenai/bridge/schema"
)

// Config configures a [Handler].
type Config struct {
	// Sampler answers; required.
	Sampler api.Sampler
	// Review, when not nil, sees each request before the model runs (res
	// nil) and again with the answer; it may edit *req and *res in place.
	// An error wrapping ErrRefused refuses the request, another error
	// fails it. nil approves everything.
	Review func(ctx context.Context, req *api.Request, res *api.Result) error
	// MaxOutputTokens caps the server's maxTokens. 0 = DefaultMaxOutputTokens.
	MaxOutputTokens int
	// MaxRequestBytes bounds a request's params. 0 = DefaultMaxRequestBytes.
	MaxRequestBytes int
	// Target is the schema target of the tools' schemas.
	Target schema.Target
	// Tasks keeps the requests run as tasks; nil means a store of the
	// Handler's own, which Close closes.
	Tasks *clienttasks.Store
	// Trace, when not nil, is called as a request's answering begins
	// (after the checks, in the task when it runs as one); the context
	// it returns is the review's and the model's, and end is called once
	// with the outcome (res nil on failure).
	Trace func(ctx context.Context, server string) (context.Context, func(req *api.Request, res *api.Result, err error))
}

// Handler answers sampling requests of any number of servers. Its methods
// are safe for concurrent use. Close it to end the tasks it runs. How many
// requests a server may make is bounded where they arrive (mcpconn's
// questions), not here.
type Handler struct {
	cfg   Config
	tasks *clienttasks.Store
	own   bool // tasks is the Handler's own
}

// NewHandler returns a Handler for cfg, with zero fields at their defaults.
func NewHandler(cfg Config) *Handler {
	if cfg.MaxOutputTokens <= 0 {
		cfg.MaxOutputTokens = api.DefaultMaxOutputTokens
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = api.DefaultMaxRequestBytes
	}
	h := &Handler{cfg: cfg, tasks: cfg.Tasks}
	if h.tasks == nil {
		h.tasks, h.own = clienttasks.New(), true
	}
	return h
}

// activeKey marks a context inside the answering of a sampling request.
type activeKey struct{}

// Active reports whether ctx belongs to the answering of a sampling
// request (its review or its model).
func Active(ctx context.Context) bool { return ctx.Value(activeKey{}) != nil }

// Handle answers a request of method from server: sampling/createMessage
// (run at once, or as a task when its params ask), or tasks/get,
// tasks/result, tasks/list and tasks/cancel about that server's tasks.
// serverTool names the tool being called when known. The result is the
// JSON result; an error is an *rpcerr.Error.
func (h *Handler) Handle(ctx context.Context, server, serverTool, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "sampling/createMessage" {
		return h.tasks.Handle(ctx, server, method, params)
	}
	if len(params) > h.cfg.MaxRequestBytes {
		return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: fmt.Sprintf("sampling request of %d bytes exceeds the client's limit of %d", len(params), h.cfg.MaxRequestBytes)}
	}
	if Active(ctx) {
		return nil, &rpcerr.Error{Code: rpcerr.Limited, Message: "a sampling request made while answering another is refused"}
	}
	req, task, err := Parse(params)
	if err != nil {
		return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: err.Error(), Err: err}
	}
	req.Server, req.ServerTool, req.Target = server, serverTool, h.cfg.Target
	if task {
		return h.tasks.Start(ctx, server, params, func(tctx context.Context) (json.RawMessage, error) {
			return h.answer(tctx, req)
		})
	}
	return h.answer(ctx, req)
}

// answer runs the reviews and the model for req.
func (h *Handler) answer(ctx context.Context, req *api.Request) (_ json.RawMessage, err error) {
	ctx = context.WithValue(ctx, activeKey{}, true)
	var res *api.Result
	if h.cfg.Trace != nil {
		var end func(*api.Request, *api.Result, error)
		ctx, end = h.cfg.Trace(ctx, req.Server)
		defer func() {
			if err != nil {
				res = nil
			}
			end(req, res, err)
		}()
	}
	req.MaxTokens = min(req.MaxTokens, h.cfg.MaxOutputTokens)
	req.Model = h.cfg.Sampler.ChooseModel(req)
	if err := h.review(ctx, req, nil); err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 || req.Model == "" {
		return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "no model was chosen, or the review left no messages"}
	}
	req.MaxTokens = max(1, min(req.MaxTokens, h.cfg.MaxOutputTokens))
	res, err = h.cfg.Sampler.Sample(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "sampling cancelled", Err: context.Cause(ctx)}
		}
		return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: msgModelFailed, Err: err}
	}
	if err := h.review(ctx, req, res); err != nil {
		return nil, err
	}
	raw, err := Encode(req, res)
	if err != nil {
		return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: msgModelFailed, Err: err}
	}
	return raw, nil
}

func (h *Handler) review(ctx context.Context, req *api.Request, res *api.Result) error {
	if h.cfg.Review == nil {
		return nil
	}
	err := h.cfg.Review(ctx, req, res)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, api.ErrRefused):
		return &rpcerr.Error{Code: rpcerr.Rejected, Message: msgRejected, Err: err}
	case ctx.Err() != nil:
		return &rpcerr.Error{Code: rpcerr.Internal, Message: "sampling cancelled", Err: context.Cause(ctx)}
	}
	return &rpcerr.Error{Code: rpcerr.Internal, Message: msgReviewFailed, Err: err}
}

// The messages a server reads when the host could not answer: fixed, so
// that nothing of the host (a path, an address, the model's error) reaches
// the server; the cause is the error's Err, for the host's log.
const (
	msgRejected     = "User rejected sampling request"
	msgReviewFailed = "the client could not review the sampling request"
	msgModelFailed  = "the client's model could not answer the sampling request"
)

// Close cancels the tasks still running in a store of the Handler's own
// and waits for them to end.
func (h *Handler) Close() {
	if h.own {
		h.tasks.Close()
	}
}
