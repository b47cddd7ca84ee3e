package elicitation

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// A form follows the restricted schema of MCP elicitation: an object whose
// properties are flat primitives, each one of
//
//   - string: title, description, minLength, maxLength, format (email,
//     uri, date, date-time), default;
//   - number or integer: title, description, minimum, maximum, default;
//   - boolean: title, description, default;
//   - a single choice, of type string: enum (with enumNames, the older
//     titled form) or oneOf of {const, title}, default;
//   - a multiple choice, of type array: items holding enum (of type
//     string) or anyOf of {const, title}, minItems, maxItems, default (a
//     list of the choices);
//
// with required naming some of the properties. CheckForm holds a server's
// form to that, and to the bounds below. Keywords the restricted schema
// does not know are left out of the form the host sees; a form in another
// shape (a nested object, a reference, a type list, a format or a default
// that does not fit) is refused.

// Bounds of a form (see [CheckForm]) and of the text of a question.
const (
	// MaxFormBytes bounds the JSON of a requested schema.
	MaxFormBytes = 64 << 10
	// MaxFields bounds the properties of a form.
	MaxFields = 32
	// MaxChoices bounds the choices of one property.
	MaxChoices = 100
	// MaxNameBytes bounds a property's name, and a choice's value.
	MaxNameBytes = 256
	// MaxTitleBytes bounds a property's or a choice's title.
	MaxTitleBytes = 256
	// MaxDescriptionBytes bounds a property's description, and a string
	// default.
	MaxDescriptionBytes = 2 << 10
	// MaxMessageBytes bounds the message of a question.
	MaxMessageBytes = 8 << 10
	// MaxIDBytes bounds the id of a URL question.
	MaxIDBytes = 256
	// MaxRequestBytes bounds a whole elicitation/create request as it
	// travels: the form, the message and room for the rest.
	MaxRequestBytes = MaxFormBytes + MaxMessageBytes + 16<<10
)

// ErrBadForm is wrapped by the error of a form CheckForm refuses.
var ErrBadForm = errors.New("form outside the restricted schema")

// formats are the string formats a form may ask for.
var formats = []string{"email", "uri", "date", "date-time"}

