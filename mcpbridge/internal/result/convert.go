// Package result is the MCP result format on the Bridge's side: it turns
// what an MCP server returns into what Gemini and a person read, a
// tools/call result ([Convert]), a resources/read result
// ([ResourceParts]) or a prompts/get result ([PromptContents]) into genai
// parts and a display text, with one base64 decoder for all
// ([DecodeBase64]), the text limit ([TextLimit], [TruncateParts]), the
// binary cap ([CapBinary]), and the cleaning of a server's or a model's
// text for a person ([CleanText], bounded, and [OneLine] for one line of a
// status). It also writes the few tools/call results the Bridge makes
// itself ([FromValue], [ToolError], [AppendText]), so that they read back
// exactly as a server's would. It works on raw JSON, so that nothing a
// client library would drop or reject is lost on the way.
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// Options say how [Convert] words and limits what it builds.
type Options struct {
	// Tool is the tool's name as the server knows it, used in messages.
	Tool string
	// TextLimit is how many characters of text the model reads (see
	// [TruncateParts]); 0 means [DefaultTextLimit], negative means no
	// limit. In the display each text or JSON block is cut to the same
	// limit on its own (a fence is never cut), with no limit on the whole.
	TextLimit int
}

// octetStream is the MIME type of a block that names none.
const octetStream = "application/octet-stream"

// Result is a tool's result converted for the model and for a person.
type Result struct {
	// Parts are what the model reads, in the order of the content blocks.
	Parts []*genai.Part
	// Display is the text a person sees; never empty.
	Display string
	// Structured is the decoded structuredContent (numbers as
	// json.Number) that the function response carries; nil when there is
	// none or when it was too long and went to Parts as text instead.
	Structured any
	// ServerStructured is the decoded structuredContent as the server
	// sent it, whatever its length; nil when none.
	ServerStructured any
	// TextIsStructured reports whether a text block already carries
	// Structured.
	TextIsStructured bool
	// IsError reports whether the server flagged the result as an error;
	// Err then says so with the result's text.
	IsError bool
	Err     error
}

