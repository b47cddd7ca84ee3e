package sampling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// Gemini returns a [Sampler] that answers with models through
// models.GenerateContent. model answers by default; allowed are other
// models a server's preferences may pick, and no model outside model and
// allowed is ever used. The choice: the first of the server's hints that
// is part of a candidate's name (case-insensitive: "flash" matches
// "gemini-2.5-flash") narrows the candidates to those it matches; among
// them the priorities decide (a "pro" model counts for intelligence,
// "flash" for speed and half for cost, "lite" for speed and cost); a tie
// goes to model, then to the earliest in allowed. Without hints and
// priorities model answers.
//
// What reaches Gemini: the messages (text, images, audio; tool_use as
// function calls with their thought signatures, tool_result as function
// responses), the system prompt as the system instruction, MaxTokens as
// maxOutputTokens, the temperature, the stop sequences, and the tools,
// their schemas converted by package schema for the request's Target,
// under valid function names, with ToolChoice as the function-calling
// mode (auto AUTO, required ANY, none NONE). The model's function calls
// come back as tool_use blocks with the server's tool names, the
// arguments restored to its schemas, and ids new to the conversation; a
// finish reason of STOP is StopEndTurn (StopToolUse when the answer
// calls a tool), MAX_TOKENS is StopMaxTokens, another is its name in
// lower case.
//
// Not honored: IncludeContext (nothing is added), metadata (not sent), a
// stop sequence is reported as StopEndTurn (Gemini does not tell it
// apart), and the model's thoughts are left out. An answer MCP cannot
// carry (no candidate, nothing but thoughts, data other than images and
// audio, a call of a function the request did not declare) is an error
// naming the reason.
func Gemini(models *genai.Models, model string, allowed ...string) Sampler {
	return &gemini{models: models, model: model, allowed: slices.Clone(allowed)}
}

// gemini is the Sampler Gemini returns.
type gemini struct {
	models  *genai.Models
	model   string
	allowed []string
}

func (g *gemini) ChooseModel(req *Request) string { return choose(g.model, g.allowed, req.Preferences) }

func (g *gemini) Sample(ctx context.Context, req *Request) (*Result, error) {
	if g.models == nil {
		return nil, errors.New("sampling: Gemini was given no Models")
	}
	call, err := toGemini(req)
	if err != nil {
		return nil, err
	}
	resp, err := g.models.GenerateContent(ctx, req.Model, call.contents, call.config)
	if err != nil {
		return nil, fmt.Errorf("asking %s: %w", req.Model, err)
	}
	return call.fromGemini(req, resp)
}

// geminiCall is a request converted for the Gemini API, with what it
// takes to read the answer back.
type geminiCall struct {
	contents []*genai.Content
	config   *genai.GenerateContentConfig
	// names maps each function name declared to Gemini to the server's
	// tool name; restorers maps it to the schema's Restorer.
	names     map[string]string
	restorers map[string]*schema.Restorer
	// ids are the tool_use ids of the request and of the answer so far:
	// a call's id must be new (the API may give none, or repeat one).
	ids map[string]bool
}

// toGemini converts req for generateContent: messages to contents (user
// and model turns), the system prompt to the system instruction,
// maxTokens, temperature and stop sequences to the generation config, the
// tools through [schema.Convert] for req.Target under valid function names,
// and the tool choice to the function-calling mode. It fails only on a
// schema that is not JSON.
func toGemini(req *Request) (*geminiCall, error) {
	c := &geminiCall{names: map[string]string{}, restorers: map[string]*schema.Restorer{}, ids: map[string]bool{}}
	toGemini := map[string]string{} // server name -> declared name
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: int32(min(req.MaxTokens, 1<<31-1))}
	if req.SystemPrompt != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.SystemPrompt}}}
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if len(req.StopSequences) > 0 {
		cfg.StopSequences = append([]string(nil), req.StopSequences...)
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			name := registry.SanitizeName(t.Name)
			for i := 2; c.names[name] != ""; i++ {
				name = registry.SanitizeName(t.Name + "_" + strconv.Itoa(i))
			}
			res, err := schema.Convert(t.InputSchema, &schema.Options{Target: req.Target})
			if err != nil {
				return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
			}
			c.names[name], toGemini[t.Name], c.restorers[name] = t.Name, name, res.Restorer
			decls = append(decls, res.Declaration(name, t.Description))
		}
		mode := genai.FunctionCallingConfigModeAuto
		switch req.ToolChoice {
		case ChoiceRequired:
			mode = genai.FunctionCallingConfigModeAny
		case ChoiceNone:
			mode = genai.FunctionCallingConfigModeNone
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: mode}}
	}
	c.config = cfg
	useNames := map[string]string{} // tool_use id -> declared name
	for _, m := range req.Messages {
		role := genai.RoleUser
		if m.Role == RoleAssistant {
			role = genai.RoleModel
		}
		content := &genai.Content{Role: role}
		for _, b := range m.Content {
			switch b.Type {
			case TypeText:
				content.Parts = append(content.Parts, &genai.Part{Text: b.Text})
			case TypeImage, TypeAudio:
				content.Parts = append(content.Parts, &genai.Part{InlineData: &genai.Blob{MIMEType: b.MIMEType, Data: b.Data}})
			case TypeToolUse:
				name := toGemini[b.Name]
				useNames[b.ID] = name
				c.ids[b.ID] = true
				content.Parts = append(content.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: b.ID, Name: name, Args: b.Input}, ThoughtSignature: b.Signature})
			case TypeToolResult:
				content.Parts = append(content.Parts, &genai.Part{FunctionResponse: functionResponse(useNames[b.ID], b)})
			}
		}
		c.contents = append(c.contents, content)
	}
	return c, nil
}

