package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/live"
)

// background holds the background calls of an Agent's Run and RunStream
// (see [Options.Background]): those running, and the results ended but
// not yet delivered to the model. The zero value is ready to use.
type background struct {
	calls live.Calls
	mu    sync.Mutex
	done  []*mcpbridge.CallResult // ended, not yet delivered
}

// errBackgroundClosed is the error of a background call started after
// the Agent closed.
var errBackgroundClosed = errors.New("the background calls were closed")

// start runs call in the background with run and returns the "started"
// result. The call outlives ctx's cancellation (not its values): only
// Close ends it. onDone, if not nil, gets its result when it ends.
func (bg *background) start(ctx context.Context, call *genai.FunctionCall, run func(context.Context) *mcpbridge.CallResult,
	onDone func(*mcpbridge.CallResult)) *mcpbridge.CallResult {
	detached := context.WithoutCancel(ctx)
	ok := bg.calls.Go(func() {
		cctx, end := bg.calls.Start(detached, call.ID)
		r := run(cctx)
		end()
		bg.mu.Lock()
		bg.done = append(bg.done, r)
		bg.mu.Unlock()
		if onDone != nil {
			onDone(r)
		}
	})
	if !ok {
		return mcpbridge.NewResult(call, nil, errBackgroundClosed)
	}
	return mcpbridge.NewResult(call, map[string]any{
		"status": "started",
		"note":   "This call runs in the background; its result will be given in a later turn.",
	}, nil)
}

// deliver returns the text parts that hand the ended calls' results to
// the model, and forgets them; nil when none ended.
func (bg *background) deliver() []*genai.Part {
	bg.mu.Lock()
	done := bg.done
	bg.done = nil
	bg.mu.Unlock()
	if len(done) == 0 {
		return nil
	}
	parts := make([]*genai.Part, 0, len(done))
	for _, r := range done {
		resp, err := json.Marshal(r.FunctionResponse().Response)
		if err != nil {
			resp = []byte(fmt.Sprintf("%q", r.ReturnDisplay))
		}
		parts = append(parts, &genai.Part{Text: fmt.Sprintf("The background call %s (id %s) has finished: %s", r.Name, r.ID, resp)})
	}
	return parts
}

// pending reports how many ended calls wait to be delivered.
func (bg *background) pending() int {
	bg.mu.Lock()
	defer bg.mu.Unlock()
	return len(bg.done)
}

// withDelivered returns history with parts added to its last user turn
// (a copy of it), or as a new user turn when the last turn is the
// model's. history's contents are not modified.
func withDelivered(history []*genai.Content, parts []*genai.Part) []*genai.Content {
	if len(parts) == 0 {
		return history
	}
	if n := len(history); n > 0 && history[n-1] != nil && history[n-1].Role == genai.RoleUser {
		last := *history[n-1]
		last.Parts = append(slices.Clip(last.Parts), parts...)
		out := slices.Clone(history)
		out[n-1] = &last
		return out
	}
	return append(history, &genai.Content{Role: genai.RoleUser, Parts: parts})
}
