package result

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func text(s string) *genai.Part { return &genai.Part{Text: s} }

func blob(mime string, data ...byte) *genai.Part {
	return &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}}
}

// TestConvert covers what Convert fills beside the parts and the display,
// which the tests of package mcpbridge check through CallResult.
func TestConvert(t *testing.T) {
	tests := []struct {
		name           string
		raw            string
		wantParts      []*genai.Part
		wantDisplay    string
		wantStructured bool // Structured set
		wantTextIsSC   bool
		wantIsError    bool
		wantErr        string
	}{
		{name: "text", raw: `{"content":[{"type":"text","text":"hi"}]}`, wantParts: []*genai.Part{text("hi")}, wantDisplay: "hi"},
		{name: "empty", raw: `{}`, wantDisplay: "(no output)"},
		{name: "error flag", raw: `{"content":[{"type":"text","text":"boom"}],"isError":true}`, wantParts: []*genai.Part{text("boom")},
			wantDisplay: "Error: MCP tool 't' reported an error.\nboom", wantIsError: true, wantErr: `mcp tool "t" reported an error: boom`},
		{name: "structured carried by the text", raw: `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}`,
			wantParts: []*genai.Part{text(`{"a":1}`)}, wantDisplay: "```json\n{\n  \"a\": 1\n}\n```", wantStructured: true, wantTextIsSC: true},
		{name: "structured too long goes to text", raw: `{"structuredContent":{"long":"` + strings.Repeat("x", 40) + `"}}`,
			wantParts:   []*genai.Part{text(`{"long":"xx`), text("[... 29 of 51 characters (29 bytes) cut from the middle ...]"), text(`xxxxxxxxx"}`)},
			wantDisplay: "```json\n{\n  \"long\":\n[... 34 of 56 characters (34 bytes) cut from the middle ...]\nxxxxxxxx\"\n}\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Convert(json.RawMessage(tt.raw), Options{Tool: "t", TextLimit: 22})
			if err != nil {
				t.Fatalf("Convert(%s) error = %v", tt.raw, err)
			}
			if diff := cmp.Diff(tt.wantParts, r.Parts); diff != "" {
				t.Errorf("Convert(%s).Parts (-want +got):\n%s", tt.raw, diff)
			}
			if r.Display != tt.wantDisplay {
				t.Errorf("Convert(%s).Display = %q, want %q", tt.raw, r.Display, tt.wantDisplay)
			}
			if (r.Structured != nil) != tt.wantStructured || r.TextIsStructured != tt.wantTextIsSC || r.IsError != tt.wantIsError {
				t.Errorf("Convert(%s) = Structured %v, TextIsStructured %v, IsError %v; want set %v, %v, %v",
					tt.raw, r.Structured, r.TextIsStructured, r.IsError, tt.wantStructured, tt.wantTextIsSC, tt.wantIsError)
			}
			if strings.Contains(tt.raw, "structuredContent") && r.ServerStructured == nil {
				t.Errorf("Convert(%s).ServerStructured = nil, want the decoded value", tt.raw)
			}
			gotErr := ""
			if r.Err != nil {
				gotErr = r.Err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("Convert(%s).Err = %q, want %q", tt.raw, gotErr, tt.wantErr)
			}
		})
	}
	if _, err := Convert(json.RawMessage(`[1]`), Options{Tool: "t"}); err == nil || !strings.Contains(err.Error(), `"t"`) {
		t.Errorf("Convert([1]) error = %v, want one naming the tool", err)
	}
}