// functionResponse is a tool_result as Gemini reads it: the text under
// "output" (or "error" when the tool failed), the structured content under
// "structured", images and audio as the response's parts.
func functionResponse(name string, b Content) *genai.FunctionResponse {
	fr := &genai.FunctionResponse{ID: b.ID, Name: name, Response: map[string]any{}}
	var text []string
	for _, in := range b.Content {
		switch in.Type {
		case TypeText:
			text = append(text, in.Text)
		case TypeImage, TypeAudio:
			fr.Parts = append(fr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: in.MIMEType, Data: in.Data}})
		}
	}
	key := "output"
	if b.IsError {
		key = "error"
	}
	fr.Response[key] = strings.Join(text, "\n")
	if len(b.Structured) > 0 {
		var v any
		if json.Unmarshal(b.Structured, &v) == nil {
			fr.Response["structured"] = v
		}
	}
	return fr
}

// fromGemini reads Gemini's answer: text, images and audio as such,
// function calls as tool_use blocks under the server's tool names with the
// arguments restored to the original schemas, and the finish reason as
// the stop reason. Thoughts are left out. An answer with nothing in it is
// an error naming the reason.
func (c *geminiCall) fromGemini(req *Request, resp *genai.GenerateContentResponse) (*Result, error) {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if resp != nil && resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			return nil, fmt.Errorf("the model refused the request: %s", resp.PromptFeedback.BlockReason)
		}
		return nil, errors.New("the model gave no answer")
	}
	cand := resp.Candidates[0]
	res := &Result{Model: cmpOr(resp.ModelVersion, req.Model)}
	calls := 0
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			switch {
			case p == nil || p.Thought:
			case p.FunctionCall != nil:
				b, err := c.toolUse(p.FunctionCall, calls)
				if err != nil {
					return nil, err
				}
				b.Signature = p.ThoughtSignature
				calls++
				res.Content = append(res.Content, b)
			case p.InlineData != nil:
				t := mediaType(p.InlineData.MIMEType)
				if t == "" {
					return nil, fmt.Errorf("the model answered with %s data, which MCP cannot carry", p.InlineData.MIMEType)
				}
				res.Content = append(res.Content, Content{Type: t, Data: p.InlineData.Data, MIMEType: p.InlineData.MIMEType})
			case p.Text != "":
				if n := len(res.Content); n > 0 && res.Content[n-1].Type == TypeText {
					res.Content[n-1].Text += p.Text
				} else {
					res.Content = append(res.Content, Content{Type: TypeText, Text: p.Text})
				}
			}
		}
	}
	if len(res.Content) == 0 {
		return nil, fmt.Errorf("the model gave no answer (finish reason %s)", cmpOr(string(cand.FinishReason), "unknown"))
	}
	switch cand.FinishReason {
	case genai.FinishReasonStop, genai.FinishReasonUnspecified, "":
		res.StopReason = StopEndTurn
		if calls > 0 {
			res.StopReason = StopToolUse
		}
	case genai.FinishReasonMaxTokens:
		res.StopReason = StopMaxTokens
	default:
		res.StopReason = strings.ToLower(string(cand.FinishReason))
	}
	return res, nil
}

// toolUse turns the model's n-th function call into a tool_use block.
func (c *geminiCall) toolUse(fc *genai.FunctionCall, n int) (Content, error) {
	name, ok := c.names[fc.Name]
	if !ok {
		return Content{}, fmt.Errorf("the model called %q, which is not among the request's tools", fc.Name)
	}
	args := fc.Args
	if args == nil {
		args = map[string]any{}
	}
	in, ok := c.restorers[fc.Name].Restore(args).(map[string]any)
	if !ok {
		return Content{}, fmt.Errorf("the model's arguments for %q are not an object", name)
	}
	id := fc.ID
	if id == "" {
		id = "call_" + strconv.Itoa(n+1)
	}
	for i := 2; c.ids[id]; i++ {
		id = cmpOr(fc.ID, "call_"+strconv.Itoa(n+1)) + "_" + strconv.Itoa(i)
	}
	c.ids[id] = true
	return Content{Type: TypeToolUse, ID: id, Name: name, Input: in}, nil
}

// mediaType returns the MCP content type for MIME type m: image, audio,
// or "" for anything else.
func mediaType(m string) string {
	switch {
	case strings.HasPrefix(m, "image/"):
		return TypeImage
	case strings.HasPrefix(m, "audio/"):
		return TypeAudio
	}
	return ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
