package args

import (
	"encoding/json"
	"maps"
)

// A model that is given a property it may leave out sometimes writes null
// for it instead (the Gemini API's schemas have "nullable", and a model
// that wants to say "no value" reaches for it). A server whose schema does
// not accept null for that property would refuse the call, or worse,
// mirror "null" somewhere (an Mcp-Param header). The rule: a null given
// for a property of the arguments object that the schema does not require
// means "not given", but only where null is not valid there: the caller
// validates first and, only when that fails, tries the arguments without
// such nulls (WithoutOptionalNulls); when they are then valid, they are
// what is sent. A schema that accepts null gets the null as the model
// wrote it, and a null for a required property stays an error the model
// can correct.

// WithoutOptionalNulls returns a copy of v, arguments as [Encode] decoded
// them, without the top-level members whose value is null and that the
// schema's root "required" does not name, and whether it removed any. v is
// not modified; when nothing is removed, v itself is returned.
func (s *Schema) WithoutOptionalNulls(v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok || s == nil {
		return v, false
	}
	required := s.rootRequired()
	var out map[string]any
	for k, val := range m {
		if val != nil || required[k] {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		delete(out, k)
	}
	if out == nil {
		return v, false
	}
	return out, true
}

// rootRequired returns the names in the schema's root "required" array;
// nil when there is none or the schema is not an object.
func (s *Schema) rootRequired() map[string]bool {
	s.requiredOnce.Do(func() {
		var root struct {
			Required []json.RawMessage `json:"required"`
		}
		if json.Unmarshal(s.raw, &root) != nil {
			return
		}
		for _, r := range root.Required {
			var name string
			if json.Unmarshal(r, &name) != nil {
				continue
			}
			if s.required == nil {
				s.required = map[string]bool{}
			}
			s.required[name] = true
		}
	})
	return s.required
}
