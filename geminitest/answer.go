package geminitest

// The answers: a script turn called for a request, checked against the
// request's tools, and written in the API's wire format, whole or as
// server-sent events.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/genai"
)

// callTurn runs turn, turning a panic into an error.
func callTurn(turn Turn, req *Request) (resp Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	return turn(req), nil
}

// checkCalls reports a scripted function call to a function the request
// does not declare: a real model only calls declared functions.
func checkCalls(req *Request, parts []*genai.Part) error {
	for _, p := range parts {
		if p == nil || p.FunctionCall == nil {
			continue
		}
		if isPiece(p.FunctionCall) && !req.streamsArgs() {
			return fmt.Errorf("the script streams the arguments of a call in pieces, which the request did not ask for (streamFunctionCallArguments on Vertex AI)")
		}
		if req.streamsArgs() && p.FunctionCall.Name == "" && (isPiece(p.FunctionCall) || len(p.FunctionCall.Args) == 0 && p.FunctionCall.ID == "") {
			continue // a later piece of a streamed call, or its end
		}
		if req.Declaration(p.FunctionCall.Name) == nil {
			var names []string
			for _, d := range req.Declarations() {
				names = append(names, d.Name)
			}
			return fmt.Errorf("the script calls %q, which the request does not declare (declared: %s)",
				p.FunctionCall.Name, strings.Join(names, ", "))
		}
	}
	return nil
}

type wireResponse struct {
	Candidates    []wireCandidate                             `json:"candidates"`
	UsageMetadata *genai.GenerateContentResponseUsageMetadata `json:"usageMetadata,omitempty"`
	ModelVersion  string                                      `json:"modelVersion"`
	ResponseID    string                                      `json:"responseId"`
}

type wireCandidate struct {
	Content      *genai.Content     `json:"content"`
	FinishReason genai.FinishReason `json:"finishReason,omitempty"`
	Index        int                `json:"index"`
}

// answer builds a successful answer.
func (s *Server) answer(req *Request, turnIndex int, resp Response) (*wireResponse, error) {
	parts := s.fill(resp.Parts)
	finish := resp.FinishReason
	if finish == "" {
		finish = genai.FinishReasonStop
	}
	version := s.opts.ModelVersion
	if version == "" {
		version = req.Model
	}
	out := &wireResponse{
		Candidates:   []wireCandidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}, FinishReason: finish}},
		ModelVersion: version,
		ResponseID:   fmt.Sprintf("fake-response-%d", turnIndex+1),
	}
	content, err := json.Marshal(out.Candidates[0].Content)
	if err != nil {
		return nil, err
	}
	out.UsageMetadata = resp.Usage
	if out.UsageMetadata == nil {
		prompt, cand := int32(len(req.Body)/4+1), int32(len(content)/4+1)
		out.UsageMetadata = &genai.GenerateContentResponseUsageMetadata{
			PromptTokenCount: prompt, CandidatesTokenCount: cand, TotalTokenCount: prompt + cand,
		}
	}
	return out, nil
}

// chunks splits a streamed answer into its events as resp.Chunks says.
func chunks(out *wireResponse, resp Response) ([]*wireResponse, error) {
	parts := out.Candidates[0].Content.Parts
	sizes := resp.Chunks
	if len(sizes) == 0 {
		sizes = make([]int, len(parts))
		for i := range sizes {
			sizes[i] = 1
		}
		if len(parts) == 0 {
			sizes = []int{0}
		}
	}
	total := 0
	for i, n := range sizes {
		if n <= 0 && len(parts) > 0 {
			return nil, fmt.Errorf("the response's Chunks[%d] = %d, want a positive count", i, n)
		}
		total += n
	}
	if total != len(parts) {
		return nil, fmt.Errorf("the response's Chunks add up to %d parts, the answer has %d", total, len(parts))
	}
	events := make([]*wireResponse, len(sizes))
	at := 0
	for i, n := range sizes {
		ev := *out
		cand := wireCandidate{Content: &genai.Content{Role: genai.RoleModel, Parts: parts[at : at+n]}}
		if i == len(sizes)-1 {
			cand.FinishReason = out.Candidates[0].FinishReason
		}
		ev.Candidates = []wireCandidate{cand}
		events[i] = &ev
		at += n
	}
	return events, nil
}

// fill copies parts, giving function calls IDs and the first call a thought
// signature as the options say.
func (s *Server) fill(parts []*genai.Part) []*genai.Part {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*genai.Part, 0, len(parts))
	signed := false
	for _, p := range parts {
		if p == nil {
			continue
		}
		c := *p
		if p.FunctionCall != nil {
			fc := *p.FunctionCall
			if fc.ID == "" && fc.Name != "" && !s.opts.NoCallIDs {
				s.ids++
				fc.ID = fmt.Sprintf("call-%d", s.ids)
			}
			c.FunctionCall = &fc
			if s.opts.ThoughtSignatures && !signed && fc.Name != "" && len(c.ThoughtSignature) == 0 {
				c.ThoughtSignature = []byte("fake-signature-" + fc.Name)
			}
			signed = true
		}
		out = append(out, &c)
	}
	return out
}

// write sends a successful answer: plain JSON for generateContent, one
// server-sent event per chunk for streamGenerateContent?alt=sse (each
// flushed at once), and a JSON array of the chunks for streamGenerateContent
// without alt=sse.
func (s *Server) write(w http.ResponseWriter, req *Request, out *wireResponse, resp Response) {
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	events, err := chunks(out, resp)
	if err == nil {
		events, err = streamArgs(req, events)
	}
	if err != nil {
		s.reject(w, req, http.StatusInternalServerError, fmt.Sprintf("geminitest: turn %d: %v", req.Turn, err))
		return
	}
	s.record(req)
	sse := req.Query.Get("alt") == "sse"
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, "[")
	}
	flusher, _ := w.(http.Flusher)
	for i, ev := range events {
		if resp.BeforeChunk != nil {
			resp.BeforeChunk(i)
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return // cannot happen: the whole answer encoded
		}
		switch {
		case sse:
			_, _ = fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		case i > 0:
			_, _ = fmt.Fprintf(w, ",\r\n%s", data)
		default:
			_, _ = w.Write(data)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	if !sse {
		_, _ = io.WriteString(w, "]")
	}
}
