package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// genai's dependencies start this worker when loaded; it is not
		// the example's.
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
	)
}

// runOwnLoop runs the program with args and returns its exit code and
// outputs.
func runOwnLoop(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestOffline runs the example as `go run ./examples/ownloop` does: 789
// tools of 77 servers, each request within the API's 512, one request
// refused for a declaration and healed, the call run at its server, the
// answer made from its result.
func TestOffline(t *testing.T) {
	code, out, errOut := runOwnLoop(t)
	if code != 0 {
		t.Fatalf("ownloop = exit %d, stderr:\n%s\nstdout:\n%s", code, errOut, out)
	}
	want := []string{
		"servers: 77 of 77 connected, 789 tools\n",
		"model: scripted (geminitest, offline)\n",
		"user: What is the weather in Kyoto right now?\n",
		"request 1: 512 of 789 tools declared (",
		"), 277 left out\n",
		"request 1: the API refused get_weather (server weather): * GenerateContentRequest.tools[0].function_declarations[",
		"].parameters: schema produces a constraint that has too many states for serving\n",
		"request 1: healed: 1 tool dropped for good; declaring again\n",
		"request 1: 512 of 788 tools declared (",
		"model calls get_weather_by_city({\"city\":\"Kyoto\",\"country_code\":\"JP\"})\n",
		"result of get_weather_by_city (server weather): ",
		`"conditions": "light rain"`,
		"request 2: 512 of 788 tools declared (",
		"model: In Kyoto it is 18.5 °C with light rain.\n",
	}
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("output lacks %q (in this order) after what came before:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
	if n := strings.Count(out, "the API refused"); n != 1 {
		t.Errorf("the API refused %d requests, want 1:\n%s", n, out)
	}
	if errOut != "" {
		t.Errorf("stderr = %q, want nothing", errOut)
	}
}

// TestMaxTokens: with -max-tokens each request's declarations stay within
// the size asked for.
func TestMaxTokens(t *testing.T) {
	code, out, errOut := runOwnLoop(t, "-max-tokens", "30000")
	if code != 0 {
		t.Fatalf("ownloop -max-tokens = exit %d, stderr:\n%s", code, errOut)
	}
	requests := 0
	for _, line := range strings.Split(out, "\n") {
		var turn, declared, of, size, omitted int
		if _, err := fmt.Sscanf(line, "request %d: %d of %d tools declared (%d bytes), %d left out",
			&turn, &declared, &of, &size, &omitted); err != nil {
			continue
		}
		requests++
		if size > 30000*4 || declared >= 512 || declared+omitted != of {
			t.Errorf("%q: want at most 120000 bytes, fewer than 512 declared, the rest left out", line)
		}
	}
	if requests != 3 || !strings.Contains(out, "model: In Kyoto it is 18.5 °C with light rain.\n") {
		t.Errorf("%d requests, want 3 (one healed) and the answer:\n%s", requests, out)
	}
}

// TestGeminiFlag: -gemini sends the requests where genai's environment
// says (here a fake, through GOOGLE_GEMINI_BASE_URL), with the tools of
// the servers declared and the question asked.
func TestGeminiFlag(t *testing.T) {
	srv := geminitest.New(t, &geminitest.Options{APIKey: "test-key"}, geminitest.Text("Sunny."))
	for _, v := range []string{"GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"} {
		t.Setenv(v, "")
	}
	t.Setenv("GEMINI_API_KEY", "test-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	code, out, errOut := runOwnLoop(t, "-gemini", "-prompt", "Is it sunny in Oslo?", "-model", "gemini-test")
	if code != 0 {
		t.Fatalf("ownloop -gemini = exit %d, stderr:\n%s", code, errOut)
	}
	for _, w := range []string{"model: the Gemini API\n", "user: Is it sunny in Oslo?\n", "request 1: 512 of 789 tools declared", "model: Sunny.\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "gemini-test" || len(reqs[0].Declarations()) != 512 {
		t.Fatalf("the API got %d requests, want one to gemini-test with 512 declarations", len(reqs))
	}
	if got := reqs[0].Contents[0].Parts[0].Text; got != "Is it sunny in Oslo?" || reqs[0].Contents[0].Role != genai.RoleUser {
		t.Errorf("the request asked %q, want the prompt", got)
	}
}

// TestPromptNeedsGemini: the fake's script knows one question, so a
// prompt of one's own needs the real API.
func TestPromptNeedsGemini(t *testing.T) {
	code, _, errOut := runOwnLoop(t, "-prompt", "Hello")
	if code != 2 || !strings.Contains(errOut, "-prompt needs -gemini") {
		t.Errorf("ownloop -prompt = exit %d, stderr %q; want 2 and the reason", code, errOut)
	}
}

// TestNoData: without the data files the program says where it looked.
func TestNoData(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runOwnLoop(t, "-data", dir)
	if code != 1 || !strings.Contains(errOut, "livemcpbench") {
		t.Errorf("ownloop -data %s = exit %d, stderr %q; want 1 naming the file", dir, code, errOut)
	}
}