// Convert turns the raw JSON of an MCP tools/call result into a Result:
//
//   - text: a text part; the display shows the text, or a pretty ```json
//     block when the text is a JSON object or array.
//   - image, audio: an inline data part with the block's MIME type
//     (application/octet-stream when missing); display "[Image: mime]" or
//     "[Audio: mime]". Data that is not base64 (standard or URL alphabet,
//     padded or not, whitespace ignored) or is empty becomes a text note.
//   - resource: embedded text becomes a text part shown as is; an embedded
//     blob becomes inline data shown as "[Embedded Resource: mime]".
//   - resource_link: "Resource Link: name at uri", shown as
//     "[Link to name: uri]" (name falls back to title, then to the uri).
//   - any other block: a text note saying it was dropped; display
//     "[Unknown content type: X]".
//
// Parts keep the order of the blocks; display lines are joined by "\n". The
// text parts are cut together to opts.TextLimit ([TruncateParts]).
// structuredContent is kept for the function response and shown as pretty JSON unless a text block already carries it; when its
// compact JSON is longer than the limit it is sent as text instead (added
// after the other text unless a text block already carries it) and cut like
// the rest, since cut JSON is no longer JSON. isError (only the JSON value
// true) sets IsError and Err and prefixes the display with "Error: MCP tool 'x' reported
// an error.". An empty result shows "(no output)". _meta and unknown keys
// are ignored.
//
// raw is not modified or retained. The error is non-nil only when raw is not
// a JSON object or its content is not an array; a bad block never fails the
// whole result.
func Convert(raw json.RawMessage, opts Options) (Result, error) {
	fields, err := decodeObject(raw)
	if err != nil {
		return Result{}, fmt.Errorf("decoding result of tool %q: %w", opts.Tool, err)
	}
	var blocks []json.RawMessage
	if c := fields["content"]; len(c) > 0 && !isNull(c) {
		// raw was checked whole by decodeObject: its parts are valid JSON.
		if blocks, err = validElems(c); err != nil {
			return Result{}, fmt.Errorf("decoding result of tool %q: content: want an array, got %s",
				opts.Tool, jsonKind(c))
		}
	}
	limit := TextLimit(opts.TextLimit)

	var r Result
	var display []string
	for _, b := range blocks {
		part, shown := validBlock(b, limit)
		r.Parts = append(r.Parts, part)
		display = append(display, shown)
	}
	fullText := JoinText(r.Parts)
	if s := fields["structuredContent"]; len(s) > 0 && !isNull(s) {
		dec := json.NewDecoder(bytes.NewReader(s))
		dec.UseNumber()    // keep numbers exactly as the server wrote them
		var structured any // not &r.Structured: that would move r to the heap
		if err := dec.Decode(&structured); err == nil {
			r.Structured, r.ServerStructured = structured, structured
			r.TextIsStructured = sameJSON(fullText, s)
			if !r.TextIsStructured {
				display = append(display, jsonBlock(s, limit))
			}
			// JSON cannot be cut and stay JSON: structured content over the
			// limit reaches the model as text, cut like any other text.
			var compact bytes.Buffer
			_ = json.Compact(&compact, s) // s is valid: it was just decoded
			if limit >= 0 && utf8.RuneCount(compact.Bytes()) > limit {
				if !r.TextIsStructured {
					r.Parts = append(r.Parts, &genai.Part{Text: compact.String()})
				}
				r.Structured, r.TextIsStructured = nil, false
			}
		}
	}
	r.Parts = TruncateParts(r.Parts, limit)

	shown := strings.Join(display, "\n")
	if string(bytes.TrimSpace(fields["isError"])) == "true" {
		r.IsError = true
		header := fmt.Sprintf("Error: MCP tool '%s' reported an error.", opts.Tool)
		if shown == "" {
			shown = header
		} else {
			shown = header + "\n" + shown
		}
		if msg := JoinText(r.Parts); msg == "" {
			r.Err = fmt.Errorf("mcp tool %q reported an error", opts.Tool)
		} else {
			r.Err = fmt.Errorf("mcp tool %q reported an error: %s", opts.Tool, msg)
		}
	}
	if shown == "" {
		shown = "(no output)"
	}
	r.Display = shown
	return r, nil
}

// Block converts one MCP content block (of a tool result or a prompt
// message) into the part the model reads and the line a person sees, as
// [Convert] describes. Text in the display is cut to limit characters
// (negative: no limit); the part is not cut.
func Block(raw json.RawMessage, limit int) (*genai.Part, string) {
	if !json.Valid(raw) {
		return unknownBlock("(invalid JSON)")
	}
	return validBlock(raw, limit)
}

// validBlock is Block for a block known to be valid JSON.
func validBlock(raw json.RawMessage, limit int) (*genai.Part, string) {
	f, err := validFields(raw)
	if err != nil || f == nil {
		return unknownBlock("(" + jsonKind(raw) + ")")
	}
	typ := jsonString(f["type"])
	switch typ {
	case "text":
		text := jsonString(f["text"])
		if looksLikeJSON(text) {
			return &genai.Part{Text: text}, jsonBlock([]byte(text), limit)
		}
		return &genai.Part{Text: text}, Truncate(text, limit)
	case "image", "audio":
		label := "Image"
		if typ == "audio" {
			label = "Audio"
		}
		mime := mimeType(f["mimeType"])
		shown := fmt.Sprintf("[%s: %s]", label, mime)
		data, err := DecodeBase64(jsonString(f["data"]))
		if err != nil {
			return &genai.Part{Text: fmt.Sprintf("[%s %s dropped: %v]", typ, mime, err)},
				fmt.Sprintf("%s (%v)", shown, err)
		}
		return &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}}, shown
	case "resource":
		return resourceBlock(f["resource"], limit)
	case "resource_link":
		uri := jsonString(f["uri"])
		name := firstNonEmpty(jsonString(f["name"]), jsonString(f["title"]), uri)
		return &genai.Part{Text: fmt.Sprintf("Resource Link: %s at %s", name, uri)},
			fmt.Sprintf("[Link to %s: %s]", name, uri)
	case "":
		if _, ok := f["type"]; !ok {
			return unknownBlock("(missing)")
		}
	}
	return unknownBlock(typ)
}

