// Package clone makes deep copies of what the Bridge hands out, so that a
// caller who edits a function declaration or a decoded JSON value never
// changes the Bridge's own: [Declaration] for genai function declarations
// and their schemas, [JSON] for values decoded from JSON.
package clone

import (
	"maps"
	"slices"

	"google.golang.org/genai"
)

// Declaration returns a deep copy of d: its schemas and JSON Schema
// values are copied too, so editing the copy never reaches d. Values the
// API reads as plain data (Default, Example) are copied when they are JSON
// maps or slices and shared otherwise. A nil d gives nil.
func Declaration(d *genai.FunctionDeclaration) *genai.FunctionDeclaration {
	if d == nil {
		return nil
	}
	c := *d
	c.Parameters = cloneSchema(d.Parameters)
	c.Response = cloneSchema(d.Response)
	c.ParametersJsonSchema = JSON(d.ParametersJsonSchema)
	c.ResponseJsonSchema = JSON(d.ResponseJsonSchema)
	return &c
}

// cloneSchema returns a deep copy of s; nil gives nil.
func cloneSchema(s *genai.Schema) *genai.Schema {
	if s == nil {
		return nil
	}
	c := *s
	if s.AnyOf != nil {
		c.AnyOf = make([]*genai.Schema, len(s.AnyOf))
		for i, b := range s.AnyOf {
			c.AnyOf[i] = cloneSchema(b)
		}
	}
	if s.Properties != nil {
		c.Properties = make(map[string]*genai.Schema, len(s.Properties))
		for k, v := range s.Properties {
			c.Properties[k] = cloneSchema(v)
		}
	}
	c.Items = cloneSchema(s.Items)
	c.Enum = slices.Clone(s.Enum)
	c.Required = slices.Clone(s.Required)
	c.PropertyOrdering = slices.Clone(s.PropertyOrdering)
	c.Default = JSON(s.Default)
	c.Example = JSON(s.Example)
	c.MaxItems, c.MinItems = clonePtr(s.MaxItems), clonePtr(s.MinItems)
	c.MaxLength, c.MinLength = clonePtr(s.MaxLength), clonePtr(s.MinLength)
	c.MaxProperties, c.MinProperties = clonePtr(s.MaxProperties), clonePtr(s.MinProperties)
	c.Maximum, c.Minimum = clonePtr(s.Maximum), clonePtr(s.Minimum)
	c.Nullable = clonePtr(s.Nullable)
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// JSON copies the maps and slices of a decoded JSON value; other
// values are immutable or opaque and are shared.
func JSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := maps.Clone(v)
		for k, e := range out {
			out[k] = JSON(e)
		}
		return out
	case []any:
		out := slices.Clone(v)
		for i, e := range out {
			out[i] = JSON(e)
		}
		return out
	}
	return v
}
