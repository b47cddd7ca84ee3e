// Package genaitool answers questions about a genai.Tool that both the
// schema checks and the Bridge's request building ask, so that they agree.
package genaitool

import (
	"encoding/json"

	"google.golang.org/genai"
)

// OnlyFunctions reports whether t holds nothing but function declarations:
// no search, code execution, retrieval or any other kind of tool, including
// kinds added to genai after this was written.
func OnlyFunctions(t *genai.Tool) bool {
	c := *t
	c.FunctionDeclarations = nil
	data, err := json.Marshal(&c)
	return err == nil && string(data) == "{}"
}
