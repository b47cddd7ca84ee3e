package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// sampleCall calls tool of b with args, within 30 s.
func sampleCall(t *testing.T, b *Bridge, tool string, args map[string]any) *CallResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return b.Execute(ctx, &genai.FunctionCall{Name: tool, Args: args})
}

// reviews records the reviews of a Sampling and answers them with
// refuse (nil approves).
type reviews struct {
	mu     sync.Mutex
	before []sampling.Request
	after  []sampling.Result
	refuse error
}

func (rv *reviews) review(_ context.Context, req *sampling.Request, res *sampling.Result) error {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if res == nil {
		rv.before = append(rv.before, *req)
		return rv.refuse
	}
	rv.after = append(rv.after, *res)
	return nil
}

// samplingEras are the ways the test server is reached: both eras over
// stdio, and streamable HTTP.
func samplingServers(t *testing.T) map[string]ServerConfig {
	h, _ := httpServer(t, "s", TransportHTTP, testserver.Options{Sample: true})
	h.Trust = true
	m := map[string]ServerConfig{"http": h}
	for _, era := range []string{"modern", "legacy"} {
		c := stdioServer("s", "-sample", "-era="+era)
		c.Trust = true
		m["stdio-"+era] = c
	}
	return m
}

// TestSampling: a server's sampling request reaches Gemini (through
// geminitest) with its system prompt, maxTokens, temperature and stop
// sequences, the review sees it before and after with the model chosen,
// and the server gets the model's answer; in both eras and over HTTP.
func TestSampling(t *testing.T) {
	for name, cfg := range samplingServers(t) {
		t.Run(name, func(t *testing.T) {
			srv := geminitest.New(t, nil, geminitest.Text("Hi from Gemini."))
			rv := &reviews{}
			b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
				Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
				Review:  rv.review,
			}}}, cfg)
			discover(t, b)
			r := sampleCall(t, b, "sample", map[string]any{"prompt": "Say hi."})
			want := `sampled by gemini-2.5-flash (endTurn): [{"text":"Hi from Gemini.","type":"text"}]`
			if r.Err != nil || r.ReturnDisplay != want {
				t.Fatalf("Execute(sample) = %q, %v; want %q", r.ReturnDisplay, r.Err, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("Gemini got %d requests, want 1", len(reqs))
			}
			got := reqs[0]
			if got.Model != "gemini-2.5-flash" {
				t.Errorf("model = %q, want gemini-2.5-flash", got.Model)
			}
			c := got.Config
			if c.SystemInstruction == nil || c.SystemInstruction.Parts[0].Text != "You are a test." {
				t.Errorf("system instruction = %+v, want the server's system prompt", c.SystemInstruction)
			}
			if c.MaxOutputTokens != 100 || c.Temperature == nil || *c.Temperature != 0.3 || !cmp.Equal(c.StopSequences, []string{"END"}) {
				t.Errorf("generation config: maxOutputTokens %d, temperature %v, stop %v; want 100, 0.3, [END]", c.MaxOutputTokens, c.Temperature, c.StopSequences)
			}
			if len(got.Contents) != 1 || got.Contents[0].Role != "user" || got.Contents[0].Parts[0].Text != "Say hi." {
				t.Errorf("contents = %s, want one user turn \"Say hi.\"", jsonOf(got.Contents))
			}
			if len(c.Tools) != 0 || c.ToolConfig != nil {
				t.Errorf("tools = %s, want none", jsonOf(c.Tools))
			}
			rv.mu.Lock()
			defer rv.mu.Unlock()
			if len(rv.before) != 1 || len(rv.after) != 1 {
				t.Fatalf("reviews: %d before, %d after; want 1 and 1", len(rv.before), len(rv.after))
			}
			bf := rv.before[0]
			wantTool := "sample"
			if name == "stdio-legacy" {
				wantTool = "" // asked outside the call
			}
			if bf.Server != "s" || bf.ServerTool != wantTool || bf.Model != "gemini-2.5-flash" || bf.MaxTokens != 100 || bf.Messages[0].Content[0].Text != "Say hi." {
				t.Errorf("review before = %+v", bf)
			}
			if rv.after[0].Content[0].Text != "Hi from Gemini." {
				t.Errorf("review after = %+v", rv.after[0])
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSamplingTools: a request with tools declares them to Gemini under
// valid names with converted schemas and mode AUTO; the model's call comes
// back to the server as tool_use with the server's name and the restored
// arguments (the integer enum a number again); the server runs the tool
// and sends its tool_result, which reaches Gemini as the function's
// response. The fake issues thought signatures, as Gemini 3 does: the
// call's signature reaches the server in the tool_use's _meta and comes
// back with it.
func TestSamplingTools(t *testing.T) {
	for name, cfg := range samplingServers(t) {
		t.Run(name, func(t *testing.T) {
			srv := geminitest.New(t, &geminitest.Options{ThoughtSignatures: true},
				geminitest.Calls(geminitest.Call{Name: "weather_get", Args: map[string]any{"city": "Oslo", "days": "3"}}),
				func(req *geminitest.Request) geminitest.Response {
					return geminitest.Response{Parts: []*genai.Part{{Text: "It is sunny."}}}
				})
			b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
				Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
			}}}, cfg)
			discover(t, b)
			r := sampleCall(t, b, "sample", map[string]any{"prompt": "Weather?", "tools": true})
			want := `tool_use weather/get {"city":"Oslo","days":3} | sampled by gemini-2.5-flash (endTurn): [{"text":"It is sunny.","type":"text"}]`
			if r.Err != nil || r.ReturnDisplay != want {
				for _, q := range srv.Requests() {
					t.Logf("rejection: %s", q.Rejection)
				}
				t.Fatalf("Execute(sample) = %q, %v;\nwant %q", r.ReturnDisplay, r.Err, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("Gemini got %d requests, want 2", len(reqs))
			}
			d := reqs[0].Declaration("weather_get")
			if d == nil || d.Description != "The weather." {
				t.Fatalf("declarations = %s, want weather_get", jsonOf(reqs[0].Declarations()))
			}
			if tc := reqs[0].Config.ToolConfig; tc == nil || tc.FunctionCallingConfig.Mode != genai.FunctionCallingConfigModeAuto {
				t.Errorf("tool config = %s, want mode AUTO", jsonOf(tc))
			}
			frs := reqs[1].FunctionResponses()
			if len(frs) != 1 || frs[0].Name != "weather_get" || frs[0].Response["output"] != "sunny in Oslo for 3 days (float64)" {
				t.Errorf("function responses = %s, want weather_get's output", jsonOf(frs))
			}
		})
	}
}

