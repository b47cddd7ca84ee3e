package schema

import (
	"reflect"
	"testing"

	"google.golang.org/genai"
)

func TestAnyOf(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "oneOf/treated as anyOf",
		in:      `{"type":"object","properties":{"x":{"oneOf":[{"type":"string"},{"type":"integer"}],"description":"either"}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"description":"either","anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}}}`,
		changes: []string{"properties.x: oneOf"},
	}, {
		name:    "anyOf/single branch is flattened, descriptions joined",
		in:      `{"type":"object","properties":{"x":{"anyOf":[{"type":"string","description":"inner"}],"description":"outer"}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING","description":"outer inner"}}}`,
		changes: []string{"properties.x: anyOf"},
	}, {
		name:    "anyOf/default beside anyOf is dropped",
		in:      `{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"integer"}],"default":"a"}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}}}`,
		changes: []string{"properties.x: default"},
	}, {
		name: "anyOf/structural siblings are distributed into every branch",
		in: `{"type":"object","properties":{"s":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},
			"anyOf":[{"required":["a"]},{"required":["b"]}]}}}`,
		want: `{"type":"OBJECT","properties":{"s":{"anyOf":[
			{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}},"required":["a"]},
			{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}},"required":["b"]}]}}}`,
		changes: []string{"properties.s: anyOf"},
	}, {
		name:    "anyOf/false branches are removed",
		in:      `{"type":"object","properties":{"x":{"anyOf":[false,{"type":"string"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}`,
		changes: []string{"properties.x.anyOf.0: anyOf"},
	}, {
		name:    "Vertex/anyOf alone on its node: description, title and nullable go into the branches",
		target:  Vertex,
		in:      `{"type":"object","properties":{"v":{"description":"d","title":"t","nullable":true,"anyOf":[{"type":"string"},{"type":"integer","description":"num"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"STRING","description":"d","title":"t","nullable":true},{"type":"INTEGER","description":"d num","title":"t","nullable":true}]}}}`,
		changes: []string{"properties.v: anyOf", "properties.v: nullable"},
	}, {
		name:   "Vertex/nested anyOf branches receive the parent's description",
		target: Vertex,
		in:     `{"type":"object","properties":{"v":{"description":"d","anyOf":[{"type":"boolean"},{"type":["string","integer"]}]}}}`,
		want:   `{"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"BOOLEAN","description":"d"},{"anyOf":[{"type":"STRING","description":"d"},{"type":"INTEGER","description":"d"}]}]}}}`,
	}, {
		name:    "anyOf/identical branches are merged, keeping the first",
		in:      `{"type":"object","properties":{"x":{"anyOf":[{"type":"string","format":"time"},{"type":"integer"},{"type":"string","format":"time"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"anyOf":[{"type":"STRING","description":"format: time"},{"type":"INTEGER"}]}}}`,
		changes: []string{"properties.x: anyOf"},
	}, {
		name:    "anyOf/branches identical after conversion leave a single flattened one",
		in:      `{"type":"object","properties":{"x":{"description":"d","anyOf":[{"type":"string"},{"type":"string"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING","description":"d"}}}`,
		changes: []string{"properties.x: anyOf"},
	}, {
		name:    "anyOf/string enum branches become one enum, their descriptions noted",
		in:      `{"type":"object","properties":{"k":{"description":"Kind.","oneOf":[{"const":"a","description":"Alpha."},{"const":"b"},{"enum":["c","a"],"title":"C"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"k":{"type":"STRING","enum":["a","b","c"],"description":"Kind. (\"a\": Alpha.; \"c\", \"a\": C)"}}}`,
		changes: []string{"properties.k: anyOf"},
	}, {
		name:   "anyOf/Vertex merges enum branches too (no anyOf left)",
		target: Vertex,
		in:     `{"type":"object","properties":{"k":{"anyOf":[{"const":1},{"const":2},{"type":"null"}]}}}`,
		want:   `{"type":"OBJECT","properties":{"k":{"type":"STRING","enum":["1","2"],"nullable":true}}}`,
	}, {
		name: "anyOf/a text in several enum branches is listed once",
		in:   `{"type":"object","properties":{"k":{"anyOf":[{"enum":["5","x"]},{"const":5}]}}}`,
		want: `{"type":"OBJECT","properties":{"k":{"type":"STRING","enum":["5","x"]}}}`,
	}, {
		name: "anyOf/enum branches with other constraints are not merged",
		in:   `{"type":"object","properties":{"k":{"anyOf":[{"enum":["a"],"maxLength":3},{"enum":["b"]}]}}}`,
		want: `{"type":"OBJECT","properties":{"k":{"anyOf":[{"type":"STRING","enum":["a"],"maxLength":3},{"type":"STRING","enum":["b"]}]}}}`,
	}, {
		name:   "anyOf/JSONSchema target keeps oneOf and default",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"x":{"oneOf":[{"type":"string"},{"type":"integer"}],"default":"a"}}}`,
		want:   `{"type":"object","properties":{"x":{"oneOf":[{"type":"string"},{"type":"integer"}],"default":"a"}}}`,
	}})
}

func TestMayBeEqual(t *testing.T) {
	obj := func(names ...string) *genai.Schema {
		s := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{}}
		for _, n := range names {
			s.Properties[n] = &genai.Schema{Type: genai.TypeString}
		}
		return s
	}
	tests := []struct {
		name string
		a, b *genai.Schema
	}{
		{"both nil", nil, nil},
		{"one nil", nil, obj()},
		{"equal objects", obj("a", "b"), obj("a", "b")},
		{"other names", obj("a", "b"), obj("a", "c")},
		{"other count", obj("a"), obj("a", "b")},
		{"other type", &genai.Schema{Type: genai.TypeString}, &genai.Schema{Type: genai.TypeNumber}},
		{"other description", &genai.Schema{Description: "x"}, &genai.Schema{Description: "y"}},
		{"other enum", &genai.Schema{Enum: []string{"a"}}, &genai.Schema{Enum: []string{"a", "b"}}},
		{"same enum length", &genai.Schema{Enum: []string{"a"}}, &genai.Schema{Enum: []string{"b"}}},
		{"nil and empty map", &genai.Schema{}, &genai.Schema{Properties: map[string]*genai.Schema{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// mayBeEqual may only say false where reflect.DeepEqual does.
			if eq := reflect.DeepEqual(tt.a, tt.b); eq && !mayBeEqual(tt.a, tt.b) {
				t.Errorf("mayBeEqual(%s) = false, want true (the schemas are equal)", tt.name)
			}
			if got, want := sameBranch([]*genai.Schema{tt.a}, tt.b), reflect.DeepEqual(tt.a, tt.b); got != want {
				t.Errorf("sameBranch(%s) = %v, want %v", tt.name, got, want)
			}
		})
	}
}
