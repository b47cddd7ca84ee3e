package geminitest

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgenai/bridge/schema"
	"google.golang.org/genai"
)

// MaxDeclarations is the most function declarations one request to the
// Developer API may carry; a server with [Options.VertexAI] takes 128.
const MaxDeclarations = 512

// violation is one semantic problem. A violation with a path is reported as
// the API reports field violations ("* GenerateContentRequest.<path>:
// <message>\n"); one without a path is a whole message of its own ("At
// most 512 function declarations can be specified.").
type violation struct {
	path    string
	message string
}

// formatViolations renders vs as one error message.
func formatViolations(vs []violation) string {
	if len(vs) == 1 && vs[0].path == "" {
		return vs[0].message
	}
	var b strings.Builder
	for _, v := range vs {
		if v.path == "" {
			b.WriteString(v.message + "\n")
			continue
		}
		fmt.Fprintf(&b, "* GenerateContentRequest.%s: %s\n", v.path, v.message)
	}
	return b.String()
}

// validate runs the API's checks on a decoded request in stages and returns
// the problems of the first stage that finds any; nil means the request is
// valid.
func validate(req *wireRequest, opts *Options) []violation {
	stages := []func(*wireRequest, *Options) []violation{
		checkContents,
		checkTools,
		checkFunctionTurns,
		checkFunctionResponses,
		checkThoughtSignatures,
	}
	for _, stage := range stages {
		if vs := stage(req, opts); len(vs) > 0 {
			return vs
		}
	}
	return nil
}

// checkContents requires contents, valid roles and exactly one data field in
// every part.
func checkContents(req *wireRequest, _ *Options) []violation {
	if len(req.Contents) == 0 {
		return []violation{{"contents", "contents is not specified"}}
	}
	var vs []violation
	for i, c := range req.Contents {
		cpath := "contents[" + strconv.Itoa(i) + "]"
		if c == nil {
			vs = append(vs, violation{cpath + ".parts", "contents.parts must not be empty."})
			continue
		}
		switch c.Role {
		case "", "user", "model":
		default:
			return []violation{{"", "Please use a valid role: user, model."}}
		}
		if len(c.Parts) == 0 {
			vs = append(vs, violation{cpath + ".parts", "contents.parts must not be empty."})
		}
		for j, p := range c.Parts {
			if p == nil || len(p.set) == 0 {
				vs = append(vs, violation{fmt.Sprintf("%s.parts[%d].data", cpath, j),
					"required oneof field 'data' must have one initialized field"})
			}
		}
	}
	return vs
}

// checkTools enforces the limits on tools and checks every function
// declaration with the schema package's checker for the Developer API.
func checkTools(req *wireRequest, opts *Options) []violation {
	var vs []violation
	total := 0
	for t, tool := range req.Tools {
		if tool == nil || (len(tool.FunctionDeclarations) == 0 && tool.GoogleSearchRetrieval == nil &&
			tool.CodeExecution == nil && tool.GoogleSearch == nil && tool.ComputerUse == nil &&
			tool.URLContext == nil && tool.FileSearch == nil && tool.GoogleMaps == nil && len(tool.MCPServers) == 0) {
			vs = append(vs, violation{fmt.Sprintf("tools[%d].tool_type", t),
				"required one_of 'tool_type' must have one initialized field"})
			continue
		}
		total += len(tool.FunctionDeclarations)
		if opts.VertexAI && len(tool.MCPServers) > 0 {
			vs = append(vs, violation{fmt.Sprintf("tools[%d].mcp_servers", t), "MCP servers are not supported in Vertex AI."})
			continue
		}
		vs = append(vs, checkMCPServers(t, tool.MCPServers)...)
	}
	limit, target := MaxDeclarations, schema.Gemini
	if opts.VertexAI {
		limit, target = schema.Vertex.MaxDeclarations(), schema.Vertex
	}
	if total > limit {
		return []violation{{"", fmt.Sprintf("At most %d function declarations can be specified.", limit)}}
	}
	seen := map[string]string{}
	for t, tool := range req.Tools {
		if tool == nil {
			continue
		}
		for d, decl := range tool.FunctionDeclarations {
			dpath := fmt.Sprintf("tools[%d].function_declarations[%d]", t, d)
			if decl == nil {
				continue
			}
			for _, v := range schema.CheckDeclaration(decl.genai(), target) {
				path, msg := joinPath(dpath, apiPath(v.Path)), v.Message
				// The API names the offending field in the path:
				// "properties[x].enum: only allowed for STRING type".
				if m := fieldMessage.FindStringSubmatch(msg); m != nil {
					path, msg = path+"."+snakeCase(m[1]), m[2]
				}
				vs = append(vs, violation{path, msg})
			}
			for _, rule := range opts.DeclarationRules {
				if field, msg := rule(decl.genai()); msg != "" {
					vs = append(vs, violation{joinPath(dpath, field), msg})
				}
			}
			if opts.MaxNestingDepth > 0 && decl.Parameters.depth() > opts.MaxNestingDepth {
				return []violation{{"", "A FunctionDeclaration in the request exceeds the maximum allowed nesting depth."}}
			}
			if first, dup := seen[decl.Name]; dup && decl.Name != "" {
				vs = append(vs, violation{dpath + ".name",
					fmt.Sprintf("Duplicate function declaration found: %s (first declared at %s)", decl.Name, first)})
			} else {
				seen[decl.Name] = dpath
			}
		}
	}
	return vs
}

