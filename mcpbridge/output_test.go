package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

func TestOutputSchemaDeclared(t *testing.T) {
	var want map[string]any
	if err := json.Unmarshal([]byte(testserver.OutputSchema), &want); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target schema.Target
		want   any
	}{
		{schema.JSONSchema, want},
		{schema.Gemini, nil},
		{schema.Vertex, nil},
	} {
		t.Run(tc.target.String(), func(t *testing.T) {
			b := newBridge(t, &Options{Target: tc.target}, serverFor(t, "p", TransportStdio, testserver.Options{Offers: true}))
			discover(t, b)
			tool, ok := b.Tool("forecast")
			if !ok {
				t.Fatal("forecast not registered")
			}
			// Numbers in the converted schema stay json.Number: compare as JSON.
			got, _ := json.Marshal(tool.Declaration.ResponseJsonSchema)
			wantJSON, _ := json.Marshal(tc.want)
			if tc.want == nil {
				if tool.Declaration.ResponseJsonSchema != nil {
					t.Errorf("ResponseJsonSchema = %s, want none for %v", got, tc.target)
				}
				return
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal(wantJSON, &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("ResponseJsonSchema (-want +got):\n%s", diff)
			}
			if errs := schema.CheckDeclaration(tool.Declaration, tc.target); len(errs) > 0 {
				t.Errorf("CheckDeclaration(forecast) = %v, want none", errs)
			}
			if tool, _ := b.Tool("echo"); tool.Declaration.ResponseJsonSchema != nil {
				t.Errorf("echo has ResponseJsonSchema %v, want none (no outputSchema)", tool.Declaration.ResponseJsonSchema)
			}
		})
	}
}

func TestOutputSchemaChecked(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			cfg := serverFor(t, "p", tr, testserver.Options{Offers: true})
			cfg.Trust = true
			b := newBridge(t, nil, cfg)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if r := b.Execute(ctx, &genai.FunctionCall{Name: "forecast"}); r.Err != nil || r.OutputErr != nil {
				t.Errorf("Execute(forecast) = %v, OutputErr %v; want both nil", r.Err, r.OutputErr)
			}
			r := b.Execute(ctx, &genai.FunctionCall{Name: "misfit"})
			if r.Err != nil {
				t.Fatalf("Execute(misfit) = %v, want the call to succeed", r.Err)
			}
			if !errors.Is(r.OutputErr, errOutputSchema) || !strings.Contains(r.OutputErr.Error(), "/celsius") {
				t.Errorf("Execute(misfit).OutputErr = %v, want errOutputSchema naming /celsius", r.OutputErr)
			}
			got := r.FunctionResponse().Response["output"]
			if diff := cmp.Diff(map[string]any{"city": "Oslo", "celsius": "warm"}, got); diff != "" {
				t.Errorf("the model's output of misfit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutputCheck(t *testing.T) {
	tool := &Tool{Server: "s", ServerTool: "t"}
	o := &outputDef{raw: json.RawMessage(testserver.OutputSchema)}
	tests := []struct {
		name, raw string
		wantErr   string // "" for none
	}{
		{"match", `{"content":[],"structuredContent":{"city":"a","celsius":1}}`, ""},
		{"big number", `{"structuredContent":{"city":"a","celsius":123456789012345678901234567890}}`, ""},
		{"missing", `{"content":[{"type":"text","text":"x"}]}`, "no structuredContent"},
		{"null", `{"structuredContent":null}`, "no structuredContent"},
		{"extra property", `{"structuredContent":{"city":"a","celsius":1,"x":2}}`, "additional"},
		{"not an object", `{"structuredContent":[1]}`, "want object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := o.check(tool, json.RawMessage(tc.raw), quiet())
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("check(%s) = %v, want nil", tc.raw, err)
				}
				return
			}
			if !errors.Is(err, errOutputSchema) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("check(%s) = %v, want errOutputSchema saying %q", tc.raw, err, tc.wantErr)
			}
		})
	}
	var none *outputDef
	if err := none.check(tool, json.RawMessage(`{}`), quiet()); err != nil {
		t.Errorf("check without an output schema = %v, want nil", err)
	}
	bad := &outputDef{raw: json.RawMessage(`{"type":"nope"}`)}
	if err := bad.check(tool, json.RawMessage(`{}`), quiet()); err != nil {
		t.Errorf("check with a schema that does not compile = %v, want nil (not validated)", err)
	}
}

// TestLoopOutputSchema runs the JSON-schema target end to end: the strict
// fake accepts the declarations with responseJsonSchema, and a result that
// breaks its schema has OutputErr while the model still reads it.
func TestLoopOutputSchema(t *testing.T) {
	cfg := serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
	cfg.Trust = true
	b := newBridge(t, &Options{Target: schema.JSONSchema}, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var declared any
	var output any
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			if d := req.Declaration("misfit"); d != nil {
				declared = d.ResponseJsonSchema
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "misfit"}}}}
		},
		func(req *geminitest.Request) geminitest.Response {
			if rs := req.FunctionResponses(); len(rs) == 1 {
				output = rs[0].Response["output"]
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "ok"}}}
		},
	)
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, []*genai.Content{genai.NewContentFromText("weather?", genai.RoleUser)}, nil, nil, false)
	if err != nil {
		t.Fatalf("hostLoop() = %v", err)
	}
	var reported []error
	for _, r := range res.Results {
		reported = append(reported, r.OutputErr)
	}
	if declared == nil {
		t.Error("the request declared misfit without responseJsonSchema")
	}
	if len(reported) != 1 || !errors.Is(reported[0], errOutputSchema) {
		t.Errorf("results' OutputErr = %v, want one errOutputSchema", reported)
	}
	if diff := cmp.Diff(map[string]any{"city": "Oslo", "celsius": "warm"}, output); diff != "" {
		t.Errorf("output the model read (-want +got):\n%s", diff)
	}
}
