package schema

import (
	"encoding/json"
	"strings"
)

// Size is the size of a converted schema: the bytes of its compact JSON
// encoding, as the request carries it.
type Size int

// bytesPerToken is the estimate of JSON bytes per model token used by
// [Tokens] and [Size.Tokens].
const bytesPerToken = 4

// DefaultBudget is the size budget of one converted schema used when
// Options.Budget is 0: 16 KiB, about 4,000 tokens.
const DefaultBudget Size = 16 << 10

// Tokens returns the Size of about n model tokens, estimated at four bytes
// of JSON per token, for a budget given in tokens.
func Tokens(n int) Size { return Size(n) * bytesPerToken }

// Tokens returns the estimated number of model tokens of s, at four bytes
// of JSON per token, rounded up.
func (s Size) Tokens() int { return (int(s) + bytesPerToken - 1) / bytesPerToken }

// budget returns the budget in force: 0 for none.
func (o Options) budget() Size {
	switch {
	case o.Budget < 0:
		return 0
	case o.Budget == 0:
		return DefaultBudget
	}
	return o.Budget
}

// budgetNote is the description of a reference left out to fit the
// budget: what the value is, briefly, and that it is written as JSON text.
func budgetNote(target any, key string) string {
	what := "value"
	if m, ok := target.(map[string]any); ok {
		props, _ := m["properties"].(map[string]any)
		switch names := sortedKeys(props); {
		case len(names) > briefMembers:
			what = "object {" + strings.Join(names[:briefMembers], ", ") + ", …}"
		case len(names) > 0:
			what = "object {" + strings.Join(names, ", ") + "}"
		case len(typeNames(m["type"])) == 1:
			what = typeNames(m["type"])[0]
		}
	}
	return refName(key) + ": " + what + ", too large to describe here"
}

// composite reports whether the schema v nests other schemas: only such
// references are worth cutting, since a placeholder costs about as much
// as a schema without children.
func composite(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, sub := range m {
		switch {
		case k == "$ref":
			return true
		case singleSchemaKeys[k] || listSchemaKeys[k]:
			if _, isMap := sub.(map[string]any); isMap {
				return true
			}
			if l, isList := sub.([]any); isList && len(l) > 0 {
				return true
			}
		case mapSchemaKeys[k]:
			if sm, isMap := sub.(map[string]any); isMap && len(sm) > 0 {
				return true
			}
		}
	}
	return false
}

// minNodeBytes is the fewest bytes one converted node takes in the JSON
// encoding, halved: {"type":"STRING"} and {"anyOf":[]} for parameters, {}
// for JSON Schema, and half of it because some converted nodes are
// dropped again (identical anyOf branches are kept once). An output of
// more converted nodes than limit/minNodeBytes is surely over limit.
func minNodeBytes(t Target) int {
	if t == JSONSchema {
		return 1
	}
	return 6
}

// nodesWithin is the most output nodes an output within limit can have.
func nodesWithin(limit Size, t Target) int {
	return max(int(limit)/minNodeBytes(t), 1)
}

// outputSize is the size of what res sends to the API.
func outputSize(res *Result) Size {
	var v any = res.JSONSchema
	if res.Target != JSONSchema {
		if n, ok := genaiLen(res.Parameters, 0); ok {
			return Size(n)
		}
		v = res.Parameters
	} else if n, ok := jsonLen(res.JSONSchema, 0); ok {
		return Size(n)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return Size(len(b))
}

// rawSize is the size of the input value v as compact JSON.
func rawSize(v any) Size {
	if n, ok := jsonLen(v, 0); ok {
		return Size(n)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return Size(len(b))
}
