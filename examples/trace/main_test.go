package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for the example when it starts
// its server (it runs os.Executable() -serve).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-serve" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestRun runs the example and reads its spans back: the tool call's span
// is the parent the server saw in its traceparent.
func TestRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), nil, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("run() = %d, stderr:\n%s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{"progress of now (call-1): 1/2 step 1\n", "progress of now (call-1): 2/2 step 2\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	i := strings.Index(text, "the server saw: traceparent 00-")
	if i < 0 {
		t.Fatalf("output lacks the server's traceparent:\n%s", text)
	}
	seen := strings.TrimSpace(strings.TrimPrefix(text[i:], "the server saw: traceparent "))

	type span struct {
		Name        string
		SpanContext struct{ TraceID, SpanID string }
	}
	// The progress lines and the last line sit between the JSON spans.
	var js strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if !strings.HasPrefix(l, "progress of ") && !strings.HasPrefix(l, "the server saw: ") {
			js.WriteString(l)
		}
	}
	spans := map[string]span{}
	dec := json.NewDecoder(strings.NewReader(js.String()))
	for {
		var s span
		err := dec.Decode(&s)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("decoding the spans: %v\n%s", err, js.String())
		}
		spans[s.Name] = s
	}
	for _, name := range []string{"mcp discovery", "mcp connect clock", "tools/list", "execute_tool now"} {
		if _, ok := spans[name]; !ok {
			t.Errorf("no span %q in the output", name)
		}
	}
	call, ok := spans["tools/call now"]
	if !ok {
		t.Fatalf("no span \"tools/call now\" decoded from:\n%s", text)
	}
	if want := "00-" + call.SpanContext.TraceID + "-" + call.SpanContext.SpanID + "-01"; seen != want {
		t.Errorf("server saw traceparent %q, want %q", seen, want)
	}
}
