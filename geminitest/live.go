package geminitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"google.golang.org/genai"
)

// The Live API: a session on a WebSocket (BidiGenerateContent). The client
// sends a setup message first and gets setupComplete; then each
// clientContent with turnComplete, each realtimeInput text, and each
// toolResponse that answers the last of the pending blocking calls (or a
// non-blocking call's response scheduled INTERRUPT or WHEN_IDLE) makes the
// next turn of the script answer. A turn's text parts arrive as
// serverContent messages (one per part), its function calls as one toolCall
// message, and a turn without blocking calls ends with turnComplete.
//
// A message the API would refuse ends the session with a close frame, as
// the API does: code 1007 (invalid payload) and the reason, cut to the 123
// bytes a close frame can carry; the whole message is in [Request.Rejection].

// liveUpgrader accepts any origin: the fake serves tests on loopback.
var liveUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// livePathPrefix and liveMethods make the path the genai SDK dials for the
// Developer API: /ws/google.ai.generativelanguage.{version}.GenerativeService.{method}.
const livePathPrefix = "/ws/google.ai.generativelanguage."

var liveMethods = []string{".GenerativeService.BidiGenerateContent"}

// isLivePath reports whether path is the Live endpoint.
func isLivePath(path string) bool {
	rest, ok := strings.CutPrefix(path, livePathPrefix)
	if !ok {
		return false
	}
	for _, m := range liveMethods {
		if v, ok := strings.CutSuffix(rest, m); ok && (v == "v1beta" || v == "v1alpha") {
			return true
		}
	}
	return false
}

// LiveClientConfig returns a configuration that makes genai.NewClient's
// Live.Connect reach this server's Live endpoint: the Developer API, an
// accepted key, API version v1beta and the server's address with the ws
// scheme. A client made from it reaches only the Live endpoint; use
// [Server.ClientConfig] for generateContent.
func (s *Server) LiveClientConfig() *genai.ClientConfig {
	c := s.ClientConfig()
	u, _ := url.Parse(s.srv.URL) // httptest's URL always parses
	u.Scheme = "ws"
	c.HTTPOptions = genai.HTTPOptions{BaseURL: u.String(), APIVersion: "v1beta"}
	return c
}

// liveSession is the state of one Live session, owned by its handler's
// goroutine.
type liveSession struct {
	s       *Server
	conn    *websocket.Conn
	model   string
	setup   *wireLiveSetup
	header  http.Header
	history []*genai.Content
	pending []pendingCall // calls sent and not answered, in order
}

// pendingCall is a function call the client has not answered.
type pendingCall struct {
	id, name    string
	nonBlocking bool
}

// closeError ends a session with a close frame.
type closeError struct {
	code int
	msg  string
}

func (e *closeError) Error() string { return e.msg }

// serveLive runs one Live session on the handler's goroutine.
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	req := &Request{Live: true, Header: r.Header.Clone(), Query: r.URL.Query(), Turn: -1}
	if code, msg := s.authorize(r); code != 0 {
		s.reject(w, req, code, msg)
		return
	}
	conn, err := liveUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client already
	}
	if !s.track(conn) {
		_ = conn.Close()
		return
	}
	defer s.untrack(conn)
	ls := &liveSession{s: s, conn: conn, header: r.Header.Clone()}
	err = ls.run()
	var ce *closeError
	if e, ok := err.(*closeError); ok {
		ce = e
	}
	if ce == nil {
		return // the client went away
	}
	reason := ce.msg
	for len(reason) > 123 { // a close frame's reason holds 123 bytes
		_, size := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-size]
	}
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(ce.code, reason), time.Now().Add(5*time.Second))
}

// run reads the session's messages until the client leaves or a message
// is refused.
func (ls *liveSession) run() error {
	for {
		_, body, err := ls.conn.ReadMessage()
		if err != nil {
			return err
		}
		if err := ls.handle(body); err != nil {
			return err
		}
	}
}

// refuse records a refused message and returns the error that closes the
// session.
func (ls *liveSession) refuse(body []byte, code int, msg string) error {
	req := ls.request(body)
	req.Rejection = msg
	ls.s.record(req)
	if ls.s.t != nil {
		ls.s.t.Logf("geminitest: live session closed (%d): %s", code, msg)
	}
	return &closeError{code, msg}
}