// TestSamplingRefused: a review that refuses gives the server the
// protocol's error (legacy: "User rejected sampling request"; 2026-07-28:
// the call fails), and Gemini is never asked.
func TestSamplingRefused(t *testing.T) {
	for name, cfg := range samplingServers(t) {
		t.Run(name, func(t *testing.T) {
			srv := geminitest.New(t, nil)
			rv := &reviews{refuse: fmt.Errorf("the user said no: %w", sampling.ErrRefused)}
			b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
				Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
				Review:  rv.review,
			}}}, cfg)
			discover(t, b)
			r := sampleCall(t, b, "sample", map[string]any{"prompt": "Say hi."})
			text := r.ReturnDisplay
			if r.Err != nil {
				text = r.Err.Error()
			}
			if !strings.Contains(text, "User rejected sampling request") {
				t.Errorf("Execute(sample) = %q, %v; want the refusal", r.ReturnDisplay, r.Err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("Gemini got %d requests, want none", n)
			}
		})
	}
}

// TestSamplingModelPreference: the server's hint picks among the models
// the host allows, its intelligence priority picks "pro" without a
// matching hint, and a model outside them is never used.
func TestSamplingModelPreference(t *testing.T) {
	cfg := stdioServer("s", "-sample")
	cfg.Trust = true
	for _, tc := range []struct {
		hint    string
		allowed []string
		want    string
	}{
		{"lite", []string{"gemini-2.5-pro", "gemini-2.5-flash-lite"}, "gemini-2.5-flash-lite"},
		{"", []string{"gemini-2.5-pro", "gemini-2.5-flash-lite"}, "gemini-2.5-pro"},
		{"claude-3-opus", []string{"gemini-2.5-flash-lite"}, "gemini-2.5-flash"},
		{"pro", nil, "gemini-2.5-flash"},
	} {
		t.Run(tc.hint+"/"+strings.Join(tc.allowed, ","), func(t *testing.T) {
			srv := geminitest.New(t, nil, geminitest.Text("ok"))
			b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
				Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash", tc.allowed...),
			}}}, cfg)
			discover(t, b)
			r := sampleCall(t, b, "sample", map[string]any{"prompt": "hi", "hint": tc.hint})
			if r.Err != nil {
				t.Fatalf("Execute(sample) = %v", r.Err)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != tc.want {
				t.Errorf("Gemini asked %s, want %s", jsonOf(reqs), tc.want)
			}
			if !strings.HasPrefix(r.ReturnDisplay, "sampled by "+tc.want+" ") {
				t.Errorf("Execute(sample) = %q, want the answer of %s", r.ReturnDisplay, tc.want)
			}
		})
	}
}

