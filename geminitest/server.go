package geminitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"google.golang.org/genai"
)

// maxBody is the largest request body the server reads.
const maxBody = 64 << 20

// Options configures a [Server]. The zero value is a Developer API that
// accepts any non-empty API key and gives function calls generated IDs.
type Options struct {
	// APIKey, if not empty, is the only API key accepted; "" accepts any
	// non-empty key. A missing key is always a 403.
	APIKey string
	// NoCallIDs leaves function calls without an ID instead of generating
	// "call-1", "call-2", ..., as older models did.
	NoCallIDs bool
	// ThoughtSignatures makes the server attach a thought signature to the
	// first function call of every answer and reject requests whose model
	// turns lost it, as Gemini 3 models do.
	ThoughtSignatures bool
	// ModelVersion is the modelVersion of every answer; "" means the model
	// named in the URL.
	ModelVersion string
	// DeclarationRules are extra rules for function declarations, for the
	// backend's checks that the fake does not model itself. Each is called
	// with every declaration the schema checks accept; a non-empty message
	// rejects the request with a 400 that points at the declaration the
	// way the API does: "* GenerateContentRequest.tools[0].
	// function_declarations[3].<field>: <message>" (no ".<field>" when
	// field is empty).
	DeclarationRules []DeclarationRule
	// VertexAI makes the server a Vertex AI endpoint in express mode (an
	// API key, no project): it serves
	// /v1beta1/publishers/google/models/{model}:generateContent (and
	// streamGenerateContent) instead of the Developer API's paths,
	// [Server.ClientConfig] selects genai.BackendVertexAI, declarations
	// are checked against Vertex AI's schema rules and its limit of 128,
	// and server-side MCP (a tool's mcpServers), which Vertex AI does not
	// support, is a 400. The Live endpoint stays the Developer API's.
	// Only Vertex AI knows toolConfig.functionCallingConfig.
	// streamFunctionCallArguments (the Developer API answers 400, an
	// unknown field); a streamed answer to a request that sets it streams
	// each function call's arguments in pieces, as Vertex AI does.
	VertexAI bool
	// Embed computes the embedding of one text for batchEmbedContents and
	// embedContent: dims values for a content of text with the request's
	// task type (dims is the request's output dimensionality, or 3072). nil
	// means [HashEmbedding]. It may be called from several goroutines at
	// once.
	Embed func(text, taskType string, dims int) []float32
	// MaxNestingDepth, when positive, rejects a request in which a
	// declaration's parameters nest deeper than this many schemas, with
	// the API's message, which names no declaration: "A
	// FunctionDeclaration in the request exceeds the maximum allowed
	// nesting depth."
	MaxNestingDepth int
}

// A DeclarationRule returns the field and message of a problem with d, or
// an empty message when d passes. See [Options.DeclarationRules].
type DeclarationRule func(d *genai.FunctionDeclaration) (field, message string)

// Server is a fake Gemini Developer API endpoint (or, with
// [Options.VertexAI], a Vertex AI one) serving generateContent and
// streamGenerateContent (POST /v1beta/models/{model}:generateContent) over
// HTTP, the Live API's WebSocket and the embedding endpoints. It decodes
// every request strictly, rejects what the real API rejects with the API's
// status and wording, and answers valid requests from its script. Its
// methods are safe for concurrent use.
type Server struct {
	t    testing.TB
	opts Options
	srv  *httptest.Server
	once sync.Once

	mu       sync.Mutex
	script   []Turn
	next     int // index of the next unused turn
	ids      int // function call IDs generated so far
	requests []*Request
	embeds   []*EmbedRequest

	liveMu     sync.Mutex
	liveConns  map[*websocket.Conn]bool
	liveClosed bool
	liveWG     sync.WaitGroup
}

