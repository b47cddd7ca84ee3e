package mcpbridge

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// convertOptions says how convertResult labels and limits what it builds.
type convertOptions struct {
	Name   string // registered function name, as the model called it
	ID     string // the call's ID, echoed as is ("" stays "")
	Server string // server the tool ran on
	Tool   string // original MCP tool name, used in messages
	// TextLimit is how many characters of text the model reads (see
	// truncateParts); 0 means defaultTextLimit, negative means no limit.
	// In the display each text or JSON block is cut to the same limit on
	// its own (a fence is never cut), with no limit on the whole.
	TextLimit int
}

const octetStream = "application/octet-stream"

// convertResult turns the raw JSON of an MCP tools/call result into a
// CallResult, following SPEC §6:
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
// text parts are cut together to opts.TextLimit (truncateParts).
// structuredContent is kept for the response (see CallResult.FunctionResponse)
// and shown as pretty JSON unless a text block already carries it; when its
// compact JSON is longer than the limit it is sent as text instead (added
// after the other text unless a text block already carries it) and cut like
// the rest, since cut JSON is no longer JSON. isError (only the JSON value
// true) sets Err and prefixes the display with "Error: MCP tool 'x' reported
// an error.". An empty result shows "(no output)". _meta and unknown keys
// are ignored.
//
// raw is not modified or retained. The error is non-nil only when raw is not
// a JSON object or its content is not an array; a bad block never fails the
// whole result.
func convertResult(raw json.RawMessage, opts convertOptions) (*CallResult, error) {
	fields, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding result of tool %q: %w", opts.Tool, err)
	}
	var blocks []json.RawMessage
	if c := fields["content"]; len(c) > 0 && !isNull(c) {
		// raw was checked whole by decodeObject: its parts are valid JSON.
		if blocks, err = validElems(c); err != nil {
			return nil, fmt.Errorf("decoding result of tool %q: content: want an array, got %s",
				opts.Tool, jsonKind(c))
		}
	}
	limit := textLimit(opts.TextLimit)

	r := &CallResult{Name: opts.Name, ID: opts.ID, Server: opts.Server, ServerTool: opts.Tool}
	var display []string
	for _, b := range blocks {
		part, shown := convertValidBlock(b, limit)
		r.LLMContent = append(r.LLMContent, part)
		display = append(display, shown)
	}
	fullText := joinText(r.LLMContent)
	if s := fields["structuredContent"]; len(s) > 0 && !isNull(s) {
		dec := json.NewDecoder(bytes.NewReader(s))
		dec.UseNumber() // keep numbers exactly as the server wrote them
		if err := dec.Decode(&r.structured); err == nil {
			r.serverStructured = r.structured
			r.textIsStructured = sameJSON(fullText, s)
			if !r.textIsStructured {
				display = append(display, jsonBlock(s, limit))
			}
			// JSON cannot be cut and stay JSON: structured content over the
			// limit reaches the model as text, cut like any other text.
			var compact bytes.Buffer
			_ = json.Compact(&compact, s) // s is valid: it was just decoded
			if limit >= 0 && utf8.RuneCount(compact.Bytes()) > limit {
				if !r.textIsStructured {
					r.LLMContent = append(r.LLMContent, &genai.Part{Text: compact.String()})
				}
				r.structured, r.textIsStructured = nil, false
			}
		}
	}
	r.LLMContent = truncateParts(r.LLMContent, limit)

	shown := strings.Join(display, "\n")
	if string(bytes.TrimSpace(fields["isError"])) == "true" {
		r.serverError = true
		header := fmt.Sprintf("Error: MCP tool '%s' reported an error.", opts.Tool)
		if shown == "" {
			shown = header
		} else {
			shown = header + "\n" + shown
		}
		if msg := joinText(r.LLMContent); msg == "" {
			r.Err = fmt.Errorf("mcp tool %q reported an error", opts.Tool)
		} else {
			r.Err = fmt.Errorf("mcp tool %q reported an error: %s", opts.Tool, msg)
		}
	}
	if shown == "" {
		shown = "(no output)"
	}
	r.ReturnDisplay = shown
	return r, nil
}

// convertBlock converts one content block into the part the model reads and
// the line a person sees. Text in the display is cut to limit.
func convertBlock(raw json.RawMessage, limit int) (*genai.Part, string) {
	if !json.Valid(raw) {
		return unknownBlock("(invalid JSON)")
	}
	return convertValidBlock(raw, limit)
}

// convertValidBlock is convertBlock for a block known to be valid JSON.
func convertValidBlock(raw json.RawMessage, limit int) (*genai.Part, string) {
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
		return &genai.Part{Text: text}, truncateText(text, limit)
	case "image", "audio":
		label := "Image"
		if typ == "audio" {
			label = "Audio"
		}
		mime := mimeType(f["mimeType"])
		shown := fmt.Sprintf("[%s: %s]", label, mime)
		data, err := decodeBase64(jsonString(f["data"]))
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
		return &genai.Part{Text: text}, truncateText(text, limit)
	}
	mime := mimeType(f["mimeType"])
	shown := fmt.Sprintf("[Embedded Resource: %s]", mime)
	b, ok := f["blob"]
	if !ok || isNull(b) {
		return &genai.Part{Text: fmt.Sprintf("[embedded resource %q dropped: it has neither text nor blob]", uri)},
			shown + " (no contents)"
	}
	data, err := decodeBase64(jsonString(b))
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

// decodeBase64 decodes s in the standard or URL alphabet, padded or not,
// ignoring ASCII whitespace (servers wrap long lines). Empty data is an
// error: an empty inline part is of no use to the model.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			return -1
		}
		return r
	}, s)
	if s == "" {
		return nil, errors.New("no data")
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			return d, nil
		}
	}
	// The decoder's byte offset would count from the stripped text, which
	// misleads more than it helps.
	return nil, errors.New("data is not valid base64")
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
	return "```json\n" + truncateText(b.String(), limit) + "\n```"
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
