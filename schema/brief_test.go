package schema

import (
	"strings"
	"testing"
)

func TestBrief(t *testing.T) {
	tests := []struct {
		name, schema string
		inText       bool
		want         string
	}{
		{"type", `{"type":"integer"}`, true, "integer"},
		{"nullable", `{"type":["string","null"]}`, true, "string or null"},
		{"consts in JSON text are values", `{"anyOf":[{"const":1},{"const":-1},{"enum":["asc","desc"]}]}`, true, `1, -1, "asc" or "desc"`},
		{"consts outside JSON text are the strings sent", `{"anyOf":[{"const":1},{"const":-1}]}`, false, `"1" or "-1"`},
		{"array", `{"type":"array","items":{"type":"boolean"}}`, true, "array of boolean"},
		{"object names its properties", `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}}`, true, "{a, b}"},
		{"free object", `{"type":"object","additionalProperties":true}`, true, "object"},
		{"any value", `{}`, true, "any value"},
		{"types of a union", `{"type":["string","integer"]}`, true, "string or integer"},
		{"long enums are cut", `{"enum":[1,2,3,4,5,6,7,8,9,10]}`, true, "1, 2, 3, 4, 5, 6, 7, 8, …"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := cvConvert(t, `{"type":"object","properties":{"v":`+tc.schema+`}}`, Gemini)
			var p *plan
			if res.Restorer.root != nil {
				p = res.Restorer.root.props["v"]
			}
			if got := brief(res.Parameters.Properties["v"], p, tc.inText); got != tc.want {
				t.Errorf("brief(%s, inText %v) = %q, want %q", tc.schema, tc.inText, got, tc.want)
			}
		})
	}
}

func TestBriefLength(t *testing.T) {
	var members []string
	for i := 0; i < 6; i++ {
		members = append(members, `"`+strings.Repeat("é", 40)+string(rune('a'+i))+`"`)
	}
	res := cvConvert(t, `{"type":"object","properties":{"v":{"enum":[`+strings.Join(members, ",")+`]}}}`, Gemini)
	got := brief(res.Parameters.Properties["v"], nil, true)
	if len(got) > briefLen+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("brief of a long enum = %q (%d bytes), want at most %d bytes ending in …", got, len(got), briefLen+len("…"))
	}
	if !strings.HasPrefix(got, `"éé`) || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("brief of a long enum = %q, want whole characters", got)
	}
}