// TestDecodeBase64 is the one decoder of tool-result blocks and resource
// blobs: both accept and refuse the same data.
func TestDecodeBase64(t *testing.T) {
	tests := []struct {
		name, data string
		want       []byte
		wantErr    string
	}{
		{"padded standard", "AAE=", []byte{0, 1}, ""},
		{"unpadded", "AAE", []byte{0, 1}, ""},
		{"URL alphabet", "-_8", []byte{0xfb, 0xff}, ""},
		{"wrapped lines and spaces", "AA\r\nE=\t ", []byte{0, 1}, ""},
		{"empty", "", nil, "no data"},
		{"white space only", " \n", nil, "no data"},
		{"not base64", "!!", nil, "not valid base64"},
		{"bad padding", "A===", nil, "not valid base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quoted, _ := json.Marshal(tt.data)
			block := `{"content":[{"type":"image","mimeType":"image/png","data":` + string(quoted) + `}]}`
			resource := `{"contents":[{"uri":"u","mimeType":"image/png","blob":` + string(quoted) + `}]}`

			got, err := DecodeBase64(tt.data)
			r, cerr := Convert(json.RawMessage(block), Options{Tool: "t"})
			parts, rerr := ResourceParts([]byte(resource))
			if cerr != nil {
				t.Fatal(cerr)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("DecodeBase64(%q) error = %v, want %q", tt.data, err, tt.wantErr)
				}
				if len(r.Parts) != 1 || r.Parts[0].InlineData != nil || !strings.Contains(r.Parts[0].Text, tt.wantErr) {
					t.Errorf("image block with %q = %+v, want a note saying %q", tt.data, r.Parts, tt.wantErr)
				}
				if rerr == nil || !strings.Contains(rerr.Error(), tt.wantErr) {
					t.Errorf("resource blob %q: ResourceParts error = %v, want %q", tt.data, rerr, tt.wantErr)
				}
				return
			}
			want := []*genai.Part{blob("image/png", tt.want...)}
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("DecodeBase64(%q) = %v, %v; want %v", tt.data, got, err, tt.want)
			}
			if diff := cmp.Diff(want, r.Parts); diff != "" {
				t.Errorf("image block with %q (-want +got):\n%s", tt.data, diff)
			}
			if diff := cmp.Diff(want, parts); rerr != nil || diff != "" {
				t.Errorf("resource blob %q: error %v (-want +got):\n%s", tt.data, rerr, diff)
			}
		})
	}
}

func TestResourceParts(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []*genai.Part
		wantErr bool
	}{
		{"text and blob in order", `{"contents":[{"uri":"a","text":"x"},{"uri":"b","mimeType":"audio/wav","blob":"AAE="}]}`,
			[]*genai.Part{genai.NewPartFromText("x"), genai.NewPartFromBytes([]byte{0, 1}, "audio/wav")}, false},
		{"unpadded blob without mime type", `{"contents":[{"uri":"b","blob":"AAE"}]}`,
			[]*genai.Part{genai.NewPartFromBytes([]byte{0, 1}, "application/octet-stream")}, false},
		{"empty text is text", `{"contents":[{"uri":"a","text":""}]}`, []*genai.Part{genai.NewPartFromText("")}, false},
		{"no contents", `{}`, []*genai.Part{}, false},
		{"neither text nor blob", `{"contents":[{"uri":"a"}]}`, nil, true},
		{"bad base64", `{"contents":[{"uri":"a","blob":"!!"}]}`, nil, true},
		{"not an object", `[1]`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResourceParts([]byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("ResourceParts(%s) error = %v, want error %v", tc.raw, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ResourceParts(%s) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}

func TestCapBinary(t *testing.T) {
	parts := []*genai.Part{blob("a/b", 1, 2, 3), text("t"), blob("c/d", 4, 5), blob("e/f", 6)}
	got := CapBinary(parts, 4)
	want := []*genai.Part{blob("a/b", 1, 2, 3), text("t"),
		text("[c/d content of 2 bytes left out: the result's binary content is limited to 4 bytes]"), blob("e/f", 6)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CapBinary(4) (-want +got):\n%s", diff)
	}
	if got := CapBinary([]*genai.Part{blob("a/b", 1, 2)}, -1); len(got) != 1 || got[0].InlineData == nil {
		t.Errorf("CapBinary(-1) = %v, want the data kept", got)
	}
}

// FuzzConvert: any bytes give an error or a Result with a display, parts
// without nil entries, and IsError only with Err.
func FuzzConvert(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"x"},{"type":"image","data":"AAE="}],"isError":true}`), 4)
	f.Add([]byte(`{"structuredContent":{"a":[1,2]},"content":"no"}`), -1)
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"u","blob":""}},7,null]}`), 0)
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		r, err := Convert(raw, Options{Tool: "t", TextLimit: limit % 100})
		if err != nil {
			return
		}
		if r.Display == "" {
			t.Fatalf("Convert(%q).Display is empty", raw)
		}
		for i, p := range r.Parts {
			if p == nil {
				t.Fatalf("Convert(%q).Parts[%d] is nil", raw, i)
			}
		}
		if r.IsError != (r.Err != nil) {
			t.Fatalf("Convert(%q): IsError %v with Err %v", raw, r.IsError, r.Err)
		}
	})
}
