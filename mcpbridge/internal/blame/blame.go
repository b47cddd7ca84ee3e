// Package blame reads the Gemini API's answers to a request it refused as
// invalid (HTTP 400) to find which function declarations the refusal
// blames: [BadRequest] says whether an error is such an answer, and
// [Declarations] finds the declarations its message points at, by their
// place in the request or by name. It knows nothing of where the
// declarations came from or what is done about them.
//
//	if apiErr, ok := blame.BadRequest(err); ok {
//		names := blame.Declarations(apiErr.Message, cfg.Tools)
//		// ...
//	}
package blame

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"

	"google.golang.org/genai"
)

// declarationRef matches the API's path of one function declaration, as in
// "tools[0].function_declarations[3].parameters" or, in JSON payload
// errors, "tools[0].functionDeclarations[3]".
var declarationRef = regexp.MustCompile(`tools\[(\d+)\]\.function_?[dD]eclarations\[(\d+)\]`)

// declarationName matches a function declaration named in a message:
// `function declaration "x"`, `function declaration 'x'` or
// "function declaration `x`".
var declarationName = regexp.MustCompile("[Ff]unction declaration (?:named )?[\"'`]([A-Za-z_][A-Za-z0-9_.:-]*)[\"'`]")

// BadRequest returns the API error of err when err is or wraps a
// [genai.APIError] (or a pointer to one) with code 400, and reports
// whether it is.
func BadRequest(err error) (genai.APIError, bool) {
	var v genai.APIError
	if errors.As(err, &v) && v.Code == http.StatusBadRequest {
		return v, true
	}
	var p *genai.APIError
	if errors.As(err, &p) && p != nil && p.Code == http.StatusBadRequest {
		return *p, true
	}
	return genai.APIError{}, false
}

// Declarations returns the names of the function declarations of tools
// that msg, the message of a 400, points at, by index path or by name, in
// the order they are named and without repeats. tools are the request's
// tools, as sent; they are not modified. A path or a name that is not in
// tools is left out, so every name returned is one of tools'.
func Declarations(msg string, tools []*genai.Tool) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, m := range declarationRef.FindAllStringSubmatch(msg, -1) {
		t, err1 := strconv.Atoi(m[1])
		d, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || t >= len(tools) || tools[t] == nil || d >= len(tools[t].FunctionDeclarations) {
			continue
		}
		if decl := tools[t].FunctionDeclarations[d]; decl != nil {
			add(decl.Name)
		}
	}
	for _, m := range declarationName.FindAllStringSubmatch(msg, -1) {
		for _, tool := range tools {
			if tool == nil {
				continue
			}
			for _, decl := range tool.FunctionDeclarations {
				if decl != nil && decl.Name == m[1] {
					add(decl.Name)
				}
			}
		}
	}
	return names
}