// request returns a Request for the session's state and body.
func (ls *liveSession) request(body []byte) *Request {
	req := &Request{Model: ls.model, Live: true, Body: body, Header: ls.header, Turn: -1,
		Contents: slices.Clone(ls.history), Config: &genai.GenerateContentConfig{}}
	if ls.setup != nil {
		if tools, err := convert[[]*genai.Tool](ls.setup.Tools); err == nil {
			req.Config.Tools = tools
		}
		if si, err := convert[*genai.Content](ls.setup.SystemInstruction); err == nil {
			req.Config.SystemInstruction = si
		}
	}
	return req
}

// handle answers one client message.
func (ls *liveSession) handle(body []byte) error {
	var m wireLiveMessage
	if errs := decodeLive(body, &m); len(errs) > 0 {
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, strings.Join(errs, "\n"))
	}
	switch {
	case m.Setup != nil:
		return ls.onSetup(body, m.Setup)
	case ls.setup == nil:
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, "The first message of a session must be setup.")
	case m.ClientContent != nil:
		return ls.onContent(body, m.ClientContent)
	case m.RealtimeInput != nil:
		if m.RealtimeInput.Text == "" {
			return nil // audio and video are not modelled: nothing answers them
		}
		ls.history = append(ls.history, genai.NewContentFromText(m.RealtimeInput.Text, genai.RoleUser))
		return ls.turn(body)
	default:
		return ls.onToolResponse(body, m.ToolResponse)
	}
}

// onSetup checks the setup message as generateContent checks a request's
// tools and system instruction, and answers setupComplete.
func (ls *liveSession) onSetup(body []byte, setup *wireLiveSetup) error {
	if ls.setup != nil {
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, "setup must be sent once, as the first message.")
	}
	model, ok := strings.CutPrefix(setup.Model, "models/")
	if !ok || model == "" || strings.Contains(model, "/") {
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for bidiGenerateContent.", setup.Model))
	}
	ls.model = model
	check := &wireRequest{Contents: []*wireContent{{Role: "user", Parts: []*wirePart{{Text: "-", set: []string{"text"}}}}}, Tools: setup.Tools}
	if vs := validate(check, &ls.s.opts); len(vs) > 0 {
		ls.setup = setup // for the recorded request
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, formatViolations(vs))
	}
	ls.setup = setup
	req := ls.request(body)
	ls.s.record(req)
	return ls.send(map[string]any{"setupComplete": map[string]any{}})
}

// onContent adds the client's turns and, when the turn is complete, answers.
func (ls *liveSession) onContent(body []byte, c *wireLiveClientContent) error {
	if len(c.Turns) > 0 {
		check := &wireRequest{Contents: c.Turns}
		if vs := checkContents(check, &ls.s.opts); len(vs) > 0 {
			return ls.refuse(body, websocket.CloseInvalidFramePayloadData, formatViolations(vs))
		}
		turns, err := convert[[]*genai.Content](c.Turns)
		if err != nil {
			return ls.refuse(body, websocket.CloseInternalServerErr, fmt.Sprintf("geminitest: converting turns: %v", err))
		}
		ls.history = append(ls.history, turns...)
	}
	if !c.TurnComplete {
		return nil
	}
	return ls.turn(body)
}

// onToolResponse matches the responses to pending calls and answers when
// the model may go on.
func (ls *liveSession) onToolResponse(body []byte, tr *wireLiveToolResponse) error {
	if len(tr.FunctionResponses) == 0 {
		return ls.refuse(body, websocket.CloseInvalidFramePayloadData, "toolResponse.function_responses must not be empty.")
	}
	resps, err := convert[[]*genai.FunctionResponse](tr.FunctionResponses)
	if err != nil {
		return ls.refuse(body, websocket.CloseInternalServerErr, fmt.Sprintf("geminitest: converting responses: %v", err))
	}
	answer := false
	content := &genai.Content{Role: genai.RoleUser}
	for i, r := range tr.FunctionResponses {
		if len(r.Response) == 0 && len(r.Parts) == 0 {
			return ls.refuse(body, websocket.CloseInvalidFramePayloadData, fmt.Sprintf("function_responses[%d].response must be set.", i))
		}
		j := slices.IndexFunc(ls.pending, func(p pendingCall) bool { return p.id == r.ID })
		if j < 0 {
			return ls.refuse(body, websocket.CloseInvalidFramePayloadData, fmt.Sprintf(
				"function_responses[%d]: the id %q answers no pending function call (pending: %s).", i, r.ID, ls.pendingIDs()))
		}
		p := ls.pending[j]
		if r.Name != p.name {
			return ls.refuse(body, websocket.CloseInvalidFramePayloadData, fmt.Sprintf(
				"function_responses[%d]: name %q does not match the call %q (%s).", i, r.Name, r.ID, p.name))
		}
		ls.pending = slices.Delete(ls.pending, j, j+1)
		if p.nonBlocking {
			if s := r.Scheduling; s == "" || s == "INTERRUPT" || s == "WHEN_IDLE" {
				answer = true
			}
		}
		content.Parts = append(content.Parts, &genai.Part{FunctionResponse: resps[i]})
	}
	ls.history = append(ls.history, content)
	if !ls.blocking() {
		// Every blocking call is answered: the model goes on if it
		// waited for one, or a scheduled result wakes it.
		if answer || ls.waited(content) {
			return ls.turn(body)
		}
	}
	ls.s.record(ls.request(body))
	return nil
}

