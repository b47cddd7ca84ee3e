package mcpbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
	isampling "github.com/mcpgenai/bridge/mcpbridge/internal/sampling"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// samplingState is the Bridge's side of sampling: the handler, and per
// server the calls in flight that were made while answering a sampling
// request (a sampling request of that server then would be recursion).
type samplingState struct {
	h      *isampling.Handler
	nested map[string]*atomic.Int32
	// maxRequest bounds a request's params (Sampling.MaxRequestBytes).
	maxRequest int
}

// Attribute keys of sampling spans.
const (
	attrRequestModel  = "gen_ai.request.model"
	attrResponseModel = "gen_ai.response.model"
	attrMaxTokens     = "gen_ai.request.max_tokens"
	attrFinishReasons = "gen_ai.response.finish_reasons"
)

// setupSampling turns sampling on when s is not nil. Called at the end of
// New, once the tracer is known.
func (b *Bridge) setupSampling(s *Sampling) error {
	if s == nil {
		return nil
	}
	if s.Sampler == nil {
		return errors.New("mcpbridge: ClientFeatures.Sampling has no Sampler")
	}
	cfg := isampling.Config{
		Sampler:         redactingSampler{s.Sampler, b.redact, b.log},
		MaxOutputTokens: s.MaxOutputTokens,
		MaxRequestBytes: s.MaxRequestBytes,
		Target:          b.target,
		Tasks:           b.tasks,
	}
	if review := s.Review; review != nil {
		// The server reads a fixed message when the review refuses or
		// fails; why is for the host's log alone.
		cfg.Review = func(ctx context.Context, req *sampling.Request, res *sampling.Result) error {
			// The review is where a person sees the request (the
			// server's text) and the answer (the model's): both are
			// cleaned first, in place, so that what is approved is what
			// goes on.
			if res == nil {
				req.SystemPrompt = result.CleanText(req.SystemPrompt, -1)
				for i := range req.Messages {
					cleanContents(req.Messages[i].Content)
				}
				for i := range req.Tools {
					req.Tools[i].Description = result.CleanText(req.Tools[i].Description, -1)
				}
			} else {
				cleanContents(res.Content)
			}
			err := review(ctx, req, res)
			if err != nil {
				b.log.InfoContext(ctx, "sampling request not approved by the review", "server", req.Server, "err", err)
			}
			return err
		}
	}
	if b.tracer != nil {
		cfg.Trace = b.traceSampling
	}
	st := &samplingState{h: isampling.NewHandler(cfg), nested: map[string]*atomic.Int32{}, maxRequest: cmp.Or(s.MaxRequestBytes, sampling.DefaultMaxRequestBytes)}
	for _, sv := range b.servers {
		st.nested[sv.cfg.Name] = new(atomic.Int32)
	}
	b.sampling = st
	return nil
}

// sampleFor returns the connection's sampling hook for server, or nil when
// sampling is off (then nothing is declared).
func (b *Bridge) sampleFor(server string) func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	st := b.sampling
	if st == nil {
		return nil
	}
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		tool := ""
		if cl, _ := ctx.Value(callKey{}).(*elicitCall); cl != nil {
			tool = cl.tool
		}
		if n := st.nested[server]; method == "sampling/createMessage" && n != nil && n.Load() > 0 {
			return nil, &rpcerr.Error{Code: rpcerr.Limited, Message: "a sampling request made while answering another is refused"}
		}
		raw, err := st.h.Handle(ctx, server, tool, method, params)
		if err != nil {
			err = b.redact.redactErr(err)
			level := slog.LevelInfo
			var re *rpcerr.Error
			if errors.As(err, &re) && re.Code == rpcerr.Limited {
				level = slog.LevelDebug // a flood must not flood the log
			}
			b.log.Log(ctx, level, "sampling request not answered", "server", server, "method", method, "err", err)
			return nil, err
		}
		return raw, nil
	}
}

// samplingCall notes a call of tool made while answering a sampling
// request, until the returned func is called.
func (b *Bridge) samplingCall(ctx context.Context, tool *Tool) func() {
	if b.sampling == nil || !isampling.Active(ctx) {
		return func() {}
	}
	n := b.sampling.nested[tool.Server]
	if n == nil {
		return func() {}
	}
	n.Add(1)
	return func() { n.Add(-1) }
}

// closeTasks ends the tasks still running for servers (sampling,
// elicitation).
func (b *Bridge) closeTasks() {
	if b.sampling != nil {
		b.sampling.h.Close()
	}
	if b.tasks != nil {
		b.tasks.Close()
	}
}

// traceSampling starts the span of one sampling request of server, named
// "chat <model>" once the model is known. Neither the messages nor the
// answer are recorded: they may hold secrets.
func (b *Bridge) traceSampling(ctx context.Context, server string) (context.Context, func(*sampling.Request, *sampling.Result, error)) {
	ctx, span := b.tracer.Start(ctx, "chat", trace.WithAttributes(
		attribute.String(attrOperation, "chat"),
		attribute.String(mcpconn.AttrServer, server)))
	return ctx, func(req *sampling.Request, res *sampling.Result, err error) {
		if req.Model != "" {
			span.SetName("chat " + req.Model)
			span.SetAttributes(attribute.String(attrRequestModel, req.Model), attribute.Int(attrMaxTokens, req.MaxTokens))
		}
		if res != nil {
			span.SetAttributes(attribute.String(attrResponseModel, res.Model), attribute.StringSlice(attrFinishReasons, []string{res.StopReason}))
		}
		if err != nil {
			kind := "_OTHER"
			var re *rpcerr.Error
			if errors.As(err, &re) {
				switch re.Code {
				case rpcerr.Rejected:
					kind = "refused"
				case rpcerr.Limited:
					kind = "limited"
				case rpcerr.InvalidParams:
					kind = "invalid_request"
				}
			}
			span.SetAttributes(attribute.String(attrErrorType, kind))
			span.SetStatus(codes.Error, b.redact.Text(err.Error()))
		}
		span.End()
	}
}

// redactingSampler hides the configured secrets in the model's answer
// before anyone (the review, the server) reads it, and logs why the model
// could not answer (the server reads a fixed message).
type redactingSampler struct {
	sampling.Sampler
	r   redactor
	log *slog.Logger
}

func (s redactingSampler) Sample(ctx context.Context, req *sampling.Request) (*sampling.Result, error) {
	res, err := s.Sampler.Sample(ctx, req)
	if err != nil && ctx.Err() == nil {
		s.log.InfoContext(ctx, "sampling request not answered by the model", "server", req.Server, "model", req.Model, "err", err)
	}
	if err != nil || res == nil {
		return res, err
	}
	for i := range res.Content {
		c := &res.Content[i]
		c.Text = s.r.ReplaceConfigured(c.Text)
		if c.Input != nil {
			c.Input, _ = s.redactValue(c.Input).(map[string]any)
		}
	}
	return res, nil
}

func (s redactingSampler) redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return s.r.ReplaceConfigured(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = s.redactValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.redactValue(e)
		}
		return out
	}
	return v
}

// cleanContents cleans the text of cs for a person, in place (see
// [result.CleanText]), tool results' blocks included.
func cleanContents(cs []sampling.Content) {
	for i := range cs {
		cs[i].Text = result.CleanText(cs[i].Text, -1)
		cleanContents(cs[i].Content)
	}
}
