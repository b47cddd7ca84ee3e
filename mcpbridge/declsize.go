package mcpbridge

import (
	"encoding/json"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/schema"
)

// declarationSize is the size of d as a request carries it: its compact
// JSON encoding.
func declarationSize(d *genai.FunctionDeclaration) schema.Size {
	b, err := json.Marshal(d)
	if err != nil {
		return 0
	}
	return schema.Size(len(b))
}

// fitSize keeps, of cands ranked best first (order holds their indexes),
// the best ones whose declarations fit in room bytes: each candidate in
// rank order is taken when it still fits, so a large tool left out does
// not keep smaller ones behind it out. It returns the kept indexes in
// rank order and the left-out ones.
func fitSize(cands []*Tool, order []int, room schema.Size) (kept, left []int) {
	for _, i := range order {
		if s := cands[i].Size; s <= room {
			room -= s
			kept = append(kept, i)
		} else {
			left = append(left, i)
		}
	}
	return kept, slices.Clip(left)
}

// schemaOptions are the options the Bridge converts tools' schemas with.
func (b *Bridge) schemaOptions() schema.Options {
	return schema.Options{Target: b.target, Budget: b.budget}
}

// addSize records the declaration size of t, a tool of s (nil: none).
func (s *ServerStatus) addSize(t *Tool) {
	if t == nil {
		return
	}
	if s.ToolSizes == nil {
		s.ToolSizes = make(map[string]schema.Size)
	}
	s.ToolSizes[t.Name] = t.Size
	if t.BudgetCuts > 0 {
		s.ToolsCut = append(s.ToolsCut, t.Name)
	}
}
