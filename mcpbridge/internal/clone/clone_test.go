package clone

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestDeclaration(t *testing.T) {
	one := int64(1)
	f := 2.5
	yes := true
	orig := &genai.FunctionDeclaration{
		Name: "f", Description: "d",
		Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"a"}, PropertyOrdering: []string{"a", "b"},
			Properties: map[string]*genai.Schema{
				"a": {Type: genai.TypeString, Enum: []string{"x", "y"}, MinLength: &one, Nullable: &yes,
					Default: map[string]any{"k": []any{1.0}}},
				"b": {Type: genai.TypeArray, Items: &genai.Schema{AnyOf: []*genai.Schema{{Type: genai.TypeNumber, Maximum: &f}}}},
			}},
		ParametersJsonSchema: map[string]any{"type": "object", "required": []any{"a"}},
	}
	before, _ := json.Marshal(orig)
	c := Declaration(orig)
	if diff := cmp.Diff(orig, c); diff != "" {
		t.Fatalf("Declaration() differs (-orig +clone):\n%s", diff)
	}
	c.Description = "edited"
	a, b := c.Parameters.Properties["a"], c.Parameters.Properties["b"]
	a.Enum[0], *a.MinLength, *a.Nullable = "z", 9, false
	a.Default.(map[string]any)["k"].([]any)[0] = 7.0
	*b.Items.AnyOf[0].Maximum = 0
	c.Parameters.Required[0], c.Parameters.PropertyOrdering[1] = "q", "q"
	c.Parameters.Properties["new"] = &genai.Schema{}
	c.ParametersJsonSchema.(map[string]any)["required"].([]any)[0] = "q"
	if after, _ := json.Marshal(orig); string(after) != string(before) {
		t.Errorf("editing the clone changed the original:\nbefore %s\nafter  %s", before, after)
	}
	if Declaration(nil) != nil {
		t.Error("Declaration(nil) != nil")
	}
}

func TestJSON(t *testing.T) {
	orig := map[string]any{"a": []any{1.0, map[string]any{"b": "c"}}, "n": json.Number("2")}
	before, _ := json.Marshal(orig)
	c := JSON(orig).(map[string]any)
	if diff := cmp.Diff(orig, c); diff != "" {
		t.Fatalf("JSON() differs (-orig +clone):\n%s", diff)
	}
	c["a"].([]any)[1].(map[string]any)["b"] = "edited"
	c["a"].([]any)[0] = 9.0
	c["new"] = true
	if after, _ := json.Marshal(orig); string(after) != string(before) {
		t.Errorf("editing the copy changed the original:\nbefore %s\nafter  %s", before, after)
	}
	if JSON(nil) != nil || JSON("s") != "s" {
		t.Error("JSON(nil or a string) is not the value itself")
	}
}
