package geminitest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// Vertex AI streams the arguments of function calls in pieces when a
// streamGenerateContent request sets
// toolConfig.functionCallingConfig.streamFunctionCallArguments (a field
// the Developer API rejects as unknown). A call then arrives as a chunk
// with its name (and ID, and thought signature) and willContinue true,
// one chunk per piece of its arguments (a partialArgs entry: a JSON path
// and a string piece, number, boolean or null), and a chunk with an empty
// functionCall that ends it. The server streams every whole call of a
// scripted answer that way; a script may also give the pieces itself
// (parts whose FunctionCall has PartialArgs or WillContinue), which are
// sent as they are, for tests of malformed pieces.

// pieceSize is how many bytes of a string one piece carries at most.
const pieceSize = 8

// streamsArgs reports whether r asks for function call arguments
// streamed in pieces.
func (r *Request) streamsArgs() bool {
	if !r.Stream || r.Config == nil || r.Config.ToolConfig == nil || r.Config.ToolConfig.FunctionCallingConfig == nil {
		return false
	}
	s := r.Config.ToolConfig.FunctionCallingConfig.StreamFunctionCallArguments
	return s != nil && *s
}

// isPiece reports whether fc is a scripted piece of a streamed call.
func isPiece(fc *genai.FunctionCall) bool {
	return len(fc.PartialArgs) > 0 || fc.WillContinue != nil
}

// streamArgs splits the whole function calls of events into the chunks
// Vertex AI streams them in, when req asks for it.
func streamArgs(req *Request, events []*wireResponse) ([]*wireResponse, error) {
	if !req.streamsArgs() {
		return events, nil
	}
	var out []*wireResponse
	emit := func(ev *wireResponse, parts []*genai.Part) {
		e := *ev
		e.Candidates = []wireCandidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}}}
		out = append(out, &e)
	}
	for _, ev := range events {
		var cur []*genai.Part
		split := false
		for _, p := range ev.Candidates[0].Content.Parts {
			fc := p.FunctionCall
			if fc == nil || isPiece(fc) {
				cur = append(cur, p)
				continue
			}
			pieces, err := argPieces(fc.Args)
			if err != nil {
				return nil, fmt.Errorf("streaming the arguments of %q: %w", fc.Name, err)
			}
			start := *p
			start.FunctionCall = &genai.FunctionCall{ID: fc.ID, Name: fc.Name, WillContinue: genai.Ptr(true)}
			emit(ev, append(cur, &start))
			for _, pa := range pieces {
				emit(ev, []*genai.Part{{FunctionCall: &genai.FunctionCall{WillContinue: genai.Ptr(true), PartialArgs: []*genai.PartialArg{pa}}}})
			}
			cur, split = []*genai.Part{{FunctionCall: &genai.FunctionCall{}}}, true
		}
		if len(cur) > 0 || !split {
			emit(ev, cur)
		}
	}
	out[len(out)-1].Candidates[0].FinishReason = events[len(events)-1].Candidates[0].FinishReason
	return out, nil
}

// argPieces returns the pieces that stream args, in a fixed order: keys
// sorted, strings cut every pieceSize bytes (on character boundaries).
func argPieces(args map[string]any) ([]*genai.PartialArg, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var v any // plain JSON values: float64 numbers
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var out []*genai.PartialArg
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 && path != "$" {
				return fmt.Errorf("an empty object at %s cannot be streamed in pieces", path)
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := walk(memberPath(path, k), x[k]); err != nil {
					return err
				}
			}
		case []any:
			if len(x) == 0 {
				return fmt.Errorf("an empty array at %s cannot be streamed in pieces", path)
			}
			for i, e := range x {
				if err := walk(path+"["+strconv.Itoa(i)+"]", e); err != nil {
					return err
				}
			}
		case string:
			for {
				n := min(pieceSize, len(x))
				for n < len(x) && !utf8.RuneStart(x[n]) {
					n++
				}
				pa := &genai.PartialArg{JsonPath: path, StringValue: x[:n]}
				if n < len(x) {
					pa.WillContinue = genai.Ptr(true)
				}
				out = append(out, pa)
				if x = x[n:]; x == "" {
					return nil
				}
			}
		case float64:
			out = append(out, &genai.PartialArg{JsonPath: path, NumberValue: genai.Ptr(x)})
		case bool:
			out = append(out, &genai.PartialArg{JsonPath: path, BoolValue: genai.Ptr(x)})
		case nil:
			out = append(out, &genai.PartialArg{JsonPath: path, NULLValue: "NULL_VALUE"})
		}
		return nil
	}
	if v == nil { // no args
		return nil, nil
	}
	return out, walk("$", v)
}

var shorthand = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// memberPath appends the member name k to path: ".k" when k is a plain
// name, else "['k']" with RFC 9535's escapes.
func memberPath(path, k string) string {
	if shorthand.MatchString(k) {
		return path + "." + k
	}
	var b strings.Builder
	b.WriteString(path + "['")
	for _, r := range k {
		switch {
		case r == '\'' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("']")
	return b.String()
}
