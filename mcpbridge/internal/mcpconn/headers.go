package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// On streamable HTTP from 2026-07-28 (SEP-2243), a property of a tool's
// input schema annotated with "x-mcp-header": "Name" travels in the HTTP
// header Mcp-Param-Name too, so that gateways can route on it without
// reading the body. An annotation that is empty, not a header token, on a
// property that is not a string, integer or boolean, or named twice
// (ignoring case) makes the tool unusable: the client must leave the tool
// out and keep the others. mcp-go does so in its own tools/list result,
// which the Bridge never reads (it works from the raw listing), so the
// same rule is applied here, with mcp-go's validator (the one its
// mirroring of the headers trusts), and the tool is reported as skipped.

// headerRulesApply reports whether the connection mirrors x-mcp-header
// annotations: streamable HTTP at 2026-07-28 or later.
func (c *Conn) headerRulesApply() bool {
	return c.kind == StreamableHTTP && c.init != nil && IsModern(c.init.ProtocolVersion)
}

// paramHeaderError returns why the x-mcp-header annotations of the input
// schema inputSchema break SEP-2243's rules, or nil when they do not (no
// annotations, or a schema that is not an object: then no header is ever
// mirrored from it either).
func paramHeaderError(inputSchema json.RawMessage) error {
	if !mayAnnotate(inputSchema) {
		return nil
	}
	t := mcp.Tool{RawInputSchema: inputSchema}
	if err := mcp.ValidateParamHeaderAnnotations(&t); err != nil {
		return fmt.Errorf("invalid x-mcp-header annotation: %w", err)
	}
	return nil
}

// annotationKey is the key of the annotation, as JSON writes it.
const annotationKey = "x-mcp-header"

// mayAnnotate reports whether the raw schema may carry an x-mcp-header
// annotation, so that reading it (mcp-go's validator decodes and encodes
// the whole schema again) is needed: when it holds the key in any case
// (Go's JSON matches keys ignoring case) or a \u escape, the only escape
// that can write a letter or a hyphen of the key (\n, \" and the other
// short escapes, common in descriptions, cannot). Most schemas hold
// neither. No character outside ASCII folds to a letter of the key.
func mayAnnotate(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	for i := 0; i+len(annotationKey) <= len(raw); i++ {
		if c := raw[i] | 0x20; c == 'x' && bytes.EqualFold(raw[i:i+len(annotationKey)], []byte(annotationKey)) {
			return true
		}
	}
	return false
}