// fieldMessage matches a checker message that starts with the field it is
// about: "enum: only allowed for STRING type", "required[0]: ...".
var fieldMessage = regexp.MustCompile(`^([A-Za-z]+(?:\[\d+\])?): (.+)$`)

// apiPath turns a schema checker path ("parameters.properties.x.anyOf.1")
// into the API's form ("parameters.properties[x].any_of[1]").
func apiPath(p string) string {
	if p == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "parametersJsonSchema"); ok {
		return "parameters_json_schema" + rest
	}
	if rest, ok := strings.CutPrefix(p, "responseJsonSchema"); ok {
		return "response_json_schema" + rest
	}
	toks := strings.Split(p, ".")
	var out []string
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if (tok == "properties" || tok == "anyOf") && i+1 < len(toks) {
			out = append(out, snakeCase(tok)+"["+toks[i+1]+"]")
			i++
			continue
		}
		out = append(out, snakeCase(tok))
	}
	return strings.Join(out, ".")
}

// genai converts the declaration to the SDK's type for the schema checker.
func (d *wireFunctionDeclaration) genai() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:                 d.Name,
		Description:          d.Description,
		Behavior:             genai.Behavior(d.Behavior),
		Parameters:           d.Parameters.genai(),
		ParametersJsonSchema: d.ParametersJSONSchema,
		Response:             d.Response.genai(),
		ResponseJsonSchema:   d.ResponseJSONSchema,
	}
}

// genai converts the schema to the SDK's type; a nil s gives nil.
func (s *wireSchema) genai() *genai.Schema {
	if s == nil {
		return nil
	}
	out := &genai.Schema{
		Type: genai.Type(s.Type), Format: s.Format, Title: s.Title, Description: s.Description,
		Nullable: s.Nullable, Enum: s.Enum, MaxItems: s.MaxItems, MinItems: s.MinItems,
		Required: s.Required, MinProperties: s.MinProperties, MaxProperties: s.MaxProperties,
		MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern, Example: s.Example,
		PropertyOrdering: s.PropertyOrdering, Default: s.Default, Items: s.Items.genai(),
		Minimum: s.Minimum, Maximum: s.Maximum,
	}
	if s.Properties != nil {
		out.Properties = make(map[string]*genai.Schema, len(s.Properties))
		for k, v := range s.Properties {
			out.Properties[k] = v.genai()
		}
	}
	for _, b := range s.AnyOf {
		out.AnyOf = append(out.AnyOf, b.genai())
	}
	return out
}

// depth returns how many schemas deep s nests: 0 for nil, 1 for a schema
// without subschemas.
func (s *wireSchema) depth() int {
	if s == nil {
		return 0
	}
	d := s.Items.depth()
	for _, p := range s.Properties {
		d = max(d, p.depth())
	}
	for _, b := range s.AnyOf {
		d = max(d, b.depth())
	}
	return d + 1
}