// New starts a server that answers with script, one turn per valid
// request. If opts is nil, the default options are used. If t is not nil,
// the server is closed when the test ends and every rejection is logged
// with t.Logf; without a t the caller must call [Server.Close].
func New(t testing.TB, opts *Options, script ...Turn) *Server {
	s := &Server{t: t, script: slices.Clone(script)}
	if opts != nil {
		s.opts = *opts
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL returns the base URL to put in genai.HTTPOptions.BaseURL.
func (s *Server) URL() string { return s.srv.URL }

// ClientConfig returns a configuration that makes genai.NewClient reach
// this server: the Developer API backend, an accepted API key, the
// server's URL and an HTTP client whose connections close with the server.
func (s *Server) ClientConfig() *genai.ClientConfig {
	key := s.opts.APIKey
	if key == "" {
		key = "test"
	}
	backend := genai.BackendGeminiAPI
	if s.opts.VertexAI {
		backend = genai.BackendVertexAI
	}
	return &genai.ClientConfig{
		APIKey:      key,
		Backend:     backend,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.srv.URL},
		HTTPClient:  s.srv.Client(),
	}
}

// Client returns a real *genai.Client connected to this server. A failure
// to create it is a setup error: it fails the test (t.Fatalf) or, without
// a t, panics.
func (s *Server) Client(ctx context.Context) *genai.Client {
	c, err := genai.NewClient(ctx, s.ClientConfig())
	if err != nil {
		if s.t != nil {
			s.t.Helper()
			s.t.Fatalf("geminitest: creating client: %v", err)
		}
		panic(fmt.Sprintf("geminitest: creating client: %v", err))
	}
	return c
}

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Remaining reports how many turns of the script have not answered yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// Requests returns every generateContent request answered so far, accepted
// or rejected, in the order they were answered (the order they arrived,
// unless requests overlap). The Request values are copies; the decoded
// contents they point to are shared and must not be modified.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Request, len(s.requests))
	for i, r := range s.requests {
		c := *r
		out[i] = &c
	}
	return out
}

// Close shuts the server down, ending Live sessions and waiting for
// requests in flight. It may be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		s.liveMu.Lock()
		for c := range s.liveConns {
			_ = c.Close()
		}
		s.liveConns = nil
		s.liveClosed = true
		s.liveMu.Unlock()
		s.srv.Close()
		s.liveWG.Wait()
	})
}

// track adds a Live connection, to be closed by Close; it reports false
// when the server is closed.
func (s *Server) track(c *websocket.Conn) bool {
	s.liveMu.Lock()
	defer s.liveMu.Unlock()
	if s.liveClosed {
		return false
	}
	if s.liveConns == nil {
		s.liveConns = map[*websocket.Conn]bool{}
	}
	s.liveConns[c] = true
	s.liveWG.Add(1)
	return true
}

// untrack closes and forgets a Live connection.
func (s *Server) untrack(c *websocket.Conn) {
	_ = c.Close()
	s.liveMu.Lock()
	delete(s.liveConns, c)
	s.liveMu.Unlock()
	s.liveWG.Done()
}

// apiError is the body of an error answer.
type apiError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

var statusNames = map[int]string{
	http.StatusBadRequest:          "INVALID_ARGUMENT",
	http.StatusUnauthorized:        "UNAUTHENTICATED",
	http.StatusForbidden:           "PERMISSION_DENIED",
	http.StatusNotFound:            "NOT_FOUND",
	http.StatusConflict:            "ABORTED",
	http.StatusTooManyRequests:     "RESOURCE_EXHAUSTED",
	http.StatusInternalServerError: "INTERNAL",
	http.StatusNotImplemented:      "UNIMPLEMENTED",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
	http.StatusGatewayTimeout:      "DEADLINE_EXCEEDED",
}

