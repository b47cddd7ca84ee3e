package mcpbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/args"
	"github.com/mcpgenai/bridge/schema"
)

// outputDef is a tool's outputSchema: its exact bytes, its conversion for
// the declaration, and the validator compiled on the first result.
type outputDef struct {
	raw json.RawMessage
	// conv is the schema converted for [schema.JSONSchema]; nil for the
	// other targets, whose declarations carry no response schema.
	conv *schema.Result
	once sync.Once
	val  *jsonschema.Schema // nil: not validated (it did not compile)
}

// newOutputDef returns the output definition of a tool whose outputSchema
// is raw, converted when target is [schema.JSONSchema]; nil when raw is
// empty or null. A schema that cannot be converted is still used to
// validate results (with one warning), but not declared.
func newOutputDef(cfg *ServerConfig, tool string, raw json.RawMessage, target schema.Target, log *slog.Logger) *outputDef {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil
	}
	o := &outputDef{raw: raw}
	if target == schema.JSONSchema {
		// No budget: a cut would tell the model a value it reads is JSON
		// text when it is not, and nothing restores a response.
		res, err := schema.Convert(raw, &schema.Options{Target: target, Budget: -1})
		if err != nil {
			log.Warn("mcp tool output schema not declared: it cannot be converted", "server", cfg.Name, "tool", tool, "err", err)
		} else {
			o.conv = res
		}
	}
	return o
}

// declare sets the response schema of decl, a declaration of the tool's own
// (newly built, not shared).
func (o *outputDef) declare(decl *genai.FunctionDeclaration) {
	if o != nil && o.conv != nil && o.conv.JSONSchema != nil {
		decl.ResponseJsonSchema = o.conv.JSONSchema
	}
}

// check validates the structuredContent of raw, a tool's CallToolResult,
// against the output schema: nil when it matches, when the tool has no
// output schema, or when the schema does not compile (one warning).
func (o *outputDef) check(tool *Tool, raw json.RawMessage, log *slog.Logger) error {
	if o == nil {
		return nil
	}
	o.once.Do(func() {
		s, err := args.Compile(o.raw)
		if err != nil {
			log.Warn("mcp tool results will not be validated: its output schema does not compile",
				"server", tool.Server, "tool", tool.ServerTool, "err", err)
			return
		}
		o.val = s
	})
	if o.val == nil {
		return nil
	}
	var res struct {
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("mcp tool %q: %w: %w", tool.ServerTool, errOutputSchema, err)
	}
	if t := bytes.TrimSpace(res.Structured); len(t) == 0 || string(t) == "null" {
		return fmt.Errorf("mcp tool %q: %w: the result has no structuredContent", tool.ServerTool, errOutputSchema)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Structured))
	if err != nil {
		return fmt.Errorf("mcp tool %q: %w: %w", tool.ServerTool, errOutputSchema, err)
	}
	if err := o.val.Validate(v); err != nil {
		return fmt.Errorf("mcp tool %q: %w: %s", tool.ServerTool, errOutputSchema, args.Detail(err))
	}
	return nil
}
