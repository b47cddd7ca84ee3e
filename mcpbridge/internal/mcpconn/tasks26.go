package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
)

// On 2026-07-28, tasks are the io.modelcontextprotocol/tasks extension
// (SEP-2663). The client declares it in the capabilities every request
// carries, and from then on the server may answer any tools/call with a
// task handle (resultType "task") instead of its result: the server alone
// decides, whatever the tool's execution.taskSupport. So every tools/call
// of 2026-07-28 may turn into a task, and awaitTask waits for it like a
// 2025-11-25 one, except that a terminal state carries the result or error
// itself (there is no tasks/result), and a task that needs input lists
// its requests in its state: they are answered through the same handlers
// as those of a multi round-trip request (Spec.Elicit, Spec.Roots,
// Spec.Sample) and sent back with tasks/update. Over streamable HTTP,
// tasks/get, tasks/update and tasks/cancel carry the task id in the
// Mcp-Name header, so that a load balancer can route them to the instance
// that holds the task.
//
// The extension is declared always: the Bridge waits every task out, so
// nothing a host does depends on it. mcp-go keeps one set of client
// capabilities for both eras; the tap removes the extension from the
// initialize handshake, since it is not defined before 2026-07-28.
//
// mcp-go has no tasks/update. Its request goes out as a tasks/get whose
// context carries an update: the tap turns it into tasks/update on the
// way to the transport (method, params, Mcp-Method header), after mcp-go
// has added the protocol version, client info and capabilities of
// 2026-07-28 to its _meta.

// TaskWaitKey is the context key of a [TaskWaiter].
type TaskWaitKey struct{}

// TaskWaiter says where a task of 2026-07-28 is waited out. The context of
// a tools/call may carry a deadline meant for that request alone (the
// caller's per-call timeout); when the server answers with a task and the
// context's Value(TaskWaitKey{}) is a TaskWaiter, the task is waited out in
// the context TaskContext returns instead (bounded by MaxCallTime, and by
// the connection's death), and release is called once the wait is over.
// ok false: the task is waited out in the call's own context.
type TaskWaiter interface {
	TaskContext() (ctx context.Context, release func(), ok bool)
}

// TasksExtension is the identifier of the tasks extension of 2026-07-28.
const TasksExtension = "io.modelcontextprotocol/tasks"

const methodTasksUpdate = "tasks/update"

// extensionCapabilities are the extensions the client declares.
func extensionCapabilities() map[string]any {
	return map[string]any{TasksExtension: map[string]any{}}
}

// updateKey carries an update in the context of a tasks/get request.
type updateKey struct{}

// update is what turns a tasks/get into tasks/update.
type update struct {
	responses json.RawMessage // inputResponses
}

// rewriteRequest applies to req what ctx asks (an update) and removes the
// tasks extension from the initialize handshake.
func rewriteRequest(ctx context.Context, req transport.JSONRPCRequest) transport.JSONRPCRequest {
	req = renameRequest(ctx, req)
	switch req.Method {
	case string(mcp.MethodTasksGet):
		u, _ := ctx.Value(updateKey{}).(*update)
		if u == nil {
			return req
		}
		params, ok := paramsObject(req.Params)
		if !ok {
			return req
		}
		params["inputResponses"] = u.responses
		req.Method, req.Params = methodTasksUpdate, params
		req.Header = req.Header.Clone()
		if req.Header == nil {
			req.Header = http.Header{}
		}
		req.Header.Set(mcp.HeaderMethod, methodTasksUpdate)
	case string(mcp.MethodInitialize):
		params, ok := paramsObject(req.Params)
		if !ok {
			return req
		}
		var caps map[string]json.RawMessage
		if json.Unmarshal(params["capabilities"], &caps) != nil {
			return req
		}
		var ext map[string]json.RawMessage
		if json.Unmarshal(caps["extensions"], &ext) != nil || ext[TasksExtension] == nil {
			return req
		}
		delete(ext, TasksExtension)
		if len(ext) == 0 {
			delete(caps, "extensions")
		} else {
			caps["extensions"], _ = json.Marshal(ext)
		}
		params["capabilities"], _ = json.Marshal(caps)
		req.Params = params
	}
	return req
}

// paramsObject returns a request's params as a JSON object's members.
func paramsObject(p any) (map[string]json.RawMessage, bool) {
	if m, ok := p.(map[string]json.RawMessage); ok {
		return m, true
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// taskHeader is the header of a task request: on 2026-07-28, Mcp-Name
// names the task.
func (c *Conn) taskHeader(id string) http.Header {
	if !IsModern(c.init.ProtocolVersion) {
		return nil
	}
	v, ok := mcp.EncodeHeaderValue(id)
	if !ok {
		return nil
	}
	return http.Header{mcp.HeaderName: {v}}
}

// Update sends tasks/update (see [tasks.Input]).
func (p taskPeer) Update(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	b, err := json.Marshal(responses)
	if err != nil {
		return fmt.Errorf("tasks/update: %w", err)
	}
	ctx = context.WithValue(ctx, updateKey{}, &update{responses: b})
	req := mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}}
	req.Header = p.c.taskHeader(id)
	_, err = p.c.request(ctx, methodTasksUpdate, noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := p.c.client.GetTask(rctx, req)
		return err
	})
	return err
}

// Answer answers one input request of a task through the handler the
// connection has for it (see [tasks.Input]).
func (p taskPeer) Answer(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	var head struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: %w", tasks.ErrMalformed, err)
	}
	s := &p.c.spec
	var res any
	switch mcp.MCPMethod(head.Method) {
	case mcp.MethodElicitationCreate:
		if s.Elicit == nil {
			return nil, fmt.Errorf("%w: the host answers no elicitation", tasks.ErrInputUnsupported)
		}
		var r mcp.ElicitationRequest
		r.Method = head.Method
		if err := json.Unmarshal(head.Params, &r.Params); err != nil {
			return nil, fmt.Errorf("%w: elicitation/create: %w", tasks.ErrMalformed, err)
		}
		got, err := elicitor(p).Elicit(ctx, r)
		if err != nil {
			return nil, err
		}
		res = got
	case mcp.MethodListRoots:
		if s.Roots == nil {
			return nil, fmt.Errorf("%w: the host offers no roots", tasks.ErrInputUnsupported)
		}
		got, err := rootsHandler(p).ListRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return nil, err
		}
		res = got
	case mcp.MethodSamplingCreateMessage:
		if s.Sample == nil {
			return nil, fmt.Errorf("%w: the host offers no sampling", tasks.ErrInputUnsupported)
		}
		if err := p.c.admit(ctx, AskSampling); err != nil {
			return nil, err
		}
		return s.Sample(ctx, head.Method, head.Params)
	default:
		return nil, fmt.Errorf("%w: %q", tasks.ErrInputUnsupported, cutText(head.Method, 64))
	}
	return json.Marshal(res)
}

// cutText returns s cut at n bytes.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// unexpectedTask returns an error when raw, the result of method, is a
// task handle although method is not tools/call, the only request the
// extension lets a server turn into a task: such an answer is invalid,
// not an empty result.
func unexpectedTask(method string, raw json.RawMessage) error {
	if method == string(mcp.MethodToolsCall) || !bytes.Contains(raw, []byte(`"task"`)) {
		return nil
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ResultType != "task" {
		return nil
	}
	return errors.New(`invalid answer: a task (resultType "task"), which only tools/call may return`)
}
