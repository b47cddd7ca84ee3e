package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcpgenai/bridge/mcpbridge/rank"
)

// rankTools ranks tools for q with r, each tool by its cached document:
// what selection and tool search both call.
func rankTools(ctx context.Context, r rank.Ranker, q rank.Query, tools []*Tool) (*rank.Ranking, error) {
	docs := make([]*rank.Document, len(tools))
	for i, t := range tools {
		docs[i] = t.RankDocument()
	}
	return r.Rank(ctx, q, docs)
}

// lexicalCache holds a Tool's rank document, built once; Tools are
// immutable, so it never goes stale.
type lexicalCache struct {
	once sync.Once
	doc  *rank.Document
}

// RankDocument returns the tool as the rank package reads it: its
// registered name, server, title, description, input schema and hints,
// analyzed (see [rank.NewDocument]). It is built on first use and kept
// with the tool. A host ranking tools itself, alone or beside the
// built-in [rank.Lexical], gives rankers these documents.
func (t *Tool) RankDocument() *rank.Document {
	if t.lex == nil {
		return rank.NewDocument(t.rankTool())
	}
	t.lex.once.Do(func() { t.lex.doc = rank.NewDocument(t.rankTool()) })
	return t.lex.doc
}

// rankTool is what the ranker reads of t: the server's own name for the
// tool and the annotations' title go with the title.
func (t *Tool) rankTool() rank.Tool {
	titles := []string{t.Title}
	if t.ServerTool != "" && t.ServerTool != t.Name {
		titles = append(titles, t.ServerTool)
	}
	if a := t.Annotations.Title; a != "" && a != t.Title {
		titles = append(titles, a)
	}
	rt := rank.Tool{
		Name:        t.Name,
		Server:      t.Server,
		Title:       strings.TrimSpace(strings.Join(titles, " ")),
		Description: t.Description,
		ReadOnly:    t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint,
		Destructive: t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint,
	}
	switch d := t.Declaration; {
	case t.def != nil && len(t.def.raw.InputSchema) > 0:
		rt.InputSchema = t.def.raw.InputSchema
	case d != nil && d.ParametersJsonSchema != nil:
		rt.InputSchema, _ = json.Marshal(d.ParametersJsonSchema)
	case d != nil && d.Parameters != nil:
		rt.InputSchema, _ = json.Marshal(d.Parameters)
	}
	return rt
}