// calls returns the function calls among c's parts, with their part index.
func (c *wireContent) calls() (idx []int, calls []*wireFunctionCall) {
	for j, p := range c.Parts {
		if p != nil && p.FunctionCall != nil {
			idx, calls = append(idx, j), append(calls, p.FunctionCall)
		}
	}
	return idx, calls
}

// responses returns the function responses among c's parts, with their part
// index.
func (c *wireContent) responses() (idx []int, resps []*wireFunctionResponse) {
	for j, p := range c.Parts {
		if p != nil && p.FunctionResponse != nil {
			idx, resps = append(idx, j), append(resps, p.FunctionResponse)
		}
	}
	return idx, resps
}

func isModel(c *wireContent) bool { return c != nil && c.Role == "model" }

// checkFunctionTurns requires function calls only in model turns, function
// responses only in user turns directly after a function call turn, and as
// many responses as calls, each answering one call by name and ID.
func checkFunctionTurns(req *wireRequest, _ *Options) []violation {
	var vs []violation
	for i, c := range req.Contents {
		callIdx, calls := c.calls()
		respIdx, resps := c.responses()
		if !isModel(c) && len(calls) > 0 {
			vs = append(vs, violation{fmt.Sprintf("contents[%d].parts[%d].function_call", i, callIdx[0]),
				"function calls can only appear in a model turn"})
		}
		if isModel(c) && len(resps) > 0 {
			vs = append(vs, violation{fmt.Sprintf("contents[%d].parts[%d].function_response", i, respIdx[0]),
				"function responses can only appear in a user turn"})
		}
		if isModel(c) && len(calls) > 0 {
			var next []*wireFunctionResponse
			if i+1 < len(req.Contents) && !isModel(req.Contents[i+1]) {
				_, next = req.Contents[i+1].responses()
			}
			if len(next) != len(calls) {
				return []violation{{"", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."}}
			}
		}
		if isModel(c) || len(resps) == 0 {
			continue
		}
		var prevCalls []*wireFunctionCall
		if i > 0 && isModel(req.Contents[i-1]) {
			_, prevCalls = req.Contents[i-1].calls()
		}
		if len(prevCalls) == 0 {
			return []violation{{"", "Please ensure that function response turn comes immediately after a function call turn."}}
		}
		vs = append(vs, matchResponses(i, respIdx, resps, prevCalls)...)
	}
	return vs
}

// matchResponses pairs each response of contents[i] with one call: by ID
// when the response has one, else by name; a call with an ID must be
// answered with that ID, and a call without one with no ID.
func matchResponses(i int, respIdx []int, resps []*wireFunctionResponse, calls []*wireFunctionCall) []violation {
	var vs []violation
	used := make([]bool, len(calls))
	for r, resp := range resps {
		p := fmt.Sprintf("contents[%d].parts[%d].function_response", i, respIdx[r])
		k := -1
		if resp.ID != "" {
			for c, call := range calls {
				if !used[c] && call.ID == resp.ID {
					k = c
					break
				}
			}
			if k < 0 {
				vs = append(vs, violation{p + ".id", fmt.Sprintf(
					"function response id %q does not match the id of any unanswered function call in the preceding function call turn (ids: %s)",
					resp.ID, callIDs(calls))})
				continue
			}
			if calls[k].Name != resp.Name {
				vs = append(vs, violation{p + ".name", fmt.Sprintf(
					"function response name %q does not match the name %q of function call %q", resp.Name, calls[k].Name, resp.ID)})
			}
			used[k] = true
			continue
		}
		for c, call := range calls {
			if !used[c] && call.Name == resp.Name {
				k = c
				break
			}
		}
		switch {
		case k < 0:
			vs = append(vs, violation{p + ".name", fmt.Sprintf(
				"no unanswered function call named %q in the preceding function call turn", resp.Name)})
		case calls[k].ID != "":
			vs = append(vs, violation{p + ".id", fmt.Sprintf(
				"missing: function call %q had id %q, which its response must echo", calls[k].Name, calls[k].ID)})
		default:
			used[k] = true
		}
	}
	return vs
}

func callIDs(calls []*wireFunctionCall) string {
	var ids []string
	for _, c := range calls {
		if c.ID == "" {
			ids = append(ids, "(none)")
		} else {
			ids = append(ids, strconv.Quote(c.ID))
		}
	}
	return strings.Join(ids, ", ")
}

// checkFunctionResponses rejects keys named "$ref" inside a function
// response: the API reads them as references to the response's parts.
func checkFunctionResponses(req *wireRequest, _ *Options) []violation {
	var vs []violation
	for i, c := range req.Contents {
		respIdx, resps := c.responses()
		for r, resp := range resps {
			p := fmt.Sprintf("contents[%d].parts[%d].function_response.response", i, respIdx[r])
			for _, at := range findRefs(resp.Response, "") {
				vs = append(vs, violation{joinPath(p, at),
					`"$ref" is read as a reference to a function response part; no such part is defined`})
			}
		}
	}
	return vs
}

// findRefs returns the paths, relative to v, of every "$ref" key in v, in
// sorted order.
func findRefs(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "$ref" {
				out = append(out, joinPath(path, k))
				continue
			}
			out = append(out, findRefs(v[k], joinPath(path, k))...)
		}
	case []any:
		for i, e := range v {
			out = append(out, findRefs(e, path+"["+strconv.Itoa(i)+"]")...)
		}
	}
	return out
}

