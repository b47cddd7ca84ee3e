package testserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tasks26 is a hand-written MCP server of 2026-07-28 whose tools run as
// tasks of the io.modelcontextprotocol/tasks extension (SEP-2663, shapes
// as in the ext-tasks repository's schema), which mcp-go's server cannot
// do. It answers server/discover (declaring the extension), tools/list,
// tools/call, tasks/get, tasks/update and tasks/cancel. A task advances
// when it is looked at, so the server starts no goroutine. It refuses a
// tools/call whose per-request capabilities do not declare the extension
// (-32021), a task request over HTTP whose Mcp-Name header does not name
// the task, and a tasks/result (gone in 2026-07-28).
//
// Its tools, each answered with a task (pollIntervalMs 20, ttlMs 60000):
//   - work {"ms"}: working ("step n"), completed ms milliseconds (default
//     100) after its creation with "worked <ms> ms";
//   - ask: asks, on the first tasks/get, for the user's name (form
//     elicitation "name") and the roots ("roots"); after their tasks/update
//     it still lists them once (an eventually consistent server), then
//     completes with "hello <name>; roots <uris>" (or "declined");
//   - think: asks the client's model "2+2?" (sampling/createMessage,
//     "llm"), then completes with "the model said <text>";
//   - endless: working until cancelled (see Cancelled);
//   - lost: its tasks/get, tasks/update and tasks/cancel say "unknown task";
//   - fail {"ms"}: failed, with the JSON-RPC error -32603 "the disk is
//     full", at once or ms milliseconds after its creation;
//   - inline: created already completed, with "done at once";
//   - sync: no task: the result "no task" at once;
//   - shout: working with Dirty as its status message, completed at the
//     second tasks/get with Dirty as its result;
//   - shout_fail: working with Dirty as its status message, failed at the
//     second tasks/get with Dirty as its error's message;
//   - gate: first asks "go ahead?" (a form) with a multi round-trip
//     input_required result, then, called again with the answer, creates
//     a task like work's (the composition SEP-2663 describes).
//
// It also answers resources/read with a task, which the extension does
// not allow.
type Tasks26 struct {
	// Cancelled receives the id of each task a client cancelled (buffered;
	// when full, further ids are dropped).
	Cancelled chan string

	mu    sync.Mutex
	tasks map[string]*task26
	n     int
}

type task26 struct {
	tool    string
	ms      float64
	created time.Time
	status  string
	polls   int
	answers map[string]json.RawMessage
	stale   bool // the answers came, but one more poll shows the question
	result  string
}

// Created returns how many tasks the server has created.
func (s *Tasks26) Created() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// NewTasks26 returns a server with no tasks.
func NewTasks26() *Tasks26 {
	return &Tasks26{Cancelled: make(chan string, 16), tasks: map[string]*task26{}}
}

const tasksExt = "io.modelcontextprotocol/tasks"

// ServeTasks26HTTP serves s over streamable HTTP on loopback (POST only,
// JSON answers) and returns the endpoint's URL; it stops at the test's end.
func ServeTasks26HTTP(t testing.TB, s *Tasks26) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		out := s.Handle(body, r.Header.Get("Mcp-Name"), true)
		if out == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// ServeTasks26 serves s over stdio: one JSON-RPC message a line, until in