// waited reports whether content answered a blocking call.
func (ls *liveSession) waited(content *genai.Content) bool {
	for _, p := range content.Parts {
		d := ls.declaration(p.FunctionResponse.Name)
		if d == nil || d.Behavior != "NON_BLOCKING" {
			return true
		}
	}
	return false
}

// blocking reports whether a blocking call is still pending.
func (ls *liveSession) blocking() bool {
	return slices.ContainsFunc(ls.pending, func(p pendingCall) bool { return !p.nonBlocking })
}

func (ls *liveSession) pendingIDs() string {
	if len(ls.pending) == 0 {
		return "none"
	}
	ids := make([]string, len(ls.pending))
	for i, p := range ls.pending {
		ids[i] = p.id
	}
	return strings.Join(ids, ", ")
}

// declaration returns the setup's declaration of name, or nil.
func (ls *liveSession) declaration(name string) *wireFunctionDeclaration {
	for _, t := range ls.setup.Tools {
		if t == nil {
			continue
		}
		for _, d := range t.FunctionDeclarations {
			if d != nil && d.Name == name {
				return d
			}
		}
	}
	return nil
}

// turn runs the next turn of the script and sends its answer.
func (ls *liveSession) turn(body []byte) error {
	req := ls.request(body)
	s := ls.s
	s.mu.Lock()
	var turn Turn
	if s.next < len(s.script) {
		turn = s.script[s.next]
		req.Turn = s.next
		s.next++
	}
	scriptLen := len(s.script)
	s.mu.Unlock()
	if turn == nil {
		return ls.refuse(body, websocket.CloseInternalServerErr, fmt.Sprintf(
			"geminitest: script exhausted: no turn left for this live message (the script has %d turns, all used)", scriptLen))
	}
	resp, err := callTurn(turn, req)
	if err != nil {
		return ls.refuse(body, websocket.CloseInternalServerErr, fmt.Sprintf("geminitest: turn %d: %v", req.Turn, err))
	}
	if resp.Status != 0 {
		return ls.refuse(body, websocket.CloseInternalServerErr, resp.Message)
	}
	if err := checkCalls(req, resp.Parts); err != nil {
		return ls.refuse(body, websocket.CloseInternalServerErr, fmt.Sprintf("geminitest: turn %d: %v", req.Turn, err))
	}
	s.record(req)
	if len(resp.Cancel) > 0 {
		ls.pending = slices.DeleteFunc(ls.pending, func(p pendingCall) bool { return slices.Contains(resp.Cancel, p.id) })
		if err := ls.send(map[string]any{"toolCallCancellation": map[string]any{"ids": resp.Cancel}}); err != nil {
			return err
		}
	}
	parts := s.fill(resp.Parts)
	var calls []*genai.FunctionCall
	for i, p := range parts {
		if p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
			continue
		}
		if resp.BeforeChunk != nil {
			resp.BeforeChunk(i)
		}
		if err := ls.send(map[string]any{"serverContent": map[string]any{"modelTurn": &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{p}}}}); err != nil {
			return err
		}
	}
	if len(parts) > 0 {
		ls.history = append(ls.history, &genai.Content{Role: genai.RoleModel, Parts: parts})
	}
	if len(calls) > 0 {
		for _, c := range calls {
			d := ls.declaration(c.Name)
			ls.pending = append(ls.pending, pendingCall{id: c.ID, name: c.Name, nonBlocking: d != nil && d.Behavior == "NON_BLOCKING"})
		}
		if err := ls.send(map[string]any{"toolCall": map[string]any{"functionCalls": calls}}); err != nil {
			return err
		}
	}
	if ls.blocking() {
		return nil // the model waits for the calls' responses
	}
	return ls.send(map[string]any{"serverContent": map[string]any{"turnComplete": true}})
}

// send writes one server message.
func (ls *liveSession) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return &closeError{websocket.CloseInternalServerErr, "geminitest: encoding a message: " + err.Error()}
	}
	return ls.conn.WriteMessage(websocket.TextMessage, b)
}