// TestSamplingBounds: a flood past PerMinute is refused and ends the call
// that brought it; a 10 MB request is refused with a clear error and the
// connection stays up; maxTokens is capped by MaxOutputTokens.
func TestSamplingBounds(t *testing.T) {
	cfg := stdioServer("s", "-sample", "-era=legacy")
	cfg.Trust = true
	cfg.Timeout = 2 * time.Minute // 10 MB each way, under -race on a loaded machine
	turns := make([]geminitest.Turn, 0, 4)
	for range 4 {
		turns = append(turns, geminitest.Text("ok"))
	}
	srv := geminitest.New(t, nil, turns...)
	b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
		Sampler:         sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
		PerMinute:       3,
		MaxOutputTokens: 50,
	}}}, cfg)
	discover(t, b)

	r := sampleCall(t, b, "sample", map[string]any{"prompt": "big", "pad": 10 << 20})
	text := r.ReturnDisplay
	if r.Err != nil {
		text = r.Err.Error()
	}
	if !strings.Contains(text, "exceeds the client's limit of 4194304") {
		t.Errorf("Execute(sample, 10 MB) = %q, %v; want the size refusal", r.ReturnDisplay, r.Err)
	}

	r = sampleCall(t, b, "sample", map[string]any{"prompt": "small", "max_tokens": 100000})
	if r.Err != nil || !strings.HasPrefix(r.ReturnDisplay, "sampled by") {
		t.Fatalf("Execute(sample) after the big one = %q, %v; want an answer", r.ReturnDisplay, r.Err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Config.MaxOutputTokens != 50 {
		t.Errorf("Gemini asked %s, want one request with maxOutputTokens 50", jsonOf(reqs))
	}

	r = sampleCall(t, b, "sample_flood", map[string]any{"n": 10})
	if !errors.Is(r.Err, ErrTooManyQuestions) || !strings.Contains(r.Err.Error(), "more than 3 sampling requests in a minute") {
		t.Errorf("Execute(sample_flood) = %q, %v; want ErrTooManyQuestions naming the rate", r.ReturnDisplay, r.Err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("Gemini got %d requests, want 3", n)
	}
}

// recursiveSampler answers by calling the server's sample tool again
// through the Bridge, as a host's own Sampler might.
type recursiveSampler struct {
	b     *Bridge
	inner string // what the inner call returned
}

func (s *recursiveSampler) ChooseModel(*sampling.Request) string { return "host-model" }

func (s *recursiveSampler) Sample(ctx context.Context, req *sampling.Request) (*sampling.Result, error) {
	r := s.b.Execute(ctx, &genai.FunctionCall{Name: "sample", Args: map[string]any{"prompt": "again"}})
	s.inner = r.ReturnDisplay
	if r.Err != nil {
		s.inner = r.Err.Error()
	}
	return &sampling.Result{Model: req.Model, Content: []sampling.Content{{Type: "text", Text: "done"}}}, nil
}

// TestSamplingNoRecursion: a sampling request made while answering one
// is refused, in both eras.
func TestSamplingNoRecursion(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			cfg := stdioServer("s", "-sample", "-era="+era)
			cfg.Trust = true
			s := &recursiveSampler{}
			b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{Sampler: s}}}, cfg)
			s.b = b
			discover(t, b)
			r := sampleCall(t, b, "sample", map[string]any{"prompt": "hi"})
			if want := `sampled by host-model (): [{"text":"done","type":"text"}]`; r.Err != nil || r.ReturnDisplay != want {
				t.Errorf("Execute(sample) = %q, %v; want %q", r.ReturnDisplay, r.Err, want)
			}
			if !strings.Contains(s.inner, "a sampling request made while answering another is refused") {
				t.Errorf("inner call = %q, want the recursion refused", s.inner)
			}
		})
	}
}

// blockingSampler waits for its context to end, having created file.
type blockingSampler struct {
	file  string
	cause chan error
}