// resourceBlock converts an embedded resource: its text, else its blob.
func resourceBlock(raw json.RawMessage, limit int) (*genai.Part, string) {
	var f map[string]json.RawMessage
	_ = json.Unmarshal(raw, &f) // a bad resource is reported below as having no contents
	uri := jsonString(f["uri"])
	if t, ok := f["text"]; ok && !isNull(t) {
		text := jsonString(t)
		return &genai.Part{Text: text}, Truncate(text, limit)
	}
	mime := mimeType(f["mimeType"])
	shown := fmt.Sprintf("[Embedded Resource: %s]", mime)
	b, ok := f["blob"]
	if !ok || isNull(b) {
		return &genai.Part{Text: fmt.Sprintf("[embedded resource %q dropped: it has neither text nor blob]", uri)},
			shown + " (no contents)"
	}
	data, err := DecodeBase64(jsonString(b))
	if err != nil {
		return &genai.Part{Text: fmt.Sprintf("[embedded resource %q (%s) dropped: %v]", uri, mime, err)},
			fmt.Sprintf("%s (%v)", shown, err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}}, shown
}

// unknownBlock is the note and the display line for a block of type typ that
// has no conversion.
func unknownBlock(typ string) (*genai.Part, string) {
	return &genai.Part{Text: fmt.Sprintf("[content of unknown type %q dropped]", typ)},
		fmt.Sprintf("[Unknown content type: %s]", typ)
}

// decodeObject decodes raw as a JSON object into its raw fields.
func decodeObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	f, err := objectFields(raw)
	if err != nil || f == nil {
		if !json.Valid(raw) {
			return nil, errors.New("result is not valid JSON")
		}
		return nil, fmt.Errorf("result: want a JSON object, got %s", jsonKind(raw))
	}
	return f, nil
}

// jsonKind names the kind of the JSON value raw: "object", "array",
// "string", "number", "boolean", "null", or "invalid JSON".
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || !json.Valid(t) {
		return "invalid JSON"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonString returns raw as a string: the value of a JSON string, "" when
// absent or null, else the compact JSON text (a number where a string was
// expected is kept, not dropped).
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	if s, ok := plainString(raw); ok {
		return s
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// plainString returns the string raw spells when raw is a JSON string
// without escapes and in valid UTF-8, which decoding would return as is;
// false otherwise. raw must be one valid JSON value, as the decoder's
// RawMessages are: then a leading quote means one string literal.
func plainString(raw json.RawMessage) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	body := raw[1 : n-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// mimeType returns the MIME type in raw, or application/octet-stream.
func mimeType(raw json.RawMessage) string {
	if m := strings.TrimSpace(jsonString(raw)); m != "" {
		return m
	}
	return octetStream
}

// looksLikeJSON reports whether s is a JSON object or array (scalars such
// as "42" are shown as plain text).
func looksLikeJSON(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}

// jsonBlock shows the JSON raw indented by two spaces, keys in the server's
// order, cut to limit, in a ```json fence.
func jsonBlock(raw []byte, limit int) string {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(raw), "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	return "```json\n" + Truncate(b.String(), limit) + "\n```"
}

// sameJSON reports whether text is a JSON document equal in value to the
// JSON structured (key order, spacing and number spelling aside).
func sameJSON(text string, structured json.RawMessage) bool {
	var a, b any
	if json.Unmarshal([]byte(text), &a) != nil || json.Unmarshal(structured, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
