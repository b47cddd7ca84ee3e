package elicitation

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// everything is the form of server-everything's trigger-elicitation-request
// (every kind of field the restricted schema has), with a keyword it does
// not know.
const everything = `{"type":"object","properties":{
	"name":{"title":"String","type":"string","description":"Your full, legal name"},
	"check":{"title":"Boolean","type":"boolean","description":"Agree"},
	"firstLine":{"title":"String with default","type":"string","default":"It was a dark and stormy night."},
	"email":{"title":"Email","type":"string","format":"email","pattern":".+@.+"},
	"integer":{"title":"Integer","type":"integer","minimum":1,"maximum":100,"default":42},
	"number":{"title":"Number","type":"number","minimum":0,"maximum":1000,"default":3.14},
	"untitled":{"type":"string","enum":["Monica","Rachel"],"default":"Monica"},
	"multi":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["Guitar","Piano"]},"default":["Guitar"]},
	"titled":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Wonder Woman"}],"default":"hero-1"},
	"titledMulti":{"type":"array","items":{"anyOf":[{"const":"fish-1","title":"Tuna"}]},"default":["fish-1"]},
	"legacy":{"type":"string","enum":["pet-1","pet-2"],"enumNames":["Cats","Dogs"]}},
	"required":["name"]}`

func TestCheckFormAccepts(t *testing.T) {
	got, err := CheckForm(json.RawMessage(everything))
	if err != nil {
		t.Fatalf("CheckForm(everything) = %v", err)
	}
	var form struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(got, &form); err != nil {
		t.Fatal(err)
	}
	if len(form.Properties) != 11 || len(form.Required) != 1 {
		t.Errorf("CheckForm(everything) = %s, want its 11 fields and 1 required", got)
	}
	if _, ok := form.Properties["email"]["pattern"]; ok {
		t.Errorf("CheckForm kept a keyword outside the restricted schema: %v", form.Properties["email"])
	}
	if form.Properties["legacy"]["enumNames"] == nil || form.Properties["titled"]["oneOf"] == nil {
		t.Errorf("CheckForm lost the choices' titles: %s", got)
	}
	again, err := CheckForm(got)
	if err != nil || string(again) != string(got) {
		t.Errorf("CheckForm(CheckForm(x)) = %s, %v; want %s", again, err, got)
	}
}

func TestCheckFormCleans(t *testing.T) {
	raw := `{"type":"object","properties":{"a":{"type":"string",
		"title":"\u001b]0;pwned\u0007Name\u202e","description":"\u001b[2Jsay","default":"\u001b]8;;https://evil\u0007x"},
		"c":{"type":"string","oneOf":[{"const":"v","title":"\u001b[31mred"}]}}}`
	got, err := CheckForm(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("CheckForm = %v", err)
	}
	want := `{"type":"object","properties":{"a":{"type":"string","title":"Name","description":"say","default":"x"},"c":{"type":"string","oneOf":[{"const":"v","title":"red"}]}}}`
	if string(got) != want {
		t.Errorf("CheckForm =\n%s\nwant\n%s", got, want)
	}
}

func TestCheckFormRefuses(t *testing.T) {
	many := `{"type":"object","properties":{`
	for i := range MaxFields + 1 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`"f%d":{"type":"string"}`, i)
	}
	many += `}}`
	choices := make([]string, MaxChoices+1)
	for i := range choices {
		choices[i] = fmt.Sprintf("%q", fmt.Sprint(i))
	}
	tests := []struct{ name, form string }{
		{"not an object", `{"type":"array"}`},
		{"not json", `{"type":`},
		{"nested object", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`},
		{"type list", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`},
		{"array of numbers", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}}}`},
		{"numbers in enum", `{"type":"object","properties":{"a":{"type":"string","enum":[1,2]}}}`},
		{"unknown format", `{"type":"object","properties":{"a":{"type":"string","format":"regex"}}}`},
		{"default of another type", `{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`},
		{"fractional integer default", `{"type":"object","properties":{"a":{"type":"integer","default":1.5}}}`},
		{"default outside the choices", `{"type":"object","properties":{"a":{"type":"string","enum":["x"],"default":"y"}}}`},
		{"required unknown", `{"type":"object","properties":{},"required":["ghost"]}`},
		{"escape in a field name", `{"type":"object","properties":{"a\u001b[2J":{"type":"string"}}}`},
		{"escape in a choice", `{"type":"object","properties":{"a":{"type":"string","enum":["\u001b]8;;x\u0007"]}}}`},
		{"choice twice", `{"type":"object","properties":{"a":{"type":"string","enum":["x","x"]}}}`},
		{"enumNames mismatch", `{"type":"object","properties":{"a":{"type":"string","enum":["x"],"enumNames":["X","Y"]}}}`},
		{"too many fields", many},
		{"too many choices", `{"type":"object","properties":{"a":{"type":"string","enum":[` + strings.Join(choices, ",") + `]}}}`},
		{"long title", `{"type":"object","properties":{"a":{"type":"string","title":"` + strings.Repeat("t", MaxTitleBytes+1) + `"}}}`},
		{"long description", `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("d", MaxDescriptionBytes+1) + `"}}}`},
		{"huge schema", `{"type":"object","properties":{},"x":"` + strings.Repeat("x", MaxFormBytes) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckForm(json.RawMessage(tt.form))
			if !errors.Is(err, ErrBadForm) {
				t.Errorf("CheckForm(%.80s) = %s, %v; want ErrBadForm", tt.form, got, err)
			}
		})
	}
}

// FuzzCheckForm: no panic on any JSON; an accepted form is within the
// bounds, holds only clean text, is accepted again unchanged, and its
// defaults apply.
func FuzzCheckForm(f *testing.F) {
	f.Add(everything)
	f.Add(sep1034)
	f.Add(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"\u001b[1mX"}]}}}}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"string","title":"\u202e","default":"\u0007"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		form, err := CheckForm(json.RawMessage(s))
		if err != nil {
			if !errors.Is(err, ErrBadForm) {
				t.Fatalf("CheckForm(%q) = %v, not ErrBadForm", s, err)
			}
			return
		}
		if len(form) > MaxFormBytes+MaxFields*64 || !utf8.Valid(form) {
			t.Fatalf("CheckForm(%q) = %q: too long or invalid", s, form)
		}
		var strs []string
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				strs = append(strs, v)
			case map[string]any:
				for k, e := range v {
					strs = append(strs, k)
					walk(e)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		var v any
		if err := json.Unmarshal(form, &v); err != nil {
			t.Fatalf("CheckForm(%q) = %q: not JSON: %v", s, form, err)
		}
		walk(v)
		for _, x := range strs {
			if result.CleanText(x, -1) != x {
				t.Fatalf("CheckForm(%q) = %q: unclean %q", s, form, x)
			}
		}
		again, err := CheckForm(form)
		if err != nil || string(again) != string(form) {
			t.Fatalf("CheckForm not idempotent: %q -> %q -> %q, %v", s, form, again, err)
		}
		_ = ApplyDefaults(form, nil)
	})
}