// ends.
func ServeTasks26(s *Tasks26, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if resp := s.Handle(sc.Bytes(), "", false); resp != nil {
			if _, err := out.Write(append(resp, '\n')); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// Handle answers one JSON-RPC message (nil for a notification or a
// response). name is the Mcp-Name header; overHTTP says whether it came
// over HTTP (where the header must name the task).
func (s *Tasks26) Handle(msg []byte, name string, overHTTP bool) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name           string                     `json:"name"`
			Arguments      map[string]any             `json:"arguments"`
			TaskID         string                     `json:"taskId"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			Meta           struct {
				Caps struct {
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || m.Method == "" {
		return nil
	}
	reply := func(result any) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		return b
	}
	fail := func(code int, msg string, data any) []byte {
		e := map[string]any{"code": code, "message": msg}
		if data != nil {
			e["data"] = data
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": e})
		return b
	}
	if strings.HasPrefix(m.Method, "tasks/") && overHTTP && name != m.Params.TaskID {
		return fail(-32600, fmt.Sprintf("Mcp-Name %q does not name task %q", name, m.Params.TaskID), nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[m.Params.TaskID]
	if strings.HasPrefix(m.Method, "tasks/") && m.Method != "tasks/result" && (t == nil || t.tool == "lost") {
		return fail(-32602, "unknown task "+m.Params.TaskID, nil)
	}
	switch m.Method {
	case "server/discover":
		return reply(map[string]any{
			"resultType":        "complete",
			"supportedVersions": []string{"2026-07-28"},
			"capabilities":      map[string]any{"tools": map[string]any{}, "extensions": map[string]any{tasksExt: map[string]any{}}},
			"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "tasks26", "version": "0"}},
		})
	case "tools/list":
		var tools []map[string]any
		for _, n := range []string{"work", "ask", "think", "endless", "lost", "fail", "inline", "sync", "gate", "shout", "shout_fail"} {
			tools = append(tools, map[string]any{"name": n, "description": "a task tool", "inputSchema": map[string]any{"type": "object"}})
		}
		return reply(map[string]any{"resultType": "complete", "tools": tools})
	case "resources/read":
		s.n++
		id := fmt.Sprintf("task-%d", s.n)
		t := &task26{tool: "work", created: time.Now(), status: "working"}
		s.tasks[id] = t
		state := s.state(id, t)
		state["resultType"] = "task"
		return reply(state)
	case "tools/call":
		if _, ok := m.Params.Meta.Caps.Extensions[tasksExt]; !ok {
			return fail(-32021, "Missing required client capability", map[string]any{
				"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExt: map[string]any{}}}})
		}
		if m.Params.Name == "sync" {
			return reply(toolText("no task"))
		}
		if m.Params.Name == "gate" && m.Params.InputResponses["go"] == nil {
			return reply(map[string]any{"resultType": "input_required", "inputRequests": map[string]any{
				"go": map[string]any{"method": "elicitation/create", "params": map[string]any{
					"mode": "form", "message": "go ahead?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
				}},
			}})
		}
		s.n++
		id := fmt.Sprintf("task-%d", s.n)
		t := &task26{tool: m.Params.Name, ms: 100, created: time.Now(), status: "working"}
		if t.tool == "fail" {
			t.ms = 0
		}
		if t.tool == "gate" {
			t.tool = "work"
		}
		if ms, ok := m.Params.Arguments["ms"].(float64); ok {
			t.ms = ms
		}
		switch t.tool {
		case "inline":
			t.status, t.result = "completed", "done at once"
		case "fail":
			s.advance(t)
		}
		s.tasks[id] = t
		state := s.state(id, t)
		state["resultType"] = "task"
		return reply(state)
	case "tasks/get":
		t.polls++
		s.advance(t)
		return reply(s.state(m.Params.TaskID, t))
	case "tasks/update":
		if (t.tool == "ask" || t.tool == "think") && t.status == "input_required" && t.answers == nil {
			t.answers, t.stale = m.Params.InputResponses, true
		}
		return reply(map[string]any{"resultType": "complete"})
	case "tasks/cancel":
		if t.status == "working" || t.status == "input_required" {
			t.status = "cancelled"
			select {
			case s.Cancelled <- m.Params.TaskID:
			default:
			}
		}
		return reply(map[string]any{"resultType": "complete"})
	}
	return fail(-32601, "method not found: "+m.Method, nil)
}

// advance moves t on, as time and answers allow.
func (s *Tasks26) advance(t *task26) {
	switch {
	case t.status != "working" && t.status != "input_required":
	case t.tool == "work" && time.Since(t.created) >= time.Duration(t.ms*float64(time.Millisecond)):
		t.status, t.result = "completed", fmt.Sprintf("worked %v ms", t.ms)
	case t.tool == "fail" && time.Since(t.created) >= time.Duration(t.ms*float64(time.Millisecond)):
		t.status = "failed"
	case t.tool == "shout" && t.polls >= 2:
		t.status, t.result = "completed", Dirty
	case t.tool == "shout_fail" && t.polls >= 2:
		t.status = "failed"
	case (t.tool == "ask" || t.tool == "think") && t.answers == nil:
		t.status = "input_required"
	case t.tool == "ask" && t.stale:
		t.stale = false
	case t.tool == "ask":
		t.status, t.result = "completed", greeting(t.answers)
	case t.tool == "think":
		var r struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		_ = json.Unmarshal(t.answers["llm"], &r)
		t.status, t.result = "completed", "the model said "+r.Content.Text
	}
}

// greeting is the result of "ask" for its answers.
func greeting(answers map[string]json.RawMessage) string {
	var name struct {
		Action  string `json:"action"`
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	}
	var roots struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	_ = json.Unmarshal(answers["name"], &name)
	_ = json.Unmarshal(answers["roots"], &roots)
	if name.Action != "accept" {
		return "declined"
	}
	var uris []string
	for _, r := range roots.Roots {
		uris = append(uris, r.URI)
	}
	return fmt.Sprintf("hello %s; roots %s", name.Content.Name, strings.Join(uris, " "))
}

// state is t as tasks/get shows it (resultType "complete").
func (s *Tasks26) state(id string, t *task26) map[string]any {
	now := time.Now().UTC().Format(time.RFC3339)
	st := map[string]any{
		"resultType":     "complete",
		"taskId":         id,
		"status":         t.status,
		"createdAt":      t.created.UTC().Format(time.RFC3339),
		"lastUpdatedAt":  now,
		"ttlMs":          60000,
		"pollIntervalMs": 20,
	}
	switch t.status {
	case "working":
		st["statusMessage"] = fmt.Sprintf("step %d", t.polls)
		if strings.HasPrefix(t.tool, "shout") {
			st["statusMessage"] = Dirty
		}
	case "input_required":
		st["statusMessage"] = "waiting for your name"
		if t.tool == "think" {
			st["inputRequests"] = map[string]any{"llm": map[string]any{"method": "sampling/createMessage", "params": map[string]any{
				"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "2+2?"}}},
				"maxTokens": 10,
			}}}
			break
		}
		st["inputRequests"] = map[string]any{
			"name": map[string]any{"method": "elicitation/create", "params": map[string]any{
				"mode": "form", "message": "your name?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}},
			}},
			"roots": map[string]any{"method": "roots/list"},
		}
	case "completed":
		st["result"] = toolText(t.result)
	case "failed":
		st["error"] = map[string]any{"code": -32603, "message": "the disk is full"}
		if t.tool == "shout_fail" {
			st["error"] = map[string]any{"code": -32603, "message": Dirty}
		}
	}
	return st
}

// toolText is a CallToolResult of one text block.
func toolText(text string) map[string]any {
	return map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": text}}}
}