// checkThoughtSignatures, when the server issues thought signatures,
// requires the first function call of every model turn to carry one back.
func checkThoughtSignatures(req *wireRequest, opts *Options) []violation {
	if !opts.ThoughtSignatures {
		return nil
	}
	for i, c := range req.Contents {
		if !isModel(c) {
			continue
		}
		_, calls := c.calls()
		if len(calls) == 0 {
			continue
		}
		for _, p := range c.Parts {
			if p == nil || p.FunctionCall == nil {
				continue
			}
			if len(p.ThoughtSignature) == 0 {
				return []violation{{"", fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. "+
					"This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. "+
					"Additional data, function call `default_api:%s` , position %d. "+
					"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, i+1)}}
			}
			break // only the first call of a turn carries the signature
		}
	}
	return nil
}

// durationPattern is a proto Duration in JSON: seconds with up to nine
// fractional digits and an "s".
var durationPattern = regexp.MustCompile(`^-?[0-9]+(\.[0-9]{1,9})?s$`)

// checkMCPServers checks the remote MCP servers of tools[t]: a name, a
// streamable HTTP transport with an http(s) URL, durations in proto form.
func checkMCPServers(t int, servers []*wireMCPServer) []violation {
	var vs []violation
	names := map[string]bool{}
	for i, m := range servers {
		path := fmt.Sprintf("tools[%d].mcp_servers[%d]", t, i)
		switch {
		case m == nil || m.Name == "":
			vs = append(vs, violation{path + ".name", "name is required"})
		case names[m.Name]:
			vs = append(vs, violation{path + ".name", fmt.Sprintf("Duplicate MCP server name: %s", m.Name)})
		default:
			names[m.Name] = true
		}
		if m == nil {
			continue
		}
		tr := m.StreamableHTTPTransport
		if tr == nil {
			vs = append(vs, violation{path + ".transport", "required one_of 'transport' must have one initialized field"})
			continue
		}
		if u, err := url.Parse(tr.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			vs = append(vs, violation{path + ".streamable_http_transport.url", fmt.Sprintf("invalid URL: %q", tr.URL)})
		}
		for _, d := range []struct{ field, v string }{{"timeout", tr.Timeout}, {"sse_read_timeout", tr.SSEReadTimeout}} {
			if d.v != "" && !durationPattern.MatchString(d.v) {
				vs = append(vs, violation{path + ".streamable_http_transport." + d.field, fmt.Sprintf("invalid google.protobuf.Duration value %q", d.v)})
			}
		}
	}
	return vs
}