// wireForm is a requested schema as it travels; unknown keywords are
// dropped by decoding.
type wireForm struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// field is one property, with the keywords of every kind of primitive.
type field struct {
	Type        string          `json:"type"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Format      string          `json:"format,omitempty"`
	MinLength   *int            `json:"minLength,omitempty"`
	MaxLength   *int            `json:"maxLength,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	Enum        []string        `json:"enum,omitempty"`
	EnumNames   []string        `json:"enumNames,omitempty"`
	OneOf       []choice        `json:"oneOf,omitempty"`
	Items       *items          `json:"items,omitempty"`
	MinItems    *int            `json:"minItems,omitempty"`
	MaxItems    *int            `json:"maxItems,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
}

// items are the choices of a multiple choice.
type items struct {
	Type  string   `json:"type,omitempty"`
	Enum  []string `json:"enum,omitempty"`
	AnyOf []choice `json:"anyOf,omitempty"`
}

// choice is one titled choice.
type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// outForm is a form as the host sees it.
type outForm struct {
	Type       string           `json:"type"`
	Properties map[string]field `json:"properties"`
	Required   []string         `json:"required,omitempty"`
}

// CheckForm returns the requested schema raw of a form question as the
// host may see it: the restricted schema's keywords only (properties in
// the order of their names), titles, descriptions and string defaults
// cleaned for a person (see [result.CleanText]). A schema in another shape
// or past a bound (see the constants) is an error wrapping ErrBadForm,
// saying why; so is a property name or a choice's value that holds what
// CleanText would remove, since those go back to the server as they are.
// raw is not retained.
func CheckForm(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) > MaxFormBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBadForm, len(raw), MaxFormBytes)
	}
	var w wireForm
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadForm, err)
	}
	if w.Type != "object" {
		return nil, fmt.Errorf("%w: type %q, want \"object\"", ErrBadForm, cutName(w.Type))
	}
	if len(w.Properties) > MaxFields {
		return nil, fmt.Errorf("%w: %d fields, at most %d", ErrBadForm, len(w.Properties), MaxFields)
	}
	out := outForm{Type: "object", Properties: make(map[string]field, len(w.Properties))}
	for _, name := range slices.Sorted(maps.Keys(w.Properties)) {
		if err := checkName("field name", name); err != nil {
			return nil, err
		}
		f, err := checkField(w.Properties[name])
		if err != nil {
			return nil, fmt.Errorf("%w (field %q)", err, name)
		}
		out.Properties[name] = f
	}
	for _, name := range w.Required {
		if _, ok := w.Properties[name]; !ok {
			return nil, fmt.Errorf("%w: required field %q is not a property", ErrBadForm, cutName(name))
		}
		if !slices.Contains(out.Required, name) {
			out.Required = append(out.Required, name)
		}
	}
	return json.Marshal(out)
}

// checkField returns one property in its checked and cleaned form.
func checkField(raw json.RawMessage) (field, error) {
	var f field
	if err := json.Unmarshal(raw, &f); err != nil {
		return field{}, fmt.Errorf("%w: %v", ErrBadForm, err)
	}
	var err error
	if f.Title, err = text("title", f.Title, MaxTitleBytes); err != nil {
		return field{}, err
	}
	if f.Description, err = text("description", f.Description, MaxDescriptionBytes); err != nil {
		return field{}, err
	}
	keep := map[string]bool{}
	switch f.Type {
	case "string":
		keep["format"], keep["minLength"], keep["maxLength"], keep["enum"], keep["enumNames"], keep["oneOf"] = true, true, true, true, true, true
		if f.Format != "" && !slices.Contains(formats, f.Format) {
			return field{}, fmt.Errorf("%w: format %q is not one of %v", ErrBadForm, cutName(f.Format), formats)
		}
		if f.Enum == nil && (f.EnumNames != nil) {
			return field{}, fmt.Errorf("%w: enumNames without enum", ErrBadForm)
		}
		if f.Enum != nil && f.OneOf != nil {
			return field{}, fmt.Errorf("%w: both enum and oneOf", ErrBadForm)
		}
		if err := checkChoices(f.Enum, f.OneOf); err != nil {
			return field{}, err
		}
		if f.EnumNames != nil {
			if len(f.EnumNames) != len(f.Enum) {
				return field{}, fmt.Errorf("%w: %d enumNames for %d enum values", ErrBadForm, len(f.EnumNames), len(f.Enum))
			}
			for i, n := range f.EnumNames {
				if f.EnumNames[i], err = text("choice title", n, MaxTitleBytes); err != nil {
					return field{}, err
				}
			}
		}
		for i := range f.OneOf {
			if f.OneOf[i].Title, err = text("choice title", f.OneOf[i].Title, MaxTitleBytes); err != nil {
				return field{}, err
			}
		}
	case "number", "integer":
		keep["minimum"], keep["maximum"] = true, true
	case "boolean":
	case "array":
		keep["items"], keep["minItems"], keep["maxItems"] = true, true, true
		it := f.Items
		if it == nil || (it.Enum == nil) == (it.AnyOf == nil) || (it.Enum != nil && it.Type != "string") || (it.AnyOf != nil && it.Type != "") {
			return field{}, fmt.Errorf("%w: an array is a multiple choice: items with enum (of strings) or anyOf", ErrBadForm)
		}
		if err := checkChoices(it.Enum, it.AnyOf); err != nil {
			return field{}, err
		}
		for i := range it.AnyOf {
			if it.AnyOf[i].Title, err = text("choice title", it.AnyOf[i].Title, MaxTitleBytes); err != nil {
				return field{}, err
			}
		}
	default:
		return field{}, fmt.Errorf("%w: type %q is not string, number, integer, boolean or array", ErrBadForm, cutName(f.Type))
	}
	for _, n := range []*int{f.MinLength, f.MaxLength, f.MinItems, f.MaxItems} {
		if n != nil && *n < 0 {
			return field{}, fmt.Errorf("%w: a negative length", ErrBadForm)
		}
	}
	// Keywords of another kind of primitive are not part of this one.
	if !keep["format"] {
		f.Format = ""
	}
	if !keep["minLength"] {
		f.MinLength, f.MaxLength = nil, nil
	}
	if !keep["enum"] {
		f.Enum, f.EnumNames, f.OneOf = nil, nil, nil
	}
	if !keep["minimum"] {
		f.Minimum, f.Maximum = nil, nil
	}
	if !keep["items"] {
		f.Items, f.MinItems, f.MaxItems = nil, nil, nil
	}
	if f.Default, err = checkDefault(f); err != nil {
		return field{}, err
	}
	return f, nil
}

// checkChoices checks the values of a choice (enum, or const of
// choices): at most MaxChoices, each a clean name, none twice.
func checkChoices(enum []string, choices []choice) error {
	values := enum
	for _, c := range choices {
		values = append(slices.Clip(values), c.Const)
	}
	if len(values) > MaxChoices {
		return fmt.Errorf("%w: %d choices, at most %d", ErrBadForm, len(values), MaxChoices)
	}
	if (enum != nil || choices != nil) && len(values) == 0 {
		return fmt.Errorf("%w: a choice without choices", ErrBadForm)
	}
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if err := checkName("choice", v); err != nil {
			return err
		}
		if seen[v] {
			return fmt.Errorf("%w: choice %q twice", ErrBadForm, v)
		}
		seen[v] = true
	}
	return nil
}

// checkDefault returns f's default when it fits f, cleaned; nil when f has
// none.
func checkDefault(f field) (json.RawMessage, error) {
	if len(f.Default) == 0 || string(f.Default) == "null" {
		return nil, nil
	}
	bad := func(why string) error { return fmt.Errorf("%w: default %s", ErrBadForm, why) }
	choices := f.Enum
	for _, c := range f.OneOf {
		choices = append(slices.Clip(choices), c.Const)
	}
	switch f.Type {
	case "string":
		var s string
		if json.Unmarshal(f.Default, &s) != nil {
			return nil, bad("is not a string")
		}
		if choices != nil {
			if !slices.Contains(choices, s) {
				return nil, bad("is not one of the choices")
			}
			return f.Default, nil
		}
		s, err := text("default", s, MaxDescriptionBytes)
		if err != nil {
			return nil, err
		}
		return json.Marshal(s)
	case "number", "integer":
		var n float64
		if json.Unmarshal(f.Default, &n) != nil || math.IsInf(n, 0) {
			return nil, bad("is not a number")
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, bad("is not an integer")
		}
		return json.Marshal(n)
	case "boolean":
		var b bool
		if json.Unmarshal(f.Default, &b) != nil {
			return nil, bad("is not a boolean")
		}
		return json.Marshal(b)
	case "array":
		var list []string
		if json.Unmarshal(f.Default, &list) != nil {
			return nil, bad("is not a list of strings")
		}
		choices = f.Items.Enum
		for _, c := range f.Items.AnyOf {
			choices = append(slices.Clip(choices), c.Const)
		}
		for _, v := range list {
			if !slices.Contains(choices, v) {
				return nil, bad("is not a list of the choices")
			}
		}
		return json.Marshal(list)
	}
	return nil, bad("of an unknown type")
}

// text returns s, a text of the form named what, cleaned for a person;
// longer than limit bytes is an error.
func text(what, s string, limit int) (string, error) {
	if len(s) > limit {
		return "", fmt.Errorf("%w: %s of %d bytes, at most %d", ErrBadForm, what, len(s), limit)
	}
	return result.CleanText(s, limit), nil
}

// checkName reports whether s, a name of the form that goes back to the
// server as it is, is one to show: not empty, at most MaxNameBytes, and
// clean.
func checkName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: an empty %s", ErrBadForm, what)
	case len(s) > MaxNameBytes:
		return fmt.Errorf("%w: %s of %d bytes, at most %d", ErrBadForm, what, len(s), MaxNameBytes)
	case result.CleanText(s, -1) != s:
		return fmt.Errorf("%w: %s %q holds control or formatting characters", ErrBadForm, what, s)
	}
	return nil
}

// cutName returns s cut to 64 bytes for an error.
func cutName(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "…"
}
