package mcpbridge

import (
	"context"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/lexical"
)

// lexicalRanker is the Ranker used when [Selection.Ranker] is nil (its
// doc comment states the rule). The zero value is ready to use and safe for
// concurrent use.
type lexicalRanker struct{}

// Rank implements [Ranker]. It never fails.
func (lexicalRanker) Rank(_ context.Context, conversation []*genai.Content, tools []*Tool) ([]float64, error) {
	docs := make([]*lexical.Index, len(tools))
	for i, t := range tools {
		docs[i] = t.lexical()
	}
	return lexical.Score(lexical.NewQuery(conversation), docs), nil
}

// lexicalCache builds a Tool's index once; Tools are immutable, so it never
// goes stale.
type lexicalCache struct {
	once sync.Once
	idx  *lexical.Index
}

// lexical returns t's index, built on first use (every time for a Tool the
// Bridge did not build).
func (t *Tool) lexical() *lexical.Index {
	if t.lex == nil {
		return buildLexical(t)
	}
	t.lex.once.Do(func() { t.lex.idx = buildLexical(t) })
	return t.lex.idx
}

// buildLexical indexes the words of t's names, title, description, and
// parameter names and descriptions.
func buildLexical(t *Tool) *lexical.Index {
	texts := []string{t.Name}
	if t.ServerTool != t.Name {
		texts = append(texts, t.ServerTool)
	}
	texts = append(texts, t.Title, t.Description)
	if d := t.Declaration; d != nil {
		if d.Parameters != nil {
			for k, p := range d.Parameters.Properties {
				texts = append(texts, k)
				if p != nil {
					texts = append(texts, p.Description)
				}
			}
		} else if m, ok := d.ParametersJsonSchema.(map[string]any); ok {
			if props, ok := m["properties"].(map[string]any); ok {
				for k, p := range props {
					texts = append(texts, k)
					if pm, ok := p.(map[string]any); ok {
						if s, ok := pm["description"].(string); ok {
							texts = append(texts, s)
						}
					}
				}
			}
		}
	}
	return lexical.NewIndex(texts...)
}