func (s *blockingSampler) ChooseModel(*sampling.Request) string { return "m" }

func (s *blockingSampler) Sample(ctx context.Context, _ *sampling.Request) (*sampling.Result, error) {
	if err := os.WriteFile(s.file, nil, 0o600); err != nil {
		return nil, err
	}
	<-ctx.Done()
	s.cause <- ctx.Err()
	return nil, ctx.Err()
}

// TestSamplingCancelled: the server's notifications/cancelled ends the
// model's work on its request, and the server gets an error.
func TestSamplingCancelled(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sampling")
	cfg := stdioServer("s", "-sample-cancel="+file)
	cfg.Trust = true
	s := &blockingSampler{file: file, cause: make(chan error, 1)}
	b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{Sampler: s}}}, cfg)
	discover(t, b)
	r := sampleCall(t, b, "sample_cancel", nil)
	if r.Err != nil || !strings.Contains(r.ReturnDisplay, `"error":{"code":-32603,"message":"sampling cancelled"}`) {
		t.Errorf("Execute(sample_cancel) = %q, %v; want the cancelled error", r.ReturnDisplay, r.Err)
	}
	select {
	case err := <-s.cause:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the Sampler's context ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the Sampler's context never ended")
	}
}

// TestSamplingOff: without ClientFeatures.Sampling no sampling is
// declared, and a server's request fails.
func TestSamplingOff(t *testing.T) {
	cfg := stdioServer("s", "-sample", "-era=legacy")
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	r := sampleCall(t, b, "sample", map[string]any{"prompt": "hi"})
	text := r.ReturnDisplay
	if r.Err != nil {
		text = r.Err.Error()
	}
	if strings.Contains(text, "sampled by") || !strings.Contains(strings.ToLower(text), "sampling") {
		t.Errorf("Execute(sample) without sampling = %q, %v; want a sampling failure", r.ReturnDisplay, r.Err)
	}
	if _, err := New(&Config{}, &Options{Client: &ClientFeatures{Sampling: &Sampling{}}}); err == nil {
		t.Error("New with a Sampling without Sampler = nil error, want one")
	}
}

// TestSamplingSecretsAndSpan: a configured secret in the model's answer
// reaches neither the review nor the server, and each request has a
// "chat <model>" span with the server and models but no content.
func TestSamplingSecretsAndSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	cfg := stdioServer("s", "-sample")
	cfg.Trust = true
	cfg.Env = map[string]string{"API_TOKEN": "sekret-env-42"}
	srv := geminitest.New(t, nil, geminitest.Text("the token is sekret-env-42"))
	rv := &reviews{}
	b := newBridge(t, &Options{TracerProvider: tp, Client: &ClientFeatures{Sampling: &Sampling{
		Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
		Review:  rv.review,
	}}}, cfg)
	discover(t, b)
	r := sampleCall(t, b, "sample", map[string]any{"prompt": "token?"})
	if r.Err != nil || strings.Contains(r.ReturnDisplay, "sekret") || !strings.Contains(r.ReturnDisplay, "the token is ***") {
		t.Errorf("Execute(sample) = %q, %v; want the secret hidden", r.ReturnDisplay, r.Err)
	}
	rv.mu.Lock()
	if len(rv.after) != 1 || strings.Contains(rv.after[0].Content[0].Text, "sekret") {
		t.Errorf("review after = %+v, want the secret hidden", rv.after)
	}
	rv.mu.Unlock()
	var chat *tracetest.SpanStub
	spans := exp.GetSpans()
	for i, s := range spans {
		if s.Name == "chat gemini-2.5-flash" {
			chat = &spans[i]
		}
	}
	if chat == nil {
		t.Fatalf("no span \"chat gemini-2.5-flash\" among %d spans", len(spans))
	}
	attrs := map[string]string{}
	for _, a := range chat.Attributes {
		attrs[string(a.Key)] = a.Value.String()
	}
	want := map[string]string{
		"gen_ai.operation.name": "chat", "mcpbridge.server.name": "s",
		"gen_ai.request.model": "gemini-2.5-flash", "gen_ai.request.max_tokens": "100",
		"gen_ai.response.model": "gemini-2.5-flash", "gen_ai.response.finish_reasons": `["endTurn"]`,
	}
	if diff := cmp.Diff(want, attrs); diff != "" {
		t.Errorf("chat span attributes (-want +got):\n%s", diff)
	}
}