func writeError(w http.ResponseWriter, code int, message string) {
	var e apiError
	e.Error.Code, e.Error.Message, e.Error.Status = code, message, statusNames[code]
	if e.Error.Status == "" {
		e.Error.Status = "UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(e)
}

// route splits "/v1beta/models/gemini-x:generateContent" into the model
// and the method.
func route(path string, vertex bool) (model, method string, ok bool) {
	prefix := "/v1beta/"
	if vertex {
		prefix = "/v1beta1/publishers/google/"
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return "", "", false
	}
	resource, method := rest[:i], rest[i+1:]
	for _, prefix := range []string{"models/", "tunedModels/"} {
		if name, ok := strings.CutPrefix(resource, prefix); ok && name != "" && !strings.Contains(name, "/") {
			return name, method, true
		}
	}
	return "", "", false
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if isLivePath(r.URL.Path) {
		s.serveLive(w, r)
		return
	}
	model, method, ok := route(r.URL.Path, s.opts.VertexAI)
	if !ok || r.Method != http.MethodPost {
		writeError(w, http.StatusNotFound, fmt.Sprintf("geminitest: no route for %s %s (want POST /v1beta/models/{model}:generateContent)", r.Method, r.URL.Path))
		return
	}
	if isEmbedMethod(method) {
		s.serveEmbed(w, r, model, method)
		return
	}
	if method != "generateContent" && method != "streamGenerateContent" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("geminitest: method %q is not implemented (only generateContent, streamGenerateContent, batchEmbedContents and embedContent)", method))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("geminitest: reading request body: %v", err))
		return
	}
	req := &Request{
		Model: model, Stream: method == "streamGenerateContent", Body: body,
		Header: r.Header.Clone(), Query: r.URL.Query(), Turn: -1,
	}
	if code, msg := s.authorize(r); code != 0 {
		s.reject(w, req, code, msg)
		return
	}
	var wire wireRequest
	if errs := decodeRequestOn(body, &wire, s.opts.VertexAI); len(errs) > 0 {
		_ = req.setBody(&wire) // best effort: the rejection is what matters
		s.reject(w, req, http.StatusBadRequest, strings.Join(errs, "\n"))
		return
	}
	if vs := validate(&wire, &s.opts); len(vs) > 0 {
		_ = req.setBody(&wire)
		s.reject(w, req, http.StatusBadRequest, formatViolations(vs))
		return
	}
	if err := req.setBody(&wire); err != nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf("geminitest: converting the accepted request to genai types: %v", err))
		return
	}

	s.mu.Lock()
	turnIndex := s.next
	var turn Turn
	if turnIndex < len(s.script) {
		turn = s.script[turnIndex]
		s.next++
		req.Turn = turnIndex
	}
	scriptLen := len(s.script)
	s.mu.Unlock()
	if turn == nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf(
			"geminitest: script exhausted: no turn left for this request (the script has %d turns, all used)", scriptLen))
		return
	}
	resp, err := callTurn(turn, req)
	if err != nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf("geminitest: turn %d: %v", turnIndex, err))
		return
	}
	if resp.Status != 0 {
		s.reject(w, req, resp.Status, resp.Message)
		return
	}
	if err := checkCalls(req, resp.Parts); err != nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf("geminitest: turn %d: %v", turnIndex, err))
		return
	}
	out, err := s.answer(req, turnIndex, resp)
	if err != nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf("geminitest: turn %d: encoding the answer: %v", turnIndex, err))
		return
	}
	if !req.Stream {
		s.record(req)
	}
	s.write(w, req, out, resp)
}

// authorize checks the API key, in the x-goog-api-key header or the key
// query parameter.
func (s *Server) authorize(r *http.Request) (code int, msg string) {
	key := r.Header.Get("x-goog-api-key")
	if key == "" {
		key = r.URL.Query().Get("key")
	}
	switch {
	case key == "":
		return http.StatusForbidden, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	case s.opts.APIKey != "" && key != s.opts.APIKey:
		return http.StatusBadRequest, "API key not valid. Please pass a valid API key."
	}
	return 0, ""
}

// record adds req, now complete, to the recorded requests.
func (s *Server) record(req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// reject records req with msg and answers with an error.
func (s *Server) reject(w http.ResponseWriter, req *Request, code int, msg string) {
	req.Rejection = msg
	s.record(req)
	if s.t != nil {
		s.t.Logf("geminitest: answered %d: %s", code, msg)
	}
	writeError(w, code, msg)
}
