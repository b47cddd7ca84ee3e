package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"
)

// defaultModel is the genai backend's model when neither the -model flag
// nor the tool call names one.
const defaultModel = "gemini-2.5-flash"

// apiBackend answers turns through the Gemini API with a genai client,
// keeping each session's history in memory. The cwd argument means nothing
// to it and is ignored. It is safe for concurrent use; turns of one session
// are serialized.
type apiBackend struct {
	client   *genai.Client
	model    string        // default model; never ""
	timeout  time.Duration // per turn; 0 means none
	sessions *sessionStore
}

// newAPIBackend returns a backend using client. model "" means
// defaultModel; timeout 0 means no limit beyond the caller's context;
// maxSessions <= 0 means defaultMaxSessions.
func newAPIBackend(client *genai.Client, model string, timeout time.Duration, maxSessions int) *apiBackend {
	if model == "" {
		model = defaultModel
	}
	return &apiBackend{client: client, model: model, timeout: timeout, sessions: newSessionStore(maxSessions)}
}

// Chat starts a session with t's prompt, model and system prompt. The
// session is kept only when the model answered.
func (b *apiBackend) Chat(ctx context.Context, t turn) (answer, error) {
	s := &session{id: newSessionID(), model: t.Model, systemPrompt: t.SystemPrompt}
	if s.model == "" {
		s.model = b.model
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	text, err := b.send(ctx, s, t)
	if err != nil {
		return answer{}, err
	}
	b.sessions.add(s)
	return answer{Text: text, SessionID: s.id}, nil
}

// Reply continues the session t.SessionID, or the most recently used
// session when it is "". A model in t applies to this turn only; a system
// prompt in t replaces the session's from this turn on.
func (b *apiBackend) Reply(ctx context.Context, t turn) (answer, error) {
	s, err := b.sessions.lookup(t.SessionID)
	if err != nil {
		return answer{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.SystemPrompt != "" {
		s.systemPrompt = t.SystemPrompt
	}
	text, err := b.send(ctx, s, t)
	if err != nil {
		return answer{}, err
	}
	return answer{Text: text, SessionID: s.id}, nil
}

// send sends s's history plus t's prompt and, when the model answers,
// appends both turns to the history. The caller holds s.mu.
func (b *apiBackend) send(ctx context.Context, s *session, t turn) (string, error) {
	if b.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.timeout)
		defer cancel()
	}
	model := t.Model
	if model == "" {
		model = s.model
	}
	var config *genai.GenerateContentConfig
	if s.systemPrompt != "" {
		config = &genai.GenerateContentConfig{
			SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: s.systemPrompt}}},
		}
	}
	user := genai.NewContentFromText(t.Prompt, genai.RoleUser)
	contents := append(slices.Clip(s.history), user)
	resp, err := b.client.Models.GenerateContent(ctx, model, contents, config)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", model, err)
	}
	reply, text, err := modelTurn(resp)
	if err != nil {
		return "", fmt.Errorf("model %s: %w", model, err)
	}
	s.history = append(s.history, user, reply)
	return text, nil
}

// modelTurn returns the content of resp's first candidate, with role
// "model", and its text. A blocked prompt or an answer without text is an
// error.
func modelTurn(resp *genai.GenerateContentResponse) (*genai.Content, string, error) {
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
		if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" {
			return nil, "", fmt.Errorf("prompt blocked (%s): %s", fb.BlockReason, fb.BlockReasonMessage)
		}
		return nil, "", errors.New("the model returned no answer")
	}
	c := resp.Candidates[0]
	var text strings.Builder
	for _, p := range c.Content.Parts {
		if p != nil && !p.Thought {
			text.WriteString(p.Text)
		}
	}
	if text.Len() == 0 {
		return nil, "", fmt.Errorf("the model returned no text (finish reason %s)", c.FinishReason)
	}
	content := &genai.Content{Role: genai.RoleModel, Parts: c.Content.Parts}
	return content, text.String(), nil
}
